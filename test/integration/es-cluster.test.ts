/**
 * The store given several node URLs: requests go round-robin over them, and a request to a node
 * that went away is retried at once on another. Runs against whatever `ES_URL` names (one node or a
 * cluster, e.g. `ES_URL=$(ES_NODES=3 ES_PORT=9250 npm run -s es:start | tail -1)`); a node that
 * goes away is stood in for by a TCP proxy to the first node, closed mid-run. Also: the shards
 * and replicas of the indices simdup creates.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { connect, createServer, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client, ClusterConnectionPool } from '@elastic/elasticsearch'
import { run } from '../../src/cli/main.js'
import { createElasticsearchStore, type ElasticsearchStore } from '../../src/elasticsearch/store.js'
import { dedupSearch, type SearchClient } from '../../src/elasticsearch/hook/index.js'
import { simdupIndexBody } from '../../src/elasticsearch/mapping.js'
import { fakeIO } from '../helpers/cli.js'
import { acquireElasticsearch, testIndexOptions, testIndexSettings, type AcquiredElasticsearch } from '../helpers/es-node.js'
import type { FingerprintRecord } from '../../src/types.js'
import { mulberry32 } from '../helpers/random.js'

let es: AcquiredElasticsearch
beforeAll(async () => {
  es = await acquireElasticsearch()
})
afterAll(async () => {
  await es.stop()
})

function record(i: number): FingerprintRecord {
  const hex = (n: number) => n.toString(16).padStart(16, '0')
  return {
    id: `d${i}`, fingerprint: { hi: i, lo: i * 7 }, blocks: [`0_${i}`, `1_${i}`, `2_${i}`, `3_${i}`], contentHash: hex(i), urlHash: null, titleHash: null,
    short: false, clusterId: `d${i}`, duplicateOf: null, distance: null, layer: null, version: 'test', indexedAt: 1_700_000_000_000 + i,
  }
}

/** Which node answered each request, and how many requests needed a second attempt (on another node). */
function watch(store: ElasticsearchStore): { answered: string[]; retried: number } {
  const seen = { answered: [] as string[], retried: 0 }
  store.client.diagnostic.on('response', (err, result) => {
    const url = result?.meta.connection?.url.origin
    if (url === undefined || err != null) return
    seen.answered.push(url)
    if (result!.meta.attempts > 0) seen.retried++
  })
  return seen
}

/** Nodes the client's pool holds as dead. */
function deadNodes(store: ElasticsearchStore): string[] {
  return store.client.connectionPool.connections.filter((c) => c.status === 'dead').map((c) => c.url.origin)
}

