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
 */
export function boundCandidates(q: CandidateQuery, records: readonly FingerprintRecord[], bounds: CandidateBounds): Set<FingerprintRecord> {
  const keep = new Set<FingerprintRecord>()
  const eligible = records.filter(
    (r) => r.id !== q.excludeId && (q.since === undefined || r.indexedAt >= q.since) && (q.maxSeq === undefined || (r.seq ?? Number.POSITIVE_INFINITY) <= q.maxSeq),
  )
  if (eligible.length === 0) return keep
  const newestFirst = (a: FingerprintRecord, b: FingerprintRecord): number => compareOrder(b, a)
  const takeNewest = (list: FingerprintRecord[], n: number): void => {
    if (list.length > n) list.sort(newestFirst)
    for (let i = 0; i < list.length && i < n; i++) keep.add(list[i]!)
  }
  for (const key of ['contentHash', 'urlHash', 'titleHash'] as const) {
    const value = q[key]
    if (value === null || value === undefined) continue
    takeNewest(eligible.filter((r) => r[key] === value), bounds.perKey)
  }
  const blocks = new Set(q.blocks)
  for (const r of eligible) {
    if (keep.has(r)) continue
    let shared = 0
    for (const b of r.blocks) if (blocks.has(b)) shared++
    if (shared >= q.minMatch && hamming(r.fingerprint, q.fingerprint) <= q.maxDistance) keep.add(r)
  }
  if (q.bands === undefined || q.bands.length === 0) return keep
  // The records of each of the query's band terms, in one pass over the records' own terms.
  const byTerm = new Map<string, FingerprintRecord[]>()
  for (const term of q.bands) byTerm.set(term, [])
  for (const r of eligible) {
    if (r.bands === undefined) continue
    for (const term of r.bands) {
      const list = byTerm.get(term)
      // A record listing a term twice counts once.
      if (list !== undefined && list[list.length - 1] !== r) list.push(r)
    }
  }
  for (const list of byTerm.values()) takeNewest(list, bounds.perBand)
  return keep
}
