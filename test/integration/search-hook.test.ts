/**
 * dedupSearch and examples/search-server.ts against a real Elasticsearch 8 node: a content index
 * (title, content) that the simdup store shares (`ensureIndex: 'add-fields'`), fingerprints from
 * the real analyzer on small Chinese articles.
 */
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { Client, errors, type estypes } from '@elastic/elasticsearch'
import type { FingerprintRecord } from '../../src/types.js'
import { createAnalyzer } from '../../src/fingerprint/analyzer.js'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'
import { fingerprintFromHex, fingerprintToHex, hamming } from '../../src/fingerprint/hamming.js'
import { createElasticsearchStore, DEDUP_FIELDS_COMPONENT } from '../../src/elasticsearch/store.js'
import { dedupSearch, type DedupSearchOptions, type DedupSearchRequest, type DedupSearchResult } from '../../src/elasticsearch/hook/index.js'
import { createSearchServer } from '../../examples/search-server.js'
import { acquireElasticsearch, testIndexSettings } from '../helpers/es-node.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../fixtures/articles.js'

const INDEX = `simdup-hook-test-${process.pid}`
const T0 = Date.UTC(2024, 4, 1)
const K = 3

type Node = Awaited<ReturnType<typeof acquireElasticsearch>>
let es: Node
let client: Client

interface Doc {
  id: string
  title: string
  content: string
  /** How the document's `dedup` object is written: by the store with this cluster id, only a SimHash (fresh), or not at all. */
  dedup: { cluster: string } | 'fresh' | 'none'
}

// Glosses: ARTICLE_A = a city library's new reading programme (the article copied five times),
// B = rural broadband, C = spring rice planting, D = small-business tax guide.
const DOCS: Doc[] = [
  // Five copies of A in one cluster, as the deduplicator left them. Titles differ, so a title
  // query can rank any of them first.
  { id: 'a-0', title: '市图书馆启动全民阅读计划', content: ARTICLE_A, dedup: { cluster: 'a-0' } }, // City library launches reading programme
  { id: 'a-1', title: '全民阅读计划来了', content: ARTICLE_A.replace('本周', '近日'), dedup: { cluster: 'a-0' } }, // The reading programme is here ("this week" → "recently")
  { id: 'a-2', title: '图书馆延长开放时间', content: `${ARTICLE_A}（记者 王明）`, dedup: { cluster: 'a-0' } }, // Library extends opening hours (+ reporter byline)
  { id: 'a-3', title: '夜间借阅服务开通', content: ARTICLE_A.replace('八十小时', '80小时'), dedup: { cluster: 'a-0' } }, // Night lending opens ("eighty hours" → "80 hours")
  { id: 'a-4', title: '地铁站设自助借还点', content: ARTICLE_A.replace('三个', '3个'), dedup: { cluster: 'a-0' } }, // Self-service points at metro stations ("three" → "3")
  // A sixth copy indexed after the last reconcile: a SimHash but no cluster id yet.
  { id: 'a-fresh', title: '读书分享会每月举行', content: ARTICLE_A.replace('两万册', '2万册'), dedup: 'fresh' }, // Monthly reading club ("20,000 volumes" as digits)
  { id: 'b-0', title: '山区宽带入户工程完工', content: ARTICLE_B, dedup: { cluster: 'b-0' } }, // Mountain broadband project completed
  { id: 'b-1', title: '宽带进村', content: ARTICLE_B.replace('四十二个', '42个'), dedup: { cluster: 'b-0' } }, // Broadband reaches the villages ("forty-two" → "42")
  { id: 'c-0', title: '春耕时节抢种早稻', content: ARTICLE_C, dedup: { cluster: 'c-0' } }, // Racing to plant early rice in spring
  { id: 'd-0', title: '小微企业税收优惠解读', content: ARTICLE_D, dedup: { cluster: 'd-0' } }, // Small-business tax relief explained
  // Content documents never fingerprinted: no `dedup` at all. Each must come back on its own.
  { id: 'p-1', title: '图书馆闭馆通知', content: '因电路改造，市图书馆本周六闭馆一天，给读者带来不便敬请谅解。', dedup: 'none' }, // Library closed on Saturday for rewiring
  { id: 'p-2', title: '少儿阅览室重新开放', content: '图书馆装修后的少儿阅览室今天重新开放，新增了绘本区和亲子阅读角。', dedup: 'none' }, // The library's children's reading room reopens after refurbishment
  { id: 'p-3', title: '古籍修复展', content: '博物馆与图书馆联合举办古籍修复展，展出清代刻本四十余种。', dedup: 'none' }, // Ancient-book restoration exhibition
  { id: 'p-4', title: '社区书屋招募志愿者', content: '社区书屋招募周末志愿者，负责图书整理和借阅登记工作。', dedup: 'none' }, // Community reading room seeks volunteers
  { id: 'p-5', title: '校园图书漂流活动', content: '多所中学开展图书漂流活动，学生把读过的书留给下一位读者。', dedup: 'none' }, // School book-crossing
  // Short unique notices, fingerprinted, each its own cluster.
  { id: 'u-1', title: '借书证办理须知', content: '办理借书证需要携带身份证原件，未成年人由监护人陪同办理。', dedup: { cluster: 'u-1' } }, // How to get a library card
  { id: 'u-2', title: '电子阅览室开放时间调整', content: '电子阅览室自下月起每天开放到晚上九点，周一照常闭馆。', dedup: { cluster: 'u-2' } }, // E-reading room hours change
]

