// The CLI as a newcomer meets it (issue 14): one answer for one pair, self-explaining decisions,
// errors in the user's words with a pointer to --help, exit codes that say what happened.
import { describe, expect, test, beforeAll } from 'vitest'
import { chmodSync, copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../../../src/cli/main.js'
import { fakeIO } from '../../helpers/cli.js'
import { ARTICLE_A } from '../../fixtures/articles.js'

let dir: string
type Doc = { id: string; content: string }
let docs: Doc[] // the valid documents of examples/news.jsonl, in input order
let decisions: Record<string, unknown>[]

const lines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'simdup-usability-'))
  copyFileSync(new URL('../../../examples/news.jsonl', import.meta.url), join(dir, 'news.jsonl'))
  expect(await run(['index', 'news.jsonl', '--out', 'd.jsonl', '--store', 'st', '--quiet'], fakeIO(dir).io)).toBe(0)
  decisions = lines(readFileSync(join(dir, 'd.jsonl'), 'utf8'))
  docs = readFileSync(join(dir, 'news.jsonl'), 'utf8').split('\n').flatMap((l) => {
    try {
      const d = JSON.parse(l) as Doc
      return typeof d.content === 'string' && d.content !== '' ? [d] : []
    } catch {
      return []
    }
  })
})

const cli = async (args: string[], stdin = '') => {
  const f = fakeIO(dir, stdin)
  const code = await run(args, f.io)
  return { code, stdout: f.stdout(), stderr: f.stderr() }
}

describe('14.1 compare gives the answer index and explain give', () => {
  test('every pair of the example documents: same verdict and rule as explain (content layers)', async () => {
    let compared = 0
    for (let i = 0; i < docs.length; i++) {
      for (let j = i + 1; j < docs.length; j++) {
        const [a, b] = [docs[i]!, docs[j]!]
        const explain = await cli(['explain', a.id, b.id, '--store', 'st', '--json'])
        expect(explain.code, explain.stderr).toBe(0)
        const e = JSON.parse(explain.stdout) as { duplicate: boolean; layer: string | null; rule: string | null }
        if (e.layer === 'url' || e.layer === 'title') continue // compare sees texts, not URLs or titles
        writeFileSync(join(dir, 'a.txt'), a.content)
        writeFileSync(join(dir, 'b.txt'), b.content)
        const c = await cli(['compare', '@a.txt', '@b.txt', '--json'])
        const got = JSON.parse(c.stdout) as { nearDuplicate: boolean; layer: string | null; rule: string | null }
        expect([a.id, b.id, got.nearDuplicate, got.layer, got.rule]).toEqual([a.id, b.id, e.duplicate, e.layer, e.rule])
        compared++
      }
    }
    expect(compared).toBeGreaterThan(50)
  }, 120_000)

  test('the MinHash route: a lightly edited article that SimHash puts 7 bits apart is a duplicate, with its evidence', async () => {
    const [a, b] = [docs.find((d) => d.id === 'net-001')!, docs.find((d) => d.id === 'net-002-ad')!]
    const c = await cli(['compare', a.content, b.content])
    expect(c.stdout).toMatch(/^verdict +duplicates by the simhash layer, minhash rule \(estimated 5-gram resemblance 0\.\d\d ≥ 0\.6\d, at any distance\)\ndistance +7 \(k = 3\)/)
  })

  test('"only in a / only in b" come from the full term sets, not the top terms', async () => {
    // 市民 → 公众 ("citizens" → "the public") and a byline: light edits far from the top terms
    const edited = ARTICLE_A.replace('有市民表示', '有公众表示') + '（记者 王小明）'
    const c = JSON.parse((await cli(['compare', ARTICLE_A, edited, '--json'])).stdout) as { onlyA: string[]; onlyB: string[]; counts: { onlyA: number; onlyB: number } }
    expect(c.onlyA).toContain('市民')
    expect(c.onlyB).toEqual(expect.arrayContaining(['公众', '王小明']))
    expect(c.counts.onlyA).toBe(c.onlyA.length)
  })
})

