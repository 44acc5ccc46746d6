import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import {
  createAnalyzer, createDeduplicator, deleteDocuments, openMemoryStore, reconcile, type FingerprintRecord, type FingerprintStore, type InputDocument,
} from '../../../src/index.js'
import { matchCandidate } from '../../../src/internal.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C } from '../../fixtures/articles.js'
import { copyStream, decided, expectConsistent, runInBatches, storedDecisions } from '../../helpers/rerun.js'
import { mulberry32 } from '../../helpers/random.js'

/**
 * Issue 26, item 5: an update (an id indexed again with new content) is one operation: the new
 * record and its old cluster's re-election go into one put, members re-decided; a re-run of a
 * stream with re-used ids equals one clean run. And a delete re-decides what it re-points.
 */

const analyzer = createAnalyzer()
const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

async function all(store: FingerprintStore): Promise<Map<string, FingerprintRecord>> {
  const out = new Map<string, FingerprintRecord>()
  for await (const batch of store.scan(100)) for (const r of batch) out.set(r.id, r)
  return out
}

/** Every stored duplicate's pointer verifies: its target is there, earlier, and the rules accept the pair with the stored distance, layer and rule. */
async function expectVerified(store: FingerprintStore): Promise<void> {
  const records = await all(store)
  const problems: string[] = []
  const dedup = createDeduplicator({ store, analyzer })
  for (const r of records.values()) {
    if (r.duplicateOf === null) continue
    const t = records.get(r.duplicateOf)
    const m = t === undefined ? null : matchCandidate(r, t, dedup.options)
    if (m === null) problems.push(`${r.id} → ${r.duplicateOf}: the rules reject the pair`)
    else if (m.distance !== r.distance || m.layer !== r.layer || (r.rule !== undefined && r.rule !== m.rule)) {
      problems.push(`${r.id} → ${r.duplicateOf}: stored ${r.layer}/${r.rule ?? '-'} d=${r.distance}, re-decided ${m.layer}/${m.rule} d=${m.distance}`)
    }
  }
  expect(problems).toEqual([])
}

async function cleanRun(docs: readonly InputDocument[], seed: number) {
  const store = await openMemoryStore()
  const decisions = await runInBatches(createDeduplicator({ store, analyzer }), docs, seed)
  const stored = await storedDecisions(store)
  await store.close()
  return { decisions: decided(decisions), stored }
}

describe('an update re-elects its old cluster in the same put', () => {
  const AD = '点击关注，获取更多精彩资讯。'
  test('members of an updated representative are decided again; a later mirror of the old text finds the old cluster', async () => {
    for (const batched of [false, true]) {
      const store = await openMemoryStore()
      const puts: number[] = []
      const counting: FingerprintStore = Object.assign(Object.create(store) as FingerprintStore, {
        put: (records: readonly FingerprintRecord[]) => (puts.push(records.length), store.put(records)),
      })
      const dedup = createDeduplicator({ store: counting, analyzer })
      const first: InputDocument[] = [
        { id: 'x', content: ARTICLE_A },
        { id: 'y', content: ARTICLE_A + AD },
        { id: 'z', content: ARTICLE_A + AD + AD },
      ]
      const update: InputDocument = { id: 'x', content: ARTICLE_B }
      const mirror: InputDocument = { id: 'w', content: ARTICLE_A }
      if (batched) await dedup.add([...first, update, mirror])
      else for (const d of [...first, update, mirror]) await dedup.add([d])
      const records = await all(store)
      expect(records.get('x')).toMatchObject({ clusterId: 'x', duplicateOf: null })
      // y, the earliest member left, represents the old text; z and the mirror are in its cluster.
      expect(records.get('y')).toMatchObject({ clusterId: 'y', duplicateOf: null, distance: null, layer: null })
      expect(records.get('z')).toMatchObject({ clusterId: 'y', duplicateOf: 'y' })
      expect(records.get('w')).toMatchObject({ clusterId: 'y' })
      await expectVerified(store)
      await expectConsistent(store)
      // One put per batch: the re-pointed y and z go with the new x.
      expect(puts.length).toBe(batched ? 1 : 5)
      if (!batched) expect(puts[3]).toBe(3)
      await store.close()
    }
  })

  test('an update whose new content still matches keeps its followers, with the cluster it joins', async () => {
    const store = await openMemoryStore()
    const dedup = createDeduplicator({ store, analyzer })
    await dedup.add([{ id: 'c', content: ARTICLE_C }, { id: 'x', content: ARTICLE_A }, { id: 'y', content: ARTICLE_A + AD }])
    // x now copies c: x joins c's cluster; y no longer matches x's content and is decided again (unique).
    await dedup.add([{ id: 'x', content: ARTICLE_C }])
    const records = await all(store)
    expect(records.get('x')).toMatchObject({ clusterId: 'c', duplicateOf: 'c', layer: 'exact' })
    expect(records.get('y')).toMatchObject({ clusterId: 'y', duplicateOf: null })
    await expectVerified(store)
    await expectConsistent(store)
    await store.close()
  })
})

