/**
 * `dedupSearch`: one page of search results with near-duplicates folded away.
 *
 * Each page runs two searches in one `_msearch`, with the caller's query and sort:
 * - **groups**: documents that have a cluster id, collapsed on it (`collapse` + `inner_hits`), so
 *   each cluster comes back once, headed by its best-ranked copy, with its exact count;
 * - **singles**: documents without a cluster id (not deduplicated yet), uncollapsed.
 * Elasticsearch would put every document without a value in ONE collapse group, and 8.x refuses
 * to collapse on a runtime field (`dedup_group` = cluster id or `_id` is impossible), hence the
 * second search. Filters do not change scores, so the two lists merge by their sort values.
 * The merged hits then pass the app-layer fold: a hit within k bits of a better-ranked shown hit
 * is hidden under it even when the cluster ids differ (copies indexed since the last reconcile).
 *
 * Pagination: collapse cannot be combined with `search_after` unless sorting on the collapse
 * field alone (no relevance order), so each search pages by `from`. The `next` cursor holds how
 * many groups and singles were consumed, plus the fingerprints and cluster ids shown so far, so a
 * later page folds against earlier pages and never shows a cluster again. On an unchanged index,
 * the pages concatenated equal one big page. If the index changes between pages, a cluster is
 * still never shown twice, but `from` offsets may shift and skip a document. Paging ends at
 * `maxResultWindow` groups / singles; memory covers the last `cursorMemory` shown hits.
 */
import type { estypes } from '@elastic/elasticsearch'
import type { Fingerprint } from '../../types.js'
import { DedupError, describeValue, integerOption } from '../../errors.js'
import { hamming } from '../../fingerprint/hamming.js'
import { ShownFingerprints, toFingerprint } from './fold.js'
import { clusterKeyHash, decodeCursor, encodeCursor, requestHash } from './cursor.js'
import { compareSortValues, defaultSort, parseSort, type SortKey } from './_sort.js'
import { itemError, shardsHint, toStoreError } from '../failures.js'
import { Redactor } from '../redaction.js'
import { resolveDedupSearchOptions, type DedupSearchOptions, type ResolvedDedupSearchOptions } from './options.js'

/**
 * The one method of an `@elastic/elasticsearch` 8 client the hook calls; pass the `Client` itself.
 * Structural: a client of another 8.x version of the package, or a wrapper of one, will do.
 */
export interface SearchClient {
  msearch<TDocument = unknown>(params: estypes.MsearchRequest): Promise<estypes.MsearchResponse<TDocument>>
}

/** Body keys the hook owns or cannot honour across two collapsed, merged searches. */
const FORBIDDEN = {
  from: 'pages are addressed by `cursor` (pass the previous page\'s `next`)',
  search_after: 'pages are addressed by `cursor` (collapse allows search_after only when sorting on the collapse field alone)',
  collapse: 'the hook collapses on `options.clusterField` itself',
  aggs: 'aggregations would run once per search the hook sends; run them in a separate request',
  aggregations: 'aggregations would run once per search the hook sends; run them in a separate request',
  rescore: 'Elasticsearch cannot rescore a collapsed search',
  suggest: 'run suggestions in a separate request',
  pit: 'point-in-time paging is not supported; the cursor keeps pages apart',
  knn: 'a kNN search cannot be paged by `from` across two searches',
} as const

/** A search request as for `client.search`, paged by `cursor` instead of `from` / `search_after`. */
export type DedupSearchRequest = Omit<estypes.MsearchMultisearchBody, keyof typeof FORBIDDEN | 'size'> & {
  /** Index, alias or pattern to search (the one the simdup store writes `dedup` into). */
  index: estypes.Indices
  /** Results per page, after collapsing and folding. @default 10 (1–1 000) */
  size?: number
  /** The previous page's `next`; absent or null for the first page. */
  cursor?: string | null
  routing?: estypes.Routing
  /** Pin a user's pages to the same shard copies so scores, and thus ranks, agree between pages. */
  preference?: string
}

