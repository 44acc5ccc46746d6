import type { CandidateQuery, FingerprintRecord } from '../types.js'
import type { CandidateBounds } from '../store/store.js'
import { hamming } from '../fingerprint/hamming.js'
import { EXACT_RANK, SIMHASH_RANK, compareOrder, matchRank, outranksMinhash, type Match } from './match.js'

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
export function boundCandidates(q: CandidateQuery, records: readonly FingerprintRecord[], bounds: CandidateBounds, cuts?: Cuts): Set<FingerprintRecord> {
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
    if (list === null) continue
    takeNewest(list, bounds.perKey, keep)
    // At the bound: the store may have left older records with the key out.
    if (cuts !== undefined && list.length >= bounds.perKey) {
      if (key === 'contentHash') cuts.content = true
      else cuts.open = true
    }
  }
  // Within the distance first (two popcounts), then the shared blocks (each of the record's
  // blocks found among the query's, as a set would); adding a kept record again changes nothing.
  // (a set, not `includes`: see the band terms below).
  const blocks = new Set(q.blocks)
  const perCluster = bounds.perCluster
  // The block route's records of each cluster, with their distances (when bounded by cluster).
  const near = perCluster === undefined ? null : new Map<string, Near[]>()
  let blockRecords = 0
  for (const r of eligible) {
    const distance = hamming(r.fingerprint, q.fingerprint)
    if (distance > q.maxDistance) continue
    let shared = 0
    for (const b of r.blocks) if (blocks.has(b)) shared++
    if (shared < q.minMatch) continue
    if (near === null) {
      keep.add(r)
      blockRecords++
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
      blockRecords += Math.min(list.length, perCluster!)
      // At the bound: the store may have left farther members of this cluster out (at this distance or more).
      if (cuts !== undefined && list.length >= perCluster!) {
        let at = 0
        for (let i = 0; i < perCluster!; i++) at = Math.max(at, list[i]!.distance)
        const was = cuts.blockClusters.get(list[0]!.r.clusterId)
        if (was === undefined || at < was) cuts.blockClusters.set(list[0]!.r.clusterId, at)
      }
    }
  }
  // At the store's cap on the block route: records of any cluster may be missing.
  if (cuts !== undefined && bounds.blockRoute !== undefined && blockRecords >= bounds.blockRoute) cuts.open = true
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
  let banded = 0
  for (const list of lists) {
    if (list === null) continue
    if (perCluster === undefined) {
      takeNewest(list, bounds.perBand, keep)
      banded += Math.min(list.length, bounds.perBand)
      if (cuts !== undefined && list.length >= bounds.perBand) cuts.bands = true
    } else banded += takeByCluster(list, bounds.perBand, perCluster, keep, cuts)
  }
  // At the store's cap on the band route (it shares the block route's): any term may be cut.
  if (cuts !== undefined && bounds.blockRoute !== undefined && banded >= bounds.blockRoute) cuts.bands = true
  return keep
}

/**
 * Where a `boundCandidates` call may have left records out (each bound met counts as met: the
 * store cuts at the same bounds before the engine sees its answer). `exactUnderCuts` reads it.
 */
export interface Cuts {
  /** A URL or title key, or a cap across clusters on the block route: left-out records of any cluster, of any rank. */
  open: boolean
  /** The content key: left-out records have the same content, so the same fingerprint (distance 0). */
  content: boolean
  /** A band term's bound across clusters (newest records, or clusters first indexed first): left-out records of any cluster. */
  bands: boolean
  /** Clusters a band term's bound cut inside (their members first indexed later left out). */
  bandClusters: Set<string>
  /** Clusters the block route cut, each with the distance of its farthest kept member (left-out members are no nearer). */
  blockClusters: Map<string, number>
}

