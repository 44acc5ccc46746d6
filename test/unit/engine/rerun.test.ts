import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, reconcile, type FingerprintRecord, type InputDocument } from '../../../src/index.js'
import { LOG_FILE } from '../../../src/store/embedded/_log-format.js'
import { copyStream, decided, expectConsistent, runInBatches, storedDecisions } from '../../helpers/rerun.js'
import { tempDirs } from '../../helpers/temp-dir.js'

const analyzer = createAnalyzer()
const tempDir = tempDirs('simdup-rerun-')

/** The clean run: one pass over `docs` into a fresh in-memory store. */
async function cleanRun(docs: readonly InputDocument[], seed: number) {
  const store = await openMemoryStore()
  const decisions = await runInBatches(createDeduplicator({ store, analyzer }), docs, seed)
  const stored = await storedDecisions(store)
  await store.close()
  return { decisions: decided(decisions), stored }
}

describe('re-running an input decides as one clean run (embedded store)', () => {
  test.prop([fc.integer(), fc.boolean()], { numRuns: 6 })('a second run, with other batch sizes, repeats every decision and cluster', async (seed, persistent) => {
    const docs = copyStream(seed, 160, false) // ids re-indexed with other content: see README, Guarantees
    const clean = await cleanRun(docs, seed)
    const dir = persistent ? await tempDir() : undefined
    let store = await openMemoryStore(dir === undefined ? {} : { dir, fsync: false })
    const first = await runInBatches(createDeduplicator({ store, analyzer }), docs, seed + 1)
    expect(decided(first)).toEqual(clean.decisions)
    if (dir !== undefined) {
      await store.close()
      store = await openMemoryStore({ dir, fsync: false })
    }
    const second = await runInBatches(createDeduplicator({ store, analyzer }), docs, seed + 2)
    expect(decided(second)).toEqual(clean.decisions)
    expect(await storedDecisions(store)).toEqual(clean.stored)
    // Ids re-indexed with new content leave their old clusters behind: pointers only.
    await expectConsistent(store, false)
    await store.close()
  })

  test.prop([fc.integer(), fc.integer({ min: 0, max: 159 })], { numRuns: 6 })('a run cut short anywhere, then run again to the end, ends as the clean run', async (seed, cut) => {
    const docs = copyStream(seed, 160, false) // ids re-indexed with other content: see README, Guarantees
    const clean = await cleanRun(docs, seed)
    const dir = await tempDir()
    let store = await openMemoryStore({ dir, fsync: false })
    await runInBatches(createDeduplicator({ store, analyzer }), docs.slice(0, cut), seed + 3)
    await store.close()
    store = await openMemoryStore({ dir, fsync: false })
    const resumed = await runInBatches(createDeduplicator({ store, analyzer }), docs, seed + 4)
    expect(decided(resumed)).toEqual(clean.decisions)
    expect(await storedDecisions(store)).toEqual(clean.stored)
    await store.close()
  })
})

describe('reconcile repairs forward pointers', () => {
  test.prop([fc.integer()], { numRuns: 4 })('a store whose records point at later ones is brought back to the clean run', async (seed) => {
    // No id re-indexed with new content: then the clean run is also what a replay of the store gives.
    const docs = copyStream(seed, 120, false)
    const clean = await cleanRun(docs, seed)
    const store = await openMemoryStore()
    const dedup = createDeduplicator({ store, analyzer })
    await runInBatches(dedup, docs, seed)
    // Damage: every unique record that has a later duplicate is made to point at it (a forward
    // pointer, and a mutual one where the later one points back), as re-runs used to leave them.
    const all: FingerprintRecord[] = []
    for await (const batch of store.scan(100)) all.push(...batch)
    const damaged: FingerprintRecord[] = []
    for (const r of all) {
      if (r.duplicateOf !== null) continue
      const later = all.find((x) => x.duplicateOf === r.id)
      if (later !== undefined) damaged.push({ ...r, duplicateOf: later.id, clusterId: later.id, distance: later.distance, layer: later.layer })
    }
    expect(damaged.length).toBeGreaterThan(0)
    // And no version links, as a store written before simdup stored them.
    const linked = all.filter((r) => r.supersedes !== undefined).length
    expect(linked).toBeGreaterThan(0)
    const unlinked = new Map(all.map(({ supersedes: _, ...r }) => [r.id, r as FingerprintRecord]))
    for (const r of damaged) unlinked.set(r.id, (({ supersedes: _, ...x }) => x)(r))
    await store.put([...unlinked.values()])
    expect(await storedDecisions(store)).not.toEqual(clean.stored)

    const result = await reconcile(dedup)
    expect(await storedDecisions(store)).toEqual(clean.stored)
    expect(result.forwardPointers).toBe(damaged.length)
    expect(result.versions).toBe(linked)
    await expectConsistent(store)
    expect(await reconcile(dedup)).toMatchObject({ pairs: 0, forwardPointers: 0, mergedClusters: 0, versions: 0, updated: 0 })
  })
})

describe('stores written before records carried a sequence', () => {
  test('a format-1 log (records without seq) is refused with SNAPSHOT_VERSION and what to do', async () => {
    const dir = await tempDir()
    const store = await openMemoryStore({ dir })
    await store.close()
    const bytes = await readFile(join(dir, LOG_FILE))
    bytes.writeUInt32LE(1, 8)
    await writeFile(join(dir, LOG_FILE), bytes)
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'SNAPSHOT_VERSION', message: expect.stringMatching(/format version 1\b.*re-index into a new directory/) })
  })
})
