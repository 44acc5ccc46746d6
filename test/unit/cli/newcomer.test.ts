// What a newcomer trips on (issue 29): progress that tells the truth, messages that name the
// cause, counts by the rule that decided. Each test failed on the code before its fix.
import { describe, expect, test, beforeAll } from 'vitest'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { errors } from '@elastic/elasticsearch'
import { existsSync } from 'node:fs'
import { run } from '../../../src/cli/main.js'
import { toStoreError } from '../../../src/elasticsearch/failures.js'
import { Redactor } from '../../../src/elasticsearch/redaction.js'
import { createProgress } from '../../../src/cli/progress.js'
import { fakeIO } from '../../helpers/cli.js'
import { ARTICLE_A } from '../../fixtures/articles.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'simdup-newcomer-'))
})

const lines = (text: string) => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)
const cli = async (args: string[], stdin = '', isTTY = false) => {
  const f = fakeIO(dir, stdin, isTTY)
  const code = await run(args, f.io)
  return { code, stdout: f.stdout(), stderr: f.stderr() }
}

describe('29.1 progress and ETA', () => {
  test('the percentage counts decided lines, not lines read ahead', { timeout: 120_000 }, async () => {
    // 2,000 lines of one size: the whole file is read at once (1 MiB chunks), decided 100 at a time.
    const n = 2000
    writeFileSync(join(dir, 'many.jsonl'), Array.from({ length: n }, (_, i) => JSON.stringify({ id: `d${String(i).padStart(5, '0')}`, content: `第${String(i).padStart(5, '0')}号文件：这是一段用来测试进度显示的中文内容。` })).join('\n') + '\n')
    const r = await cli(['index', 'many.jsonl', '--store', 'many', '--out', 'many.out.jsonl', '--batch', '100'], '', true)
    expect(r.code).toBe(0)
    const draws = [...r.stderr.matchAll(/\] (\d+\.\d)% indexed ([\d,]+) docs/g)].map((m) => [Number(m[1]), Number(m[2]!.replace(/,/g, ''))] as const)
    expect(draws.length).toBeGreaterThan(0)
    for (const [pct, docs] of draws) expect(Math.abs(pct - (100 * docs) / n)).toBeLessThan(2)
  })

  test('an ETA at the start is marked unsure; with no progress yet it says so instead of "?"', () => {
    let out = ''
    let now = 0
    const p = createProgress({ write: (t) => (out += t), isTTY: true, total: 100, now: () => now })
    now = 150
    p.update(0, 0)
    expect(out).toMatch(/ETA unknown \(estimating\)$/)
    expect(out).not.toMatch(/ETA \?/)
    now = 2000
    p.update(5, 5)
    expect(out).toMatch(/ETA 38s \(unsure: early\)$/)
  })

  test('a rate that changes makes the ETA unsure; a steady one does not', () => {
    let out = ''
    let now = 0
    const steady = createProgress({ write: (t) => (out += t), isTTY: true, total: 1000, now: () => now })
    for (now = 1000; now <= 60_000; now += 1000) steady.update(now / 100, now / 100)
    expect(out).toMatch(/60\.0% indexed 600 docs, 10 docs\/s, ETA 40s$/)
    out = ''
    const slowing = createProgress({ write: (t) => (out += t), isTTY: true, total: 1000, now: () => now })
    // 10/s for 60 s, then 1/s for 60 s: the last window's rate is far from the whole run's.
    for (now = 1000; now <= 60_000; now += 1000) slowing.update(now / 100, now / 100)
    for (now = 61_000; now <= 120_000; now += 1000) slowing.update(600 + (now - 60_000) / 1000, 0)
    expect(out).toMatch(/ETA 5m40s \(unsure: rate changing\)$/)
  })
})

