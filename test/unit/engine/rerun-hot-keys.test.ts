import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, type InputDocument } from '../../../src/index.js'
import { decided, expectConsistent, runInBatches, storedDecisions } from '../../helpers/rerun.js'
import { hotKeyStream } from '../../helpers/hot-keys.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../../fixtures/articles.js'

/**
 * Issue 26, item 5, at keys past their bound: a re-run of a stream with re-used ids (updates) over
 * a store that already holds part of it, with other batch sizes, equals one clean run in every
 * decision and every stored field, also where a URL or content key has more records than the
 * store's `maxPerKey` (here 2, 3 or 5, so that 160 documents make hot keys; the default 16 needs
 * ~1,500: `npm run faults:store`). Two causes, both fixed: the store's key route returned the rows
 * written last instead of the newest by `seq` (updates and re-pointing write old records again;
 * test/store/key-route-order.test.ts), and the store copy of an id this batch updated away from a
 * key held a place of that key's newest (`pastStale` in engine/_reelect.ts).
 */

const analyzer = createAnalyzer()
const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

function open(dir: string | undefined, maxPerKey: number) {
  return openMemoryStore(dir === undefined ? { maxPerKey } : { dir, fsync: false, maxPerKey })
}

/**
 * Cases that named another member of the right cluster after other batch cuts (an exact match, d67
 * of seed -21: d37 in one run, d21 in the other): a band-route record counted in the bounds only
 * where a lookup or the batch happened to bring it. Both fail on ec99542 (bounds4 before
 * `bandsDecide`).
 */
const BATCH_NAMED: [number, number, boolean, 2 | 3 | 5][] = [[-21, 0, false, 2], [-290800546, 0, false, 2]]

describe('a re-run with re-used ids and keys past maxPerKey decides as one clean run (embedded store)', () => {
  test.prop([fc.integer(), fc.integer({ min: 0, max: 160 }), fc.boolean(), fc.constantFrom(2, 3, 5)], { numRuns: 20, examples: BATCH_NAMED })(
    'part of the stream first, then all of it with other batch sizes: every decision and stored field as the clean run',
    async (seed, cut, persistent, maxPerKey) => {
      const docs = hotKeyStream(seed, 160)
      const clean = await open(undefined, maxPerKey)
      const want = decided(await runInBatches(createDeduplicator({ store: clean, analyzer }), docs, seed))
      const wantStored = await storedDecisions(clean)
      await clean.close()
      const dir = persistent ? await mkdtemp(join(tmpdir(), 'simdup-hot-keys-')) : undefined
      if (dir !== undefined) dirs.push(dir)
      let store = await open(dir, maxPerKey)
      await runInBatches(createDeduplicator({ store, analyzer }), docs.slice(0, cut), seed + 1, 40)
      if (dir !== undefined) {
        await store.close()
        store = await open(dir, maxPerKey)
      }
      expect(decided(await runInBatches(createDeduplicator({ store, analyzer }), docs, seed + 2, 40))).toEqual(want)
      expect(await storedDecisions(store)).toEqual(wantStored)
      await expectConsistent(store)
      await store.close()
    },
    600_000, // ~1 s a run when the machine is idle; minutes at load 20
  )
})

describe('the smallest case: five documents, maxPerKey 1', () => {
  test('a record written again by a re-election does not hide a newer version of its URL', async () => {
    const U = 'https://news.example/page'
    for (const batch of [1, 5]) {
      const store = await openMemoryStore({ maxPerKey: 1 })
      const dedup = createDeduplicator({ store, analyzer })
      const docs: InputDocument[] = [
        { id: 'x', content: ARTICLE_A },
        { id: 'a', content: ARTICLE_A, url: U }, // a copy of x, first version of U
        { id: 'b', content: ARTICLE_B, url: U }, // U changed: supersedes a
        { id: 'x', content: ARTICLE_C }, // x updated: a is decided again and written again (old seq)
        { id: 'c', content: ARTICLE_D, url: U }, // U changed again: the last earlier version is b
      ]
      const out = []
      for (let i = 0; i < docs.length; i += batch) out.push(...(await dedup.add(docs.slice(i, i + batch))))
      expect(out.map((d) => [d.id, d.supersedes ?? null])).toEqual([['x', null], ['a', null], ['b', 'a'], ['x', null], ['c', 'b']])
      await store.close()
    }
  })
})

describe('the smallest re-run: four documents, maxPerKey 1', () => {
  test('the store copy of an id this batch moved off a URL does not hide that URL\'s older version', async () => {
    const U = 'https://news.example/page'
    const docs: InputDocument[] = [
      { id: 'b', content: ARTICLE_B, url: U },
      { id: 'a', content: ARTICLE_A }, // no URL yet
      { id: 'c', content: ARTICLE_D, url: U }, // U changed: supersedes b (a is not on U yet)
      { id: 'a', content: ARTICLE_C, url: U }, // a updated onto U: stored with U and its old seq, newer than b's
    ]
    const store = await openMemoryStore({ maxPerKey: 1 })
    const dedup = createDeduplicator({ store, analyzer })
    const clean = []
    for (const d of docs) clean.push(...(await dedup.add([d])))
    expect(clean.map((d) => [d.id, d.supersedes ?? null])).toEqual([['b', null], ['a', null], ['c', 'b'], ['a', 'b']])
    // Again over the same store, b alone then the rest: at c, the store's newest of U is its copy of a.
    const again = [...(await dedup.add(docs.slice(0, 1))), ...(await dedup.add(docs.slice(1)))]
    expect(decided(again)).toEqual(decided(clean))
    await store.close()
  })
})