const analyzer = createAnalyzer()
const simhashOf = new Map(DOCS.map((d) => [d.id, fingerprintToHex(analyzer.analyze(d.content).fingerprint)]))

function recordOf(d: Doc, at: number): FingerprintRecord {
  const a = analyzer.analyze(d.content)
  const cluster = (d.dedup as { cluster: string }).cluster
  return {
    id: d.id,
    fingerprint: a.fingerprint,
    blocks: fingerprintBlocks(a.fingerprint),
    contentHash: a.contentHash,
    urlHash: null,
    titleHash: null,
    short: a.short,
    clusterId: cluster,
    duplicateOf: cluster === d.id ? null : cluster,
    distance: cluster === d.id ? null : hamming(a.fingerprint, analyzer.analyze(DOCS.find((x) => x.id === cluster)!.content).fingerprint),
    layer: cluster === d.id ? null : 'simhash',
    version: analyzer.version,
    indexedAt: T0 + at * 60_000,
    ...(a.sketch === null ? {} : { sketch: a.sketch }),
  }
}

beforeAll(async () => {
  // Fails (never skips) when no node can be started: CI must not pass without Elasticsearch.
  es = await acquireElasticsearch()
  client = new Client({ nodes: es.nodes })
  await client.indices.delete({ index: INDEX }, { ignore: [404] })
  // Two shards, so collapsing and paging are exercised across shards.
  await client.indices.create({
    index: INDEX,
    settings: { number_of_shards: 2, number_of_replicas: 0, ...testIndexSettings() },
    mappings: { properties: { title: { type: 'text' }, content: { type: 'text' }, ...DEDUP_FIELDS_COMPONENT.template.mappings.properties } as Record<string, estypes.MappingProperty> },
  })
  // The search service indexes its content documents...
  await client.bulk({ refresh: true, operations: DOCS.flatMap((d) => [{ index: { _index: INDEX, _id: d.id } }, { title: d.title, content: d.content }]) })
  // ...a fresh copy gets a SimHash at ingest, before any deduplication assigns it a cluster...
  const fresh = DOCS.filter((d) => d.dedup === 'fresh')
  await client.bulk({ refresh: true, operations: fresh.flatMap((d) => [{ update: { _index: INDEX, _id: d.id } }, { doc: { dedup: { id: d.id, simhash: simhashOf.get(d.id), indexed_at: T0 + 3_600_000 } } }]) })
  // ...and simdup's store merges `dedup` objects into the same documents.
  const store = await createElasticsearchStore({ node: es.url, index: INDEX, ensureIndex: 'add-fields', refresh: 'wait_for' })
  try {
    expect(store.options.sharedIndex).toBe(true)
    const put = await store.put(DOCS.filter((d) => typeof d.dedup === 'object').map((d, i) => recordOf(d, i)))
    expect(put.failed).toEqual([])
  } finally {
    await store.close()
  }
})

afterAll(async () => {
  await client?.indices.delete({ index: INDEX }, { ignore: [404] })
  await client?.close()
  await es?.stop()
})

const LIBRARY = { match: { content: '图书馆' } } // "library"
const EQUAL_LIBRARY = { constant_score: { filter: LIBRARY } }

function search(request: Omit<DedupSearchRequest, 'index'>, options: DedupSearchOptions = {}) {
  return dedupSearch<{ title: string }>(client, { index: INDEX, ...request }, options)
}

