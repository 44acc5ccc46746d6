import type { CandidateQuery, FingerprintRecord } from '../types.js'
import { popcount64 } from '../fingerprint/hamming.js'
import { blockWidths } from '../fingerprint/blocks.js'

/** Block sets a record carries at most (C(6,3) = 20 for the default scheme); a scheme needing more has none. */
const MAX_BLOCK_SETS = 64

function binomial(n: number, k: number): number {
  let c = 1
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i
  return Math.round(c)
}

/**
 * How many blocks a record's block sets hold when it has `blocks` blocks: the must-match count
 * that keeps distance 3 (`storedBlockScheme`: 6 → 3), when that is at least 2 and the sets are at
 * most MAX_BLOCK_SETS; else 0 (no sets: 4 × 16 / 1 looks its blocks up directly).
 * @example blockSetSize(6) // 3
 */
export function blockSetSize(blocks: number): number {
  const m = blocks - 3
  return m >= 2 && binomial(blocks, m) <= MAX_BLOCK_SETS ? m : 0
}

/**
 * How block sets are written, by format, each in a field of its own so that no index mixes two
 * (a record without the field of the format a store looks up makes that format unusable there,
 * see `blockSetFormats` in _index-setup.ts; an older simdup never writes the newer field):
 * 1, the blocks joined, `0_3fa.1_0b1.2_9c0` (~17 characters), in `dedup.block_sets`; 2, compact,
 * 7 characters for 6 blocks (`compactSet`), in `dedup.block_sets_v2`: 2.4× shorter, so a smaller
 * terms dictionary and `_source` (docs/notes/2026-11-26-elasticsearch-growing-index.md, "Disk of block sets").
 */
export type BlockSetFormat = 1 | 2

/** The newest format: the one records of a new index carry. */
export const NEWEST_BLOCK_SET_FORMAT: BlockSetFormat = 2

/** The field (under `dedup`) holding the sets of each format. */
export const BLOCK_SET_FIELDS = Object.freeze({ 1: 'block_sets', 2: 'block_sets_v2' } as const satisfies Record<BlockSetFormat, string>)

/** URL-safe base64 digits: no `.`, so a compact set never equals a joined one. */
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/**
 * The values of `blocks` when they are shaped as `fingerprintBlocks` cuts n blocks (position tags
 * 0…n−1 in order, each value's hex at its block's width and within it); else null.
 */
function blockValues(blocks: readonly string[]): number[] | null {
  const widths = blockWidths(blocks.length)
  const out: number[] = []
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]!
    const w = widths[i]!
    const tag = `${i}_`
    const hex = b.slice(tag.length)
    if (!b.startsWith(tag) || hex.length !== Math.ceil(w / 4) || !/^[0-9a-f]+$/.test(hex)) return null
    const v = Number.parseInt(hex, 16)
    if (v >= 2 ** w) return null
    out.push(v)
  }
  return out
}

/**
 * One set in format 2: the combination's rank among the C(n, m) (one digit: at most 64, see
 * MAX_BLOCK_SETS), then each chosen block's value in ⌈width / 6⌉ digits. The rank fixes the
 * positions, the positions the widths: distinct sets give distinct strings (exact, no hash).
 */
function compactSet(rank: number, picked: readonly number[], values: readonly number[], widths: readonly number[]): string {
  let out = DIGITS[rank]!
  for (const i of picked) {
    const v = values[i]!
    for (let d = Math.ceil(widths[i]! / 6) - 1; d >= 0; d--) out += DIGITS[Math.floor(v / 2 ** (6 * d)) % 64]!
  }
  return out
}

/**
 * The block sets of a record or a lookup in `format` (`dedup.block_sets` / `block_sets_v2`): every
 * `blockSetSize` of its distinct block terms. Two records share at least that many blocks exactly
 * when they share a set, so the block route's "≥ minMatch of 6 block terms" becomes one `terms`
 * match on 20 set terms, each held by ~N / 2^33 records where a block term is held by ~N / 2^11:
 * the lookup's postings stop growing with the index (docs/notes/2026-11-26-elasticsearch-growing-index.md,
 * "Elasticsearch block sets"). Format 2 writes blocks not shaped as `fingerprintBlocks` cuts them joined, as format 1.
 * @example blockSets(['0_1', '1_2', '2_3', '3_4']).length // 0 (4 blocks: none)
 */
