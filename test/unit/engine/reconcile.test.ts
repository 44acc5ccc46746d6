import { describe, expect, test } from 'vitest'
import {
  createDeduplicator, openMemoryStore, reconcile, deleteDocuments, createAnalyzer, type FingerprintRecord, type FingerprintStore,
} from '../../../src/index.js'
import { matchCandidate } from '../../../src/internal.js'
import { compareOrder } from '../../../src/engine/match.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../../fixtures/articles.js'
import { TIED_SEQ_SEQUENTIAL, tiedSeqCopies } from '../../helpers/tied-seq.js'

const analyzer = createAnalyzer()

async function all(store: FingerprintStore): Promise<FingerprintRecord[]> {
  const out: FingerprintRecord[] = []
  for await (const b of store.scan(100)) out.push(...b)
  return out
}

/** Docs with near-duplicates: each article, plus edited copies. */
function corpus(prefix: string) {
  const arts = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D]
  return arts.flatMap((a, i) => [
    { id: `${prefix}${i}-orig`, content: a },
    { id: `${prefix}${i}-end`, content: `${a}（完）` }, // "(end)"
    { id: `${prefix}${i}-src`, content: `${a}来源：本报。` }, // "source: this paper"
  ])
}

describe('reconcile', () => {
  test('two indexers that could not see each other: after reconcile no near-duplicate pair is in two clusters', async () => {
    // Each "process" deduplicates its own overlapping share on its own store, then both write to one
    // index: the situation near-real-time refresh creates when two indexers run at once.
    let now = 1_000
    const clock = () => now++
    const docs = corpus('x')
    const left = createDeduplicator({ store: await openMemoryStore(), analyzer, now: clock })
    const right = createDeduplicator({ store: await openMemoryStore(), analyzer, now: clock })
    await left.add(docs.filter((_, i) => i % 2 === 0))
    await right.add(docs.filter((_, i) => i % 2 === 1))
    const shared = await openMemoryStore()
    await shared.put([...(await all(left.options.store)), ...(await all(right.options.store))])
    const dedup = createDeduplicator({ store: shared, analyzer })

    const pairsApart = (records: FingerprintRecord[]) =>
      records.flatMap((a) => records.filter((b) => a.id < b.id && a.clusterId !== b.clusterId && matchCandidate(a, b, dedup.options) !== null).map((b) => [a.id, b.id]))
    expect(pairsApart(await all(shared)).length).toBeGreaterThan(0) // the race happened

    const result = await reconcile(dedup)
    expect(result.mergedClusters).toBeGreaterThan(0)
    const after = await all(shared)
    expect(pairsApart(after)).toEqual([])
    // Clusters are named after their first-indexed member (seq, then id), and each has exactly one representative.
    const clusters = new Map<string, FingerprintRecord[]>()
    for (const r of after) clusters.set(r.clusterId, [...(clusters.get(r.clusterId) ?? []), r])
    expect(clusters.size).toBe(4)
    for (const [id, members] of clusters) {
      const first = [...members].sort(compareOrder)[0]!
      expect(first.id).toBe(id)
      expect(members.filter((m) => m.duplicateOf === null).map((m) => m.id)).toEqual([id])
      for (const m of members) if (m.duplicateOf !== null) expect(members.map((x) => x.id)).toContain(m.duplicateOf)
    }
    // Idempotent.
    expect(await reconcile(dedup)).toMatchObject({ pairs: 0, forwardPointers: 0, mergedClusters: 0, updated: 0 })
  })

  test('a later record that shares an earlier one\'s seq (concurrent writers) takes no band slot: decisions equal one sequential run', async () => {
    // The newest record per band term (no bound by cluster: the bound whose slots a tie could take).
    const store = await openMemoryStore({ maxPerBand: 1, maxPerCluster: 0 })
    expect((await store.put(await tiedSeqCopies(analyzer))).written).toBe(3)
    await reconcile(createDeduplicator({ store, analyzer }))
    // Before the fix x (seq 2, after r) filled r's one slot and r was left unique in its own cluster.
    expect(Object.fromEntries((await all(store)).map((r) => [r.id, [r.duplicateOf, r.clusterId]]))).toEqual(TIED_SEQ_SEQUENTIAL)
  })
})

describe('deleteDocuments', () => {
  test('deleting a representative elects the earliest remaining member; nothing points at the deleted id', async () => {
    let now = 1
    const store = await openMemoryStore()
    const dedup = createDeduplicator({ store, analyzer, now: () => now++ })
    await dedup.add([{ id: 'a', content: ARTICLE_A }])
    await dedup.add([{ id: 'b', content: `${ARTICLE_A}（完）` }])
    await dedup.add([{ id: 'c', content: `${ARTICLE_A}（完）` }])
    await dedup.add([{ id: 'z', content: ARTICLE_B }])
    expect((await store.get(['c'])).get('c')).toMatchObject({ clusterId: 'a' })
    const r = await deleteDocuments(dedup, ['a'])
    expect(r.deleted).toBe(1)
    const left = await all(store)
    expect(left.map((x) => x.id).sort()).toEqual(['b', 'c', 'z'])
    for (const x of left) {
      expect(x.clusterId).not.toBe('a')
      expect(x.duplicateOf).not.toBe('a')
    }
    expect(left.find((x) => x.id === 'b')).toMatchObject({ clusterId: 'b', duplicateOf: null, layer: null })
    expect(left.find((x) => x.id === 'c')).toMatchObject({ clusterId: 'b' })
    expect(left.find((x) => x.id === 'z')).toMatchObject({ clusterId: 'z' })
    // Deleting an id that is not there is a no-op.
    expect(await deleteDocuments(dedup, ['nope'])).toEqual({ deleted: 0, reassigned: 0 })
  })
})