/** Every page of a search, in order. */
async function allPages(request: Omit<DedupSearchRequest, 'index' | 'cursor'>, options: DedupSearchOptions = {}): Promise<DedupSearchResult[][]> {
  const pages: DedupSearchResult[][] = []
  let cursor: string | null = null
  do {
    const page: Awaited<ReturnType<typeof search>> = await search({ ...request, cursor }, options)
    pages.push(page.results)
    cursor = page.next
    if (pages.length > 100) throw new Error('pagination does not end')
  } while (cursor !== null)
  return pages
}

/** The plain (uncollapsed) hits of a query, with their cluster ids and SimHashes: the oracle's view. */
async function plainHits(query: object): Promise<{ id: string; cluster: string | null; simhash: string | null }[]> {
  const res = await client.search<{ dedup?: { cluster_id?: string; simhash?: string } }>({
    index: INDEX,
    query,
    size: 1000,
    sort: [{ _score: { order: 'desc' } }, { 'dedup.indexed_at': { order: 'asc', missing: '_last' } }],
  })
  return res.hits.hits.map((h) => ({ id: h._id!, cluster: h._source?.dedup?.cluster_id ?? null, simhash: h._source?.dedup?.simhash ?? null }))
}

describe('server facts the design rests on', () => {
  test('collapsing on the cluster id alone puts every document without one into a single group', async () => {
    const res = await client.search({ index: INDEX, query: LIBRARY, collapse: { field: 'dedup.cluster_id' }, size: 100 })
    const withoutCluster = res.hits.hits.filter((h) => (h.fields?.['dedup.cluster_id'] as unknown[] | undefined) === undefined)
    expect(withoutCluster).toHaveLength(1)
    expect((await plainHits(LIBRARY)).filter((h) => h.cluster === null).length).toBeGreaterThan(1)
  })

  test('Elasticsearch 8 refuses to collapse on a runtime field, so a `cluster_id or _id` group key is impossible', async () => {
    await expect(
      client.search({ index: INDEX, runtime_mappings: { dedup_group: { type: 'keyword' } }, collapse: { field: 'dedup_group' } }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/collapse is not supported for the field \[dedup_group\]/) })
  })
})

