import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { CandidateQuery, Fingerprint, FingerprintRecord } from '../../src/types.js'
import type { FingerprintStore } from '../../src/store/store.js'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'
import { T0, hash16, idsOf, makeRecord, openedStores, putAll, sharing } from './_records.js'

const BASE: Fingerprint = { hi: 0x3fa20b11, lo: 0x9c00ffe1 }
/** No 16-bit block in common with BASE: only band terms can lead a BASE query to these records. */
const OTHER: Fingerprint = sharing(BASE, [])

/** Band term at `position` from a two-value alphabet, so that many records share a term. */
const term = (position: number, value: number): string => `m${position}_0000000${value}`

interface Case {
  /** Per record: its band values (position = index), or null for a record without bands. */
  records: (number[] | null)[]
  /** Records put per batch (the last batch takes the rest). */
  batches: number[]
  deletes: number[]
  queryBands: [number, number][]
  exclude: number | null
  since: number | null
  /** The query's `maxSeq` is this record's `seq` (a re-indexed document: only records first indexed before it). */
  seqOf: number | null
}

const arbCase: fc.Arbitrary<Case> = fc.record({
  records: fc.array(fc.option(fc.array(fc.nat(1), { minLength: 8, maxLength: 8 }), { freq: 6 }), { minLength: 1, maxLength: 40, size: 'max' }),
  batches: fc.array(fc.integer({ min: 1, max: 20 }), { maxLength: 2 }),
  deletes: fc.array(fc.nat(39), { maxLength: 4 }),
  queryBands: fc.array(fc.tuple(fc.nat(7), fc.nat(1)), { minLength: 1, maxLength: 8 }),
  exclude: fc.option(fc.nat(39)),
  since: fc.option(fc.nat(39)),
  seqOf: fc.option(fc.nat(39)),
})

/**
 * The band route's bound: a band term adds at most `maxPerBand` records to an answer, its newest
 * (largest `indexedAt`; here each record has its own), after the live, `since`, `excludeId` and
 * `maxSeq` filters: a re-run's document must meet the same earlier records as in its first run,
 * not later ones that crowd them out of the bound. Checked against a brute-force scan of what was put; every record the scan finds
 * through a term that not more than `maxPerBand` live records have must be returned.
 *
 * @example storeContractBands('memory', () => openMemoryStore(), 8)
 */
export function storeContractBands(name: string, makeStore: () => Promise<FingerprintStore>, maxPerBand: number, numRuns = 60): void {
  describe(`store contract (band route bound): ${name}`, () => {
    const open = openedStores(makeStore)

    test.prop([arbCase], { numRuns })('each band term returns its newest maxPerBand records (brute-force oracle)', async (c) => {
      const store = await open()
      const records: FingerprintRecord[] = c.records.map((bands, i) => {
        const over: Partial<FingerprintRecord> = { indexedAt: T0 + i, urlHash: null, titleHash: null }
        if (bands !== null) over.bands = bands.map((v, p) => term(p, v))
        return makeRecord(`doc-${i}`, OTHER, over)
      })
      // In indexedAt order, over one to three batches: newest is also last put.
      let at = 0
      for (const size of [...c.batches, records.length]) {
        if (at >= records.length) break
        await putAll(store, records.slice(at, at + size))
        at += size
      }
      const deleted = new Set(c.deletes.filter((d) => d < records.length).map((d) => `doc-${d}`))
      if (deleted.size > 0) {
        await store.delete([...deleted])
        await store.refresh()
      }
      const q: CandidateQuery = {
        fingerprint: BASE,
        blocks: fingerprintBlocks(BASE),
        minMatch: 1,
        maxDistance: 3,
        contentHash: hash16('content:the-query'),
        urlHash: null,
        titleHash: null,
        bands: [...new Set(c.queryBands.map(([p, v]) => term(p, v)))],
      }
      if (c.exclude !== null) q.excludeId = `doc-${c.exclude}`
      if (c.since !== null) q.since = T0 + c.since
      if (c.seqOf !== null && c.seqOf < records.length) q.maxSeq = records[c.seqOf]!.seq!

      // Brute force: per term, the live records passing the filters, newest first, cut at maxPerBand.
      const expected = new Set<string>()
      for (const t of q.bands!) {
        const having = records
          .filter((r) => r.bands?.includes(t) && !deleted.has(r.id) && r.id !== q.excludeId && r.indexedAt >= (q.since ?? -Infinity) && r.seq! <= (q.maxSeq ?? Infinity))
          .sort((a, b) => b.indexedAt - a.indexedAt)
        for (const r of having.slice(0, maxPerBand)) expected.add(r.id)
      }
      const [answer] = await store.candidates([q])
      expect(idsOf(answer!)).toEqual([...expected].sort())
    })

    // Half the runs: each puts, refreshes and asks up to four times.
    test.prop([arbRounds], { numRuns: Math.ceil(numRuns / 2) })('asked again after each batch, deletes and re-puts: still its newest maxPerBand records (brute-force oracle)', async (c) => {
      const store = await open()
      const live = new Map<string, FingerprintRecord>()
      let n = 0
      for (const round of c.rounds) {
        const records = round.records.map((bands) => makeRecord(`doc-${n++}`, OTHER, { indexedAt: T0 + n, urlHash: null, titleHash: null, bands: bands.map((v, p) => term(p, v)) }))
        // A re-put: an earlier id again, its number kept, its band terms changed.
        const again = round.reput === null || n <= records.length ? undefined : live.get(`doc-${round.reput % (n - records.length)}`)
        if (again !== undefined) records.push({ ...again, bands: again.bands!.map((b) => (b.endsWith('0') ? b.slice(0, -1) + '1' : b.slice(0, -1) + '0')) })
        await putAll(store, records)
        for (const r of records) live.set(r.id, r)
        if (round.deletes.length > 0) {
          const ids = round.deletes.map((d) => `doc-${d % n}`)
          await store.delete(ids)
          await store.refresh()
          for (const id of ids) live.delete(id)
        }
        const bands = [...new Set(round.queryBands.map(([p, v]) => term(p, v)))]
        const q: CandidateQuery = {
          fingerprint: BASE, blocks: fingerprintBlocks(BASE), minMatch: 1, maxDistance: 3,
          contentHash: hash16('content:the-query'), urlHash: null, titleHash: null, bands,
        }
        const expected = new Set<string>()
        for (const t of bands) {
          const having = [...live.values()].filter((r) => r.bands?.includes(t)).sort((a, b) => b.seq! - a.seq!)
          for (const r of having.slice(0, maxPerBand)) expected.add(r.id)
        }
        const [answer] = await store.candidates([q])
        expect(idsOf(answer!)).toEqual([...expected].sort())
      }
    })
  })
}

/** Rounds of puts, each followed by deletes (maybe) and a lookup: what a store keeps between lookups must follow its writes. */
const arbRounds = fc.record({
  rounds: fc.array(
    fc.record({
      records: fc.array(fc.array(fc.nat(1), { minLength: 8, maxLength: 8 }), { minLength: 1, maxLength: 12 }),
      reput: fc.option(fc.nat(), { freq: 4 }),
      deletes: fc.array(fc.nat(), { maxLength: 2 }),
      queryBands: fc.array(fc.tuple(fc.nat(7), fc.nat(1)), { minLength: 1, maxLength: 8 }),
    }),
    { minLength: 2, maxLength: 4 },
  ),
})