/** Why a hit was hidden: same cluster id (field collapsing) or SimHash within k (app layer). */
export type HiddenReason = 'cluster' | 'simhash'

/** A hit hidden under a shown result. */
export interface HiddenDuplicate {
  id: string
  index: string
  score: number | null
  /** Hamming distance to the shown hit's SimHash; null when either has none. */
  distance: number | null
  why: HiddenReason
  /** `fields` of the hit (options.duplicateFields plus the SimHash field). */
  fields: Record<string, unknown>
}

/** One shown result: the best-ranked hit of its cluster, and what it hides. */
export interface DedupSearchResult<TDocument = unknown> {
  id: string
  score: number | null
  /** The hit as Elasticsearch returned it, without `inner_hits`. */
  hit: estypes.SearchHit<TDocument>
  clusterId: string | null
  simhash: string | null
  /** Listed hidden hits: up to `options.duplicates` of its cluster, then any folded by SimHash. */
  duplicates: HiddenDuplicate[]
  /** All hidden hits matching the query: the rest of its cluster (exact, from inner_hits) plus SimHash folds on this page. */
  duplicateCount: number
}

/** One page. */
export interface DedupSearchResponse<TDocument = unknown> {
  results: DedupSearchResult<TDocument>[]
  /**
   * Cursor of the next page; null when nothing is left. A page can be short (even empty) when
   * folding outlasted `maxRounds`, and the last page may be empty: follow `next` until null.
   */
  next: string | null
  /** Documents matching the query (before collapsing), when both searches reported it. */
  total: { value: number; relation: 'eq' | 'gte' } | null
  /** `_msearch` round trips this page took (more than 1 when folding left the page short). */
  rounds: number
  /** Sum of Elasticsearch's `took` (ms) over the searches. */
  took: number
}

type Hit = estypes.SearchHit<unknown>
type Kind = 'groups' | 'singles'

interface Stream {
  readonly kind: Kind
  /** Hits consumed (shown, folded or dropped): the cursor's offset. */
  consumed: number
  buffer: Hit[]
  exhausted: boolean
}

interface Prepared {
  header: estypes.MsearchMultisearchHeader
  base: estypes.MsearchMultisearchBody
  query: estypes.QueryDslQueryContainer
  sortKeys: SortKey[]
  size: number
  /** Hits asked per search and round, by stream. */
  perRound: Record<Kind, number>
  hash: string
  cursor: string | null
}

const PAGE_SIZE = { default: 10, max: 1000 }

function prepare(request: DedupSearchRequest, o: ResolvedDedupSearchOptions): Prepared {
  if (request === null || typeof request !== 'object') {
    throw new DedupError('INVALID_OPTION', `Expected \`request\` to be a search request object, got ${describeValue(request)}.`)
  }
  for (const [key, why] of Object.entries(FORBIDDEN)) {
    if ((request as Record<string, unknown>)[key] !== undefined) throw new DedupError('INVALID_OPTION', `Unexpected \`${key}\` in the request: ${why}.`)
  }
  const { index, size = PAGE_SIZE.default, cursor = null, routing, preference, query, sort, fields, ...rest } = request
  const indexOk = typeof index === 'string' ? index !== '' : Array.isArray(index) && index.length > 0 && index.every((i) => typeof i === 'string' && i !== '')
  if (!indexOk) throw new DedupError('INVALID_OPTION', `Expected \`index\` to be an index name or a non-empty array of them, got ${describeValue(index)}.`)
  integerOption('size', size, 1, PAGE_SIZE.max)
  const effectiveSort = sort ?? defaultSort(o.indexedAtField)
  const header: estypes.MsearchMultisearchHeader = { index }
  if (routing !== undefined) header.routing = routing
  if (preference !== undefined) header.preference = preference
  // Everything that decides which hits come back and in which order: a cursor only fits its own request.
  const hash = requestHash([index, query, effectiveSort, rest.post_filter, rest.min_score, rest.runtime_mappings, rest.indices_boost, rest.terminate_after, routing, o.clusterField, o.simhashField, o.maxDistance])
  return {
    header,
    // The SimHash comes back through the fields API, so the caller's `_source` filter stays theirs.
    base: { ...rest, sort: effectiveSort, fields: [...(fields ?? []), o.simhashField] },
    query: query ?? { match_all: {} },
    sortKeys: parseSort(effectiveSort),
    size,
    perRound: { groups: size + o.overfetch, singles: 2 * size + o.overfetch },
    hash,
    cursor,
  }
}

