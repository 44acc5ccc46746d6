import { describe, expect, test } from 'vitest'
import type { Fingerprint, FingerprintRecord } from '../../src/types.js'
import type { FingerprintStore } from '../../src/store/store.js'
import { T0, flip, idsOf, makeRecord, putAll, openedStores } from './_records.js'

const BASE: Fingerprint = { hi: 0x3fa20b11, lo: 0x9c00ffe1 }

/** A duplicate of `of` in `of`'s cluster. */
function dup(id: string, of: string, over: Partial<FingerprintRecord> = {}): FingerprintRecord {
  return makeRecord(id, BASE, { clusterId: of, duplicateOf: of, distance: 0, layer: 'exact', ...over })
}

/** Drains a scan into its batches. */
async function batchesOf(store: FingerprintStore, batchSize?: number): Promise<FingerprintRecord[][]> {
  const out: FingerprintRecord[][] = []
  for await (const batch of batchSize === undefined ? store.scan() : store.scan(batchSize)) out.push(batch)
  return out
}

/**
 * More of the contract for `scan` and `topClusters`, which came to the interface after
 * `storeContract` was written: edge cases, defaults, argument checks, and that they follow
 * deletes and re-puts. Each test opens a fresh store from `makeStore` and closes it afterwards.
 *
 * @example storeContractExtra('memory', () => openMemoryStore())
 */
