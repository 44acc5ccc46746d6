import type { CandidateQuery, FingerprintRecord } from '../types.js'
import { popcount64 } from '../fingerprint/hamming.js'
import { BLOCK_SET_FIELDS, CANDIDATE_SOURCE, asksBlockSets, blockSets, distinctBlocks, matchesCandidateQuery, queryKeys, type BlockSetFormat } from './_query.js'
import { KeyPostings } from './_keys.js'
import { compareOrder } from '../engine/match.js'

/**
 * Batched candidate lookups. Each search costs Elasticsearch a fixed overhead (parse, context,
 * query and fetch phase, reduce) that dwarfs the work of a handful of term lookups on a small
 * result: one search per lookup made the store round trip several times slower than the
 * fingerprinting it serves. So a group of lookups is answered by ONE search for the union of
 * their clauses, and each lookup takes its own candidates back from the union's hits by the same
 * rule in memory (`matchesCandidateQuery`, as for the pending list). The union is complete unless
 * it filled its page, in which case the group is split and asked again, down to single lookups
 * asked as before; so every lookup gets exactly what its own search would have returned.
 */

/** Hits a union search may return; a full page means "maybe more", and the group is split. */
export const UNION_PAGE = 10_000
/**
 * Upper bound on the Lucene clauses of one union search. Elasticsearch 8 derives its limit from
 * heap and thread pool, never below 1024; the estimate below counts a `terms` of ≤ 16 values as
 * that many clauses, since Lucene rewrites it into a boolean query of term queries.
 */
const MAX_CLAUSES = 900
/** Clauses of the parts every union has: four `terms` (hashes, bands) under one bool, the filter. */
const BASE_CLAUSES = 4 * (16 + 1) + 2
/** Terms of one union search (Elasticsearch refuses a `terms` query above index.max_terms_count, 65 536). */
const MAX_TERMS = 20_000

/** A lookup and its place in the caller's batch. */
export interface Lookup {
  at: number
  query: CandidateQuery
}

/** Lucene clauses of a `terms` query of n values, after rewriting, plus its parent. */
function termsClauses(n: number): number {
  return Math.min(n, 16) + 1
}

/**
 * Key of the shared block clause of a lookup that any one term answers (`minMatch: 1` on blocks,
 * or its block sets, in format `sets`): such lookups with the same popcount window and field can share
 * one `terms`, which matches exactly the union of their own clauses.
 */
function blockGroupKey(q: CandidateQuery, blocks: readonly string[], sets: BlockSetFormat | null): string | null {
  if (blocks.length === 0) return null
  if (asksBlockSets(q, sets)) return `s${popcount64(q.fingerprint)}/${q.maxDistance}`
  if (q.minMatch !== 1) return null
  return `${popcount64(q.fingerprint)}/${q.maxDistance}`
}

/** The terms a lookup's block clause asks: its block sets, or its blocks. */
function blockTerms(q: CandidateQuery, blocks: string[], sets: BlockSetFormat | null): string[] {
  return asksBlockSets(q, sets) ? blockSets(blocks, sets) : blocks
}

/**
 * Splits lookups into groups small enough for one search each: at most `maxLookups`, and within
 * the clause and term budgets (estimated from above).
 * @example groupLookups(lookups, 500).length // 1 for a typical batch of 500
 */
export function groupLookups(lookups: readonly Lookup[], maxLookups: number, sets: BlockSetFormat | null = null): Lookup[][] {
  const groups: Lookup[][] = []
  let group: Lookup[] = []
  let terms = 0
  let clauses = BASE_CLAUSES
  let shared = new Map<string, number>() // block group key → block terms in it
  /** Clauses `l` adds to the current group: its own block clause, or the growth of a shared one. */
  const cost = (q: CandidateQuery, blocks: readonly string[], key: string | null): number => {
    if (key === null) return blocks.length >= q.minMatch ? termsClauses(blocks.length) + 2 : 0
    const before = shared.get(key)
    return before === undefined ? termsClauses(blocks.length) + 2 : termsClauses(before + blocks.length) - termsClauses(before)
  }
  for (const l of lookups) {
    const q = l.query
    const blocks = blockTerms(q, distinctBlocks(q), sets)
    const key = blockGroupKey(q, blocks, sets)
    const addTerms = blocks.length + (q.bands?.length ?? 0) + 3
    if (group.length > 0 && (group.length >= maxLookups || clauses + cost(q, blocks, key) > MAX_CLAUSES || terms + addTerms > MAX_TERMS)) {
      groups.push(group)
      group = []
      terms = 0
      clauses = BASE_CLAUSES
      shared = new Map()
    }
    clauses += cost(q, blocks, key)
    if (key !== null) shared.set(key, (shared.get(key) ?? 0) + blocks.length)
    terms += addTerms
    group.push(l)
  }
  if (group.length > 0) groups.push(group)
  return groups
}

