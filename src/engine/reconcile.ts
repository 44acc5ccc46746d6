import type { FingerprintRecord, Layer } from '../types.js'
import type { Deduplicator } from './deduplicator.js'
import { candidateQuery, matchCandidate } from './match.js'

/** Counters of a reconcile pass. */
export interface ReconcileResult {
  /** Records scanned. */
  scanned: number
  /** Verified near-duplicate pairs found in different clusters. */
  pairs: number
  /** Clusters merged into an earlier one. */
  mergedClusters: number
  /** Records rewritten (new cluster id, or old representative turned duplicate). */
  updated: number
}

/** Options of `reconcile`. */
export interface ReconcileOptions {
  /** Records per scan batch and per candidate lookup. @default 500 */
  batchSize?: number
  /** Called after each batch with the records scanned so far. */
  onProgress?: (scanned: number) => void
}

interface Edge {
  /** The later-indexed record of a verified pair, and the earlier one; in different clusters. */
  later: FingerprintRecord
  earlier: FingerprintRecord
  distance: number
  layer: Layer
}

type Key = readonly [number, string]

function before(a: Key, b: Key): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1])
}

/**
 * Finds near-duplicate pairs that ended up in different clusters — two processes that wrote
 * near-duplicates at the same moment both saw no match (near-real-time refresh) — and merges each
 * later cluster into the earlier one: the later representative becomes a duplicate of its match,
 * its members move to the earlier cluster. Earlier = the cluster whose first member was indexed
 * first (ties: smaller id). Idempotent: a second pass finds nothing.
 * @example const r = await reconcile(createDeduplicator({ store })) // { pairs: 2, mergedClusters: 2, … }
 */
export async function reconcile(dedup: Deduplicator, options: ReconcileOptions = {}): Promise<ReconcileResult> {
  const o = dedup.options
  const store = o.store
  const batchSize = options.batchSize ?? 500
  await store.refresh()
  // First member (indexedAt, id) of every cluster, learnt during the scan.
  const first = new Map<string, Key>()
  const edges: Edge[] = []
  let scanned = 0
  for await (const batch of store.scan(batchSize)) {
    for (const r of batch) {
      const k: Key = [r.indexedAt, r.id]
      const f = first.get(r.clusterId)
      if (f === undefined || before(k, f)) first.set(r.clusterId, k)
    }
    const queries = batch.map((r) => candidateQuery(r, o))
    const found = await store.candidates(queries)
    batch.forEach((r, i) => {
      for (const c of found[i] ?? []) {
        if (c.clusterId === r.clusterId || c.id === r.id) continue
        const m = matchCandidate(r, c, o)
        if (m === null) continue
        // Record each pair once, from the side of the later record.
        if (before([r.indexedAt, r.id], [c.indexedAt, c.id])) continue
        edges.push({ later: r, earlier: c, distance: m.distance, layer: m.layer })
      }
    })
    scanned += batch.length
    options.onProgress?.(scanned)
  }

  // Union-find over cluster ids; the root of a set is its earliest cluster.
  const parent = new Map<string, string>()
  const find = (x: string): string => {
    let root = x
    while (parent.has(root)) root = parent.get(root)!
    while (x !== root) {
      const next = parent.get(x)!
      parent.set(x, root)
      x = next
    }
    return root
  }
  const keyOf = (cluster: string): Key => first.get(cluster) ?? [Number.POSITIVE_INFINITY, cluster]
  // The evidence that retires a representative: the record on the surviving side of its edge.
  const evidence = new Map<string, { partner: FingerprintRecord; distance: number; layer: Layer }>()
  edges.sort((a, b) => a.distance - b.distance)
  for (const e of edges) {
    const a = find(e.later.clusterId)
    const b = find(e.earlier.clusterId)
    if (a === b) continue
    const [root, child] = before(keyOf(a), keyOf(b)) ? [a, b] : [b, a]
    parent.set(child, root)
    evidence.set(child, { partner: child === a ? e.earlier : e.later, distance: e.distance, layer: e.layer })
  }

  let updated = 0
  const merged = [...parent.keys()]
  for (const child of merged) {
    const root = find(child)
    const members = await store.members(child, 100_000)
    const rewritten: FingerprintRecord[] = members.map((m) => {
      if (m.id !== child) return { ...m, clusterId: root }
      const e = evidence.get(child)!
      return { ...m, clusterId: root, duplicateOf: e.partner.id, distance: e.distance, layer: e.layer }
    })
    if (rewritten.length > 0) {
      const result = await store.put(rewritten)
      updated += result.written
    }
  }
  await store.refresh()
  return { scanned, pairs: edges.length, mergedClusters: merged.length, updated }
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
      members.sort((a, b) => a.indexedAt - b.indexedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
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
