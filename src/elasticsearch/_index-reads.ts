import type { estypes } from '@elastic/elasticsearch'
import type { FingerprintRecord } from '../types.js'
import { DEDUP_SOURCE_FIELDS, sourceToRecord } from './_document.js'
import type { IndexContext } from './_index-setup.js'
import { itemError } from './failures.js'

/*
 * The Elasticsearch store's reads over the whole index (no candidate lookup): a cluster's members,
 * a URL's versions, a scan of every record, the largest clusters, the fingerprint versions, the record count. The
 * store validates the arguments and refreshes its own writes first (`syncReads`).
 */

/** Members of cluster `clusterId`, at most `limit` (> 0), by first-insertion order then id. */
/** Live records of a cluster, counted (one `_count`). */
export async function clusterSize(ctx: IndexContext, clusterId: string): Promise<number> {
  const res = await ctx.request('_count (cluster size)', () => ctx.client.count({ index: ctx.index, query: { bool: { filter: [{ term: { 'dedup.cluster_id': clusterId } }] } } }))
  return res.count
}

export async function members(ctx: IndexContext, clusterId: string, limit: number): Promise<FingerprintRecord[]> {
  const out: FingerprintRecord[] = []
  let after: estypes.SortResults | undefined
  while (out.length < limit) {
    const size = Math.min(1000, limit - out.length)
    const res = await ctx.request('_search (members)', () =>
      ctx.client.search<{ dedup?: unknown }>({
        index: ctx.index,
        query: { bool: { filter: [{ term: { 'dedup.cluster_id': clusterId } }] } },
        // First-insertion order then id: a total order, so search_after pages neither skip nor repeat.
        sort: [{ 'dedup.seq': 'asc' }, { 'dedup.id': 'asc' }],
        size,
        track_total_hits: false,
        _source: DEDUP_SOURCE_FIELDS,
        ...(after === undefined ? {} : { search_after: after }),
      }),
    )
    const hits = res.hits.hits
    for (const hit of hits) {
      const record = sourceToRecord(String(hit._id), hit._source, ctx.layout.compact)
      if (record !== null) out.push(record)
    }
    if (hits.length < size) break
    after = hits[hits.length - 1]!.sort
  }
  return out
}

/**
 * For each URL hash, the records with it, first indexed last first (seq, then id, descending), at
 * most `limit` (> 0, ≤ 10 000: one page) each: one `_msearch` per `perRequest` hashes.
 */
export async function byUrl(ctx: IndexContext, urlHashes: readonly string[], limit: number, perRequest: number): Promise<FingerprintRecord[][]> {
  const size = Math.min(limit, 10_000)
  const out: FingerprintRecord[][] = []
  for (let i = 0; i < urlHashes.length; i += perRequest) {
    const searches: estypes.MsearchRequestItem[] = []
    for (const hash of urlHashes.slice(i, i + perRequest)) {
      searches.push({}, {
        query: { bool: { filter: [{ term: { 'dedup.url_hash': hash } }] } },
        sort: [{ 'dedup.seq': 'desc' }, { 'dedup.id': 'desc' }],
        size,
        track_total_hits: false,
        _source: DEDUP_SOURCE_FIELDS,
      })
    }
    const res = await ctx.request('_msearch (versions by URL)', async () => {
      const r = await ctx.client.msearch<{ dedup?: unknown }>({ index: ctx.index, searches })
      // A rejected sub-search fails the request, so it is retried whole.
      for (const item of r.responses) if ('error' in item) throw itemError(item.status, item.error)
      return r
    })
    for (const item of res.responses) {
      const list: FingerprintRecord[] = []
      for (const hit of 'error' in item ? [] : item.hits.hits) {
        const record = sourceToRecord(String(hit._id), hit._source, ctx.layout.compact)
        if (record !== null) list.push(record)
      }
      out.push(list)
    }
  }
  return out
}

/** Every record of the index, in pages of `page` hits (≤ 10 000), through a point in time. */
export async function* scan(ctx: IndexContext, page: number): AsyncIterable<FingerprintRecord[]> {
  const opened = await ctx.request('open point in time', () => ctx.client.openPointInTime({ index: ctx.index, keep_alive: '2m' }))
  let pitId = opened.id
  try {
    let after: estypes.SortResults | undefined
    for (;;) {
      const res = await ctx.request('_search (scan)', () =>
        ctx.client.search<{ dedup?: unknown }>({
          pit: { id: pitId, keep_alive: '2m' },
          query: { exists: { field: 'dedup.id' } },
          // _shard_doc: the cheapest total order of a point in time, made for search_after.
          sort: [{ _shard_doc: 'asc' }],
          size: page,
          track_total_hits: false,
          _source: DEDUP_SOURCE_FIELDS,
          ...(after === undefined ? {} : { search_after: after }),
        }),
      )
      if (res.pit_id !== undefined) pitId = res.pit_id
      const hits = res.hits.hits
      const batch: FingerprintRecord[] = []
      for (const hit of hits) {
        const record = sourceToRecord(String(hit._id), hit._source, ctx.layout.compact)
        if (record !== null) batch.push(record)
      }
      if (batch.length > 0) yield batch
      if (hits.length < page) break
      after = hits[hits.length - 1]!.sort
    }
  } finally {
    // Also runs when the consumer stops early: a point in time holds segments until it closes.
    await ctx.client.closePointInTime({ id: pitId }).catch(() => undefined)
  }
}