describe('14.2 decisions explain themselves', () => {
  test('each simhash-layer duplicate carries the evidence of its rule; minhash ones show resemblance, not only a distance above k', () => {
    const dups = decisions.filter((d) => d.layer === 'simhash')
    expect(new Set(dups.map((d) => d.rule))).toEqual(new Set(['minhash', 'short-text']))
    for (const d of dups) {
      if (d.rule === 'minhash') expect(d.resemblance as number).toBeGreaterThanOrEqual(0.5)
      if (d.rule === 'short-text') expect([d.distance as number <= 3, d.resemblance as number >= 0.8]).toEqual([true, true])
      if (d.rule === 'simhash') expect([d.distance as number <= 3, d.resemblance]).toEqual([true, null])
    }
    expect(dups.some((d) => d.rule === 'minhash' && (d.distance as number) > 3)).toBe(true)
    expect(decisions.filter((d) => d.layer !== 'simhash').every((d) => d.resemblance === null)).toBe(true)
  })

  test('--help says what k controls and what it does not', async () => {
    const help = (await cli(['index', '--help'])).stdout
    expect(help).toMatch(/--k N +how many of the 64 SimHash bits may differ for the simhash and short-text\s+rules: 0 to 3/)
    expect(help).toMatch(/It does not limit the\s+url, exact and minhash routes/)
  })
})

describe('14.3 one --k check, in the user\'s terms, for every command', () => {
  const commands: string[][] = [
    ['index', 'news.jsonl', '--store', 'k1'],
    ['compare', 'a', 'b'],
    ['explain', 'a', 'b', '--store', 'st'],
    ['reconcile', '--store', 'st'],
    ['reindex', '--es', 'http://127.0.0.1:1', '--source', 's', '--dest', 'd'],
  ]
  test.each(['-1', '4', 'x', '2.5'])('--k %s', async (k) => {
    for (const args of commands) {
      const r = await cli([...args, '--k', k])
      expect([args[0], r.code]).toEqual([args[0], 2])
      expect(r.stderr).toContain(`simdup ${args[0]}: Expected --k to be an integer from 0 to 3, got \`${k}\`: k is how many of the 64 SimHash bits may differ`)
      expect(r.stderr).not.toMatch(/maxDistance|ambiguous/)
    }
  })
})

