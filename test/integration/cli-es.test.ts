import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@elastic/elasticsearch'
import { acquireElasticsearch, testIndexFlags, testIndexOptions } from '../helpers/es-node.js'
import { expectConsistent } from '../helpers/rerun.js'
import { createDeduplicator, type FingerprintRecord } from '../../src/index.js'
import { matchCandidate } from '../../src/internal.js'
import { createElasticsearchStore } from '../../src/elasticsearch/index.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../fixtures/articles.js'

const BIN = fileURLToPath(new URL('../../bin/simdup.js', import.meta.url))
let es: Awaited<ReturnType<typeof acquireElasticsearch>>
let client: Client
let dir: string
const indices: string[] = []
const indexName = (tag: string) => {
  const name = `simdup-cli-${process.pid}-${tag}`
  indices.push(name)
  return name
}

beforeAll(async () => {
  es = await acquireElasticsearch()
  console.log(`Elasticsearch ${es.version} (${es.flavor}) from ${es.source}`)
  client = new Client({ nodes: es.nodes })
  dir = mkdtempSync(join(tmpdir(), 'simdup-cli-es-'))
})
afterAll(async () => {
  for (const index of indices) await client.indices.delete({ index }).catch(() => undefined)
  await client.close()
  await es?.stop()
})

const run = (args: string[], env: Record<string, string> = {}) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, ES_URL: '', ...env } })
    let stdout = ''
    let stderr = ''
    p.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
    p.on('close', (code) => resolve({ code, stdout, stderr }))
  })

/** Documents with near-duplicates of four articles: suffixes, truncations, Traditional-free edits. */
function docs(prefix: string, n: number) {
  const arts = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D]
  return Array.from({ length: n }, (_, i) => {
    const a = arts[i % 4]!
    const variant = Math.floor(i / 4) % 3
    const content = variant === 0 ? a : variant === 1 ? `${a}（完）` : a.slice(0, Math.floor(a.length * 0.9))
    return { id: `${prefix}${i}`, content: `${content}${i >= 40 ? `编号${Math.floor(i / 40)}` : ''}` }
  })
}
const lines = (d: object[]) => d.map((x) => JSON.stringify(x)).join('\n') + '\n'
const decisions = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)

async function records(index: string): Promise<FingerprintRecord[]> {
  const store = await createElasticsearchStore({ node: es.url, index, ensureIndex: 'none' })
  const out: FingerprintRecord[] = []
  for await (const b of store.scan(500)) out.push(...b)
  await store.close()
  return out
}

