import { integerOption } from '../errors.js'
import { UNBOUNDED, bandsDecide, boundCandidates, exactUnderCuts, noCuts, withoutBands, type Cuts } from './_bounds.js'
import type { CandidateQuery, FingerprintRecord, Layer } from '../types.js'
import type { CandidateBounds } from '../store/store.js'
import { choose } from './deduplicator.js'
import { Overlay, reelect } from './_reelect.js'
import type { Deduplicator } from './deduplicator.js'
import { OPTION_LIMITS } from './options.js'
import { candidateQuery, compareMatches, compareOrder, isEarlier, matchCandidate, previousVersion, type Match } from './match.js'

/** Counters of a reconcile pass. */
export interface ReconcileResult {
  /** Records scanned. */
  scanned: number
  /** Records whose stored match differed from their best match among records first indexed before them. */
  pairs: number
  /** Records that pointed at a record first indexed after them (a forward pointer), all repaired. */
  forwardPointers: number
  /** Clusters that no longer exist: their members joined an earlier cluster. */
  mergedClusters: number
  /** Records whose `supersedes` (the earlier version of their URL) was added, changed or removed. */
  versions: number
  /** Records rewritten (new match, cluster id, version link, or old representative turned duplicate). */
  updated: number
}

/** Options of `reconcile`. */
export interface ReconcileOptions {
  /** Records per scan batch and per candidate lookup. @default 500 (range 1–10 000: `OPTION_LIMITS.pageSize`) */
  batchSize?: number
  /** Called after each batch with the records scanned so far (every pass: two, or three with a bound by cluster). */
  onProgress?: (scanned: number) => void
}

/** A record's best match among the records first indexed before it. */
interface Decided {
  duplicateOf: string
  distance: number
  layer: Layer
}

/**
 * Brings every record to the decision one clean, sequential run over the store would give it:
 * each record's best match among the records first indexed before it (`seq`, then id), and the
 * cluster of that match's chain. Mends what concurrent indexers leave (two near-duplicates
 * written at the same moment both "unique", in two clusters), forward pointers (a record whose
 * `duplicateOf` was first indexed after it), mutual pointers and clusters whose representative
 * sits in another cluster, and version links (`supersedes`: the last earlier record of the same URL
 * when the contents differ; stores written before simdup stored it get it here). Two passes over
 * the store: the first finds each record's match (one candidate lookup per batch), the second
 * rewrites the records whose decision differs. With a bound by cluster (`CandidateBounds.perCluster`)
 * the first is made twice on every candidate: the clusters, then the members the bound keeps.
 * Idempotent: a second pass finds nothing. Ignores `windowMs` (a window is a property of a run).
 * @example const r = await reconcile(createDeduplicator({ store })) // { pairs: 2, mergedClusters: 2, … }
 */
