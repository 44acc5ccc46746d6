import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@elastic/elasticsearch'
import { acquireElasticsearch, testIndexFlags } from '../helpers/es-node.js'
import { nearDuplicateDocs, postDocuments, runCli, startServe, withoutLine, type ServeProcess } from '../helpers/serve.js'

// Child processes (the server, the CLI) on a loaded machine: a longer limit than the default 30 s.
vi.setConfig({ testTimeout: 600_000 }) // as the cluster pass of .ci/run gives the integration project

// `simdup serve --es` on the real Elasticsearch node: the same decisions as `simdup index --es`,
// and several servers on one index at once (no lock; reconcile mends what they decide apart).

let es: Awaited<ReturnType<typeof acquireElasticsearch>>
let client: Client
let dir: string
const indices: string[] = []
const running: ServeProcess[] = []
const indexName = (tag: string) => {
  const name = `simdup-serve-${process.pid}-${tag}`
  indices.push(name)
  return name
}
const esFlags = (index: string) => ['--es', es.url, '--index', index, ...testIndexFlags()]
const serve = async (index: string) => {
  const s = await startServe(esFlags(index), { cwd: dir })
  running.push(s)
  return s
}

beforeAll(async () => {
  es = await acquireElasticsearch()
  client = new Client({ nodes: es.nodes })
  dir = mkdtempSync(join(tmpdir(), 'simdup-serve-es-'))
})
afterAll(async () => {
  for (const s of running) await s.stop('SIGKILL')
  for (const index of indices) await client.indices.delete({ index }).catch(() => undefined)
  await client.close()
  await es?.stop()
})

describe('simdup serve on Elasticsearch', () => {
  test('JSONL in, JSONL out: byte-identical to `simdup index --es` of the same file', async () => {
    const lines = nearDuplicateDocs('e', 80).map((d) => JSON.stringify(d))
    lines.splice(15, 0, '{"id":"bad"}')
    const input = lines.join('\n') + '\n'
    writeFileSync(join(dir, 'in.jsonl'), input)
    const cli = await runCli(['index', 'in.jsonl', ...esFlags(indexName('cli')), '--quiet'], { cwd: dir })
    expect(cli.code, cli.stderr).toBe(0)
    const s = await serve(indexName('server'))
    const res = await fetch(`${s.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', accept: 'application/x-ndjson' }, body: input })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(cli.stdout)
  })

  test('two servers on one index at once; reads, explain and clusters through either', async () => {
    const index = indexName('two')
    const [a, b] = await Promise.all([serve(index), serve(index)])
    const docs = nearDuplicateDocs('w', 60)
    const results = await Promise.all(docs.map((d, i) => postDocuments(i % 2 === 0 ? a.url : b.url, d)))
    for (const r of results) expect(r.status).toBe(200)
    const decided = new Map(results.map((r) => [r.body.decisions[0]!.id as string, withoutLine(r.body.decisions[0]!)]))
    // Each server's answer is what the index holds.
    for (const d of docs.slice(0, 10)) {
      const record = (await (await fetch(`${b.url}/v1/documents/${d.id}`)).json()) as Record<string, unknown>
      expect([record.cluster_id, record.duplicate_of]).toEqual([decided.get(d.id)!.cluster_id, decided.get(d.id)!.duplicate_of])
    }
    const clusters = (await (await fetch(`${a.url}/v1/clusters?top=3`)).json()) as { clusters: { clusterId: string; size: number }[]; documents: number }
    expect(clusters.documents).toBe(60)
    expect(clusters.clusters[0]!.size).toBeGreaterThan(1)
    const view = (await (await fetch(`${b.url}/v1/clusters/${encodeURIComponent(clusters.clusters[0]!.clusterId)}`)).json()) as { size: number; texts: boolean; members: { layer: string | null }[] }
    expect(view.size).toBe(clusters.clusters[0]!.size)
    const explained = (await (await fetch(`${a.url}/v1/explain?a=w0&b=w20&texts=true`)).json()) as Record<string, unknown>
    expect(explained).toMatchObject({ a: 'w0', b: 'w20', duplicate: true })
    // The index holds fingerprints only (no `content` field): no texts to show.
    expect(explained.texts).toEqual({ a: null, b: null })
    const missing = await fetch(`${a.url}/v1/documents/nope`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ code: 'NOT_FOUND', message: expect.any(String) })
  })

  test('texts for the page come from the documents\' content field when the index has one', async () => {
    const index = indexName('content')
    const s = await serve(index)
    const docs = nearDuplicateDocs('t', 8)
    await postDocuments(s.url, docs)
    // A content index: the source documents carry their text next to simdup's `dedup` object.
    for (const d of docs) await client.update({ index, id: d.id, doc: { content: d.content }, refresh: true })
    const pair = (await (await fetch(`${s.url}/v1/explain?a=t0&b=t4&texts=true`)).json()) as { texts: { a: string; b: string }; passages: { a: [number, number][] } }
    expect(pair.texts).toEqual({ a: docs[0]!.content, b: docs[4]!.content })
    expect(pair.passages.a.length).toBeGreaterThan(0)
  })
})