test('a node that goes away mid-run: every request moves to a live node, with no retry of the store’s own', async () => {
  // A proxy to the first node stands in for a node of its own; closing it takes that "node" away.
  const target = new URL(es.nodes[0]!)
  const sockets = new Set<Socket>()
  const proxy = createServer((c) => {
    const up = connect(Number(target.port), target.hostname)
    sockets.add(c).add(up)
    c.pipe(up).pipe(c)
    c.on('error', () => up.destroy())
    up.on('error', () => c.destroy())
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const via = new URL(es.nodes[0]!)
  via.port = String((proxy.address() as { port: number }).port)
  const gone = via.origin
  const index = `simdup-test-${process.pid}-nodes`
  // retries: 0, so only the client's move to another node can save a request.
  const store = await createElasticsearchStore({ node: [via.toString(), ...es.nodes], index, retries: 0, ...testIndexOptions() })
  try {
    const seen = watch(store)
    for (let i = 0; i < 4; i++) await store.count()
    expect(seen.answered).toContain(gone) // round-robin reached the proxied node while it was up
    expect(seen.retried).toBe(0)
    expect(deadNodes(store)).toEqual([])
    const closed = new Promise<void>((resolve) => proxy.close(() => resolve()))
    for (const s of sockets) s.destroy()
    await closed
    const before = seen.answered.length
    const records = Array.from({ length: 20 }, (_, i) => record(i))
    for (const r of records) await store.put([r])
    await store.refresh()
    expect(await store.count()).toBe(records.length)
    // The request that met the closed node was retried by the client on another node; the node is
    // held dead, so no later request goes there.
    expect(seen.retried).toBeGreaterThanOrEqual(1)
    expect(deadNodes(store)).toEqual([gone])
    expect(seen.answered.slice(before)).not.toContain(gone)
  } finally {
    proxy.close()
    await store.client.indices.delete({ index }, { ignore: [404] })
    await store.close()
  }
})

/** A loopback port nothing listens on (bound, then released): the node that is down. */
async function downNode(): Promise<string> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return `http://127.0.0.1:${port}`
}

/**
 * An index whose every primary is unassigned (allocation required on a node that does not
 * exist): red, and a search on it is answered 503 by every live node; `allocate` lifts that.
 */
async function redIndex(name: string, mappings?: Record<string, unknown>): Promise<{ index: string; allocate: () => Promise<void>; drop: () => Promise<void> }> {
  const index = `simdup-test-${process.pid}-${name}`
  const admin = new Client({ nodes: es.nodes })
  const settings = { ...testIndexSettings(), number_of_replicas: 0, 'index.routing.allocation.require._name': 'simdup-no-such-node' }
  await admin.indices.create({ index, settings, ...(mappings === undefined ? {} : { mappings }), wait_for_active_shards: 0 })
  expect((await admin.cluster.health({ index })).status).toBe('red')
  return {
    index,
    allocate: async () => void (await admin.indices.putSettings({ index, settings: { 'index.routing.allocation.require._name': null } })),
    drop: async () => {
      await admin.indices.delete({ index }, { ignore: [404] })
      await admin.close()
    },
  }
}


describe('a red index while a node of the list is down', () => {
  // The live nodes answer 503 and the client moves the request on each time, so its last attempt
  // goes to the node that is down (listed last, held alive until then): the run once took that
  // connection error for the whole cluster out of reach (exit 4 instead of the red index's exit 1).
  test('the client moves a 503 on to the node that is down and keeps the 503 in the connection error', async () => {
    const { index, drop } = await redIndex('red-raw')
    const client = new Client({ nodes: [...es.nodes, await downNode()], maxRetries: es.nodes.length, ConnectionPool: ClusterConnectionPool })
    try {
      const err: unknown = await client.search({ index }).catch((e: unknown) => e)
      expect(err).toMatchObject({ name: 'ConnectionError', meta: { statusCode: 503 } })
    } finally {
      await client.close()
      await drop()
    }
  })

  test('is reported as the red index it is (STORE_REQUEST_FAILED, status 503), not as no node reachable', async () => {
    const { index, drop } = await redIndex('red-report')
    try {
      const err: unknown = await createElasticsearchStore({ node: [...es.nodes, await downNode()], index, ensureIndex: 'none', retries: 0 }).catch((e: unknown) => e)
      expect(err).toMatchObject({ code: 'STORE_REQUEST_FAILED', message: expect.stringMatching(/status 503 \(shards of the index have no started copy: a node down or just back, the index red\?\)/) })
    } finally {
      await drop()
    }
  })

  test('the search hook reports it as the red index it is (STORE_REQUEST_FAILED, status 503), not as no node reachable', async () => {
    const { index, drop } = await redIndex('red-hook')
    const client = new Client({ nodes: [...es.nodes, await downNode()], maxRetries: es.nodes.length, ConnectionPool: ClusterConnectionPool })
    // _msearch answers a red index search by search (200, each search 503: the hook reports those
    // as refused already). A node answers the whole request 503 when it has no elected master or
    // no recovered cluster state, which a shared test node cannot be put in: the red index's own
    // search, answered 503 and carried by the client on to the node that is down, stands in.
    const viaSearch: SearchClient = { msearch: () => client.search({ index }) as never }
    try {
      const err: unknown = await dedupSearch(viaSearch, { index }).catch((e: unknown) => e)
      expect(err).toMatchObject({ code: 'STORE_REQUEST_FAILED', message: expect.stringMatching(/status 503 \(shards of the index have no started copy/) })
    } finally {
      await client.close()
      await drop()
    }
  })

  test('the search hook\'s _msearch, each search answered 503, says the shards have no started copy', async () => {
    const { index, drop } = await redIndex('red-hook-items')
    const client = new Client({ nodes: [...es.nodes, await downNode()], maxRetries: es.nodes.length, ConnectionPool: ClusterConnectionPool })
    try {
      await expect(dedupSearch(client, { index })).rejects.toMatchObject({
        code: 'STORE_REQUEST_FAILED',
        message: expect.stringMatching(/status 503\).*\(shards of the index have no started copy/),
      })
    } finally {
      await client.close()
      await drop()
    }
  })

  test('is waited for: the primaries allocated 2 s later, one retry succeeds', async () => {
    const { index, allocate, drop } = await redIndex('red-wait')
    try {
      // One retry after 100 ms would find the index still red: only waiting for its primaries saves it.
      const opening = createElasticsearchStore({ node: [...es.nodes, await downNode()], index, ensureIndex: 'none', retries: 1, backoffMs: 100 })
      opening.catch(() => undefined) // awaited below; a rejection before then is not unhandled
      await new Promise((resolve) => setTimeout(resolve, 2000))
      await allocate()
      const store = await opening
      expect(await store.count()).toBe(0)
      await store.close()
    } finally {
      await drop()
    }
  })
})

describe('bulk items answered 503 (a primary with no started copy)', () => {
  const numbered = (i: number): FingerprintRecord => ({ ...record(i), seq: i + 1 })
  /** A store opened before its index exists (`ensureIndex: 'none'`), then the index made red with simdup's mapping. */
  async function storeOnRedIndex(name: string, options: { retries: number; backoffMs?: number }) {
    // Request timeout 2 s: Elasticsearch answers the items 503 after 1 s (the bulk's timeout is half of it).
    const store = await createElasticsearchStore({ node: es.nodes, index: `simdup-test-${process.pid}-${name}`, ensureIndex: 'none', requestTimeoutMs: 2000, ...options })
    return { ...(await redIndex(name, simdupIndexBody().mappings)), store }
  }

  // The primaries are allocated 5 s in. A retry after 100 ms meets the index still red; and with
  // Elasticsearch's own wait (a minute) the client gives up first, twice in 4 s, and the put said
  // "cannot reach". Only waiting for the primaries lands the writes.
  test('are retried once the primaries are back: every record written, none lost', async () => {
    const { store, allocate, drop } = await storeOnRedIndex('red-bulk', { retries: 1, backoffMs: 100 })
    try {
      const records = Array.from({ length: 6 }, (_, i) => numbered(i))
      const putting = store.put(records)
      putting.catch(() => undefined) // awaited below
      await new Promise((resolve) => setTimeout(resolve, 5000))
      await allocate()
      expect(await putting).toEqual({ written: records.length, failed: [] })
      await store.refresh()
      expect(await store.count()).toBe(records.length)
      expect([...(await store.get(records.map((r) => r.id))).keys()].sort()).toEqual(records.map((r) => r.id).sort())
    } finally {
      await store.close()
      await drop()
    }
  })

  test('deletes are waited out the same way: the delete completes once the primaries are back', async () => {
    const { store, allocate, drop } = await storeOnRedIndex('red-bulk-delete', { retries: 1, backoffMs: 100 })
    try {
      const deleting = store.delete(['d1', 'd2'])
      deleting.catch(() => undefined) // awaited below
      await new Promise((resolve) => setTimeout(resolve, 5000))
      await allocate()
      await expect(deleting).resolves.toBeUndefined()
    } finally {
      await store.close()
      await drop()
    }
  })

  test('still red after the retries: each record failed, saying why (to rejects, not lost silently)', async () => {
    const { store, drop } = await storeOnRedIndex('red-bulk-fail', { retries: 0 })
    try {
      const res = await store.put([numbered(1), numbered(2)])
      expect(res.written).toBe(0)
      expect(res.failed.map((f) => f.id)).toEqual(['d1', 'd2'])
      for (const f of res.failed) {
        expect(f.error).toMatchObject({ code: 'STORE_REQUEST_FAILED', message: expect.stringMatching(/status 503\) \(shards of the index have no started copy.*unavailable_shards_exception/) })
      }
    } finally {
      await store.close()
      await drop()
    }
  })
})

test('requests are spread over every node of the list', async () => {
  const index = `simdup-test-${process.pid}-spread`
  const store = await createElasticsearchStore({ node: es.url, index, ...testIndexOptions() })
  try {
    const seen = watch(store)
    for (let i = 0; i < 3 * es.nodes.length; i++) await store.count()
    const origins = es.nodes.map((n) => new URL(n).origin)
    expect(new Set(seen.answered)).toEqual(new Set(origins))
  } finally {
    await store.client.indices.delete({ index }, { ignore: [404] })
    await store.close()
  }
})

/** number_of_shards / number_of_replicas of an index, as numbers. */
async function layoutOf(store: ElasticsearchStore, index: string): Promise<{ shards: number; replicas: number }> {
  const res = await store.client.indices.getSettings({ index, flat_settings: true })
  const flat = res[index]!.settings as Record<string, string>
  return { shards: Number(flat['index.number_of_shards']), replicas: Number(flat['index.number_of_replicas']) }
}

describe('shards and replicas of the indices simdup creates', () => {
  // Replicas only where a cluster can place them: on one node a replica stays unassigned.
  const names: string[] = []
  let admin: ElasticsearchStore
  beforeAll(async () => {
    admin = await createElasticsearchStore({ node: es.url, index: `simdup-test-${process.pid}-admin` })
    names.push(`simdup-test-${process.pid}-admin`)
  })
  afterAll(async () => {
    for (const index of names) await admin.client.indices.delete({ index }, { ignore: [404] })
    await admin.close()
  })

  test('default: 1 shard, no replica; the options set both', async () => {
    expect(await layoutOf(admin, names[0]!)).toEqual({ shards: 1, replicas: 0 })
    const index = `simdup-test-${process.pid}-layout`
    names.push(index)
    const want = { shards: 3, replicas: Math.min(1, es.nodes.length - 1) }
    await (await createElasticsearchStore({ node: es.url, index, ...want })).close()
    expect(await layoutOf(admin, index)).toEqual(want)
  })

  test('simdup index --shards --replicas, and reindex --dest --shards --replicas', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-layout-'))
    writeFileSync(join(dir, 'in.jsonl'), '{"id":"a","content":"第一篇文章的内容，足够长的一段中文文本用于测试。"}\n{"id":"b","content":"另一篇完全不同的文章，讲的是别的事情和别的内容。"}\n')
    const index = `simdup-test-${process.pid}-cli`
    const dest = `simdup-test-${process.pid}-cli-dest`
    names.push(index, dest)
    const want = { shards: 2, replicas: Math.min(1, es.nodes.length - 1) }
    const f = fakeIO(dir)
    const code = await run(['index', 'in.jsonl', '--out', 'out.jsonl', '--es', es.url, '--index', index, '--shards', '2', '--replicas', String(want.replicas), '--quiet'], f.io)
    expect(code, f.stderr()).toBe(0)
    expect(await layoutOf(admin, index)).toEqual(want)
    const g = fakeIO(dir)
    const args = ['reindex', '--es', es.url, '--source', index, '--dest', dest, '--fields', ',content,', '--shards', '4', '--replicas', '0', '--checkpoint', 'cp.json', '--quiet']
    expect(await run(args, g.io), g.stderr()).toBe(0)
    expect(await layoutOf(admin, dest)).toEqual({ shards: 4, replicas: 0 })
    const h = fakeIO(dir)
    expect(await run(['index', 'in.jsonl', '--out', 'o2.jsonl', '--shards', '2', '--quiet'], h.io)).toBe(2)
    expect(h.stderr()).toMatch(/--shards and --replicas need --es/)
  })
})

test('largest clusters on 3 shards equal a full count (many near-equal clusters, so top terms cannot prove theirs)', async () => {
  const index = `simdup-test-${process.pid}-top`
  const store = await createElasticsearchStore({ node: es.url, index, shards: 3, replicas: 0, bulkSize: 2000 })
  try {
    // 3 000 clusters of 1–3 members plus a few of 4–6, members routed over the shards by id.
    const rand = mulberry32(13)
    const records: FingerprintRecord[] = []
    for (let c = 0; c < 3_000; c++) {
      const size = c % 500 === 7 ? 4 + Math.floor(rand() * 3) : 1 + Math.floor(rand() * 3)
      for (let m = 0; m < size; m++) records.push({ ...record(records.length), clusterId: `c${String(c).padStart(4, '0')}` })
    }
    await store.put(records)
    await store.refresh()
    const counts = new Map<string, number>()
    for (const r of records) counts.set(r.clusterId, (counts.get(r.clusterId) ?? 0) + 1)
    const oracle = (limit: number, minSize: number) =>
      [...counts]
        .filter(([, n]) => n >= minSize)
        .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
        .slice(0, limit)
        .map(([clusterId, size]) => ({ clusterId, size }))
    for (const [limit, minSize] of [[5, 2], [50, 2], [1500, 2], [2000, 1], [20, 4]] as const) {
      expect(await store.topClusters(limit, minSize), `top ${limit}, min ${minSize}`).toEqual(oracle(limit, minSize))
    }
  } finally {
    await store.client.indices.delete({ index }, { ignore: [404] })
    await store.close()
  }
}, 120_000)