describe('dedupSearch', () => {
  test('five copies in a cluster collapse to one result with 4 duplicates; a fresh copy within k folds in by SimHash', async () => {
    // Equal scores, so the order is the tie-break (earliest indexed first) on any number of shards:
    // BM25 statistics are per shard, and with several shards the near-identical copies' scores
    // would decide by shard placement whether the fresh copy outranks the whole cluster.
    const page = await search({ query: EQUAL_LIBRARY, size: 50 }, { duplicates: 4 })
    const a = page.results.filter((r) => r.id.startsWith('a-'))
    expect(a).toHaveLength(1)
    const shown = a[0]!
    expect(shown.clusterId).toBe('a-0')
    const byWhy = (why: string) => shown.duplicates.filter((d) => d.why === why).map((d) => d.id).sort()
    expect(byWhy('cluster')).toEqual(['a-0', 'a-1', 'a-2', 'a-3', 'a-4'].filter((id) => id !== shown.id))
    expect(byWhy('simhash')).toEqual(['a-fresh'])
    expect(shown.duplicateCount).toBe(5)
    // The fold's distance is the real one, and within k.
    const fresh = shown.duplicates.find((d) => d.id === 'a-fresh')!
    expect(fresh.distance).toBe(hamming(fingerprintFromHex(simhashOf.get('a-fresh')!), fingerprintFromHex(shown.simhash!)))
    expect(fresh.distance).toBeLessThanOrEqual(K)
    // The default lists 3 of the cluster, and still counts them all.
    const listed = (await search({ query: EQUAL_LIBRARY, size: 50 })).results.find((r) => r.id === shown.id)!
    expect(listed.duplicates.filter((d) => d.why === 'cluster')).toHaveLength(3)
    expect(listed.duplicateCount).toBe(5)
  })

  test('k = 0 leaves the fresh copy shown, as its own result', async () => {
    const d = hamming(fingerprintFromHex(simhashOf.get('a-fresh')!), fingerprintFromHex(simhashOf.get('a-0')!))
    expect(d).toBeGreaterThan(0) // precondition: the edit moved the SimHash
    const ids = (await search({ query: LIBRARY, size: 50 }, { maxDistance: 0 })).results.map((r) => r.id)
    expect(ids).toContain('a-fresh')
  })

  test.each([
    ['全民阅读计划', 'a title all copies share words with'], // "reading programme"
    ['夜间借阅', 'a title only a-3 has'], // "night lending"
    ['地铁站 自助借还点', 'a title only a-4 has'], // "metro station self-service point"
  ])('the best-ranked copy is the one shown (%s: %s)', async (q) => {
    const query = { multi_match: { query: q, fields: ['title^3', 'content'] } }
    const page = await search({ query, size: 50 })
    const hits = await plainHits(query)
    const best = hits.find((h) => h.cluster === 'a-0' || h.id === 'a-fresh')!
    const shownA = page.results.filter((r) => r.id.startsWith('a-'))
    expect(shownA.map((r) => r.id)).toEqual([best.id])
  })

  test('documents without a cluster id come back one by one, in score order with the others', async () => {
    const page = await search({ query: LIBRARY, size: 50 })
    const ids = page.results.map((r) => r.id)
    for (const id of ['p-1', 'p-2', 'p-3', 'p-4', 'p-5']) expect(ids).toContain(id)
    const scores = page.results.map((r) => r.score!)
    expect(scores).toEqual([...scores].sort((x, y) => y - x))
    // Every matching document is either shown or counted under a shown result.
    const matching = await plainHits(LIBRARY)
    expect(page.results.reduce((n, r) => n + 1 + r.duplicateCount, 0)).toBe(matching.length)
    expect(page.total).toEqual({ value: matching.length, relation: 'eq' })
    expect(page.next).toBeNull()
  })

  const QUERIES = [
    { match_all: {} },
    LIBRARY,
    { multi_match: { query: '读者 阅读 宽带', fields: ['title', 'content'] } }, // "reader reading broadband"
  ]

  const SORTS: (estypes.Sort | undefined)[] = [
    undefined, // relevance, then oldest copy
    [{ 'dedup.indexed_at': { order: 'desc' } }, { _score: { order: 'desc' } }], // newest first; never-fingerprinted documents last
  ]

  test.prop([fc.constantFrom(...QUERIES.keys()), fc.constantFrom(...SORTS.keys()), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 3 })], { numRuns: 16 })(
    'paging: no cluster on two pages, every non-duplicate exactly once, same order as one big page',
    async (q, s, size, overfetch) => {
      const query = QUERIES[q]!
      const sort = SORTS[s] === undefined ? {} : { sort: SORTS[s] }
      const pages = await allPages({ query, size, ...sort }, { overfetch })
      const shown = pages.flat()
      for (const page of pages.slice(0, -1)) expect(page.length).toBeGreaterThan(0)
      const ids = shown.map((r) => r.id)
      expect(new Set(ids).size).toBe(ids.length)
      const clusters = shown.map((r) => r.clusterId).filter((c) => c !== null)
      expect(new Set(clusters).size).toBe(clusters.length)
      // No two shown results are near-duplicates, across pages too.
      const fps = shown.filter((r) => r.simhash !== null).map((r) => fingerprintFromHex(r.simhash!))
      for (let i = 0; i < fps.length; i++) for (let j = i + 1; j < fps.length; j++) expect(hamming(fps[i]!, fps[j]!)).toBeGreaterThan(K)
      // Oracle: a document with no other matching copy (same cluster or within k) is a non-duplicate.
      const hits = await plainHits(query)
      const isCopy = (a: (typeof hits)[0], b: (typeof hits)[0]) =>
        (a.cluster !== null && a.cluster === b.cluster) || (a.simhash !== null && b.simhash !== null && hamming(fingerprintFromHex(a.simhash), fingerprintFromHex(b.simhash)) <= K)
      const loners = hits.filter((h) => !hits.some((o) => o !== h && isCopy(h, o))).map((h) => h.id)
      expect(loners.length).toBeGreaterThan(0)
      for (const id of loners) expect(ids.filter((x) => x === id)).toHaveLength(1)
      // Every matching cluster or fresh copy is represented exactly once.
      expect(shown.length).toBeLessThanOrEqual(hits.length)
      const onePage = (await search({ query, size: 100, ...sort })).results.map((r) => r.id)
      expect(ids).toEqual(onePage)
    },
  )

  test('a cluster re-ranked onto a later page by an index change is not shown again', async () => {
    const moving = `${INDEX}-moving`
    await client.indices.create({ index: moving, settings: testIndexSettings(), mappings: { properties: DEDUP_FIELDS_COMPONENT.template.mappings.properties as Record<string, estypes.MappingProperty> } })
    try {
      // Four clusters, oldest first; no SimHashes, so only the cluster memory can catch a repeat.
      await client.bulk({ refresh: true, operations: ['x', 'y', 'z', 'w'].flatMap((c, i) => [{ index: { _index: moving, _id: `${c}-1` } }, { dedup: { cluster_id: c, indexed_at: T0 + i } }]) })
      const request = { index: moving, sort: [{ 'dedup.indexed_at': { order: 'asc' as const } }], size: 2 }
      const page1 = await dedupSearch(client, request)
      expect(page1.results.map((r) => r.clusterId)).toEqual(['x', 'y'])
      const forgetful1 = await dedupSearch(client, request, { cursorMemory: 0 })
      // x is re-dated: it now sorts last, where page 2 would meet it again.
      await client.update({ index: moving, id: 'x-1', doc: { dedup: { cluster_id: 'x', indexed_at: T0 + 10 } }, refresh: true })
      const page2 = await dedupSearch(client, { ...request, cursor: page1.next })
      expect(page2.results.map((r) => r.clusterId)).toEqual(['w'])
      // The same request without the cursor's memory shows x twice: what the memory is for.
      const forgetful = await dedupSearch(client, { ...request, cursor: forgetful1.next })
      expect(forgetful.results.map((r) => r.clusterId)).toEqual(['w', 'x'])
    } finally {
      await client.indices.delete({ index: moving }, { ignore: [404] })
    }
  })

  test('paging ends at maxResultWindow instead of asking Elasticsearch past it', async () => {
    const pages = await allPages({ query: { match_all: {} }, size: 2 }, { maxResultWindow: 3 })
    const shown = pages.flat()
    // At most 3 groups and 3 documents without a cluster id can ever be reached.
    expect(shown.filter((r) => r.clusterId !== null).length).toBeLessThanOrEqual(3)
    expect(shown.filter((r) => r.clusterId === null).length).toBeLessThanOrEqual(3)
    expect(shown.length).toBeGreaterThanOrEqual(3)
  })

  test('a cursor from another query is refused', async () => {
    const first = await search({ query: { match_all: {} }, size: 2 })
    expect(first.next).not.toBeNull()
    await expect(search({ query: LIBRARY, size: 2, cursor: first.next })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`cursor`.*another request/) })
  })

  test('an index without the dedup mapping fails with STORE_REQUEST_FAILED and says what to map', async () => {
    const bare = `${INDEX}-bare`
    await client.indices.create({ index: bare, settings: testIndexSettings(), mappings: { properties: { content: { type: 'text' } } } })
    try {
      await expect(dedupSearch(client, { index: bare, query: { match_all: {} } })).rejects.toMatchObject({
        code: 'STORE_REQUEST_FAILED',
        message: expect.stringMatching(/dedup\.cluster_id.*keyword/),
      })
    } finally {
      await client.indices.delete({ index: bare }, { ignore: [404] })
    }
  })

  test('an unreachable node is STORE_UNAVAILABLE', async () => {
    const dead = new Client({ node: 'http://127.0.0.1:9', maxRetries: 0, requestTimeout: 2000 })
    try {
      await expect(dedupSearch(dead, { index: INDEX })).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', cause: expect.any(errors.ConnectionError) })
    } finally {
      await dead.close()
    }
  })
})