/**
 * Whether a decision made on bounded candidates is the one every candidate gives, in cluster and
 * in duplicate/unique (the team's rule: a bound may change which earlier member `duplicate_of`
 * names, nothing else; docs/DESIGN.md, "Bounds"). `match` is the best match among the kept
 * candidates (null: none verified). A left-out record can only matter when it could verify and
 * outrank `match` from another cluster, or verify at all when nothing did:
 * - an open cut (URL or title key, a cap across clusters): it could be anything, so not exact;
 * - no match: any cut could hide the one record that verifies (verification is per pair: a
 *   nearer member failing says nothing of a farther one), so not exact;
 * - a band cut: a record only the band route brings can outrank `match` only by the MinHash or
 *   gram-set rules (a URL, content or SimHash-rule match shares a key or lies within the distance
 *   the block route covers: `bandsDecide`), so it matters only when `match` does not outrank
 *   those rules, and then only from another cluster;
 * - a block cut of cluster c ≠ match's at distance dc: its left-out members lie at dc or farther,
 *   so rank no better than a SimHash-rule match at dc (2000 + dc), or an exact match (1000) when
 *   dc is 0 and the content key was cut; `match` must rank strictly better (on a tie the earlier
 *   record wins, and a left-out one may be earlier).
 * Cuts inside match's own cluster only change which of its members is named.
 */
export function exactUnderCuts(match: Match | null, cuts: Cuts): boolean {
  if (cuts.open) return false
  if (match === null) return !cuts.content && !cuts.bands && cuts.bandClusters.size === 0 && cuts.blockClusters.size === 0
  const own = match.record.clusterId
  if (!outranksMinhash(match)) {
    if (cuts.bands) return false
    for (const c of cuts.bandClusters) if (c !== own) return false
  }
  const rank = matchRank(match)
  for (const [c, at] of cuts.blockClusters) {
    if (c === own) continue
    const floor = cuts.content && at === 0 ? EXACT_RANK : SIMHASH_RANK + at
    if (rank >= floor) return false
  }
  return true
}

/**
 * Whether the band route's records (MinHash bands and the short-text prefix terms riding with them)
 * take part in a decision, given `match`, the best match of the key and block routes alone: not
 * when it outranks every MinHash-rule match (`outranksMinhash`). A record only the band route
 * brings cannot beat it then (equal content means equal fingerprints, a shared URL or title key
 * comes through the key route, every record within `maxDistance` shares a block, and the band
 * route's own rules rank below), so the decision is that of the key and block routes. One rule for
 * every decision, whichever records a lookup or the documents of a batch happened to bring:
 * counted in the bounds wherever present, a band record would be named in one run and not in
 * another (`previousVersion` sees the newest record of d's URL either way: the key route keeps
 * it). The cuts of the key and block routes are checked as ever (`exactUnderCuts`).
 */
export function bandsDecide(match: Match | null): boolean {
  return match === null || !outranksMinhash(match)
}

/** The query without its band terms: the key and block routes alone (`bandsDecide`). */
export function withoutBands(q: CandidateQuery): CandidateQuery {
  const { bands: _bands, ...out } = q
  return out
}

/** No bound at all: the bounds of an exhaustive lookup (`CandidateQuery.exhaustive`). */
export const UNBOUNDED: CandidateBounds = { perKey: Number.POSITIVE_INFINITY, perBand: Number.POSITIVE_INFINITY }

/** A `Cuts` with nothing cut yet. */
export function noCuts(): Cuts {
  return { open: false, content: false, bands: false, bandClusters: new Set(), blockClusters: new Map() }
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
function takeByCluster(list: readonly FingerprintRecord[], clusters: number, per: number, keep: Set<FingerprintRecord>, cuts: Cuts | undefined): number {
  const groups = new Map<string, FingerprintRecord[]>()
  for (const r of list) {
    const g = groups.get(r.clusterId)
    if (g === undefined) groups.set(r.clusterId, [r])
    else g.push(r)
  }
  const ordered = [...groups.values()]
  for (const g of ordered) if (g.length > 1) g.sort(compareOrder)
  if (ordered.length > clusters) ordered.sort((a, b) => compareOrder(a[0]!, b[0]!))
  if (cuts !== undefined && ordered.length >= clusters) cuts.bands = true
  let kept = 0
  for (let i = 0; i < ordered.length && i < clusters; i++) {
    const g = ordered[i]!
    for (let j = 0; j < g.length && j < per; j++) keep.add(g[j]!)
    kept += Math.min(g.length, per)
    if (cuts !== undefined && g.length >= per) cuts.bandClusters.add(g[0]!.clusterId)
  }
  return kept
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