export async function reconcile(dedup: Deduplicator, options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const o = dedup.options
  const store = o.store
  const { min, max, default: fallback } = OPTION_LIMITS.pageSize
  const batchSize = integerOption('batchSize', options.batchSize ?? fallback, min, max)
  await store.refresh()
  let progress = 0
  const decided = new Map<string, Decided>()
  // Records whose stored `supersedes` is not the derived one: the right one (null: none).
  const versionFix = new Map<string, string | null>()
  // The per-cluster bounds (`CandidateBounds.perCluster`) keep members by cluster, and the cluster
  // ids stored are what this pass repairs: bounded by them, a record would keep other members than
  // the clean run did. So the clusters come first, from every candidate (pass A: by the ruling a
  // bound never changes the cluster nor duplicate/unique, so the unbounded run's clusters are the
  // clean run's, each named by its first record); then each record is decided on every candidate
  // bounded by those clusters (pass B), as the clean run bounded it. Without a bound by cluster,
  // one pass over the store's bounded answers, as before.
  const byCluster = store.candidateBounds.perCluster !== undefined
  let scanned = 0
  const decide = async (clusterOf: ((id: string) => string) | null): Promise<void> => {
    decided.clear()
    versionFix.clear()
    scanned = 0
    for await (const batch of store.scan(batchSize)) {
      // Every band match (allBands), bounded here by seq: the store's own bound goes by write order,
      // which the records this pass repairs have left (they were re-written after later ones).
      const queries = batch.map((r) => ({ ...candidateQuery(r, o), allBands: true, ...(byCluster ? { exhaustive: true } : {}), ...(r.seq === undefined ? {} : { maxSeq: r.seq }) }))
      const found = await store.candidates(queries)
      if (clusterOf !== null) {
        for (let i = 0; i < found.length; i++) found[i] = (found[i] ?? []).map((c) => (clusterOf(c.id) === c.clusterId ? c : { ...c, clusterId: clusterOf(c.id) }))
      }
      // The same bounds as when a document is decided, so reconcile agrees with a clean run: over
      // the records first indexed before it only. Writers that ran at once hand out equal `seq`s
      // (order is then by id), and a later record of r's `seq` would take a slot of the newest
      // `maxPerBand` (or `perKey`) that the clean run gives an earlier record. Where a bound could
      // change the cluster or duplicate/unique (`exactUnderCuts`), every candidate, as a run does.
      // By the rule of a run (`choose`): the key and block routes, then the band route's records
      // only where those give no match that outranks them (`bandsDecide`).
      const bestOver = (r: FingerprintRecord, q: CandidateQuery, i: number, bounds: CandidateBounds, cuts?: Cuts): { best: Match | null; keep: Set<FingerprintRecord> } => {
        let best: Match | null = null
        const keep = boundCandidates(q, (found[i] ?? []).filter((c) => isEarlier(c, r)), bounds, cuts)
        for (const c of keep) {
          const m = matchCandidate(r, c, o)
          if (m !== null && (best === null || compareMatches(m, best) < 0)) best = m
        }
        return { best, keep }
      }
      const bestOf = (r: FingerprintRecord, i: number, bounds: CandidateBounds, cuts?: Cuts): { best: Match | null; keep: Set<FingerprintRecord> } => {
        const q = queries[i]!
        const out = bestOver(r, withoutBands(q), i, bounds, cuts)
        if (q.bands === undefined || !bandsDecide(out.best)) return out
        if (cuts !== undefined) Object.assign(cuts, noCuts())
        return bestOver(r, q, i, bounds, cuts)
      }
      const exact = !byCluster || clusterOf !== null
      const chosen = batch.map((r, i) => {
        if (!exact) return bestOf(r, i, UNBOUNDED)
        const cuts = noCuts()
        const out = bestOf(r, i, store.candidateBounds, cuts)
        return exactUnderCuts(out.best, cuts) ? out : null
      })
      const redo = batch.flatMap((_r, i) => (chosen[i] === null ? [i] : []))
      if (redo.length > 0) {
        // Pass B's answers are whole already (`exhaustive`).
        const all = byCluster ? redo.map((i) => found[i] ?? []) : await store.candidates(redo.map((i) => ({ ...queries[i]!, exhaustive: true })))
        redo.forEach((i, k) => {
          found[i] = all[k] ?? []
          chosen[i] = bestOf(batch[i]!, i, UNBOUNDED)
        })
      }
      batch.forEach((r, i) => {
        const { best, keep } = chosen[i]!
        if (best !== null) decided.set(r.id, { duplicateOf: best.record.id, distance: best.distance, layer: best.layer })
        const previous = previousVersion(r, keep, o)?.id ?? null
        if (previous !== (r.supersedes ?? null)) versionFix.set(r.id, previous)
      })
      scanned += batch.length
      options.onProgress?.((progress += batch.length))
    }
  }
  if (byCluster) {
    await decide(null)
    const unbounded = new Map(decided)
    const roots = new Map<string, string>()
    await decide((id) => rootOf(id, unbounded, roots))
  } else {
    await decide(null)
  }

  // The cluster of a record is the end of its match chain; chains only go to earlier records, so they end.
  const roots = new Map<string, string>()
  const clusterOf = (id: string): string => rootOf(id, decided, roots)

  let pairs = 0
  let versions = 0
  let forwardPointers = 0
  let updated = 0
  const before = new Set<string>()
  const after = new Set<string>()
  for await (const batch of store.scan(batchSize)) {
    const rewritten: FingerprintRecord[] = []
    const oldTargets: [FingerprintRecord, string][] = []
    for (const r of batch) {
      before.add(r.clusterId)
      const d = decided.get(r.id)
      const want = d === undefined
        ? { clusterId: r.id, duplicateOf: null, distance: null, layer: null }
        : { clusterId: clusterOf(r.id), duplicateOf: d.duplicateOf, distance: d.distance, layer: d.layer }
      after.add(want.clusterId)
      if (want.duplicateOf !== r.duplicateOf) {
        pairs++
        if (r.duplicateOf !== null) oldTargets.push([r, r.duplicateOf])
      }
      const version = versionFix.get(r.id)
      if (version !== undefined) versions++
      if (version === undefined && want.clusterId === r.clusterId && want.duplicateOf === r.duplicateOf && want.distance === r.distance && want.layer === r.layer) continue
      rewritten.push(withSupersedes({ ...r, ...want }, version === undefined ? r.supersedes ?? null : version))
    }
    if (oldTargets.length > 0) {
      const targets = await store.get(oldTargets.map(([, id]) => id))
      for (const [r, id] of oldTargets) {
        const t = targets.get(id)
        if (t !== undefined && !isEarlier(t, r)) forwardPointers++
      }
    }
    if (rewritten.length > 0) updated += (await store.put(rewritten)).written
    options.onProgress?.((progress += batch.length))
  }
  let mergedClusters = 0
  for (const c of before) if (!after.has(c)) mergedClusters++
  await store.refresh()
  return { scanned, pairs, forwardPointers, mergedClusters, versions, updated }
}

