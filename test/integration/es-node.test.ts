/**
 * Smoke test of the Elasticsearch node the integration tests run against (see
 * test/helpers/es-node.ts): every server feature simdup's Elasticsearch store relies on, for real.
 * It fails, never skips, when no node can be had. The only skips are the two features that the
 * Maven-built launcher node cannot have (the reindex and lang-painless modules are not on Maven
 * Central for 8.x); they run against nodes that have them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Client, errors } from '@elastic/elasticsearch'
import { acquireElasticsearch, type AcquiredElasticsearch, testIndexSettings } from '../helpers/es-node.js'

const INDEX = `simdup-smoke-${process.pid}`
const TEMPLATED = `${INDEX}-templated`
const TEMPLATE = `simdup-smoke-${process.pid}-template`

/** Six documents in three groups; `b0`..`b3` stand in for simdup's fingerprint blocks. */
const DOCS = [
  { id: 'a1', group: 'a', n: 1, b0: 'x', b1: 'y', b2: 'z', b3: 'w' },
  { id: 'a2', group: 'a', n: 2, b0: 'x', b1: 'y', b2: 'q', b3: 'q' },
  { id: 'b1', group: 'b', n: 3, b0: 'x', b1: 'q', b2: 'q', b3: 'q' },
  { id: 'b2', group: 'b', n: 4, b0: 'q', b1: 'y', b2: 'z', b3: 'q' },
  { id: 'c1', group: 'c', n: 5, b0: 'q', b1: 'q', b2: 'q', b3: 'q' },
  { id: 'c2', group: 'c', n: 6, b0: 'x', b1: 'y', b2: 'z', b3: 'w' },
] as const

const MAPPINGS = {
  dynamic: 'strict' as const,
  properties: {
    id: { type: 'keyword' as const },
    group: { type: 'keyword' as const },
    n: { type: 'long' as const },
    b0: { type: 'keyword' as const },
    b1: { type: 'keyword' as const },
    b2: { type: 'keyword' as const },
    b3: { type: 'keyword' as const },
    note: { type: 'keyword' as const },
  },
}

let es: AcquiredElasticsearch
let client: Client
let modules: Set<string>

const ids = (hits: readonly { _id?: string | undefined }[]): string[] => hits.map((h) => h._id ?? '?')
const ignore404 = { ignore: [404] }

beforeAll(async () => {
  es = await acquireElasticsearch()
  client = new Client({ nodes: es.nodes })
  const nodes = await client.nodes.info({ node_id: '_local', metric: 'plugins' })
  modules = new Set(Object.values(nodes.nodes).flatMap((n) => (n.modules ?? []).map((m) => m.name)))
  await client.indices.create({
    index: INDEX,
    settings: { number_of_shards: 2, number_of_replicas: 0, ...testIndexSettings() },
    mappings: MAPPINGS,
  })
  const bulk = await client.bulk({
    refresh: true,
    operations: DOCS.flatMap((doc) => [{ index: { _index: INDEX, _id: doc.id } }, doc]),
  })
  expect(bulk.errors).toBe(false)
})

afterAll(async () => {
  if (client !== undefined) {
    await client.indices.delete({ index: [INDEX, TEMPLATED] }, ignore404)
    await client.indices.deleteIndexTemplate({ name: TEMPLATE }, ignore404)
    await client.close()
  }
  await es?.stop()
})