function searchBody(kind: Kind, p: Prepared, o: ResolvedDedupSearchOptions, from: number, size: number, first: boolean): estypes.MsearchMultisearchBody {
  const exists: estypes.QueryDslQueryContainer = { exists: { field: o.clusterField } }
  const body: estypes.MsearchMultisearchBody = { ...p.base, from, size }
  // Totals are reported from the first round only; later rounds skip the counting.
  if (!first) body.track_total_hits = false
  if (kind === 'singles') {
    body.query = { bool: { must: [p.query], must_not: [exists] } }
    return body
  }
  body.query = { bool: { must: [p.query], filter: [exists] } }
  body.collapse = {
    field: o.clusterField,
    inner_hits: {
      name: o.innerHitsName,
      // The head of the group is its first inner hit too; 0 still reports the group's total.
      size: o.duplicates === 0 ? 0 : o.duplicates + 1,
      sort: p.base.sort!,
      _source: false,
      fields: [o.simhashField, ...o.duplicateFields],
    },
  }
  return body
}

function describeIndex(index: estypes.Indices): string {
  return Array.isArray(index) ? index.join(',') : String(index)
}

function searchError(kind: Kind, index: estypes.Indices, status: number, error: unknown, o: ResolvedDedupSearchOptions): DedupError {
  const e = (error ?? {}) as { type?: unknown; reason?: unknown; root_cause?: { type?: unknown; reason?: unknown }[]; caused_by?: { reason?: unknown } }
  const root = e.root_cause?.[0]
  const reason = String(root?.reason ?? e.caused_by?.reason ?? e.reason ?? 'unknown reason')
  const hint = /collapse/.test(reason)
    ? ` Map \`${o.clusterField}\` as a keyword with doc values (mappings/dedup-fields.json) on every searched index.`
    : shardsHint(itemError(status, error))
  return new DedupError(
    'STORE_REQUEST_FAILED',
    `Elasticsearch rejected the ${kind} search on \`${describeIndex(index)}\` (status ${status}): ${String(root?.type ?? e.type ?? 'error')}: ${reason}.${hint}`,
    { cause: error },
  )
}

/** One `_msearch` for the streams that need hits; fills their buffers. */
async function fetchRound(
  client: SearchClient,
  p: Prepared,
  o: ResolvedDedupSearchOptions,
  streams: readonly Stream[],
  first: boolean,
  totals: { value: number; gte: boolean; reported: number },
): Promise<number> {
  const asked: { stream: Stream; size: number }[] = []
  const searches: estypes.MsearchRequestItem[] = []
  for (const stream of streams) {
    const from = stream.consumed + stream.buffer.length
    const size = Math.min(p.perRound[stream.kind], o.maxResultWindow - from)
    if (size <= 0) {
      stream.exhausted = true
      continue
    }
    asked.push({ stream, size })
    searches.push(p.header, searchBody(stream.kind, p, o, from, size, first))
  }
  if (asked.length === 0) return 0
  let res: estypes.MsearchResponse<unknown>
  try {
    res = await client.msearch<unknown>({ searches })
  } catch (cause) {
    // The store's classification: "cannot reach" only when no node answered (a 503 the client then
    // carried to a node that is down is the 503); the hook knows no credentials, but URLs' are redacted.
    throw toStoreError(cause, { action: 'the deduplicated search (_msearch)', index: describeIndex(p.header.index!) }, new Redactor([]))
  }
  let took = 0
  res.responses.forEach((item, i) => {
    const { stream, size } = asked[i]!
    if ('error' in item) throw searchError(stream.kind, p.header.index!, item.status, item.error, o)
    took += item.took
    const hits = item.hits.hits
    stream.buffer.push(...hits)
    if (hits.length < size) stream.exhausted = true
    const total = item.hits.total
    if (first && total !== undefined) {
      totals.reported++
      totals.value += typeof total === 'number' ? total : total.value
      totals.gte ||= typeof total !== 'number' && total.relation === 'gte'
    }
  })
  return took
}