describe('14.4 a whole file in the wrong format', () => {
  test('a CSV: every line rejected → the summary says so, names JSONL, exit 2', async () => {
    writeFileSync(join(dir, 'docs.csv'), 'id,content\n1,你好\n2,再见\n')
    const r = await cli(['index', 'docs.csv', '--store', 'csv', '--out', 'csv.jsonl', '--quiet'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/^simdup index: every line of docs.csv was rejected \(3 of 3\): expected JSONL, one JSON object per line/)
    expect(lines(readFileSync(join(dir, 'csv.jsonl'), 'utf8')).map((d) => d.status)).toEqual(['rejected', 'rejected', 'rejected'])
  })
  test('a JSON array: the hint says how to convert it', async () => {
    writeFileSync(join(dir, 'docs.json'), JSON.stringify([{ id: 'a', content: ARTICLE_A }]))
    const r = await cli(['index', 'docs.json', '--store', 'arr', '--out', 'arr.jsonl'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/It looks like a JSON array: convert it to JSONL with `jq -c '\.\[\]' docs\.json`/)
  })
})

describe('14.5 inputs that cannot be read: one line, exit 2', () => {
  test('a directory, a missing file', async () => {
    mkdirSync(join(dir, 'adir'), { recursive: true })
    const d = await cli(['index', 'adir', '--store', 'x5'])
    expect([d.code, d.stderr]).toEqual([2, 'simdup index: cannot read input file adir: it is a directory; expected a JSONL file (or - for stdin)\n'])
    const m = await cli(['index', 'nope.jsonl', '--store', 'x5'])
    expect([m.code, m.stderr]).toEqual([2, 'simdup index: cannot read input file nope.jsonl: no such file or directory (ENOENT)\n'])
    const c = await cli(['compare', '@adir', 'x'])
    expect([c.code, c.stderr]).toEqual([2, 'simdup compare: cannot read adir: it is a directory, not a file (EISDIR)\n'])
  })
  // root reads any file: the permission check can only fail for another user
  test.skipIf(process.getuid?.() === 0)('an unreadable file', async () => {
    writeFileSync(join(dir, 'secret.jsonl'), '{}\n')
    chmodSync(join(dir, 'secret.jsonl'), 0o000)
    const r = await cli(['index', 'secret.jsonl', '--store', 'x5'])
    expect([r.code, r.stderr]).toEqual([2, 'simdup index: cannot read input file secret.jsonl: permission denied (EACCES)\n'])
  })
  test('an input that fails to open (missing, a directory) leaves an existing --out as it was (11.4)', async () => {
    writeFileSync(join(dir, 'kept.jsonl'), 'earlier decisions\n')
    mkdirSync(join(dir, 'adir'), { recursive: true })
    for (const input of ['nope.jsonl', 'adir']) {
      expect((await cli(['index', input, '--out', 'kept.jsonl', '--store', 'x5'])).code).toBe(2)
      expect(readFileSync(join(dir, 'kept.jsonl'), 'utf8')).toBe('earlier decisions\n')
    }
  })
})

describe('11.4 output files', () => {
  test('--out (or --rejects) naming the input file is refused before anything is written; the input stays whole', async () => {
    writeFileSync(join(dir, 'self.jsonl'), JSON.stringify({ id: 'a', content: ARTICLE_A }) + '\n')
    const before = readFileSync(join(dir, 'self.jsonl'), 'utf8')
    const r = await cli(['index', 'self.jsonl', '--out', 'self.jsonl', '--store', 'self'])
    expect([r.code, r.stderr]).toEqual([2, 'simdup index: --out is the input file: it would be replaced; choose another file.\nsee simdup index --help\n'])
    expect((await cli(['index', 'self.jsonl', '--out', 'o-self.jsonl', '--rejects', 'self.jsonl', '--store', 'self'])).code).toBe(2)
    expect(readFileSync(join(dir, 'self.jsonl'), 'utf8')).toBe(before)
  })
  test('a symbolic link as --out is written through (the link stays a link); no temporary file is left', async () => {
    const work = mkdtempSync(join(tmpdir(), 'simdup-link-'))
    writeFileSync(join(work, 'real.jsonl'), 'old\n')
    symlinkSync('real.jsonl', join(work, 'link.jsonl'))
    const input = JSON.stringify({ id: 'a', content: ARTICLE_A }) + '\n'
    expect(await run(['index', '-', '--out', 'link.jsonl', '--store', 's', '--quiet'], fakeIO(work, input).io)).toBe(0)
    expect(lstatSync(join(work, 'link.jsonl')).isSymbolicLink()).toBe(true)
    expect(lines(readFileSync(join(work, 'real.jsonl'), 'utf8'))).toMatchObject([{ id: 'a', status: 'unique' }])
    expect(readdirSync(work).sort()).toEqual(['link.jsonl', 'real.jsonl', 's'])
  })
})

describe('14.7 cluster by a member id; delete names the ids it did not find', () => {
  test('cluster <member> shows the member\'s cluster', async () => {
    const r = await cli(['cluster', 'net-003-cut', '--store', 'st'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^net-003-cut is a member of cluster net-001\ncluster net-001: 3 member\(s\)\n\* net-001 /)
    const j = JSON.parse((await cli(['cluster', 'net-003-cut', '--store', 'st', '--json'])).stdout) as { clusterId: string; size: number }
    expect(j).toMatchObject({ clusterId: 'net-001', size: 3 })
    const none = await cli(['cluster', 'nope', '--store', 'st'])
    expect(none.code).toBe(2)
    expect(none.stderr).toMatch(/no cluster or document `nope`/)
  })
  test('delete nope: exit 2 and the missing id named; the ids that exist are deleted', async () => {
    writeFileSync(join(dir, 'two.jsonl'), [JSON.stringify({ id: 'keep', content: ARTICLE_A }), JSON.stringify({ id: 'gone', content: `${ARTICLE_A}（完）` })].join('\n'))
    expect((await cli(['index', 'two.jsonl', '--store', 'del', '--quiet'])).code).toBe(0)
    const r = await cli(['delete', 'gone', 'nope', '--store', 'del'])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('deleted 1, re-pointed 0 record(s)\n')
    expect(r.stderr).toMatch(/^simdup delete: not in the embedded store .*del: nope\n$/)
    expect(JSON.parse((await cli(['delete', 'nope', '--store', 'del', '--json'])).stdout)).toEqual({ deleted: 0, reassigned: 0, notFound: ['nope'] })
  })
})

describe('14.8 the rejects file goes where asked', () => {
  test('decisions on stdout: no simdup-rejects.jsonl in the working directory; --rejects puts one where it says; --out puts it next to out', async () => {
    const work = mkdtempSync(join(tmpdir(), 'simdup-rejects-'))
    const input = `${JSON.stringify({ id: 'a', content: ARTICLE_A })}\nnot json\n`
    const f = fakeIO(work, input)
    expect(await run(['index', '-', '--store', 's'], f.io)).toBe(0)
    expect(readdirSync(work).sort()).toEqual(['s'])
    expect(f.stderr()).toMatch(/rejected lines: each one's reason is in its decision \(--rejects FILE also keeps the raw lines\)/)
    expect(await run(['index', '-', '--store', 's', '--rejects', 'r.jsonl', '--quiet'], fakeIO(work, input).io)).toBe(0)
    expect(lines(readFileSync(join(work, 'r.jsonl'), 'utf8'))).toMatchObject([{ line: 2, raw: 'not json' }])
    expect(await run(['index', '-', '--store', 's', '--out', 'o.jsonl', '--quiet'], fakeIO(work, input).io)).toBe(0)
    expect(existsSync(join(work, 'o.rejects.jsonl'))).toBe(true)
  })
})

describe('14.9 numeric ids', () => {
  test('an integer id is accepted as its decimal string; other non-strings are rejected with a reason that says what is accepted', async () => {
    const input = [
      JSON.stringify({ id: 7, content: ARTICLE_A }),
      JSON.stringify({ id: 1.5, content: ARTICLE_A }),
      '{"id": 12345678901234567890, "content": "大整数"}', // "big integer": past 2^53, JSON.parse changes it
      JSON.stringify({ id: true, content: ARTICLE_A }),
    ].join('\n')
    const r = await cli(['index', '-', '--store', 'num', '--quiet'], input)
    const d = lines(r.stdout)
    expect(d[0]).toMatchObject({ id: '7', status: 'unique' })
    expect(d[1]!.reason).toBe('line 2: expected field `id` to be a non-empty string or an integer, got `1.5` (number)')
    expect(d[2]!.reason).toMatch(/^line 3: expected field `id` to be a non-empty string or an integer, got .* \(an integer beyond 2\^53 loses digits in JSON: quote it\)$/)
    expect(d[3]!.reason).toMatch(/non-empty string or an integer, got `true` \(boolean\)/)
  })
})

describe('14.10 usage errors point to --help', () => {
  const bad: string[][] = [
    ['index', 'news.jsonl', '--frobnicate'],
    ['index'],
    ['index', 'news.jsonl', '--out'],
    ['index', 'news.jsonl', '--batch', '0'],
    ['index', 'news.jsonl', '--blocks', '4', '--min-match', '4'],
    ['compare', 'one'],
    ['fingerprint'],
    ['cluster', '--store', 'st'],
    ['clusters', '--top', 'all', '--store', 'st'],
    ['explain', 'a', '--store', 'st'],
    ['delete', '--store', 'st'],
    ['reconcile', '--bogus'],
    ['reindex', '--source', 'x'],
  ]
  test.each(bad)('%s …', async (...args) => {
    const r = await cli(args)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(new RegExp(`^simdup ${args[0]}: [^\\n]+\\nsee simdup ${args[0]} --help\\n$`))
    expect(r.stderr).not.toMatch(/'--|"--/) // the parser's quoting, unclosed
  })
  test('an unknown flag is named cleanly', async () => {
    expect((await cli(['index', 'news.jsonl', '--frobnicate'])).stderr).toBe('simdup index: unknown option `--frobnicate`.\nsee simdup index --help\n')
  })
})

describe('14.11 what cluster shows', () => {
  test('help says plainly that the embedded store keeps no texts', async () => {
    expect((await cli(['cluster', '--help'])).stdout).toMatch(/The embedded store\s+keeps fingerprints, not texts: texts side by side only on Elasticsearch/)
    expect((await cli(['--help'])).stdout).not.toMatch(/cluster .*texts/)
  })
})

describe('11.7 ids are printed escaped', () => {
  test('ESC sequences and newlines in ids cannot paint or forge lines on the terminal', async () => {
    const evil = 'x\u001b[2J\u001b[31mred\nfake line\u009b'
    const input = [JSON.stringify({ id: evil, content: ARTICLE_A }), JSON.stringify({ id: `${evil}2`, content: ARTICLE_A })].join('\n')
    const indexed = await cli(['index', '-', '--store', 'evil', '--quiet'], input)
    expect(indexed.code).toBe(0)
    // the decisions (JSON) on a terminal: same values once parsed, no raw control character
    expect(lines(indexed.stdout).map((d) => d.id)).toEqual([evil, `${evil}2`])
    for (const args of [[], ['cluster', evil, '--json'], ['explain', evil, `${evil}2`, '--json']]) {
      const out = args.length === 0 ? indexed.stdout : (await cli([...args, '--store', 'evil'])).stdout
      expect([out.includes('\u001b'), out.includes('\u009b'), out.includes('\\u009b')]).toEqual([false, false, true])
    }
    for (const args of [['clusters'], ['cluster', evil], ['cluster', `${evil}2`], ['explain', evil, `${evil}2`]]) {
      const r = await cli([...args, '--store', 'evil'])
      expect(r.code).toBe(0)
      expect(r.stdout).not.toMatch(/red\nfake/)
      expect([r.stdout.includes('\u001b'), r.stdout.includes('\u009b')]).toEqual([false, false])
      expect(r.stdout).toContain('x\\u001b[2J\\u001b[31mred\\nfake line\\u009b')
    }
  })
})

describe('--version', () => {
  test("prints package.json's version, not a literal", async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
    const { code, stdout } = await cli(['--version'])
    expect(code).toBe(0)
    expect(stdout).toBe(`simdup ${pkg.version}\n`)
  })
})

describe('issue 26: outputs that would replace the input or the store', () => {
  const doc = JSON.stringify({ id: 'a', content: ARTICLE_A }) + '\n'
  test('--out or --rejects inside the store directory is refused; the store keeps its records', async () => {
    const work = mkdtempSync(join(tmpdir(), 'simdup-guard-'))
    expect(await run(['index', '-', '--store', 'big', '--quiet'], fakeIO(work, doc).io)).toBe(0)
    const log = readFileSync(join(work, 'big', 'store.log'))
    for (const flags of [['--out', 'big/store.log'], ['--out', 'big/new.jsonl'], ['--out', 'o.jsonl', '--rejects', 'big/SIMDUP_STORE'], ['--out', './big/../big/LOCK']]) {
      const { io, stderr } = fakeIO(work, doc)
      expect(await run(['index', '-', '--store', 'big', '--quiet', ...flags], io)).toBe(2)
      expect(stderr()).toMatch(/is inside the store directory .*big: it would replace the store's files/)
    }
    expect(readFileSync(join(work, 'big', 'store.log'))).toEqual(log)
    // A hard link to the log, outside the store, is a store file too.
    linkSync(join(work, 'big', 'store.log'), join(work, 'linked.log'))
    const { io, stderr } = fakeIO(work, doc)
    expect(await run(['index', '-', '--store', 'big', '--out', 'linked.log'], io)).toBe(2)
    expect(stderr()).toMatch(/is a file of the store/)
    expect(readFileSync(join(work, 'big', 'store.log'))).toEqual(log)
  })

  test('--out /dev/null with a rejected line writes no /dev/null.rejects.jsonl', async () => {
    const work = mkdtempSync(join(tmpdir(), 'simdup-guard-'))
    rmSync('/dev/null.rejects.jsonl', { force: true }) // (left by a run of the old code, as root)
    const { io } = fakeIO(work, doc + 'not json\n')
    expect(await run(['index', '-', '--store', 's', '--out', '/dev/null', '--quiet'], io)).toBe(0)
    expect(existsSync('/dev/null.rejects.jsonl')).toBe(false)
  })
})

describe('issue 26: small ones', () => {
  test.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('`simdup %s` is an unknown command (exit 2), not a crash', async (name) => {
    const { io, stderr } = fakeIO(mkdtempSync(join(tmpdir(), 'simdup-cmd-')))
    expect(await run([name], io)).toBe(2)
    expect(stderr()).toMatch(new RegExp(`^simdup: unknown command \`${name}\``))
  })

  test('ids differing only by zero-width or format characters print differently (escaped)', async () => {
    const { printable } = await import('../../../src/cli/io.js')
    const ids = ['ab', 'a\u200bb', 'a\u200db', 'a\ufeffb', 'a\u00adb', 'a\u{e0041}b']
    const shown = ids.map(printable)
    expect(new Set(shown).size).toBe(ids.length)
    expect(shown.slice(1)).toEqual(['a\\u200bb', 'a\\u200db', 'a\\ufeffb', 'a\\u00adb', 'a\\u{e0041}b'])
  })

  test('a --store that is a regular file: a clear error, exit 1 (not 4, "retry later")', async () => {
    const work = mkdtempSync(join(tmpdir(), 'simdup-storefile-'))
    writeFileSync(join(work, 'afile'), 'x')
    const { io, stderr } = fakeIO(work, JSON.stringify({ id: 'a', content: ARTICLE_A }) + '\n')
    expect(await run(['index', '-', '--store', 'afile', '--quiet'], io)).toBe(1)
    expect(stderr()).toMatch(/STORE_REQUEST_FAILED: Cannot open the store in .*afile: .*\((?:EEXIST|ENOTDIR)\)/)
  })
})