/**
 * The `_msearch` body line answering a group of lookups: the union of their clauses (see
 * `candidateQuery`), unscored, in `_doc` order, `dedup` only. Per-lookup parts that would narrow
 * the union wrongly (`excludeId`, differing `since`) are left to `assignCandidates`.
 */
export function unionSearchBody(queries: readonly CandidateQuery[], size: number, sets: BlockSetFormat | null = null): Record<string, unknown> {
  const contentHashes = new Set<string>()
  const urlHashes = new Set<string>()
  const titleHashes = new Set<string>()
  const bands = new Set<string>()
  const shared = new Map<string, { pc: number; maxDistance: number; field: string; blocks: Set<string> }>()
  const own: Record<string, unknown>[] = []
  for (const q of queries) {
    if (q.contentHash != null) contentHashes.add(q.contentHash)
    if (q.urlHash != null) urlHashes.add(q.urlHash)
    if (q.titleHash != null) titleHashes.add(q.titleHash)
    if (q.bands !== undefined) for (const b of q.bands) bands.add(b)
    const blocks = distinctBlocks(q)
    if (blocks.length < q.minMatch) continue
    const pc = popcount64(q.fingerprint)
    const key = blockGroupKey(q, blocks, sets)
    if (key !== null) {
      let g = shared.get(key)
      const asSets = asksBlockSets(q, sets)
      if (g === undefined) shared.set(key, (g = { pc, maxDistance: q.maxDistance, field: asSets ? `dedup.${BLOCK_SET_FIELDS[sets]}` : 'dedup.blocks', blocks: new Set() }))
      for (const b of asSets ? blockSets(blocks, sets) : blocks) g.blocks.add(b)
    } else {
      own.push({
        bool: {
          filter: [
            { bool: { should: blocks.map((b) => ({ term: { 'dedup.blocks': b } })), minimum_should_match: q.minMatch } },
            { range: { 'dedup.popcount': { gte: pc - q.maxDistance, lte: pc + q.maxDistance } } },
          ],
        },
      })
    }
  }
  const should: Record<string, unknown>[] = []
  if (contentHashes.size > 0) should.push({ terms: { 'dedup.content_hash': [...contentHashes] } })
  if (urlHashes.size > 0) should.push({ terms: { 'dedup.url_hash': [...urlHashes] } })
  if (titleHashes.size > 0) should.push({ terms: { 'dedup.title_hash': [...titleHashes] } })
  if (bands.size > 0) should.push({ terms: { 'dedup.bands': [...bands] } })
  for (const g of shared.values()) {
    should.push({
      bool: {
        filter: [{ terms: { [g.field]: [...g.blocks] } }, { range: { 'dedup.popcount': { gte: g.pc - g.maxDistance, lte: g.pc + g.maxDistance } } }],
      },
    })
  }
  should.push(...own)
  const filter: Record<string, unknown>[] = [{ bool: { should, minimum_should_match: 1 } }]
  // A time window narrows the union only when every lookup has one (the loosest is kept).
  if (queries.every((q) => q.since !== undefined)) filter.push({ range: { 'dedup.indexed_at': { gte: Math.min(...queries.map((q) => q.since!)) } } })
  // Likewise the sequence bound (the largest is kept): a re-run's records of later documents stay on the server.
  if (queries.every((q) => q.maxSeq !== undefined)) filter.push({ range: { 'dedup.seq': { lte: Math.max(...queries.map((q) => q.maxSeq!)) } } })
  return { query: { bool: { filter } }, size, sort: ['_doc'], track_total_hits: false, _source: CANDIDATE_SOURCE }
}

