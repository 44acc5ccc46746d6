import { describe, expect, test, beforeEach } from 'vitest'
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../../../src/cli/main.js'
import { createProgress } from '../../../src/cli/progress.js'
import { AUTO_WORKERS_MIN_BYTES, autoWorkers } from '../../../src/cli/commands/index-jsonl.js'
import { fakeIO } from '../../helpers/cli.js'
import { ARTICLE_A, ARTICLE_B } from '../../fixtures/articles.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'simdup-cli-'))
})

const lines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)

describe('simdup index', () => {
  test('one decision per non-blank line, in order, rejects to the rejects file, exit 0', async () => {
    copyFileSync(new URL('../../fixtures/bad-lines.jsonl', import.meta.url), join(dir, 'in.jsonl'))
    const f = fakeIO(dir)
    const code = await run(['index', 'in.jsonl', '--out', 'out.jsonl'], f.io)
    expect(code).toBe(0)
    const decisions = lines(readFileSync(join(dir, 'out.jsonl'), 'utf8'))
    expect(decisions.map((d) => d.line)).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 10])
    expect(decisions.map((d) => d.status)).toEqual(['unique', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'duplicate'])
    expect(Object.keys(decisions[0]!)).toEqual(['id', 'line', 'status', 'duplicate_of', 'distance', 'layer', 'cluster_id', 'simhash', 'reason', 'rule', 'resemblance'])
    expect(decisions[2]).toMatchObject({ id: null, reason: expect.stringMatching(/^line 3: invalid JSON/) })
    expect(decisions[8]).toMatchObject({ id: 'good-2', duplicate_of: 'good-1', layer: 'exact', cluster_id: 'good-1' })
    const rejects = lines(readFileSync(join(dir, 'out.rejects.jsonl'), 'utf8'))
    expect(rejects.map((r) => r.line)).toEqual([2, 3, 5, 6, 7, 8, 9])
    expect(rejects[1]).toMatchObject({ raw: 'this is not json' })
    expect(rejects[6]!.reason).toMatch(/line 9: .*`url`/)
    expect(f.stderr()).toMatch(/docs 9 +unique 1 +duplicates 1 \(exact 1\) +clusters 1 +rejected 7/)
  })

  test('state persists in --store between runs; re-indexing an id updates it', async () => {
    writeFileSync(join(dir, 'a.jsonl'), JSON.stringify({ id: 'a', content: ARTICLE_A }) + '\n')
    writeFileSync(join(dir, 'b.jsonl'), [JSON.stringify({ id: 'b', content: ARTICLE_A }), JSON.stringify({ id: 'a', content: ARTICLE_A })].join('\n'))
    expect(await run(['index', 'a.jsonl', '--out', 'o1.jsonl', '--store', 'st', '--quiet'], fakeIO(dir).io)).toBe(0)
    expect(await run(['index', 'b.jsonl', '--out', 'o2.jsonl', '--store', 'st', '--quiet'], fakeIO(dir).io)).toBe(0)
    const second = lines(readFileSync(join(dir, 'o2.jsonl'), 'utf8'))
    expect(second[0]).toMatchObject({ id: 'b', status: 'duplicate', duplicate_of: 'a' })
    expect(second[1]).toMatchObject({ id: 'a', status: 'unique' })
  })

  test('default store is ./.simdup; stdin input; decisions to stdout', async () => {
    const f = fakeIO(dir, JSON.stringify({ id: 'x', content: ARTICLE_B }) + '\n')
    expect(await run(['index', '-', '--quiet'], f.io)).toBe(0)
    expect(lines(f.stdout())[0]).toMatchObject({ id: 'x', status: 'unique' })
    expect(existsSync(join(dir, '.simdup'))).toBe(true)
  })

  test('usage errors exit 2 with a message, no stack', async () => {
    const f = fakeIO(dir)
    expect(await run(['index'], f.io)).toBe(2)
    expect(f.stderr()).toMatch(/Expected one input file/)
    const g = fakeIO(dir)
    expect(await run(['index', 'missing.jsonl'], g.io)).toBe(2)
    expect(g.stderr()).toMatch(/cannot read input file missing.jsonl: no such file or directory \(ENOENT\)/)
    const h = fakeIO(dir)
    expect(await run(['index', 'x', '--k', '9'], h.io)).toBe(2)
    const i = fakeIO(dir)
    expect(await run(['frobnicate'], i.io)).toBe(2)
    expect(i.stderr()).toMatch(/unknown command `frobnicate`/)
    expect(i.stderr()).not.toMatch(/at .*\.ts:\d+/)
  })

  test('a 6-block scheme (3 must match) decides the example file like the default 4 × 16 blocks', async () => {
    copyFileSync(new URL('../../../examples/news.jsonl', import.meta.url), join(dir, 'news.jsonl'))
    expect(await run(['index', 'news.jsonl', '--out', 'd4.jsonl', '--store', 's4', '--quiet'], fakeIO(dir).io)).toBe(0)
    expect(await run(['index', 'news.jsonl', '--out', 'd6.jsonl', '--store', 's6', '--quiet', '--blocks', '6', '--min-match', '3'], fakeIO(dir).io)).toBe(0)
    const pick = (f: string) => lines(readFileSync(join(dir, f), 'utf8')).map((d) => [d.id, d.status, d.cluster_id])
    expect(pick('d6.jsonl')).toEqual(pick('d4.jsonl'))
    const bad = fakeIO(dir)
    expect(await run(['index', 'news.jsonl', '--store', 's7', '--k', '3', '--blocks', '4', '--min-match', '2'], bad.io)).toBe(2)
    expect(bad.stderr()).toMatch(/Expected --k to be an integer from 0 to 2, got `3`/)
  })

  test('a progress display made after the work started counts rate and ETA from the real start', () => {
    let out = ''
    const p = createProgress({ write: (t) => (out += t), isTTY: true, total: 100, label: 'reindexed', elapsedMs: 10_000 })
    p.update(50, 50)
    // 50 docs in 10 s, half done: 5 docs/s and 10 s to go (not the rate of the moment since creation).
    expect(out).toMatch(/\] 50\.0% reindexed 50 docs, 5 docs\/s, ETA 10s$/)
  })

  test('the ETA follows the recent rate when the run slows down, not the average since the start', () => {
    let out = ''
    let now = 0
    const p = createProgress({ write: (t) => (out += t), isTTY: true, total: 100, now: () => now })
    // 5 units/s for 10 s, then 0.5 units/s for 60 s: 80 of 100 units done at t = 70 s.
    for (now = 1000; now <= 10_000; now += 1000) p.update(5 * (now / 1000), now / 1000)
    for (now = 12_000; now <= 70_000; now += 2000) p.update(50 + (now / 1000 - 10) / 2, now / 1000)
    // Last 30 s: 15 units, 0.5/s, so 20 left take 40 s (the average, 80 in 70 s, would say 18 s).
    // …and says it is unsure: the last window's rate is far from the whole run's.
    expect(out).toMatch(/80\.0% indexed 70 docs, 1 docs\/s, ETA 40s \(unsure: rate changing\)$/)
  })

  test('non-TTY progress prints a summary line with docs/s; a small file runs in-process by default', async () => {
    writeFileSync(join(dir, 'a.jsonl'), JSON.stringify({ id: 'a', content: ARTICLE_A }) + '\n')
    const f = fakeIO(dir)
    await run(['index', 'a.jsonl', '--out', 'o.jsonl'], f.io)
    expect(f.stderr()).toMatch(/docs\/s, in-process \(no workers\)/)
    const bad = fakeIO(dir)
    expect(await run(['index', 'a.jsonl', '--out', 'o.jsonl', '--workers', 'many'], bad.io)).toBe(2)
    expect(bad.stderr()).toMatch(/--workers to be auto or an integer from 1 to 64, got `many`/)
  })

  test('--workers auto: a pool of one worker per core (up to 4) from 32 MB on, none below or for stdin', () => {
    expect(autoWorkers(AUTO_WORKERS_MIN_BYTES - 1, 8)).toBe(1)
    expect(autoWorkers(AUTO_WORKERS_MIN_BYTES, 2)).toBe(2)
    expect(autoWorkers(AUTO_WORKERS_MIN_BYTES, 16)).toBe(4)
    expect(autoWorkers(AUTO_WORKERS_MIN_BYTES * 10, 1)).toBe(1)
    expect(autoWorkers(undefined, 8)).toBe(1)
  })
})