describe('Elasticsearch test node', () => {
  test('GET / reports an 8.x version and a build flavour', async () => {
    const info = await client.info()
    expect(info.version.number).toMatch(/^8\.\d+\.\d+/)
    expect(info.version.number).toBe(es.version)
    expect(info.version.build_flavor).toBe(es.flavor)
    expect(es.flavor).not.toBe('')
    expect(await client.ping()).toBe(true)
  })

  test('index creation applies explicit mappings', async () => {
    const mapping = await client.indices.getMapping({ index: INDEX })
    expect(mapping[INDEX]?.mappings.properties?.group).toEqual({ type: 'keyword' })
    // `dynamic: strict` is honoured: an unmapped field is rejected, not guessed.
    await expect(client.index({ index: INDEX, document: { unmapped: 1 } })).rejects.toMatchObject({
      meta: { statusCode: 400 },
    })
  })

  test('an index template shapes an index created by its first document', async () => {
    await client.indices.putIndexTemplate({
      name: TEMPLATE,
      index_patterns: [`${INDEX}-templ*`],
      priority: 500,
      template: { settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings: MAPPINGS },
    })
    await client.index({ index: TEMPLATED, id: 't1', document: { id: 't1', n: 7 }, refresh: true })
    const mapping = await client.indices.getMapping({ index: TEMPLATED })
    expect(mapping[TEMPLATED]?.mappings.properties?.b0).toEqual({ type: 'keyword' })
    expect(mapping[TEMPLATED]?.mappings.dynamic).toBe('strict')
  })

  test('_bulk indexed every document', async () => {
    const { count } = await client.count({ index: INDEX })
    expect(count).toBe(DOCS.length)
  })

  test('bool of term clauses with minimum_should_match, filtered by terms and range', async () => {
    // At least 3 of the 4 blocks of a1 (x, y, z, w) must match, as in simdup's block lookup.
    const res = await client.search({
      index: INDEX,
      size: 10,
      sort: [{ n: 'asc' }],
      query: {
        bool: {
          should: [{ term: { b0: 'x' } }, { term: { b1: 'y' } }, { term: { b2: 'z' } }, { term: { b3: 'w' } }],
          minimum_should_match: 3,
          filter: [{ terms: { group: ['a', 'b', 'c'] } }, { range: { n: { gte: 1, lte: 5 } } }],
        },
      },
    })
    // a2 and b2 share only 2 blocks; c2 shares all 4 but n=6 is out of range.
    expect(ids(res.hits.hits)).toEqual(['a1'])
  })

  test('_msearch answers each search in order', async () => {
    const res = await client.msearch({
      index: INDEX,
      searches: [{}, { query: { term: { group: 'b' } }, sort: [{ n: 'asc' }] }, {}, { query: { term: { group: 'none' } } }],
    })
    expect(res.responses).toHaveLength(2)
    const [first, second] = res.responses
    expect(first !== undefined && 'hits' in first ? ids(first.hits.hits) : first).toEqual(['b1', 'b2'])
    expect(second !== undefined && 'hits' in second ? second.hits.hits : second).toEqual([])
  })

  test('field collapsing returns one hit per group with inner_hits', async () => {
    const res = await client.search({
      index: INDEX,
      sort: [{ n: 'asc' }],
      collapse: { field: 'group', inner_hits: { name: 'members', size: 5, sort: [{ n: 'desc' }] } },
    })
    expect(ids(res.hits.hits)).toEqual(['a1', 'b1', 'c1'])
    const members = res.hits.hits.map((h) => ids(h.inner_hits?.members?.hits.hits ?? []))
    expect(members).toEqual([['a2', 'a1'], ['b2', 'b1'], ['c2', 'c1']])
  })

  test('terms aggregation counts documents per group', async () => {
    const res = await client.search<unknown, { groups: { buckets: { key: string; doc_count: number }[] } }>({
      index: INDEX,
      size: 0,
      aggs: { groups: { terms: { field: 'group', order: { _key: 'asc' } } } },
    })
    expect(res.aggregations?.groups.buckets.map((b) => [b.key, b.doc_count])).toEqual([
      ['a', 2],
      ['b', 2],
      ['c', 2],
    ])
  })

  test('search_after pages through all documents in sort order', async () => {
    const seen: string[] = []
    let after: (string | number)[] | undefined
    for (let page = 0; page < 10; page++) {
      const res = await client.search({
        index: INDEX,
        size: 4,
        sort: [{ n: 'asc' }, { id: 'asc' }],
        ...(after === undefined ? {} : { search_after: after }),
      })
      const hits = res.hits.hits
      if (hits.length === 0) break
      seen.push(...ids(hits))
      after = hits.at(-1)?.sort as (string | number)[]
    }
    expect(seen).toEqual(['a1', 'a2', 'b1', 'b2', 'c1', 'c2'])
  })

  test('point-in-time with slices splits the index into disjoint parts', async () => {
    const pit = await client.openPointInTime({ index: INDEX, keep_alive: '1m' })
    try {
      const parts = await Promise.all(
        ['0', '1'].map(async (slice) => {
          const res = await client.search({
            size: 100,
            pit: { id: pit.id, keep_alive: '1m' },
            slice: { id: slice, max: 2 }, // the client types slice ids as strings
            sort: [{ _shard_doc: 'asc' }],
          })
          return ids(res.hits.hits)
        }),
      )
      const all = parts.flat()
      expect(new Set(all).size).toBe(all.length) // no document in two slices
      expect(all.sort()).toEqual(DOCS.map((d) => d.id).sort())
    } finally {
      await client.closePointInTime({ id: pit.id })
    }
  })

  test('_refresh makes a document written without refresh searchable', async () => {
    await client.index({ index: INDEX, id: 'late', document: { id: 'late', group: 'z', n: 100 } })
    await client.indices.refresh({ index: INDEX })
    const res = await client.search({ index: INDEX, query: { term: { group: 'z' } } })
    expect(ids(res.hits.hits)).toEqual(['late'])
    await client.delete({ index: INDEX, id: 'late', refresh: true })
  })

  test('partial updates through _update and through _bulk', async () => {
    await client.update({ index: INDEX, id: 'a1', doc: { note: 'single' }, refresh: true })
    const bulk = await client.bulk({
      refresh: true,
      operations: [{ update: { _index: INDEX, _id: 'a2' } }, { doc: { note: 'bulk' } }],
    })
    expect(bulk.errors).toBe(false)
    const a1 = await client.get<{ note?: string; n: number }>({ index: INDEX, id: 'a1' })
    const a2 = await client.get<{ note?: string; n: number }>({ index: INDEX, id: 'a2' })
    expect([a1._source?.note, a1._source?.n, a2._source?.note, a2._source?.n]).toEqual(['single', 1, 'bulk', 2])
  })

  test('_update_by_query and _delete_by_query (reindex module)', async ({ skip }) => {
    skip(!modules.has('reindex'), `no reindex module on this ${es.source} node (not on Maven Central for 8.x)`)
    const updated = await client.updateByQuery({ index: INDEX, refresh: true, query: { term: { group: 'c' } } })
    expect(updated.updated).toBe(2)
    const deleted = await client.deleteByQuery({ index: INDEX, refresh: true, query: { term: { id: 'c2' } } })
    expect(deleted.deleted).toBe(1)
    expect((await client.count({ index: INDEX })).count).toBe(DOCS.length - 1)
    await client.index({ index: INDEX, id: 'c2', document: DOCS[5], refresh: true })
  })

  test('painless scripts in _update (lang-painless module)', async ({ skip }) => {
    skip(!modules.has('lang-painless'), `no lang-painless module on this ${es.source} node (not on Maven Central for 8.x)`)
    await client.update({
      index: INDEX,
      id: 'b1',
      script: { lang: 'painless', source: 'ctx._source.n += params.by', params: { by: 10 } },
      refresh: true,
    })
    expect((await client.get<{ n: number }>({ index: INDEX, id: 'b1' }))._source?.n).toBe(13)
  })

  test('the launcher node rejects scripts clearly rather than ignoring them', async ({ skip }) => {
    skip(modules.has('lang-painless'), 'this node has painless')
    const scripted = client.update({ index: INDEX, id: 'b1', script: { source: 'ctx._source.n += 1' } })
    await expect(scripted).rejects.toBeInstanceOf(errors.ResponseError)
    await expect(scripted).rejects.toMatchObject({ meta: { statusCode: 400 } })
  })
})
