import type { CandidateQuery, FingerprintRecord } from '../types.js'
import type { CandidateBounds } from '../store/store.js'
import { hamming } from '../fingerprint/hamming.js'
import { compareOrder } from './match.js'

/**
 * The candidates of one lookup that a decision may use, by the store's bounds, over the union of
 * what the store returned and the earlier documents of the same batch: a record that shares an
 * exact key counts when it is among the newest `perKey` earlier records with that key. With
 * `perCluster` set (see `CandidateBounds`), one within `maxDistance` sharing enough blocks counts
 * when it is among the `perCluster` of its cluster nearest to the query (then first indexed
 * first), and one sharing a band term when its cluster is among the term's `perBand` clusters
 * first indexed first and it among its cluster's `perCluster` first indexed with the term.
 * Without `perCluster`: every block-route record, and the newest `perBand` records per band term.
 * The store applies the same bounds to what it holds, so the union contains every record these
 * rules keep, and the result does not depend on which records happened to be in the batch (a
 * re-run with other batch sizes decides the same).
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
  const blocks = q.blocks
  const perCluster = bounds.perCluster
  // The block route's records of each cluster, with their distances (when bounded by cluster).
  const near = perCluster === undefined ? null : new Map<string, Near[]>()
  for (const r of eligible) {
    const distance = hamming(r.fingerprint, q.fingerprint)
    if (distance > q.maxDistance) continue
    let shared = 0
    for (const b of r.blocks) if (blocks.includes(b)) shared++
    if (shared < q.minMatch) continue
    if (near === null) {
      keep.add(r)
      continue
    }
    const list = near.get(r.clusterId)
    if (list === undefined) near.set(r.clusterId, [{ r, distance }])
    else list.push({ r, distance })
  }
  if (near !== null) {
    for (const list of near.values()) {
      if (list.length > perCluster!) list.sort(nearestFirst)
      for (let i = 0; i < list.length && i < perCluster!; i++) keep.add(list[i]!.r)
    }
  }
  const terms = q.bands
  if (terms === undefined || terms.length === 0) return keep
  // The records of each of the query's band terms, in one pass over the records' own terms. A
  // term is looked up at its own position first (the analyzer's terms are position-tagged).
  // A term the query lists twice has one list, at its first place.
  const first = terms.map((t) => terms.indexOf(t))
  const lists: (FingerprintRecord[] | null)[] = new Array<FingerprintRecord[] | null>(terms.length).fill(null)
  for (const r of eligible) {
    const own = r.bands
    if (own === undefined) continue
    for (let i = 0; i < own.length; i++) {
      const term = own[i]!
      const j = terms[i] === term ? i : terms.indexOf(term)
      if (j < 0) continue
      const list = (lists[first[j]!] ??= [])
      // A record listing a term twice counts once.
      if (list[list.length - 1] !== r) list.push(r)
    }
  }
  for (const list of lists) {
    if (list === null) continue
    if (perCluster === undefined) takeNewest(list, bounds.perBand, keep)
    else takeByCluster(list, bounds.perBand, perCluster, keep)
  }
  return keep
}

/** A block-route record and its distance to the query. */
interface Near {
  r: FingerprintRecord
  distance: number
}

function nearestFirst(a: Near, b: Near): number {
  return a.distance - b.distance || compareOrder(a.r, b.r)
}

/**
 * Adds to `keep` the records of one band term that its bound keeps: of the `clusters` clusters
 * first indexed first (by their first record with the term), the `per` first indexed of each.
 */
function takeByCluster(list: readonly FingerprintRecord[], clusters: number, per: number, keep: Set<FingerprintRecord>): void {
  const groups = new Map<string, FingerprintRecord[]>()
  for (const r of list) {
    const g = groups.get(r.clusterId)
    if (g === undefined) groups.set(r.clusterId, [r])
    else g.push(r)
  }
  const ordered = [...groups.values()]
  for (const g of ordered) if (g.length > 1) g.sort(compareOrder)
  if (ordered.length > clusters) ordered.sort((a, b) => compareOrder(a[0]!, b[0]!))
  for (let i = 0; i < ordered.length && i < clusters; i++) {
    const g = ordered[i]!
    for (let j = 0; j < g.length && j < per; j++) keep.add(g[j]!)
  }
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