describe('re-running a stream with re-used ids decides as one clean run (embedded store)', () => {
  const tempDir = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), 'simdup-update-'))
    dirs.push(dir)
    return dir
  }

  test.prop([fc.integer(), fc.boolean()], { numRuns: 6 })('a second run, with other batch sizes, repeats every decision and cluster', async (seed, persistent) => {
    const docs = copyStream(seed, 160) // about 8 % re-use an earlier id with new content
    expect(new Set(docs.map((d) => d.id)).size).toBeLessThan(docs.length)
    const clean = await cleanRun(docs, seed)
    const dir = persistent ? await tempDir() : undefined
    let store = await openMemoryStore(dir === undefined ? {} : { dir, fsync: false })
    expect(decided(await runInBatches(createDeduplicator({ store, analyzer }), docs, seed + 1))).toEqual(clean.decisions)
    expect(await storedDecisions(store)).toEqual(clean.stored)
    if (dir !== undefined) {
      await store.close()
      store = await openMemoryStore({ dir, fsync: false })
    }
    expect(decided(await runInBatches(createDeduplicator({ store, analyzer }), docs, seed + 2))).toEqual(clean.decisions)
    expect(await storedDecisions(store)).toEqual(clean.stored)
    // Every cluster has its representative, every pointer verifies.
    await expectConsistent(store)
    await expectVerified(store)
    await store.close()
  })

  test.prop([fc.integer(), fc.integer({ min: 0, max: 159 })], { numRuns: 6 })('a run cut short anywhere, then run again to the end, ends as the clean run', async (seed, cut) => {
    const docs = copyStream(seed, 160)
    const clean = await cleanRun(docs, seed)
    const dir = await tempDir()
    let store = await openMemoryStore({ dir, fsync: false })
    await runInBatches(createDeduplicator({ store, analyzer }), docs.slice(0, cut), seed + 3)
    await store.close()
    store = await openMemoryStore({ dir, fsync: false })
    expect(decided(await runInBatches(createDeduplicator({ store, analyzer }), docs, seed + 4))).toEqual(clean.decisions)
    expect(await storedDecisions(store)).toEqual(clean.stored)
    await store.close()
  })
})

describe('delete re-decides what it re-points', () => {
  test.prop([fc.integer()], { numRuns: 6 })('after deleting random documents every pointer verifies, and reconcile decides the re-pointed records alike', async (seed) => {
    const docs = copyStream(seed, 120, false)
    const store = await openMemoryStore()
    const dedup = createDeduplicator({ store, analyzer })
    await runInBatches(dedup, docs, seed)
    const rnd = mulberry32(seed)
    // Delete representatives with members, and some others.
    const records = [...(await all(store)).values()]
    const reps = records.filter((r) => r.duplicateOf === null && records.some((m) => m.duplicateOf === r.id))
    const gone = [...reps.filter(() => rnd() < 0.5), ...records.filter(() => rnd() < 0.05)].map((r) => r.id)
    const goneSet = new Set(gone)
    const repointed = records.filter((r) => r.duplicateOf !== null && goneSet.has(r.duplicateOf) && !goneSet.has(r.id)).map((r) => r.id)
    await deleteDocuments(dedup, gone)
    const left = await all(store)
    for (const id of gone) expect(left.has(id)).toBe(false)
    await expectVerified(store)
    await expectConsistent(store)
    // reconcile (every record decided again against all earlier ones) gives the re-pointed records
    // the decisions the delete gave them. (It may move others: a delete frees a slot of a band
    // term's newest, letting an older record into a later one's candidates.)
    const decision = (r: FingerprintRecord | undefined) => `${r?.duplicateOf} ${r?.layer} ${r?.distance}`
    const mine = repointed.map((id) => decision(left.get(id)))
    await reconcile(dedup)
    const after = await all(store)
    expect(repointed.map((id) => decision(after.get(id)))).toEqual(mine)
    await store.close()
  })
})