/**
 * Each lookup's candidates among a union search's records (in the search's order), by the same
 * rule as its own search, at most `limit` each.
 * @example assignCandidates(hits, queries, 1000)[0] // the first lookup's candidates
 */
export function assignCandidates(records: readonly FingerprintRecord[], queries: readonly CandidateQuery[], limit: number): FingerprintRecord[][] {
  // Postings over the hits, so each lookup looks only at records sharing one of its keys.
  const postings = new KeyPostings<number>()
  records.forEach((r, i) => postings.add(r, i))
  return queries.map((q) => {
    const seen = new Set<number>()
    postings.forEach(q, (i) => seen.add(i))
    const pc = popcount64(q.fingerprint)
    const keys = queryKeys(q)
    const out: FingerprintRecord[] = []
    // Hit order, as the lookup's own search (sorted by _doc) would list them.
    for (const i of [...seen].sort((a, b) => a - b)) {
      const r = records[i]!
      if (!matchesCandidateQuery(r, q, pc, keys)) continue
      out.push(r)
      if (out.length >= limit) break
    }
    return out
  })
}

/**
 * Band terms shared by many records ("hot": more than `maxPerBand`) are not asked in the union
 * search: documents that share content share band terms, so such a term's hits grow with the index
 * and would fill every union's page. Each hot term is asked apart instead, for its newest
 * `maxPerBand + 1` records (one more in case a lookup excludes one; once a batch, or held between
 * batches by the store's `HotBandCache`), and each lookup having it takes its newest `maxPerBand`
 * (`addHotBandCandidates`): the rule of the embedded store. How many records
 * have a term comes from `_termvectors` on an artificial document holding the batch's band terms
 * (Lucene's document frequency: one term-dictionary lookup each, deleted documents included until
 * merged away, per shard: with several shards a term is hot when one shard has more than
 * `maxPerBand`, so a lookup may get up to a shard count times more from a term).
 */

/** The distinct band terms of `lookups`. @example bandTermsOf([{ at: 0, query }]) // ['m0_1a2b3c4d', …] */
export function bandTermsOf(lookups: readonly Lookup[]): string[] {
  const terms = new Set<string>()
  for (const l of lookups) for (const b of l.query.bands ?? []) terms.add(b)
  return [...terms]
}

/** The `_termvectors` request asking for the document frequency of each of `terms`. */
export function bandFrequencyRequest(terms: readonly string[]): Record<string, unknown> {
  return {
    doc: { dedup: { bands: terms } },
    fields: ['dedup.bands'],
    term_statistics: true,
    field_statistics: false,
    positions: false,
    offsets: false,
    payloads: false,
  }
}

/** The terms of a `_termvectors` answer held by more than `maxPerBand` documents. */
export function hotBandTerms(response: unknown, maxPerBand: number): Set<string> {
  const hot = new Set<string>()
  const terms = (response as { term_vectors?: Record<string, { terms?: Record<string, { doc_freq?: number }> }> } | null)?.term_vectors?.['dedup.bands']?.terms
  for (const [term, stats] of Object.entries(terms ?? {})) if ((stats.doc_freq ?? 0) > maxPerBand) hot.add(term)
  return hot
}

/** `q` without the band terms in `hot` (the same object when it has none). */
export function withoutBands(q: CandidateQuery, hot: ReadonlySet<string>): CandidateQuery {
  if (q.bands === undefined || !q.bands.some((b) => hot.has(b))) return q
  return { ...q, bands: q.bands.filter((b) => !hot.has(b)) }
}

/** Key of a hot band search: the term and the lookup's time window. */
function hotKey(term: string, since: number | undefined, seqBound: number | undefined): string {
  return `${since ?? ''}\u0001${seqBound ?? ''}\u0001${term}`
}

/**
 * The sequence bound a lookup's hot band search needs: none when every stored record is earlier
 * than its document (`maxSeq` above `seqFloor`, the largest number stored before the batch: a new
 * document), so the batch's new documents share one search per term; else its own `maxSeq` (a
 * re-indexed document), so the newest records *before it* fill the bound, as in the first run.
 */
function seqBoundOf(q: CandidateQuery, seqFloor: number): number | undefined {
  return q.maxSeq === undefined || q.maxSeq > seqFloor ? undefined : q.maxSeq
}

