import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { CandidateQuery, Fingerprint, FingerprintRecord } from '../../src/types.js'
import type { FingerprintStore } from '../../src/store/store.js'
import { fingerprintBlocks, type BlockScheme } from '../../src/fingerprint/blocks.js'
import { hamming, popcount64 } from '../../src/fingerprint/hamming.js'
import { T0, bandsOf, flip, hash16, idsOf, makeRecord, putAll, sharing, openedStores } from './_records.js'

/** Blocks "0_3fa2", "1_0b11", "2_9c00", "3_ffe1": none is 0x0000 or 0xffff, so `sharing` can vary each. */
const BASE: Fingerprint = { hi: 0x3fa20b11, lo: 0x9c00ffe1 }
const SIX_BLOCKS: BlockScheme = { blocks: 6, minMatch: 3 }

/** A query as the deduplicator builds it; its own content hash matches nothing unless overridden. */
function query(fp: Fingerprint, over: Partial<CandidateQuery> = {}, scheme?: BlockScheme): CandidateQuery {
  return {
    fingerprint: fp,
    blocks: fingerprintBlocks(fp, scheme),
    minMatch: 1,
    maxDistance: 3,
    contentHash: hash16('content:the-query'),
    urlHash: null,
    titleHash: null,
    ...over,
  }
}

/** Fingerprint with no 16-bit block in common with BASE (every block rotated) and the same popcount. */
const UNRELATED: Fingerprint = sharing(BASE, [])

/**
 * The behaviour every `FingerprintStore` must have. Each test opens a fresh store from
 * `makeStore` and closes it afterwards; puts are followed by `refresh()` before any lookup.
 *
 * @example storeContract('memory', () => openMemoryStore())
 */
