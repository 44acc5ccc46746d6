import type { CandidateQuery, FingerprintRecord } from '../types.js'
import { popcount64 } from '../fingerprint/hamming.js'
import { DEDUP_SOURCE_FIELDS } from './_document.js'

/** A query's distinct block terms (position tags make repeats impossible for real schemes; be safe anyway). */
export function distinctBlocks(q: CandidateQuery): string[] {
  return [...new Set(q.blocks)]
}

/** True when the block clause can match at all: a query cannot share more blocks than it has. */
function blockClauseUsable(blocks: readonly string[], minMatch: number): boolean {
  return minMatch <= blocks.length
}

/**
 * Whether a lookup can match anything: it has a key, a band, or a usable block clause (the same
 * test as `candidateQuery(q) !== null`, without building the query).
 * @example canMatch({ ...q, blocks: [], bands: [], contentHash: null }) // false
 */
export function canMatch(q: CandidateQuery): boolean {
  if (q.contentHash != null || q.urlHash != null || q.titleHash != null) return true
  if (q.bands !== undefined && q.bands.length > 0) return true
  return blockClauseUsable(distinctBlocks(q), q.minMatch)
}

/**
 * The Elasticsearch query of one candidate lookup, or null when nothing can match (no keys and no
 * usable block clause): such a query is answered without a round trip.
 *
 * Shape: filter context only (nothing scored), one `should` of
 * term content_hash | term url_hash | term title_hash | terms bands (any one) |
 * (≥ minMatch block terms ∧ popcount within ±maxDistance),
 * `minimum_should_match: 1`; `since` as a range on indexed_at, `maxSeq` as a range on seq and
 * `excludeId` as must_not ids.
 */
export function candidateQuery(q: CandidateQuery): Record<string, unknown> | null {
  const should: Record<string, unknown>[] = []
  if (q.contentHash != null) should.push({ term: { 'dedup.content_hash': q.contentHash } })
  if (q.urlHash != null) should.push({ term: { 'dedup.url_hash': q.urlHash } })
  if (q.titleHash != null) should.push({ term: { 'dedup.title_hash': q.titleHash } })
  // Bands catch what drifted past the SimHash distance, so no popcount filter on this route.
  if (q.bands !== undefined && q.bands.length > 0) should.push({ terms: { 'dedup.bands': [...new Set(q.bands)] } })
  const blocks = distinctBlocks(q)
  if (blockClauseUsable(blocks, q.minMatch)) {
    const pc = popcount64(q.fingerprint)
    should.push({
      bool: {
        filter: [
          {
            bool: {
              should: blocks.map((b) => ({ term: { 'dedup.blocks': b } })),
              minimum_should_match: q.minMatch,
            },
          },
          // |Δpopcount| ≤ distance is necessary for distance ≤ maxDistance: a cheap range on a
          // doc-values field that drops part of the block matches before they cross the wire.
          { range: { 'dedup.popcount': { gte: pc - q.maxDistance, lte: pc + q.maxDistance } } },
        ],
      },
    })
  }
  if (should.length === 0) return null
  const filter: Record<string, unknown>[] = [{ bool: { should, minimum_should_match: 1 } }]
  if (q.since !== undefined) filter.push({ range: { 'dedup.indexed_at': { gte: q.since } } })
  if (q.maxSeq !== undefined) filter.push({ range: { 'dedup.seq': { lte: q.maxSeq } } })
  const bool: Record<string, unknown> = { filter }
  if (q.excludeId !== undefined) bool.must_not = [{ ids: { values: [q.excludeId] } }]
  return { bool }
}

/** The `_msearch` body line of one lookup: unscored, `_doc` order, no total count, `dedup` only. */
export function candidateSearchBody(query: Record<string, unknown>, size: number): Record<string, unknown> {
  return {
    query,
    size,
    sort: ['_doc'],
    track_total_hits: false,
    _source: DEDUP_SOURCE_FIELDS,
  }
}

/**
 * The same rule in memory (for records put but not yet searchable): what `candidateQuery` matches.
 * @example matchesCandidateQuery(record, query, popcount64(query.fingerprint))
 */
export function matchesCandidateQuery(r: FingerprintRecord, q: CandidateQuery, queryPopcount: number): boolean {
  if (q.excludeId !== undefined && r.id === q.excludeId) return false
  if (q.since !== undefined && r.indexedAt < q.since) return false
  if (q.maxSeq !== undefined && !((r.seq ?? Number.POSITIVE_INFINITY) <= q.maxSeq)) return false
  if (q.contentHash != null && r.contentHash === q.contentHash) return true
  if (q.urlHash != null && r.urlHash === q.urlHash) return true
  if (q.titleHash != null && r.titleHash === q.titleHash) return true
  if (q.bands !== undefined && r.bands !== undefined && q.bands.some((b) => r.bands!.includes(b))) return true
  const blocks = distinctBlocks(q)
  if (!blockClauseUsable(blocks, q.minMatch)) return false
  if (Math.abs(popcount64(r.fingerprint) - queryPopcount) > q.maxDistance) return false
  const own = new Set(r.blocks)
  let shared = 0
  for (const b of blocks) if (own.has(b)) shared++
  return shared >= q.minMatch
}