/** One hot band search: its term, whether it is unbounded (no time window, no sequence bound), its `_msearch` body. */
export interface HotBandSearch {
  term: string
  /** No `since` and no sequence bound: the term's newest records of all, which a `HotBandCache` can hold. */
  open: boolean
  body: Record<string, unknown>
}

/** The hot band searches `lookups` need, by key, each with its `_msearch` body (newest first). */
export function hotBandSearches(
  lookups: readonly Lookup[], hot: ReadonlySet<string>, maxPerBand: number, seqFloor = Number.POSITIVE_INFINITY, perCluster = 0,
): Map<string, HotBandSearch> {
  const out = new Map<string, HotBandSearch>()
  for (const l of lookups) {
    const q = l.query
    const bound = seqBoundOf(q, seqFloor)
    for (const term of q.bands ?? []) {
      const key = hotKey(term, q.since, bound)
      if (!hot.has(term) || out.has(key)) continue
      const filter: Record<string, unknown>[] = [{ term: { 'dedup.bands': term } }]
      if (q.since !== undefined) filter.push({ range: { 'dedup.indexed_at': { gte: q.since } } })
      if (bound !== undefined) filter.push({ range: { 'dedup.seq': { lte: bound } } })
      // Newest by first-insertion order, not by wall clock: a re-run re-writes indexed_at.
      const sort = [{ 'dedup.seq': { order: 'desc', unmapped_type: 'long', missing: '_last' } }, { 'dedup.indexed_at': 'desc' }]
      const body = perCluster > 0
        ? clusterCollapsedBody(filter, maxPerBand, perCluster)
        : { query: { bool: { filter } }, size: maxPerBand + 1, sort, track_total_hits: false, _source: CANDIDATE_SOURCE }
      out.set(key, { term, open: q.since === undefined && bound === undefined, body })
    }
  }
  return out
}

/**
 * A hot term's search bounded by cluster (`CandidateBounds.perCluster`): its records collapsed by
 * cluster, the `maxPerBand + 1` clusters first indexed first (by their first record) with their
 * `perCluster + 1` first records each (one more of each in case a lookup excludes its own id):
 * every record the bound keeps for any lookup with the term, a cluster of thousands of copies
 * read as a few records. The records are in the groups' `inner_hits` (`msearch` flattens them).
 */
function clusterCollapsedBody(filter: Record<string, unknown>[], maxPerBand: number, perCluster: number): Record<string, unknown> {
  const oldest = [{ 'dedup.seq': { order: 'asc', unmapped_type: 'long', missing: '_last' } }, { 'dedup.id': 'asc' }]
  return {
    query: { bool: { filter } },
    size: maxPerBand + 1,
    sort: oldest,
    collapse: { field: 'dedup.cluster_id', inner_hits: { name: CLUSTER_HITS, size: perCluster + 1, sort: oldest, _source: CANDIDATE_SOURCE } },
    track_total_hits: false,
    _source: false,
  }
}

/** Name of the `inner_hits` of a search collapsed by cluster. */
export const CLUSTER_HITS = 'cluster'

/**
 * Adds to each lookup's answer (`out[at]`) the newest `maxPerBand` records of each of its hot band
 * terms (`hits` by `hotBandSearches` key), skipping its excluded id and records it already has,
 * up to `limit` records in all.
 */
export function addHotBandCandidates(
  out: FingerprintRecord[][], lookups: readonly Lookup[], hot: ReadonlySet<string>, hits: ReadonlyMap<string, readonly FingerprintRecord[]>,
  maxPerBand: number, limit: number, seqFloor = Number.POSITIVE_INFINITY, perCluster = 0,
): void {
  // Bounded by cluster, an answer holds only what the bound may keep: all of it is added (the
  // engine's bound then picks), but the lookup's own id.
  const per = perCluster > 0 ? Number.POSITIVE_INFINITY : maxPerBand
  for (const l of lookups) {
    const q = l.query
    if (q.bands === undefined || !q.bands.some((b) => hot.has(b))) continue
    const answer = out[l.at]!
    const have = new Set(answer.map((r) => r.id))
    for (const term of q.bands) {
      if (!hot.has(term)) continue
      let taken = 0
      for (const r of hits.get(hotKey(term, q.since, seqBoundOf(q, seqFloor))) ?? []) {
        if (taken >= per || answer.length >= limit) break
        if (r.id === q.excludeId) continue
        taken++
        if (have.has(r.id)) continue
        have.add(r.id)
        answer.push(r)
      }
    }
  }
}