describe('simdup index --es', () => {
  test('gives the same decisions as the embedded store', async () => {
    writeFileSync(join(dir, 'same.jsonl'), lines(docs('s', 60)))
    const index = indexName('same')
    const onEs = await run(['index', 'same.jsonl', '--out', 'es.jsonl', '--es', es.url, '--index', index, '--batch', '16', ...testIndexFlags()])
    expect(onEs.code, onEs.stderr).toBe(0)
    const embedded = await run(['index', 'same.jsonl', '--out', 'mem.jsonl', '--store', 'mem', '--batch', '16'])
    expect(embedded.code).toBe(0)
    const a = decisions(readFileSync(join(dir, 'es.jsonl'), 'utf8'))
    const b = decisions(readFileSync(join(dir, 'mem.jsonl'), 'utf8'))
    expect(a.map((d) => [d.id, d.status, d.cluster_id])).toEqual(b.map((d) => [d.id, d.status, d.cluster_id]))
    expect(a.filter((d) => d.status === 'duplicate').length).toBeGreaterThan(30)
    // Searchable as soon as the command exits: it ends with a refresh (no refresh_interval wait).
    expect((await client.count({ index })).count).toBe(60)
    // Inspection commands read the same index.
    const top = await run(['clusters', '--json', '--es', es.url, '--index', index])
    const clusters = (JSON.parse(top.stdout) as { clusters: { size: number }[] }).clusters
    expect(clusters.reduce((s, c) => s + c.size, 0)).toBe(a.filter((d) => d.status === 'duplicate').length + clusters.length)
  })

  test('two indexers at once on overlapping data: after reconcile no near-duplicate pair is left in two clusters', async () => {
    const all = docs('r', 120)
    writeFileSync(join(dir, 'left.jsonl'), lines(all.filter((_, i) => i % 2 === 0 || i % 5 === 0)))
    writeFileSync(join(dir, 'right.jsonl'), lines(all.filter((_, i) => i % 2 === 1 || i % 5 === 0)))
    const index = indexName('race')
    // Create the index first so the two processes do not race to create it.
    await (await createElasticsearchStore({ node: es.url, index, ...testIndexOptions() })).close()
    const [l, r] = await Promise.all([
      run(['index', 'left.jsonl', '--out', 'l.jsonl', '--es', es.url, '--index', index, '--batch', '5', '--quiet']),
      run(['index', 'right.jsonl', '--out', 'r.jsonl', '--es', es.url, '--index', index, '--batch', '5', '--quiet']),
    ])
    expect([l.code, r.code], l.stderr + r.stderr).toEqual([0, 0])
    const rec = await run(['reconcile', '--json', '--es', es.url, '--index', index])
    expect(rec.code, rec.stderr).toBe(0)
    const after = await records(index)
    expect(after).toHaveLength(120)
    const store = await createElasticsearchStore({ node: es.url, index, ensureIndex: 'none' })
    const o = createDeduplicator({ store }).options
    const apart = after.flatMap((a) => after.filter((b) => a.id < b.id && a.clusterId !== b.clusterId && matchCandidate(a, b, o) !== null).map((b) => `${a.id}~${b.id}`))
    // No pointer at a record first indexed later, every cluster named after its representative.
    await expectConsistent(store)
    await store.close()
    expect(apart).toEqual([])
    // Every cluster is named after a member that is its representative.
    const ids = new Set(after.map((x) => x.id))
    for (const x of after) {
      expect(ids.has(x.clusterId)).toBe(true)
      if (x.duplicateOf !== null) expect(ids.has(x.duplicateOf)).toBe(true)
    }
  })

  test('Elasticsearch gone mid-run: the run fails cleanly; a re-run loses nothing and writes nothing twice', async () => {
    // A proxy between the CLI and the node, cut after a few batches: the node "stops".
    let cut = false
    let bytes = 0
    const sockets = new Set<net.Socket>()
    const target = new URL(es.nodes[0]!)
    const proxy = net.createServer((c) => {
      if (cut) return c.destroy()
      const up = net.connect(Number(target.port), target.hostname)
      sockets.add(c).add(up)
      c.on('data', (d: Buffer) => {
        bytes += d.length
        if (bytes > 120_000 && !cut) {
          cut = true
          for (const s of sockets) s.destroy()
          return
        }
        up.write(d)
      })
      up.on('data', (d) => c.write(d))
      c.on('error', () => up.destroy())
      up.on('error', () => c.destroy())
      c.on('close', () => up.destroy())
    })
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r))
    const port = (proxy.address() as net.AddressInfo).port
    const index = indexName('down')
    const input = docs('k', 200)
    writeFileSync(join(dir, 'down.jsonl'), lines(input))
    const first = await run(['index', 'down.jsonl', '--out', 'd1.jsonl', '--es', `http://127.0.0.1:${port}`, '--index', index, '--batch', '20', ...testIndexFlags()])
    proxy.close()
    expect(first.stderr).toMatch(/STORE_UNAVAILABLE|STORE_REQUEST_FAILED/)
    // Unreachable: exit 4 (worth a retry); a request that failed on the way down: 1.
    expect(first.code).toBe(/STORE_UNAVAILABLE/.test(first.stderr) ? 4 : 1)
    expect(first.stderr).not.toMatch(/\n\s+at /) // a message, not a stack trace
    const reported = readFileSync(join(dir, 'd1.jsonl'), 'utf8').trim().split('\n').filter(Boolean).map((x) => JSON.parse(x) as { id: string })
    // Every decision reported before the failure is in the index.
    await client.indices.refresh({ index })
    const stored = new Set((await records(index)).map((x) => x.id))
    for (const d of reported) expect(stored.has(d.id)).toBe(true)
    // Re-run the same input against the node: everything is there exactly once.
    const second = await run(['index', 'down.jsonl', '--out', 'd2.jsonl', '--es', es.url, '--index', index, '--batch', '20', '--quiet', ...testIndexFlags()])
    expect(second.code, second.stderr).toBe(0)
    await client.indices.refresh({ index })
    expect((await client.count({ index })).count).toBe(200)
    const final = await records(index)
    expect(new Set(final.map((x) => x.id)).size).toBe(200)
    // Re-run decisions agree with an uninterrupted run on the embedded store.
    const clean = spawnSync(process.execPath, [BIN, 'index', 'down.jsonl', '--out', 'd3.jsonl', '--store', 'clean', '--batch', '20', '--quiet'], { cwd: dir, env: { ...process.env, ES_URL: '' } })
    expect(clean.status).toBe(0)
    const d2 = decisions(readFileSync(join(dir, 'd2.jsonl'), 'utf8'))
    const d3 = decisions(readFileSync(join(dir, 'd3.jsonl'), 'utf8'))
    expect(d2.map((d) => [d.id, d.status, d.duplicate_of, d.cluster_id, d.layer, d.distance])).toEqual(d3.map((d) => [d.id, d.status, d.duplicate_of, d.cluster_id, d.layer, d.distance]))
  })
})