/** The end of `id`'s match chain in `decided` (memoized in `roots`): its cluster. */
function rootOf(id: string, decided: ReadonlyMap<string, Decided>, roots: Map<string, string>): string {
  const path: string[] = []
  let x = id
  for (;;) {
    const known = roots.get(x)
    if (known !== undefined) {
      x = known
      break
    }
    const next = decided.get(x)
    if (next === undefined) break
    path.push(x)
    x = next.duplicateOf
  }
  for (const p of path) roots.set(p, x)
  return x
}

/** `r` with `supersedes` set to `id`, or without it (null). */
function withSupersedes(r: FingerprintRecord, id: string | null): FingerprintRecord {
  const { supersedes: _old, ...rest } = r
  return id === null ? rest : { ...rest, supersedes: id }
}

/**
 * Deletes documents; the members of a deleted record's cluster are re-pointed as one clean run
 * leaves them (`reelect`): those that matched a deleted record are decided again against the
 * records first indexed before them (distance, layer and rule re-decided; unique when the rules
 * accept none, the earliest such one then representative of what is left), the rest follow their
 * target's cluster. Nothing is left pointing at a deleted id, nor at a record the rules reject.
 * The version links of a deleted record's URL are derived again without it (`supersedes` skips
 * it; deleting the newest version makes the one before it the newest). Re-pointed records are
 * written in one put, then the deletes.
 * @example await deleteDocuments(store, ['a'])
 */
export async function deleteDocuments(dedup: Deduplicator, ids: readonly string[]): Promise<{ deleted: number; reassigned: number }> {
  const o = dedup.options
  const store = o.store
  await store.refresh()
  const existing = await store.get(ids)
  const overlay = new Overlay(store, o)
  for (const id of existing.keys()) overlay.gone.add(id)
  const redecide = (r: FingerprintRecord, q: CandidateQuery, found: readonly FingerprintRecord[], bounds: CandidateBounds, cuts?: Cuts): Match | null =>
    choose(r, q, found, overlay.batch.candidates(r), overlay.ids, bounds, o, cuts).match
  // Each deleted record's cluster and the version links of its URL (`reelect` derives them again
  // for the records after it: the ones before cannot change).
  for (const record of [...existing.values()].sort(compareOrder)) await reelect(store, o, overlay, redecide, record, null)
  const updates = [...overlay.latest.values()]
  if (updates.length > 0) await store.put(updates)
  await store.delete([...overlay.gone])
  await store.refresh()
  return { deleted: overlay.gone.size, reassigned: updates.length }
}