/**
 * Records `q` matches with the band bound applied: a record matching by a key or a block stays;
 * one matching only by band terms stays when it is among the newest `maxPerBand` of them with one
 * of those terms (first-insertion order). Used twice: on a search's answer, because the hot check
 * reads the term statistics of one shard, so on an index of several shards a term that is not hot
 * there can bring up to a shard count times `maxPerBand` records through the union search; and on
 * the pending records (put, not yet searchable), so a term brings at most `maxPerBand` of those
 * besides its newest searchable ones (pending records are the last seconds of writes).
 */
export function boundBandTerms(matches: readonly FingerprintRecord[], q: CandidateQuery, maxPerBand: number, perCluster = 0): FingerprintRecord[] {
  if (q.bands === undefined || q.bands.length === 0 || matches.length === 0) return [...matches]
  if (perCluster > 0) return boundBandTermsByCluster(matches, q, maxPerBand, perCluster)
  const noBands: CandidateQuery = { ...q, bands: [] }
  const keys = queryKeys(noBands)
  const pc = popcount64(q.fingerprint)
  // How often the query lists each term (a term listed twice counts twice, as one pass per listing would).
  const listed = new Map<string, number>()
  for (const b of q.bands) listed.set(b, (listed.get(b) ?? 0) + 1)
  const taken = new Map<string, number>()
  /** The place (in the sorted matches) of the record that last counted each term: a record listing a term twice counts once. */
  const countedAt = new Map<string, number>()
  const out: FingerprintRecord[] = []
  // Newest by first-insertion order (a batch's records share one indexedAt), as the engine bounds.
  const order = (r: FingerprintRecord): number => r.seq ?? Number.POSITIVE_INFINITY
  const sorted = [...matches].sort((a, b) => order(b) - order(a) || b.indexedAt - a.indexedAt)
  for (let at = 0; at < sorted.length; at++) {
    const r = sorted[at]!
    let keep = matchesCandidateQuery(r, noBands, pc, keys)
    // One pass over the record's own terms against the query's (a short text has dozens of each).
    for (const b of r.bands ?? []) {
      const times = listed.get(b)
      if (times === undefined || countedAt.get(b) === at) continue
      countedAt.set(b, at)
      let n = taken.get(b) ?? 0
      for (let t = 0; t < times && n < maxPerBand; t++) {
        n++
        keep = true
      }
      taken.set(b, n)
    }
    if (keep) out.push(r)
  }
  return out
}

/**
 * `boundBandTerms` bounded by cluster (`CandidateBounds.perCluster`): a record matching only by
 * band terms stays when, for one of them, its cluster is among the `maxPerBand` clusters first
 * indexed first among `matches` with the term and it among the `perCluster` first of its cluster.
 */
function boundBandTermsByCluster(matches: readonly FingerprintRecord[], q: CandidateQuery, maxPerBand: number, perCluster: number): FingerprintRecord[] {
  const noBands: CandidateQuery = { ...q, bands: [] }
  const pc = popcount64(q.fingerprint)
  const keep = new Set<FingerprintRecord>()
  for (const r of matches) if (matchesCandidateQuery(r, noBands, pc)) keep.add(r)
  for (const term of new Set(q.bands)) {
    const groups = new Map<string, FingerprintRecord[]>()
    for (const r of matches) {
      if (r.bands === undefined || !r.bands.includes(term)) continue
      const g = groups.get(r.clusterId)
      if (g === undefined) groups.set(r.clusterId, [r])
      else g.push(r)
    }
    const ordered = [...groups.values()]
    for (const g of ordered) g.sort(compareOrder)
    ordered.sort((a, b) => compareOrder(a[0]!, b[0]!))
    for (const g of ordered.slice(0, maxPerBand)) for (const r of g.slice(0, perCluster)) keep.add(r)
  }
  return matches.filter((r) => keep.has(r))
}