describe('29.5 inputs that are not what they seem', () => {
  test('an empty input is not a silent success: a warning says nothing was decided', async () => {
    writeFileSync(join(dir, 'empty.jsonl'), '')
    const r = await cli(['index', 'empty.jsonl', '--store', 'empty', '--out', 'empty.out.jsonl'])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/warning: empty\.jsonl has no lines to index/)
  })

  test('a line over the size limit keeps its id and its start in the decision and the rejects file', async () => {
    const big = JSON.stringify({ id: 'huge-1', title: '大文件', content: '很长的内容。'.repeat(1_500_000) })
    expect(Buffer.byteLength(big)).toBeGreaterThan(8 * 2 ** 20)
    writeFileSync(join(dir, 'big.jsonl'), JSON.stringify({ id: 'a', content: ARTICLE_A }) + '\n' + big + '\n')
    const r = await cli(['index', 'big.jsonl', '--store', 'big', '--out', 'big.out.jsonl', '--quiet'])
    expect(r.code).toBe(0)
    const d = lines(readFileSync(join(dir, 'big.out.jsonl'), 'utf8'))
    expect(d[1]).toMatchObject({ id: 'huge-1', line: 2, status: 'rejected' })
    expect(d[1]!.reason).toMatch(/longer than the limit/)
    const rej = lines(readFileSync(join(dir, 'big.out.rejects.jsonl'), 'utf8'))
    expect(rej[0]).toMatchObject({ line: 2, id: 'huge-1' })
    expect(rej[0]!.raw).toMatch(/^\{"id":"huge-1","title":"大文件","content":"很长的内容。/)
  })

  test('a CSV stops after the first lines, before a rejected decision per line', async () => {
    writeFileSync(join(dir, 'long.csv'), 'id,content\n' + Array.from({ length: 300 }, (_, i) => `${i},第${i}行`).join('\n') + '\n')
    const r = await cli(['index', 'long.csv', '--store', 'longcsv'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/stopped at line 20: the first 20 lines of long\.csv are not JSON objects: expected JSONL/)
    expect(r.stdout).toBe('')
  })
})

describe('29.3 / 29.4 what decided, and how many', () => {
  let decisions: Record<string, unknown>[]
  let summary: string
  beforeAll(async () => {
    writeFileSync(join(dir, 'news.jsonl'), readFileSync(new URL('../../../examples/news.jsonl', import.meta.url)))
    const r = await cli(['index', 'news.jsonl', '--store', 'news', '--out', 'news.out.jsonl'])
    expect(r.code).toBe(0)
    summary = r.stderr
    decisions = lines(readFileSync(join(dir, 'news.out.jsonl'), 'utf8'))
  })

  test('the summary counts duplicates by the rule that decided them, as the decisions name it', () => {
    const counts = new Map<string, number>()
    for (const d of decisions) {
      if (d.status !== 'duplicate') continue
      const by = (d.layer === 'simhash' ? d.rule : d.layer) as string
      counts.set(by, (counts.get(by) ?? 0) + 1)
    }
    expect(counts.get('minhash')).toBeGreaterThan(0)
    const shown = /duplicates \d+ \(([^)]*)\)/.exec(summary)![1]!
    expect(new Map(shown.split(', ').map((p) => [p.split(' ')[0]!, Number(p.split(' ')[1])]))).toEqual(counts)
  })

  test('cluster shows each near-duplicate member\'s rule and resemblance', async () => {
    const m = decisions.find((d) => d.rule === 'minhash')!
    const r = await cli(['cluster', m.id as string, '--store', 'news'])
    expect(r.code).toBe(0)
    const row = r.stdout.split('\n').find((l) => l.includes(` ${m.id as string} `))!
    expect(row).toMatch(new RegExp(`minhash ${(m.resemblance as number).toFixed(2)} +dup of ${m.duplicate_of as string}`))
  })

  test('cluster prints the cluster\'s size and how many members it shows', async () => {
    const sizes = new Map<string, number>()
    for (const d of decisions) if (d.cluster_id !== null) sizes.set(d.cluster_id as string, (sizes.get(d.cluster_id as string) ?? 0) + 1)
    const [big, n] = [...sizes].sort((a, b) => b[1] - a[1])[0]!
    expect(n).toBeGreaterThan(2)
    const r = await cli(['cluster', big, '--store', 'news', '--limit', '2'])
    expect(r.stdout).toMatch(new RegExp(`^cluster ${big}: ${n} member\\(s\\), showing 2 `))
    const j = JSON.parse((await cli(['cluster', big, '--store', 'news', '--limit', '2', '--json'])).stdout) as { size: number; shown: number }
    expect([j.size, j.shown]).toEqual([n, 2])
  })
})

describe('29.5 a mistyped --store', () => {
  test('delete and reconcile refuse a store that does not exist instead of creating an empty one', async () => {
    for (const args of [['delete', 'x1'], ['reconcile']]) {
      const r = await cli([...args, '--store', 'no-such-store'])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(/There is no simdup store in .*no-such-store: it does not exist/)
      expect(existsSync(join(dir, 'no-such-store'))).toBe(false)
    }
  })
})

describe('29.6 messages that name the cause', () => {
  test('a 401 says authentication failed and where credentials go; no empty "caused by"', () => {
    // What the client throws for a 401 to a HEAD request (indices.exists): no body, an empty message.
    const unauthorized = new errors.ResponseError({ body: '', statusCode: 401, headers: {}, warnings: null, meta: { attempts: 1 } } as never)
    const e = toStoreError(unauthorized, { action: 'indices.exists', index: 'news', node: 'http://127.0.0.1:9200' }, new Redactor([]))
    expect(e.code).toBe('STORE_REQUEST_FAILED')
    expect(e.message).toMatch(/authentication failed \(status 401\)/)
    expect(e.message).toMatch(/ES_API_KEY.*ES_USERNAME and ES_PASSWORD/)
  })

  test('--es without a scheme names the flag and the fix, not the library option', async () => {
    const r = await cli(['clusters', '--es', '127.0.0.1:9200'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/Expected --es to be an http:\/\/ or https:\/\/ URL .*got `127\.0\.0\.1:9200` \(write `http:\/\/127\.0\.0\.1:9200`/)
    expect(r.stderr).not.toMatch(/`node`/)
  })

  test('unknown commands and flags get a "did you mean"', async () => {
    expect((await cli(['clustr'])).stderr).toMatch(/unknown command `clustr`\. Did you mean `simdup cluster`\?/)
    expect((await cli(['indx', 'a.jsonl'])).stderr).toMatch(/Did you mean `simdup index`\?/)
    const r = await cli(['index', 'a.jsonl', '--stor', 'x'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/unknown option `--stor`\. Did you mean `--store`\?/)
    expect((await cli(['frobnicate'])).stderr).not.toMatch(/Did you mean/)
  })
})

describe('29.8 the Elasticsearch client: a declared range, checked', () => {
  test('@elastic/elasticsearch is an optional peer dependency (an embedded-only install has no @elastic/*), with the checked range', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as Record<string, Record<string, unknown>>
    const { CLIENT_RANGE } = await import('../../../src/elasticsearch/connection.js')
    expect(pkg.dependencies!['@elastic/elasticsearch']).toBeUndefined()
    expect(pkg.peerDependencies!['@elastic/elasticsearch']).toBe(CLIENT_RANGE)
    expect(pkg.peerDependenciesMeta!['@elastic/elasticsearch']).toEqual({ optional: true })
  })

  test('a 9.x client is refused before any request, and the node\'s answer to one is explained', async () => {
    const { checkClientVersion, installedClientVersion } = await import('../../../src/elasticsearch/connection.js')
    expect(installedClientVersion()).toMatch(/^8\./)
    expect(() => checkClientVersion('8.19.2')).not.toThrow()
    expect(() => checkClientVersion('9.0.2')).toThrow(/needs the @elastic\/elasticsearch client 8\.x .*found 9\.0\.2.*npm install @elastic\/elasticsearch@8/)
    // What an Elasticsearch 8 node answers a 9.x client passed in by the caller.
    const body = { error: { type: 'media_type_header_exception', reason: 'Invalid media-type value on headers [Accept, Content-Type]', root_cause: [{ type: 'media_type_header_exception', reason: 'Accept version must be either version 8 or 7, but found 9' }] }, status: 400 }
    const refused = new errors.ResponseError({ body, statusCode: 400, headers: {}, warnings: null, meta: { attempts: 1 } } as never)
    expect(toStoreError(refused, { action: '_search', index: 'news' }, new Redactor([])).message).toMatch(/client is 9\.x; simdup supports 8\.x .*npm install @elastic\/elasticsearch@8/)
  })
})