describe('simdup fingerprint / compare', () => {
  test('fingerprint prints 16 hex digits; --json adds terms and version', async () => {
    const f = fakeIO(dir)
    expect(await run(['fingerprint', ARTICLE_A], f.io)).toBe(0)
    expect(f.stdout()).toMatch(/^[0-9a-f]{16}\n$/)
    const g = fakeIO(dir)
    await run(['fingerprint', '--json', ARTICLE_A], g.io)
    const j = JSON.parse(g.stdout()) as { simhash: string; terms: { term: string }[]; version: string; short: boolean }
    expect(j.simhash).toBe(f.stdout().trim())
    expect(j.terms.map((t) => t.term)).toContain('图书馆') // "library"
    expect(j.short).toBe(false)
  })
  test('compare reports distance, verdict and shared terms', async () => {
    const f = fakeIO(dir)
    await run(['compare', '--json', ARTICLE_A, `${ARTICLE_A}（完）`], f.io) // "(end)"
    const c = JSON.parse(f.stdout()) as { distance: number; nearDuplicate: boolean; shared: string[]; onlyB: string[] }
    expect(c.nearDuplicate).toBe(true)
    expect(c.shared).toContain('图书馆')
    const g = fakeIO(dir)
    await run(['compare', ARTICLE_A, ARTICLE_B], g.io)
    expect(g.stdout()).toMatch(/not duplicates/)
  })
})
