import type { FingerprintRecord, Layer } from '../types.js'
import type { Deduplicator } from './deduplicator.js'
import { candidateQuery, compareMatches, compareOrder, isEarlier, matchCandidate, type Match } from './match.js'

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
  /** Records rewritten (new match, cluster id, or old representative turned duplicate). */
  updated: number
}

/** Options of `reconcile`. */
export interface ReconcileOptions {
  /** Records per scan batch and per candidate lookup. @default 500 */
  batchSize?: number
  /** Called after each batch with the records scanned so far (both passes). */
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
 * sits in another cluster. Two passes over the store: the first finds each record's match (one
 * candidate lookup per batch), the second rewrites the records whose decision differs.
 * Idempotent: a second pass finds nothing. Ignores `windowMs` (a window is a property of a run).
 * @example const r = await reconcile(createDeduplicator({ store })) // { pairs: 2, mergedClusters: 2, … }
 */
export async function reconcile(dedup: Deduplicator, options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const o = dedup.options
  const store = o.store
  const batchSize = options.batchSize ?? 500
  await store.refresh()
  let progress = 0
  const decided = new Map<string, Decided>()
  let scanned = 0
  for await (const batch of store.scan(batchSize)) {
    const queries = batch.map((r) => (r.seq === undefined ? candidateQuery(r, o) : { ...candidateQuery(r, o), maxSeq: r.seq }))
    const found = await store.candidates(queries)
    batch.forEach((r, i) => {
      let best: Match | null = null
      for (const c of found[i] ?? []) {
        if (c.id === r.id || !isEarlier(c, r)) continue
        const m = matchCandidate(r, c, o)
        if (m !== null && (best === null || compareMatches(m, best) < 0)) best = m
      }
      if (best !== null) decided.set(r.id, { duplicateOf: best.record.id, distance: best.distance, layer: best.layer })
    })
    scanned += batch.length
    options.onProgress?.((progress += batch.length))
  }

  // The cluster of a record is the end of its match chain; chains only go to earlier records, so they end.
  const roots = new Map<string, string>()
  const clusterOf = (id: string): string => {
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

  let pairs = 0
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
      if (want.clusterId === r.clusterId && want.duplicateOf === r.duplicateOf && want.distance === r.distance && want.layer === r.layer) continue
      rewritten.push({ ...r, ...want })
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
  return { scanned, pairs, forwardPointers, mergedClusters, updated }
}

/**
 * Deletes documents; a deleted representative hands its cluster to the earliest remaining member
 * (which becomes unique), and every record that named a deleted id as `duplicateOf` or
 * `clusterId` is re-pointed: nothing is left pointing at a deleted id.
 * @example await deleteDocuments(store, ['a'])
 */
export async function deleteDocuments(dedup: Deduplicator, ids: readonly string[]): Promise<{ deleted: number; reassigned: number }> {
  const store = dedup.options.store
  await store.refresh()
  const existing = await store.get(ids)
  const gone = new Set(existing.keys())
  let reassigned = 0
  const updates = new Map<string, FingerprintRecord>()
  for (const id of gone) {
    const record = existing.get(id)!
    const members = (await store.members(record.clusterId, 100_000)).filter((m) => !gone.has(m.id))
    if (record.clusterId === id) {
      members.sort(compareOrder)
      const heir = members[0]
      for (const m of members) {
        const cur = updates.get(m.id) ?? m
        const next: FingerprintRecord =
          m === heir
            ? { ...cur, clusterId: heir.id, duplicateOf: null, distance: null, layer: null }
            : { ...cur, clusterId: heir!.id, duplicateOf: gone.has(cur.duplicateOf ?? '') || cur.duplicateOf === id ? heir!.id : cur.duplicateOf }
        updates.set(m.id, next)
      }
    } else {
      for (const m of members) {
        const cur = updates.get(m.id) ?? m
        if (cur.duplicateOf === id) updates.set(m.id, { ...cur, duplicateOf: record.clusterId })
      }
    }
  }
  reassigned = updates.size
  if (updates.size > 0) await store.put([...updates.values()])
  await store.delete([...gone])
  await store.refresh()
  return { deleted: gone.size, reassigned }
}