/** The largest clusters (see `FingerprintStore.topClusters`); `limit` > 0. */
export async function topClusters(ctx: IndexContext, limit: number, minSize: number): Promise<{ clusterId: string; size: number }[]> {
  const aggs = await aggregate(ctx, 'topClusters', {
    clusters: {
      terms: {
        field: 'dedup.cluster_id',
        size: Math.min(limit, 65_000),
        // Per-shard candidates: with several shards the default (size × 1.5 + 10) undercounts.
        shard_size: Math.min(Math.max(1000, limit * 20), 65_000),
        min_doc_count: minSize,
        order: [{ _count: 'desc' }, { _key: 'asc' }],
        show_term_doc_count_error: true,
      },
    },
  })
  const agg = aggs?.clusters as estypes.AggregationsStringTermsAggregate | undefined
  const buckets = (agg?.buckets ?? []) as estypes.AggregationsStringTermsBucket[]
  const top = buckets.map((b) => ({ clusterId: String(b.key), size: b.doc_count }))
  return topTermsAreExact(agg, buckets, limit, minSize) ? top : topClustersExact(ctx, limit, minSize)
}

/**
 * The largest clusters counted over every cluster id (a composite aggregation, paged): exact on
 * any number of shards, at the cost of one bucket per cluster. Used when the terms aggregation's
 * error bounds cannot prove its answer.
 */
async function topClustersExact(ctx: IndexContext, limit: number, minSize: number): Promise<{ clusterId: string; size: number }[]> {
  const best: { clusterId: string; size: number }[] = []
  const order = (a: { clusterId: string; size: number }, b: { clusterId: string; size: number }) =>
    b.size - a.size || (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0)
  let after: Record<string, string | number | boolean | null> | undefined
  for (;;) {
    const page = await aggregate(ctx, 'topClusters, composite', {
      clusters: {
        composite: { size: 10_000, sources: [{ id: { terms: { field: 'dedup.cluster_id' } } }], ...(after === undefined ? {} : { after }) },
      },
    })
    const agg = page?.clusters as estypes.AggregationsCompositeAggregate | undefined
    const buckets = (agg?.buckets ?? []) as estypes.AggregationsCompositeBucket[]
    for (const b of buckets) if (b.doc_count >= minSize) best.push({ clusterId: String(b.key.id), size: b.doc_count })
    // Keep the list short: sort and cut once it is well past the limit.
    if (best.length > 2 * limit + 10_000) best.sort(order).length = limit
    if (buckets.length === 0 || agg?.after_key === undefined) break
    after = agg.after_key as Record<string, string | number | boolean | null>
  }
  best.sort(order)
  return best.slice(0, limit)
}

/**
 * Whether a terms aggregation's top clusters (count desc, key asc) are provably the true ones:
 * every count exact, and no cluster left out could reach the last one shown (or `minSize` when
 * fewer than `limit` came back). Always so on one shard; on several, each shard only sends its
 * own top `shard_size`.
 */
function topTermsAreExact(
  agg: estypes.AggregationsStringTermsAggregate | undefined,
  buckets: readonly estypes.AggregationsStringTermsBucket[],
  limit: number,
  minSize: number,
): boolean {
  if (agg === undefined) return true
  const missing = agg.doc_count_error_upper_bound ?? 0
  if (missing === 0) return buckets.every((b) => (b.doc_count_error_upper_bound ?? 0) === 0)
  if (buckets.some((b) => (b.doc_count_error_upper_bound ?? 0) !== 0)) return false
  // A cluster left out has at most `missing` members; ties are ordered by id, so it must be fewer.
  return buckets.length < limit ? missing < minSize : missing < buckets[buckets.length - 1]!.doc_count
}

/** The distinct fingerprint versions of the index's records, sorted. */
export async function versions(ctx: IndexContext): Promise<string[]> {
  const aggs = await aggregate(ctx, 'versions', { versions: { terms: { field: 'dedup.version', size: 1000 } } })
  const agg = aggs?.versions as estypes.AggregationsStringTermsAggregate | undefined
  const buckets = Array.isArray(agg?.buckets) ? agg.buckets : []
  return buckets.map((b) => String(b.key)).sort()
}

/** Aggregations over every record of the index (no hits, no total): `clusters`, `versions`. */
async function aggregate(ctx: IndexContext, action: string, aggs: Record<string, estypes.AggregationsAggregationContainer>): Promise<Record<string, estypes.AggregationsAggregate> | undefined> {
  const res = await ctx.request(`_search (${action})`, () =>
    ctx.client.search({ index: ctx.index, size: 0, track_total_hits: false, query: { exists: { field: 'dedup.id' } }, aggs }),
  )
  return res.aggregations
}

/** Number of dedup records in the index. */
export async function count(ctx: IndexContext): Promise<number> {
  const res = await ctx.request('_count', () => ctx.client.count({ index: ctx.index, query: { exists: { field: 'dedup.id' } } }))
  return res.count
}
