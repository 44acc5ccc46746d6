import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { FingerprintRecord } from '../../src/types.js'
import { HotBandCache, recordBytes } from '../../src/elasticsearch/_hot-bands.js'
import { makeRecord } from './_records.js'

const term = (v: number): string => `m0_0000000${v}`

type Op =
  | { kind: 'ask'; term: number; unseen: number }
  | { kind: 'put'; bands: number[][] }
  | { kind: 'reput'; pick: number; bands: number[] }
  | { kind: 'wait'; ms: number }

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('ask' as const), term: fc.nat(3), unseen: fc.nat(3) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('put' as const), bands: fc.array(fc.array(fc.nat(3), { maxLength: 3 }), { minLength: 1, maxLength: 4 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('reput' as const), pick: fc.nat(), bands: fc.array(fc.nat(3), { maxLength: 3 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 40 }) }), weight: 1 },
)

/** A written record put again with other band terms (an update), in `written` and the cache. */
function reput(op: { pick: number; bands: number[] }, written: Map<string, FingerprintRecord>, cache: HotBandCache): void {
  if (written.size === 0) return
  const old = [...written.values()][op.pick % written.size]!
  const again = { ...old, bands: op.bands.map(term) }
  written.set(again.id, again)
  cache.put([again])
}

describe('HotBandCache (a hot band term\'s newest records, kept between lookups)', () => {
  test.prop(
    [fc.array(arbOp, { maxLength: 40 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, 1500, 3000, 6000, Number.POSITIVE_INFINITY)],
    { numRuns: 500 },
  )(
    'what it holds for a term is always that term\'s newest records of all written (brute-force oracle), within its byte bound',
    (ops, size, maxTerms, maxBytes) => {
      let now = 0
      const cache = new HotBandCache(size, 100, maxTerms, () => now, maxBytes)
      const written = new Map<string, FingerprintRecord>()
      let n = 0
      const newest = (t: string): string[] =>
        [...written.values()].filter((r) => r.bands!.includes(t)).sort((a, b) => b.seq! - a.seq!).slice(0, size).map((r) => r.id)
      for (const op of ops) {
        if (op.kind === 'ask') {
          const t = term(op.term)
          const held = cache.get(t)
          if (held !== undefined) expect(held.map((r) => r.id)).toEqual(newest(t))
          else {
            // A search sees all but the newest `unseen` records of the term, which the pending list holds.
            const all = [...written.values()].filter((r) => r.bands!.includes(t)).sort((a, b) => b.seq! - a.seq!)
            cache.set(t, all.slice(op.unseen, op.unseen + size), all.slice(0, op.unseen))
            // Held unless the byte bound drops it at once (then it is asked again next time).
            const got = cache.get(t)
            if (maxBytes === Number.POSITIVE_INFINITY) expect(got).toBeDefined()
            if (got !== undefined) expect(got.map((r) => r.id)).toEqual(newest(t))
          }
        } else if (op.kind === 'put') {
          const records = op.bands.map((bands) => makeRecord(`doc-${n++}`, { hi: n, lo: 0 }, { seq: n, bands: bands.map(term) }))
          for (const r of records) written.set(r.id, r)
          // Acknowledged in any order (parallel bulk chunks).
          cache.put([...records].reverse())
        } else if (op.kind === 'reput') reput(op, written, cache)
        else now += op.ms
        expect(cache.terms).toBeLessThanOrEqual(maxTerms)
        // Shared objects are released with the last entry holding them (nothing kept beyond the entries).
        const inside = cache as unknown as { entries: Map<string, { records: FingerprintRecord[] }>; held: Map<string, { record: FingerprintRecord; refs: number }> }
        const objects = new Map<FingerprintRecord, number>()
        for (const e of inside.entries.values()) for (const r of e.records) objects.set(r, (objects.get(r) ?? 0) + 1)
        expect([...inside.held.values()].map((h) => [h.record, h.refs])).toEqual(expect.arrayContaining([...objects]))
        expect(inside.held.size).toBe(objects.size)
        // The byte count is that of what is held now (nothing leaks from the count), and within the bound.
        let bytes = 0
        for (const r of objects.keys()) bytes += recordBytes(r)
        expect(cache.bytes).toBeGreaterThanOrEqual(bytes)
        expect(cache.bytes).toBeLessThanOrEqual(maxBytes)
        if (inside.entries.size === 0) expect(cache.bytes).toBe(0)
      }
    },
  )

  test.prop([fc.array(arbOp, { maxLength: 40 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.array(fc.nat(3), { minLength: 64, maxLength: 64 })], { numRuns: 500 })(
    'bounded by cluster, it holds a term\'s first clusters with their first records, of all written (brute-force oracle)',
    (ops, size, perCluster, clusterOf) => {
      const cache = new HotBandCache(size, 100, 10, () => 0, Number.POSITIVE_INFINITY, perCluster)
      const written = new Map<string, FingerprintRecord>()
      let n = 0
      // The oracle: of the records with t, the `size` clusters first indexed first, `perCluster` first of each.
      const select = (records: FingerprintRecord[]): string[] => {
        const groups = new Map<string, FingerprintRecord[]>()
        for (const r of [...records].sort((a, b) => a.seq! - b.seq!)) groups.set(r.clusterId, [...(groups.get(r.clusterId) ?? []), r])
        return [...groups.values()].slice(0, size).flatMap((g) => g.slice(0, perCluster).map((r) => r.id))
      }
      const withTerm = (t: string): FingerprintRecord[] => [...written.values()].filter((r) => r.bands!.includes(t))
      for (const op of ops) {
        if (op.kind === 'ask') {
          const t = term(op.term)
          const held = cache.get(t)
          const want = select(withTerm(t))
          if (held !== undefined) expect(held.map((r) => r.id)).toEqual(want)
          else {
            const all = withTerm(t).sort((a, b) => b.seq! - a.seq!)
            const searched = all.slice(op.unseen)
            const ids = new Set(select(searched))
            cache.set(t, searched.filter((r) => ids.has(r.id)), all.slice(0, op.unseen))
            expect(cache.get(t)!.map((r) => r.id)).toEqual(want)
          }
        } else if (op.kind === 'put') {
          const records = op.bands.map((bands) => {
            n++
            return makeRecord(`doc-${n}`, { hi: n, lo: 0 }, { seq: n, bands: bands.map(term), clusterId: `c${clusterOf[n % 64]}` })
          })
          for (const r of records) written.set(r.id, r)
          cache.put([...records].reverse())
        } else if (op.kind === 'reput') reput(op, written, cache)
      }
    },
  )

  test('an entry is asked again after ttlMs', () => {
    let now = 0
    const cache = new HotBandCache(2, 100, 10, () => now)
    cache.set(term(1), [makeRecord('a', { hi: 1, lo: 0 }, { seq: 1, bands: [term(1)] })], [])
    now = 99
    expect(cache.get(term(1))?.map((r) => r.id)).toEqual(['a'])
    now = 100
    expect(cache.get(term(1))).toBeUndefined()
  })

  test('a record held for several terms is one object, whichever search read it; another version of it is not', () => {
    const cache = new HotBandCache(2, 100, 10)
    const a = makeRecord('a', { hi: 1, lo: 0 }, { seq: 1, bands: [term(1), term(2), term(3)] })
    // Each search parses its own copy of the record.
    cache.set(term(1), [{ ...a }], [])
    cache.set(term(2), [{ ...a }], [])
    expect(cache.get(term(2))![0]).toBe(cache.get(term(1))![0])
    // Re-indexed by another writer (a new indexedAt): not the same record.
    cache.set(term(3), [{ ...a, indexedAt: a.indexedAt + 1 }], [])
    expect(cache.get(term(3))![0]).not.toBe(cache.get(term(1))![0])
    // Refilling a term keeps the other entries' object.
    cache.set(term(1), [{ ...a }], [])
    expect(cache.get(term(1))![0]).toBe(cache.get(term(2))![0])
  })

  test('the byte bound drops the oldest terms first, and a record shared by terms is counted once', () => {
    const records = Array.from({ length: 6 }, (_, i) => makeRecord(`r${i}`, { hi: i, lo: 0 }, { seq: i + 1, bands: [term(i), term(9)], sketch: `m:${'0'.repeat(136)}` }))
    const one = new HotBandCache(2, 1e9, 100)
    one.set(term(0), [records[0]!], [])
    const single = one.bytes
    // A second term holding the same record costs its entry only.
    one.set(term(9), [{ ...records[0]! }], [])
    expect(one.bytes - single).toBeLessThan(recordBytes(records[0]!))
    const cache = new HotBandCache(2, 1e9, 100, Date.now, 3 * single)
    for (let i = 0; i < 6; i++) cache.set(term(i), [records[i]!], [])
    expect(cache.bytes).toBeLessThanOrEqual(3 * single)
    expect(cache.get(term(0))).toBeUndefined()
    expect(cache.get(term(5))?.map((r) => r.id)).toEqual(['r5'])
    expect(cache.terms).toBe(3)
  })
})
