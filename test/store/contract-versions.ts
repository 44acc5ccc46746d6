import { describe, expect, test } from 'vitest'
import type { Fingerprint, FingerprintRecord } from '../../src/types.js'
import type { FingerprintStore } from '../../src/store/store.js'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'
import { T0, bandsOf, flip, hash16, makeRecord, putAll, openedStores } from './_records.js'

const BASE: Fingerprint = { hi: 0x3fa20b11, lo: 0x9c00ffe1 }
/** One page's URL key, another page's, and one nothing was indexed under. */
const PAGE = hash16('url:https://site.example/ch06.html#s5')
const OTHER = hash16('url:https://site.example/ch06.html#s6')
const NOWHERE = hash16('url:https://site.example/none')

/** Version `id` of the page with URL key `url`, first indexed as number `seq`. */
function version(id: string, seq: number, url = PAGE, over: Partial<FingerprintRecord> = {}): FingerprintRecord {
  return makeRecord(id, flip(BASE, seq % 64), { urlHash: url, seq, indexedAt: T0 + seq, ...over })
}

const ids = (lists: FingerprintRecord[][]): string[][] => lists.map((l) => l.map((r) => r.id))

/**
 * The store side of URL versions: records carry `supersedes` (the earlier version they replace)
 * and `byUrl` lists a URL's records newest first. Each test opens a fresh store from `makeStore`.
 *
 * @example storeContractVersions('memory', () => openMemoryStore())
 */
export function storeContractVersions(name: string, makeStore: () => Promise<FingerprintStore>): void {
  describe(`store contract (URL versions): ${name}`, () => {
    const open = openedStores(makeStore)

    test('supersedes comes back from get, scan and candidates exactly as written; absent stays absent', async () => {
      const store = await open()
      const records = [
        version('v1', 101),
        // Every optional field set, so the id sits after cluster, duplicate-of and sketch.
        version('第二版', 102, PAGE, {
          supersedes: 'v1', clusterId: 'v0', duplicateOf: 'v0', distance: 2, layer: 'simhash', short: false,
          sketch: 'm:00ff10ef20df30cf40bf50af609f708f', bands: bandsOf('v2'),
        }),
        version('v3', 103, PAGE, { supersedes: '第二版', sketch: 'not hex: stored as text' }),
        version('v0', 100, OTHER),
      ]
      await putAll(store, records)
      const got = await store.get(records.map((r) => r.id))
      for (const r of records) expect(got.get(r.id)).toEqual(r)
      expect('supersedes' in got.get('v1')!).toBe(false)
      const scanned: FingerprintRecord[] = []
      for await (const batch of store.scan()) scanned.push(...batch)
      expect(scanned.sort((a, b) => a.seq! - b.seq!)).toEqual([...records].sort((a, b) => a.seq! - b.seq!))
      const [found] = await store.candidates([{ fingerprint: BASE, blocks: fingerprintBlocks(BASE), minMatch: 1, maxDistance: 3, urlHash: PAGE }])
      expect(found!.find((r) => r.id === 'v3')).toEqual(records[2])
    })

    test('byUrl lists the live records of each URL key, first indexed last first, at most limit each', async () => {
      const store = await open()
      // Written out of first-insertion order.
      await putAll(store, [version('p3', 30), version('p1', 10), version('o1', 15, OTHER), version('p2', 20, PAGE, { supersedes: 'p1' })])
      expect(ids(await store.byUrl([PAGE, OTHER, NOWHERE]))).toEqual([['p3', 'p2', 'p1'], ['o1'], []])
      expect(ids(await store.byUrl([PAGE], 1))).toEqual([['p3']])
      expect(ids(await store.byUrl([PAGE], 0))).toEqual([[]])
      expect(await store.byUrl([])).toEqual([])
      // A re-put keeps its place (its first number); a record that moves to another URL leaves.
      await putAll(store, [version('p1', 10, PAGE, { contentHash: hash16('edited') }), version('p2', 20, OTHER)])
      expect(ids(await store.byUrl([PAGE, OTHER]))).toEqual([['p3', 'p1'], ['p2', 'o1']])
      // Deleting the newest leaves the one before it newest.
      await store.delete(['p3'])
      await store.refresh()
      expect(ids(await store.byUrl([PAGE], 1))).toEqual([['p1']])
    })

    test('byUrl breaks a tie in seq by id, newest (larger) first; records without a URL are never listed', async () => {
      const store = await open()
      await putAll(store, [version('a', 7), version('b', 7), makeRecord('n', BASE, { urlHash: null, seq: 8 })])
      expect(ids(await store.byUrl([PAGE]))).toEqual([['b', 'a']])
    })

    test('byUrl rejects a URL key that is not 16 hex digits and a limit that is not an integer ≥ 0', async () => {
      const store = await open()
      await expect(store.byUrl(['https://site.example/'])).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`urlHashes\[0\]`.*16 lower-case hex/) })
      await expect(store.byUrl([PAGE], -1)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`limit`/) })
    })

    test('a record whose supersedes is empty or not a string is refused with a reason; the rest are written', async () => {
      const store = await open()
      const bad = { ...version('bad', 40), supersedes: '' }
      const result = await store.put([bad, version('good', 41, PAGE, { supersedes: 'x' })])
      expect(result.written).toBe(1)
      expect(result.failed.map((f) => [f.id, f.error.message])).toEqual([['bad', expect.stringMatching(/`supersedes`/)]])
    })
  })
}