describe('simdup index --es: block scheme per index', () => {
  test('cluster on an index simdup index --es wrote says it holds dedup records only, and which path gives a searchable content index (29.7)', async () => {
    const index = indexName('notexts')
    writeFileSync(join(dir, 'notexts.jsonl'), lines(docs('n', 8)))
    expect((await run(['index', 'notexts.jsonl', '--out', 'n.jsonl', '--es', es.url, '--index', index, '--quiet', ...testIndexFlags()])).code).toBe(0)
    const r = await run(['cluster', 'n0', '--es', es.url, '--index', index])
    expect(r.code).toBe(0)
    expect(r.stdout).not.toMatch(/embedded store/)
    expect(r.stdout).toMatch(/simdup index --es` stores dedup records only.*simdup reindex.*ensureIndex: 'add-fields'/)
  })

  test('each near-duplicate\'s rule is stored in `dedup.rule` (a keyword: Kibana can split by it) as its decision says (29.10)', async () => {
    const index = indexName('rules')
    writeFileSync(join(dir, 'rules.jsonl'), lines(docs('r', 24)))
    expect((await run(['index', 'rules.jsonl', '--out', 'r.jsonl', '--es', es.url, '--index', index, '--quiet', ...testIndexFlags()])).code).toBe(0)
    const want = new Map<string, number>()
    for (const d of decisions(readFileSync(join(dir, 'r.jsonl'), 'utf8'))) if (d.layer === 'simhash') want.set(d.rule as string, (want.get(d.rule as string) ?? 0) + 1)
    expect(want.size).toBeGreaterThan(0)
    const res = await client.search({ index, size: 0, aggs: { rules: { terms: { field: 'dedup.rule' } } } })
    const buckets = (res.aggregations!.rules as { buckets: { key: string; doc_count: number }[] }).buckets
    expect(new Map(buckets.map((b) => [b.key, b.doc_count]))).toEqual(want)
  })

  test('a new index gets 6 blocks of which 3 must match; a later run takes the index\'s own and refuses another count (exit 2)', async () => {
    writeFileSync(join(dir, 'blocks.jsonl'), lines(docs('b', 24)))
    const index = indexName('blocks6')
    const first = await run(['index', 'blocks.jsonl', '--out', 'b1.jsonl', '--es', es.url, '--index', index, ...testIndexFlags()])
    expect(first.code, first.stderr).toBe(0)
    expect(new Set((await records(index)).map((r) => r.blocks.length))).toEqual(new Set([6]))
    const refused = await run(['index', 'blocks.jsonl', '--out', 'b2.jsonl', '--es', es.url, '--index', index, '--blocks', '4'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/`blockScheme.blocks` to be 6, the block count of the records in the store, got `4`/)
    const again = await run(['index', 'blocks.jsonl', '--out', 'b3.jsonl', '--es', es.url, '--index', index])
    expect(again.code, again.stderr).toBe(0)
    const pick = (t: string) => decisions(t).map((d) => [d.id, d.status, d.duplicate_of])
    expect(pick(readFileSync(join(dir, 'b3.jsonl'), 'utf8'))).toEqual(pick(readFileSync(join(dir, 'b1.jsonl'), 'utf8')))
    expect(decisions(readFileSync(join(dir, 'b1.jsonl'), 'utf8')).filter((d) => d.status === 'duplicate').length).toBeGreaterThan(10)
  })

  test('an index written with 4 blocks (every index before 6 became the default) keeps 4 blocks without flags', async () => {
    writeFileSync(join(dir, 'blocks4.jsonl'), lines(docs('c', 24)))
    const index = indexName('blocks4')
    const first = await run(['index', 'blocks4.jsonl', '--out', 'c1.jsonl', '--es', es.url, '--index', index, '--blocks', '4', ...testIndexFlags()])
    expect(first.code, first.stderr).toBe(0)
    writeFileSync(join(dir, 'more4.jsonl'), lines(docs('m', 24)))
    const more = await run(['index', 'more4.jsonl', '--out', 'c2.jsonl', '--es', es.url, '--index', index])
    expect(more.code, more.stderr).toBe(0)
    expect(new Set((await records(index)).map((r) => r.blocks.length))).toEqual(new Set([4]))
    // The later documents are copies of the first ones' articles: found through the 4-block route.
    expect(decisions(readFileSync(join(dir, 'c2.jsonl'), 'utf8')).every((d) => d.status === 'duplicate')).toBe(true)
  })
})

describe('read-only commands on Elasticsearch', () => {
  test('clusters, cluster and explain on a mistyped --index create no index, say it does not exist, exit 2', async () => {
    const index = indexName('typo')
    for (const args of [['clusters'], ['cluster', 'x'], ['explain', 'a', 'b']]) {
      const r = await run([...args, '--es', es.url, '--index', index])
      expect(r.code, r.stderr).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`simdup ${args[0]}: Index \`${index}\` does not exist`))
      expect(await client.indices.exists({ index })).toBe(false)
    }
  })
})