export function storeContract(name: string, makeStore: () => Promise<FingerprintStore>): void {
  describe(`store contract: ${name}`, () => {
    const open = openedStores(makeStore)
    async function ask(store: FingerprintStore, q: CandidateQuery): Promise<string[]> {
      const [answer] = await store.candidates([q])
      return idsOf(answer!)
    }

    test('versions lists the distinct fingerprint versions of the live records, sorted', async () => {
      const store = await open()
      expect(await store.versions()).toEqual([])
      await putAll(store, [
        makeRecord('v-a', BASE, { version: 'simdup-fp/5' }),
        makeRecord('v-b', UNRELATED, { version: 'simdup-fp/4' }),
        makeRecord('v-c', { hi: 0x12345678, lo: 0x9abcdef0 }, { version: 'simdup-fp/5' }),
      ])
      expect(await store.versions()).toEqual(['simdup-fp/4', 'simdup-fp/5'])
      // A version whose last record is deleted is gone.
      await store.delete(['v-b'])
      await store.refresh()
      expect(await store.versions()).toEqual(['simdup-fp/5'])
    })

    test('get returns each record exactly as written, and skips missing ids', async () => {
      const store = await open()
      const records: FingerprintRecord[] = [
        makeRecord('doc-1', BASE, { indexedAt: T0 + 1 }),
        // Chinese id: "news-2024-001"; a short duplicate with every optional field set.
        makeRecord('新闻-2024-001', { hi: 0x00000001, lo: 0xfffffffe }, {
          short: true, clusterId: 'doc-1', duplicateOf: 'doc-1', distance: 2, layer: 'simhash',
          urlHash: null, sketch: '0a1b2c3d4e5f6a7b', indexedAt: T0 + 2,
        }),
        makeRecord('doc-3', { hi: 0xffffffff, lo: 0 }, { titleHash: null, urlHash: null, layer: 'exact', distance: 0, duplicateOf: 'doc-1', clusterId: 'doc-1' }),
        makeRecord('doc-4', { hi: 0x12345678, lo: 0x9abcdef0 }, { version: 'simhash64-tfidf-v2' }, SIX_BLOCKS),
        // MinHash sketch and LSH bands, as the analyzer writes them for longer texts.
        makeRecord('doc-5', { hi: 0xcafef00d, lo: 0x0badf00d }, { sketch: 'm:00ff10ef20df30cf40bf50af609f708f', bands: bandsOf('doc-5') }),
        // Term-set sketch of a short text.
        makeRecord('doc-6', { hi: 0x0000ffff, lo: 0xffff0000 }, { short: true, sketch: 't:0000000a0000001b0000002c' }),
      ]
      await putAll(store, records)
      const got = await store.get([...records.map((r) => r.id), 'doc-missing'])
      expect(got.size).toBe(records.length)
      for (const r of records) expect(got.get(r.id)).toEqual(r)
      expect(await store.count()).toBe(records.length)
    })

    test('re-putting an id replaces the record: it is never there twice', async () => {
      const store = await open()
      const first = makeRecord('doc-1', BASE)
      const second = makeRecord('doc-1', UNRELATED, { contentHash: hash16('content:doc-1-edited'), indexedAt: T0 + 60_000 })
      await putAll(store, [first, makeRecord('doc-2', flip(BASE, 40))])
      await putAll(store, [second])
      expect(await store.count()).toBe(2)
      expect((await store.get(['doc-1'])).get('doc-1')).toEqual(second)
      // The old content hash and blocks no longer lead to doc-1; the new ones do, once.
      expect(await ask(store, query(BASE, { contentHash: first.contentHash }))).toEqual(['doc-2'])
      expect(await ask(store, query(UNRELATED, { contentHash: second.contentHash }))).toEqual(['doc-1'])
    })

    test('the same id twice in one batch keeps the later record', async () => {
      const store = await open()
      await putAll(store, [makeRecord('doc-1', BASE), makeRecord('doc-1', UNRELATED)])
      expect(await store.count()).toBe(1)
      expect((await store.get(['doc-1'])).get('doc-1')?.fingerprint).toEqual(UNRELATED)
    })

    test('delete removes records from get, count and candidates; unknown ids are ignored', async () => {
      const store = await open()
      await putAll(store, [makeRecord('doc-1', BASE), makeRecord('doc-2', BASE), makeRecord('doc-3', UNRELATED)])
      await store.delete(['doc-2', 'doc-never-written'])
      await store.refresh()
      expect(await store.count()).toBe(2)
      expect([...(await store.get(['doc-1', 'doc-2', 'doc-3'])).keys()].sort()).toEqual(['doc-1', 'doc-3'])
      expect(await ask(store, query(BASE))).toEqual(['doc-1'])
    })

    test('content, URL and title hashes each find a record on their own', async () => {
      const store = await open()
      const r = makeRecord('doc-1', BASE)
      await putAll(store, [r])
      // The query shares no block with the record, so only the named key can match.
      expect(await ask(store, query(UNRELATED, { contentHash: r.contentHash }))).toEqual(['doc-1'])
      expect(await ask(store, query(UNRELATED, { urlHash: r.urlHash }))).toEqual(['doc-1'])
      expect(await ask(store, query(UNRELATED, { titleHash: r.titleHash }))).toEqual(['doc-1'])
      expect(await ask(store, query(UNRELATED, { contentHash: r.urlHash, urlHash: r.titleHash, titleHash: r.contentHash }))).toEqual([])
    })

    test('key routes ignore the popcount filter', async () => {
      const store = await open()
      const r = makeRecord('doc-1', { hi: 0, lo: 0 })
      await putAll(store, [r])
      expect(await ask(store, query({ hi: 0xffffffff, lo: 0xffffffff }, { contentHash: r.contentHash, maxDistance: 0 }))).toEqual(['doc-1'])
    })

    test('a null hash in the query matches nothing, even records whose hash is null', async () => {
      const store = await open()
      await putAll(store, [makeRecord('doc-1', BASE, { urlHash: null, titleHash: null })])
      expect(await ask(store, query(UNRELATED, { contentHash: null, urlHash: null, titleHash: null }))).toEqual([])
      const bare: CandidateQuery = { fingerprint: UNRELATED, blocks: fingerprintBlocks(UNRELATED), minMatch: 1, maxDistance: 3 }
      expect(await ask(store, bare)).toEqual([])
    })

    test('one shared block is enough with minMatch 1, not with minMatch 2', async () => {
      const store = await open()
      await putAll(store, [makeRecord('doc-0', sharing(BASE, [0])), makeRecord('doc-3', sharing(BASE, [3])), makeRecord('doc-none', UNRELATED)])
      expect(await ask(store, query(BASE))).toEqual(['doc-0', 'doc-3'])
      expect(await ask(store, query(BASE, { minMatch: 2 }))).toEqual([])
    })

    test('minMatch 2 needs two blocks equal at the same positions', async () => {
      const store = await open()
      // doc-moved holds BASE's block 0 value (0x3fa2) at position 1: a different term, no match.
      const moved: Fingerprint = { hi: ((0x7777 << 16) | 0x3fa2) >>> 0, lo: sharing(BASE, []).lo }
      await putAll(store, [
        makeRecord('doc-01', sharing(BASE, [0, 1])),
        makeRecord('doc-23', sharing(BASE, [2, 3])),
        makeRecord('doc-013', sharing(BASE, [0, 1, 3])),
        makeRecord('doc-2', sharing(BASE, [2])),
        makeRecord('doc-moved', moved),
      ])
      expect(await ask(store, query(BASE, { minMatch: 2 }))).toEqual(['doc-01', 'doc-013', 'doc-23'])
      expect(await ask(store, query(BASE, { minMatch: 3 }))).toEqual(['doc-013'])
      expect(await ask(store, query(BASE, { minMatch: 1 }))).toEqual(['doc-01', 'doc-013', 'doc-2', 'doc-23'])
    })

    test('the block route skips records whose popcount differs by more than maxDistance', async () => {
      const store = await open()
      // Same block 0 as BASE; the low 32 bits cleared or set change the popcount by a known amount.
      const fewer: Fingerprint = { hi: BASE.hi, lo: 0 }
      const delta = popcount64(BASE) - popcount64(fewer)
      await putAll(store, [makeRecord('doc-fewer', fewer)])
      expect(delta).toBeGreaterThan(3)
      expect(await ask(store, query(BASE, { maxDistance: 3 }))).toEqual([])
      expect(await ask(store, query(BASE, { maxDistance: delta - 1 }))).toEqual([])
      expect(await ask(store, query(BASE, { maxDistance: delta }))).toEqual(['doc-fewer'])
    })

    test('one shared band term finds a record on its own, without the popcount filter', async () => {
      const store = await open()
      const bands = bandsOf('doc-1')
      // Far from the query in every way but one band: a copy that SimHash lost, MinHash did not.
      await putAll(store, [makeRecord('doc-1', { hi: 0, lo: 0x0000000f }, { bands }), makeRecord('doc-plain', UNRELATED)])
      const far = { hi: 0xffffffff, lo: 0xfffffff0 }
      expect(await ask(store, query(far, { bands: [bandsOf('query')[0]!, bands[5]!] }))).toEqual(['doc-1'])
      // Terms are matched as terms: their order in the query does not matter.
      expect(await ask(store, query(far, { bands: [bands[7]!, bands[2]!] }))).toEqual(['doc-1'])
      expect(await ask(store, query(far, { bands: bandsOf('query') }))).toEqual([])
      expect(await ask(store, query(far, { bands: [] }))).toEqual([])
      expect(await ask(store, query(far, { bands: [bands[3]!], excludeId: 'doc-1' }))).toEqual([])
      expect(await ask(store, query(far, { bands: [bands[3]!], since: T0 + 1 }))).toEqual([])
      await store.delete(['doc-1'])
      await store.refresh()
      expect(await ask(store, query(far, { bands }))).toEqual([])
    })

    test('since and excludeId filter every route', async () => {
      const store = await open()
      const old = makeRecord('doc-old', BASE, { indexedAt: T0 })
      const recent = makeRecord('doc-new', BASE, { indexedAt: T0 + 1000, contentHash: old.contentHash })
      await putAll(store, [old, recent])
      expect(await ask(store, query(BASE))).toEqual(['doc-new', 'doc-old'])
      expect(await ask(store, query(BASE, { since: T0 + 1000 }))).toEqual(['doc-new'])
      expect(await ask(store, query(UNRELATED, { contentHash: old.contentHash, since: T0 + 1 }))).toEqual(['doc-new'])
      expect(await ask(store, query(BASE, { excludeId: 'doc-new' }))).toEqual(['doc-old'])
      expect(await ask(store, query(UNRELATED, { contentHash: old.contentHash, excludeId: 'doc-old' }))).toEqual(['doc-new'])
      expect(await ask(store, query(BASE, { since: T0 + 1001 }))).toEqual([])
    })

    test('a record matched by several routes appears once; answers follow query order', async () => {
      const store = await open()
      const r = makeRecord('doc-1', BASE)
      await putAll(store, [r, makeRecord('doc-2', UNRELATED)])
      const answers = await store.candidates([
        query(BASE, { contentHash: r.contentHash, urlHash: r.urlHash, titleHash: r.titleHash }),
        query(UNRELATED),
        query({ hi: 0x01010101, lo: 0x01010101 }),
      ])
      expect(answers.map((a) => a.map((x) => x.id))).toEqual([['doc-1'], ['doc-2'], []])
      expect(answers[0]![0]).toEqual(r)
      expect(await store.candidates([])).toEqual([])
    })

    test('members lists a cluster with its representative and honours limit', async () => {
      const store = await open()
      await putAll(store, [
        makeRecord('doc-1', BASE),
        makeRecord('doc-2', BASE, { clusterId: 'doc-1', duplicateOf: 'doc-1', distance: 0, layer: 'simhash' }),
        makeRecord('doc-3', flip(BASE, 5), { clusterId: 'doc-1', duplicateOf: 'doc-2', distance: 1, layer: 'simhash' }),
        makeRecord('doc-4', UNRELATED),
      ])
      expect(idsOf(await store.members('doc-1'))).toEqual(['doc-1', 'doc-2', 'doc-3'])
      expect(await store.members('doc-1', 2)).toHaveLength(2)
      expect(idsOf(await store.members('doc-4'))).toEqual(['doc-4'])
      expect(await store.members('doc-none')).toEqual([])
      // clusterSize counts past a members limit (`simdup cluster` prints it beside "showing N").
      expect([await store.clusterSize('doc-1'), await store.clusterSize('doc-4'), await store.clusterSize('doc-none')]).toEqual([3, 1, 0])
      await store.delete(['doc-2'])
      await putAll(store, [makeRecord('doc-3', flip(BASE, 5), { clusterId: 'doc-4', duplicateOf: 'doc-4', distance: 3, layer: 'simhash' })])
      expect(idsOf(await store.members('doc-1'))).toEqual(['doc-1'])
      expect(idsOf(await store.members('doc-4'))).toEqual(['doc-3', 'doc-4'])
      expect([await store.clusterSize('doc-1'), await store.clusterSize('doc-4')]).toEqual([1, 2])
    })

    test('topClusters orders clusters by size, then by smaller id', async () => {
      const store = await open()
      const dup = (id: string, of: string): FingerprintRecord => makeRecord(id, BASE, { clusterId: of, duplicateOf: of, distance: 0, layer: 'exact' })
      await putAll(store, [
        makeRecord('doc-a', BASE), dup('doc-a2', 'doc-a'), dup('doc-a3', 'doc-a'),
        makeRecord('doc-c', BASE), dup('doc-c2', 'doc-c'),
        makeRecord('doc-b', BASE), dup('doc-b2', 'doc-b'),
        makeRecord('doc-single', BASE),
      ])
      expect(await store.topClusters(10, 2)).toEqual([
        { clusterId: 'doc-a', size: 3 }, { clusterId: 'doc-b', size: 2 }, { clusterId: 'doc-c', size: 2 },
      ])
      expect(await store.topClusters(2, 2)).toEqual([{ clusterId: 'doc-a', size: 3 }, { clusterId: 'doc-b', size: 2 }])
      expect(await store.topClusters(10, 3)).toEqual([{ clusterId: 'doc-a', size: 3 }])
      expect((await store.topClusters(10, 1)).at(-1)).toEqual({ clusterId: 'doc-single', size: 1 })
    })

    test('scan yields every live record once, in batches no larger than asked', async () => {
      const store = await open()
      const records = Array.from({ length: 25 }, (_, i) => makeRecord(`doc-${i}`, flip(BASE, i), { indexedAt: T0 + i }))
      await putAll(store, records)
      await store.delete(['doc-3', 'doc-7'])
      const edited = makeRecord('doc-9', UNRELATED, { indexedAt: T0 + 99 })
      await putAll(store, [edited])
      const seen: FingerprintRecord[] = []
      for await (const batch of store.scan(10)) {
        expect(batch.length).toBeGreaterThan(0)
        expect(batch.length).toBeLessThanOrEqual(10)
        seen.push(...batch)
      }
      expect(idsOf(seen)).toEqual(idsOf(records.filter((r) => r.id !== 'doc-3' && r.id !== 'doc-7')))
      expect(seen.find((r) => r.id === 'doc-9')).toEqual(edited)
    })

    // Property: whatever the store returns, verifying it (distance ≤ k) finds exactly what a
    // linear scan over every record finds. Near neighbours are planted at distance 0..3, decoys
    // at up to 12 flipped bits (they share blocks but are too far), plus random fingerprints.
    const u32 = fc.integer({ min: 0, max: 0xffffffff })
    const fpArb = fc.record({ hi: u32, lo: u32 })
    const flips = (max: number) => fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: max })
    const scenario = [fpArb, fc.array(flips(3), { minLength: 1, maxLength: 6 }), fc.array(flips(12), { maxLength: 12 }), fc.array(fpArb, { maxLength: 8 })] as const

    async function agreesWithLinearScan(scheme: BlockScheme, q: Fingerprint, near: number[][], decoys: number[][], random: Fingerprint[]): Promise<void> {
      const fps = [...near, ...decoys].map((bits) => bits.reduce(flip, q)).concat(random)
      const records = fps.map((fp, i) => makeRecord(`doc-${i}`, fp, { indexedAt: T0 + i }, scheme))
      const store = await makeStore()
      try {
        await putAll(store, records)
        const [found] = await store.candidates([query(q, { minMatch: scheme.minMatch, maxDistance: 3 }, scheme)])
        expect(new Set(found!.map((r) => r.id)).size).toBe(found!.length)
        const verified = found!.filter((r) => hamming(r.fingerprint, q) <= 3)
        expect(idsOf(verified)).toEqual(idsOf(records.filter((r) => hamming(r.fingerprint, q) <= 3)))
      } finally {
        await store.close()
      }
    }

    test.prop([...scenario], { numRuns: 25 })('lookup + verification equals a linear scan (4×16-bit blocks, minMatch 1, k = 3)', (q, near, decoys, random) =>
      agreesWithLinearScan({ blocks: 4, minMatch: 1 }, q, near, decoys, random))

    test.prop([...scenario], { numRuns: 25 })('lookup + verification equals a linear scan (6 blocks, minMatch 3, k = 3)', (q, near, decoys, random) =>
      agreesWithLinearScan(SIX_BLOCKS, q, near, decoys, random))
  })
}