describe('examples/search-server.ts', () => {
  test('GET /search pages through deduplicated results end to end', async () => {
    const server = createSearchServer({ client, index: INDEX, size: 3 })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      type Body = { results: { id: string; title: string | null; duplicateCount: number; duplicates: { id: string; why: string }[] }[]; next: string | null }
      const seen: string[] = []
      let page: string | null = null
      let aResult: Body['results'][0] | undefined
      do {
        const url = new URL('/search', base)
        url.searchParams.set('q', '图书馆') // "library"
        if (page !== null) url.searchParams.set('page', page)
        const res = await fetch(url)
        expect(res.status).toBe(200)
        const body = (await res.json()) as Body
        seen.push(...body.results.map((r) => r.id))
        aResult ??= body.results.find((r) => r.id.startsWith('a-'))
        page = body.next
      } while (page !== null)
      expect(new Set(seen).size).toBe(seen.length)
      expect(seen.filter((id) => id.startsWith('a-'))).toHaveLength(1)
      // The 4 others of its cluster always; the fresh copy too when it ranks onto the same page
      // (on a later page it is hidden without being counted: page 1 is already out).
      expect(aResult!.duplicateCount).toBeGreaterThanOrEqual(4)
      expect(aResult!.title).toBe(DOCS.find((d) => d.id === aResult!.id)!.title)

      const bad = await fetch(`${base}/search?q=x&page=garbage`)
      expect(bad.status).toBe(400)
      expect(await bad.json()).toMatchObject({ error: 'INVALID_OPTION' })
      expect((await fetch(`${base}/search`)).status).toBe(400)
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