export function blockSets(blocks: readonly string[], format: BlockSetFormat = NEWEST_BLOCK_SET_FORMAT): string[] {
  const distinct = [...new Set(blocks)]
  const m = blockSetSize(distinct.length)
  if (m === 0) return []
  const values = format === 2 ? blockValues(distinct) : null
  const widths = values === null ? [] : blockWidths(distinct.length)
  const out: string[] = []
  const pick: number[] = []
  const walk = (from: number): void => {
    if (pick.length === m) {
      // The walk's order is the rank: the same combination of positions gets the same digit.
      out.push(values === null ? pick.map((i) => distinct[i]).join('.') : compactSet(out.length, pick, values, widths))
      return
    }
    for (let i = from; i <= distinct.length - (m - pick.length); i++) {
      pick.push(i)
      walk(i + 1)
      pick.pop()
    }
  }
  walk(0)
  return out
}

/** Whether a lookup's block clause can be asked as block sets: the index's records all carry them in format `sets` (null: not all) and its must-match count is their size. */
export function asksBlockSets(q: CandidateQuery, sets: BlockSetFormat | null): sets is BlockSetFormat {
  if (sets === null) return false
  const m = blockSetSize(distinctBlocks(q).length)
  return m > 0 && q.minMatch === m
}

/**
 * The fields of `dedup` a record is read from (`sourceToRecord`): all but the block sets (derived
 * from the blocks; a record's 20 of them would add half its size again to every hit) and the
 * popcount (derived from the fingerprint). `terms` is the band terms of record format 2.
 */
export const RECORD_FIELDS = Object.freeze([
  'id', 'simhash', 'blocks', 'content_hash', 'url_hash', 'title_hash', 'short', 'cluster_id', 'duplicate_of', 'distance', 'layer', 'rule',
  'version', 'indexed_at', 'seq', 'sketch', 'bands', 'supersedes', 'terms',
] as const)

/**
 * The `_source` a candidate search reads back: the record's fields, named. An explicit list of
 * includes costs the node's fetch phase less than `dedup` minus the block sets (an `excludes`
 * filter): 458 against 533 ms a union search of ~1,900 hits, 739 against 876 ms at the client
 * (docs/notes/2026-11-27-elasticsearch-against-plain-ingestion.md).
 */
export const CANDIDATE_SOURCE = Object.freeze({ includes: RECORD_FIELDS.map((f) => `dedup.${f}`) })

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
export function candidateQuery(q: CandidateQuery, sets: BlockSetFormat | null = null): Record<string, unknown> | null {
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
          asksBlockSets(q, sets)
            ? { terms: { [`dedup.${BLOCK_SET_FIELDS[sets]}`]: blockSets(blocks, sets) } }
            : {
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
    _source: CANDIDATE_SOURCE,
  }
}

/** What `matchesCandidateQuery` reads of a query, worked out once per query: its distinct blocks and band terms. */
export interface QueryKeys {
  blocks: string[]
  bands: ReadonlySet<string> | null
}

/** The `QueryKeys` of `q`. */
export function queryKeys(q: CandidateQuery): QueryKeys {
  return { blocks: distinctBlocks(q), bands: q.bands === undefined || q.bands.length === 0 ? null : new Set(q.bands) }
}

/** Whether `r` holds one of the terms in `bands` (one pass over the record's terms: a short text has dozens each side). */
export function sharesBand(r: FingerprintRecord, bands: ReadonlySet<string> | null): boolean {
  if (bands === null || r.bands === undefined) return false
  for (const b of r.bands) if (bands.has(b)) return true
  return false
}

/**
 * The same rule in memory (for records put but not yet searchable): what `candidateQuery` matches.
 * `keys` (`queryKeys(q)`) may be passed when the query is matched against many records.
 * @example matchesCandidateQuery(record, query, popcount64(query.fingerprint))
 */
export function matchesCandidateQuery(r: FingerprintRecord, q: CandidateQuery, queryPopcount: number, keys: QueryKeys = queryKeys(q)): boolean {
  if (q.excludeId !== undefined && r.id === q.excludeId) return false
  if (q.since !== undefined && r.indexedAt < q.since) return false
  if (q.maxSeq !== undefined && !((r.seq ?? Number.POSITIVE_INFINITY) <= q.maxSeq)) return false
  if (q.contentHash != null && r.contentHash === q.contentHash) return true
  if (q.urlHash != null && r.urlHash === q.urlHash) return true
  if (q.titleHash != null && r.titleHash === q.titleHash) return true
  if (sharesBand(r, keys.bands)) return true
  const blocks = keys.blocks
  if (!blockClauseUsable(blocks, q.minMatch)) return false
  if (Math.abs(popcount64(r.fingerprint) - queryPopcount) > q.maxDistance) return false
  let shared = 0
  for (const b of blocks) if (r.blocks.includes(b)) shared++
  return shared >= q.minMatch
}