function firstString(value: unknown): string | null {
  const v = Array.isArray(value) ? value[0] : value
  return typeof v === 'string' ? v : null
}

function innerHitsOf(hit: Hit, name: string): { hits: Hit[]; total: number } {
  const inner = hit.inner_hits?.[name]?.hits
  const total = inner?.total
  return { hits: (inner?.hits ?? []) as Hit[], total: total === undefined ? 1 : typeof total === 'number' ? total : total.value }
}

/**
 * One page of search results with near-duplicates collapsed: field collapsing on the cluster id
 * (with the hidden copies as `inner_hits`), documents without a cluster id kept one by one, and an
 * app-layer SimHash fold (XOR + popcount on 32-bit halves, k = `maxDistance`) over the merged hits.
 * Pass the returned `next` as `cursor` for the following page: no cluster appears on two pages.
 *
 * Retries are the client's (`maxRetries`); failures reject with a DedupError, classified as the
 * store's are: STORE_UNAVAILABLE when no node answered at all, STORE_REQUEST_FAILED when one did
 * (also when the client then carried its 503 on to a node that was down), cause attached.
 *
 * @example
 * const client = new Client({ node: 'http://127.0.0.1:9200' })
 * const page1 = await dedupSearch(client, { index: 'articles', query: { match: { content: '图书馆' } }, size: 10 })
 * for (const r of page1.results) console.log(r.id, r.duplicateCount)
 * const page2 = page1.next === null ? null : await dedupSearch(client, { index: 'articles', query: { match: { content: '图书馆' } }, cursor: page1.next })
 */