export function storeContractExtra(name: string, makeStore: () => Promise<FingerprintStore>): void {
  describe(`store contract (scan, topClusters): ${name}`, () => {
    const open = openedStores(makeStore)

    test('ids with lone UTF-16 surrogates are refused with a reason, never merged into one record; astral ids round-trip', async () => {
      const store = await open()
      // Both become "a\ufffd" in UTF-8: stored, they would be one record.
      const lone = [makeRecord('a\ud800', BASE), makeRecord('a\udbff', flip(BASE, 1)), makeRecord('c', flip(BASE, 2), { clusterId: 'x\udc00' })]
      const result = await store.put([...lone, makeRecord('b\ud83d\ude00', flip(BASE, 3))])
      expect(result.written).toBe(1)
      expect(result.failed.map((f) => [f.id, f.error.message])).toEqual([
        ['a\ud800', expect.stringMatching(/`id`.*lone UTF-16 surrogate/)],
        ['a\udbff', expect.stringMatching(/`id`.*lone UTF-16 surrogate/)],
        ['c', expect.stringMatching(/`clusterId`.*lone UTF-16 surrogate/)],
      ])
      await store.refresh()
      expect(await store.count()).toBe(1)
      expect(idsOf(await batchesOf(store).then((b) => b.flat()))).toEqual(['b\ud83d\ude00'])
      expect((await store.get(['a\ufffd'])).size).toBe(0)
    })

    test('an empty store scans to nothing and has no clusters', async () => {
      const store = await open()
      expect(await batchesOf(store)).toEqual([])
      expect(await batchesOf(store, 1)).toEqual([])
      expect(await store.topClusters(10, 1)).toEqual([])
    })

    test('scan returns records exactly as written; the default batch holds a small store in one batch', async () => {
      const store = await open()
      const records = [
        makeRecord('doc-1', BASE),
        // Chinese id: "news-001"; every optional field set.
        makeRecord('新闻-001', flip(BASE, 3), { short: true, sketch: '0a1b2c3d', clusterId: 'doc-1', duplicateOf: 'doc-1', distance: 1, layer: 'simhash', indexedAt: T0 + 5 }),
        makeRecord('doc-3', flip(BASE, 60), { urlHash: null, titleHash: null }),
      ]
      await putAll(store, records)
      const batches = await batchesOf(store)
      expect(batches).toHaveLength(1)
      const byId = new Map(batches[0]!.map((r) => [r.id, r]))
      expect(byId.size).toBe(3)
      for (const r of records) expect(byId.get(r.id)).toEqual(r)
    })

    test('scan with batchSize 1 yields one record per batch, each once', async () => {
      const store = await open()
      const records = Array.from({ length: 7 }, (_, i) => makeRecord(`doc-${i}`, flip(BASE, i)))
      await putAll(store, records)
      const batches = await batchesOf(store, 1)
      expect(batches.map((b) => b.length)).toEqual([1, 1, 1, 1, 1, 1, 1])
      expect(idsOf(batches.flat())).toEqual(idsOf(records))
    })

    test('a re-put record is scanned once, in its new version', async () => {
      const store = await open()
      await putAll(store, [makeRecord('doc-1', BASE), makeRecord('doc-2', flip(BASE, 1))])
      const edited = makeRecord('doc-1', flip(BASE, 9), { indexedAt: T0 + 1000 })
      await putAll(store, [edited])
      const all = (await batchesOf(store, 1)).flat()
      expect(idsOf(all)).toEqual(['doc-1', 'doc-2'])
      expect(all.find((r) => r.id === 'doc-1')).toEqual(edited)
    })

    test('stopping a scan early leaves the store usable', async () => {
      const store = await open()
      await putAll(store, Array.from({ length: 5 }, (_, i) => makeRecord(`doc-${i}`, flip(BASE, i))))
      for await (const batch of store.scan(2)) {
        expect(batch).toHaveLength(2)
        break
      }
      expect(await store.count()).toBe(5)
      expect((await batchesOf(store, 2)).flat()).toHaveLength(5)
    })

    test('scan rejects a batchSize that is not a positive integer', async () => {
      const store = await open()
      await expect(batchesOf(store, 0)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`batchSize`.*got `0`/) })
      await expect(batchesOf(store, 2.5)).rejects.toMatchObject({ code: 'INVALID_OPTION' })
    })

    test('topClusters leaves out single records by default (minSize 2) and returns nothing for limit 0', async () => {
      const store = await open()
      await putAll(store, [makeRecord('doc-a', BASE), dup('doc-a2', 'doc-a'), makeRecord('doc-single', BASE)])
      expect(await store.topClusters(10)).toEqual([{ clusterId: 'doc-a', size: 2 }])
      expect(await store.topClusters(0)).toEqual([])
      expect(await store.topClusters(10, 1)).toEqual([{ clusterId: 'doc-a', size: 2 }, { clusterId: 'doc-single', size: 1 }])
    })

    test('topClusters follows deletes and records that move to another cluster', async () => {
      const store = await open()
      await putAll(store, [
        makeRecord('doc-a', BASE), dup('doc-a2', 'doc-a'), dup('doc-a3', 'doc-a'), dup('doc-a4', 'doc-a'),
        makeRecord('doc-b', BASE), dup('doc-b2', 'doc-b'),
      ])
      expect(await store.topClusters(10)).toEqual([{ clusterId: 'doc-a', size: 4 }, { clusterId: 'doc-b', size: 2 }])
      await store.delete(['doc-a2'])
      // doc-a3 is re-indexed into doc-b's cluster: doc-b now has 3 members, doc-a 2.
      await putAll(store, [dup('doc-a3', 'doc-b')])
      expect(await store.topClusters(10)).toEqual([{ clusterId: 'doc-b', size: 3 }, { clusterId: 'doc-a', size: 2 }])
      await store.delete(['doc-a', 'doc-a4'])
      await store.refresh()
      expect(await store.topClusters(10)).toEqual([{ clusterId: 'doc-b', size: 3 }])
    })

    test('topClusters counts members whose representative is gone', async () => {
      const store = await open()
      await putAll(store, [makeRecord('doc-a', BASE), dup('doc-a2', 'doc-a'), dup('doc-a3', 'doc-a')])
      await store.delete(['doc-a'])
      await store.refresh()
      expect(await store.topClusters(10)).toEqual([{ clusterId: 'doc-a', size: 2 }])
    })

    test('topClusters rejects a negative or fractional limit and a minSize below 1', async () => {
      const store = await open()
      await expect(store.topClusters(-1)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`limit`/) })
      await expect(store.topClusters(1.5)).rejects.toMatchObject({ code: 'INVALID_OPTION' })
      await expect(store.topClusters(5, 0)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`minSize`/) })
    })
  })
}
