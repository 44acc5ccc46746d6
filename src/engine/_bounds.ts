import type { CandidateQuery, FingerprintRecord } from '../types.js'
import type { CandidateBounds } from '../store/store.js'
import { hamming } from '../fingerprint/hamming.js'
import { compareOrder } from './match.js'

/**
 * The candidates of one lookup that a decision may use, by the store's bounds, over the union of
 * what the store returned and the earlier documents of the same batch: a record that shares an
 * exact key counts when it is among the newest `perKey` earlier records with that key; one that
 * shares a MinHash band term, among the newest `perBand` with that term; one that shares enough
 * blocks, when it is within `maxDistance`. The store applies the same bounds to what it holds, so
 * the union contains every record these rules keep, and the result does not depend on which
 * records happened to be in the batch (a re-run with other batch sizes decides the same).
 * Called for every document decided: plain loops, no closure or list per key.
 */
export function boundCandidates(q: CandidateQuery, records: readonly FingerprintRecord[], bounds: CandidateBounds): Set<FingerprintRecord> {
  const keep = new Set<FingerprintRecord>()
  const eligible: FingerprintRecord[] = []
  for (const r of records) {
    if (r.id !== q.excludeId && (q.since === undefined || r.indexedAt >= q.since) && (q.maxSeq === undefined || (r.seq ?? Number.POSITIVE_INFINITY) <= q.maxSeq)) eligible.push(r)
  }
  if (eligible.length === 0) return keep
  for (const key of KEYS) {
    const value = q[key]
    if (value === null || value === undefined) continue
    let list: FingerprintRecord[] | null = null
    for (const r of eligible) if (r[key] === value) (list ??= []).push(r)
    if (list !== null) takeNewest(list, bounds.perKey, keep)
  }
  // Within the distance first (two popcounts), then the shared blocks (each of the record's
  // blocks found among the query's, as a set would); adding a kept record again changes nothing.
  // (a set, not `includes`: see the band terms below).
  const blocks = new Set(q.blocks)
  for (const r of eligible) {
    if (hamming(r.fingerprint, q.fingerprint) > q.maxDistance) continue
    let shared = 0
    for (const b of r.blocks) if (blocks.has(b)) shared++
    if (shared >= q.minMatch) keep.add(r)
  }
  const terms = q.bands
  if (terms === undefined || terms.length === 0) return keep
  // The records of each of the query's band terms, in one pass over the records' own terms,
  // found by a map from term to its first place (a term the query lists twice has one list, at
  // its first place). Not `terms.indexOf`: comparing strings that are not internalized costs V8
  // a runtime call per element, and most of a record's terms are in no list: with ~20 records
  // of 8 terms that scan was ~100 µs of CPU a lookup (most of this function).
  const at = new Map<string, number>()
  for (let j = terms.length - 1; j >= 0; j--) at.set(terms[j]!, j)
  const lists: (FingerprintRecord[] | null)[] = new Array<FingerprintRecord[] | null>(terms.length).fill(null)
  for (const r of eligible) {
    const own = r.bands
    if (own === undefined) continue
    for (let i = 0; i < own.length; i++) {
      const j = at.get(own[i]!)
      if (j === undefined) continue
      const list = (lists[j] ??= [])
      // A record listing a term twice counts once.
      if (list[list.length - 1] !== r) list.push(r)
    }
  }
  for (const list of lists) if (list !== null) takeNewest(list, bounds.perBand, keep)
  return keep
}

const KEYS = ['contentHash', 'urlHash', 'titleHash'] as const

/** Adds the newest `n` of `list` (first-insertion order) to `keep`. */
function takeNewest(list: FingerprintRecord[], n: number, keep: Set<FingerprintRecord>): void {
  if (list.length > n) list.sort(newestFirst)
  for (let i = 0; i < list.length && i < n; i++) keep.add(list[i]!)
}

function newestFirst(a: FingerprintRecord, b: FingerprintRecord): number {
  return compareOrder(b, a)
}