export async function dedupSearch<TDocument = unknown>(
  client: SearchClient,
  request: DedupSearchRequest,
  options: DedupSearchOptions = {},
): Promise<DedupSearchResponse<TDocument>> {
  const o = resolveDedupSearchOptions(options)
  const p = prepare(request, o)
  if (client === null || typeof client !== 'object' || typeof client.msearch !== 'function') {
    throw new DedupError('INVALID_OPTION', `Expected \`client\` to be an @elastic/elasticsearch 8 Client, got ${describeValue(client)}.`)
  }

  const shown = new ShownFingerprints(o.maxDistance)
  const shownClusters = new Map<string, number>()
  const clusterHistory: string[] = []
  let groups: Stream = { kind: 'groups', consumed: 0, buffer: [], exhausted: false }
  let singles: Stream = { kind: 'singles', consumed: 0, buffer: [], exhausted: false }
  if (p.cursor !== null) {
    const c = decodeCursor(p.cursor)
    if (c.request !== p.hash) {
      throw new DedupError('INVALID_OPTION', 'Expected `cursor` to come from a page of the same request (index, query, sort, filters), got one made for another request.')
    }
    groups = { ...groups, consumed: c.groups }
    singles = { ...singles, consumed: c.singles }
    // Earlier pages' hits: fold against them (tag -1 = hide, nothing to attach to).
    for (const fp of c.fingerprints) shown.add(fp, -1)
    for (const h of c.clusters) {
      shownClusters.set(h, -1)
      clusterHistory.push(h)
    }
  }

  const results: DedupSearchResult<TDocument>[] = []
  const simhashes: (Fingerprint | null)[] = []
  const totals = { value: 0, gte: false, reported: 0 }
  let rounds = 0
  let took = 0

  const attach = (target: number, hit: Hit, why: HiddenReason, distance: number | null, hidden: number): void => {
    if (target < 0) return
    const r = results[target]!
    r.duplicates.push(hiddenOf(hit, why, distance))
    r.duplicateCount += hidden
  }

  while (results.length < p.size) {
    const dry = [groups, singles].filter((s) => s.buffer.length === 0 && !s.exhausted)
    if (dry.length > 0) {
      if (rounds === o.maxRounds) break
      took += await fetchRound(client, p, o, dry, rounds === 0, totals)
      rounds++
      continue
    }
    const a = groups.buffer[0]
    const b = singles.buffer[0]
    if (a === undefined && b === undefined) break
    // Equal sort values: the clustered document first, so the merge is deterministic.
    const fromGroups = b === undefined || (a !== undefined && compareSortValues(p.sortKeys, a.sort ?? [], b.sort ?? []) <= 0)
    const stream = fromGroups ? groups : singles
    const hit = stream.buffer.shift()!
    stream.consumed++

    const clusterId = fromGroups ? firstString(hit.fields?.[o.clusterField]) : null
    const simhash = firstString(hit.fields?.[o.simhashField])
    const fp = toFingerprint(simhash)
    const inner = fromGroups ? innerHitsOf(hit, o.innerHitsName) : { hits: [], total: 1 }
    const key = clusterId === null ? null : clusterKeyHash(clusterId)

    // A cluster already shown (an index change between pages re-ranked it): never show it twice.
    const seen = key === null ? undefined : shownClusters.get(key)
    if (seen !== undefined) {
      const target = seen >= 0 ? simhashes[seen] : null
      attach(seen, hit, 'cluster', fp === null || target === null || target === undefined ? null : hamming(fp, target), inner.total)
      continue
    }
    const near = fp === null ? null : shown.nearest(fp)
    if (near !== null) {
      attach(near.tag, hit, 'simhash', near.distance, inner.total)
      continue
    }

    const at = results.length
    const { inner_hits: _inner, ...plain } = hit
    const duplicates: HiddenDuplicate[] = []
    for (const d of inner.hits) {
      if (d._id === hit._id || duplicates.length === o.duplicates) continue
      const dfp = toFingerprint(firstString(d.fields?.[o.simhashField]))
      duplicates.push(hiddenOf(d, 'cluster', fp === null || dfp === null ? null : hamming(fp, dfp)))
    }
    results.push({
      id: String(hit._id),
      score: hit._score ?? null,
      hit: plain as estypes.SearchHit<TDocument>,
      clusterId,
      simhash: fp === null ? null : simhash,
      duplicates,
      duplicateCount: Math.max(0, inner.total - 1),
    })
    simhashes.push(fp)
    if (fp !== null) shown.add(fp, at)
    if (key !== null) {
      shownClusters.set(key, at)
      clusterHistory.push(key)
    }
  }

  const done = [groups, singles].every((s) => s.exhausted && s.buffer.length === 0)
  const next = done
    ? null
    : encodeCursor({ request: p.hash, groups: groups.consumed, singles: singles.consumed, fingerprints: shown.fingerprints(), clusters: clusterHistory }, o.cursorMemory)
  return {
    results,
    next,
    total: totals.reported === 2 ? { value: totals.value, relation: totals.gte ? 'gte' : 'eq' } : null,
    rounds,
    took,
  }
}

function hiddenOf(hit: Hit, why: HiddenReason, distance: number | null): HiddenDuplicate {
  return { id: String(hit._id), index: hit._index, score: hit._score ?? null, distance, why, fields: (hit.fields ?? {}) as Record<string, unknown> }
}
