import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { CandidateQuery, FingerprintRecord } from '../../src/types.js'
import { boundBandTerms, groupLookups, unionSearchBody } from '../../src/elasticsearch/_lookup.js'
import { blockSets, candidateQuery, matchesCandidateQuery } from '../../src/elasticsearch/_query.js'
import { popcount64 } from '../../src/fingerprint/hamming.js'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'
import { T0, hash16, makeRecord, sharing } from './_records.js'

const BASE = { hi: 0x3fa20b11, lo: 0x9c00ffe1 }
const OTHER = sharing(BASE, [])
const term = (position: number, value: number): string => `m${position}_0000000${value}`

describe('boundBandTerms (the band bound on a search answer and on records not yet searchable)', () => {
  test.prop([
    fc.array(fc.record({ bands: fc.array(fc.nat(1), { minLength: 8, maxLength: 8 }), sameContent: fc.boolean() }), { maxLength: 30, size: 'max' }),
    fc.uniqueArray(fc.tuple(fc.nat(7), fc.nat(1)), { minLength: 1, maxLength: 8, selector: ([p, v]) => `${p}/${v}` }),
    fc.integer({ min: 1, max: 6 }),
  ])('keeps key matches, and per band term its newest maxPerBand records (brute-force oracle)', (specs, queryBands, maxPerBand) => {
    const q: CandidateQuery = {
      fingerprint: BASE, blocks: fingerprintBlocks(BASE), minMatch: 1, maxDistance: 3,
      contentHash: hash16('content:q'), urlHash: null, titleHash: null,
      bands: queryBands.map(([p, v]) => term(p, v)),
    }
    const records: FingerprintRecord[] = specs.map((s, i) =>
      makeRecord(`doc-${i}`, OTHER, { indexedAt: T0 + i, urlHash: null, titleHash: null, bands: s.bands.map((v, p) => term(p, v)), ...(s.sameContent ? { contentHash: q.contentHash! } : {}) }),
    )
    const matches = records.filter((r) => r.contentHash === q.contentHash || r.bands!.some((b) => q.bands!.includes(b)))
    const expected = new Set(matches.filter((r) => r.contentHash === q.contentHash).map((r) => r.id))
    for (const t of q.bands!) {
      for (const r of matches.filter((m) => m.bands!.includes(t)).sort((a, b) => b.indexedAt - a.indexedAt).slice(0, maxPerBand)) expected.add(r.id)
    }
    expect(boundBandTerms(matches, q, maxPerBand).map((r) => r.id).sort()).toEqual([...expected].sort())
  })
})

/** boundBandTerms as it was written first (one `includes` per query term and record): the reference for the one-pass version. */
function referenceBoundBandTerms(matches: readonly FingerprintRecord[], q: CandidateQuery, maxPerBand: number): FingerprintRecord[] {
  if (q.bands === undefined || q.bands.length === 0 || matches.length === 0) return [...matches]
  const noBands: CandidateQuery = { ...q, bands: [] }
  const pc = popcount64(q.fingerprint)
  const taken = new Map<string, number>()
  const out: FingerprintRecord[] = []
  const order = (r: FingerprintRecord): number => r.seq ?? Number.POSITIVE_INFINITY
  for (const r of [...matches].sort((a, b) => order(b) - order(a) || b.indexedAt - a.indexedAt)) {
    let keep = matchesCandidateQuery(r, noBands, pc)
    for (const b of q.bands) {
      if (r.bands === undefined || !r.bands.includes(b)) continue
      const n = taken.get(b) ?? 0
      if (n >= maxPerBand) continue
      taken.set(b, n + 1)
      keep = true
    }
    if (keep) out.push(r)
  }
  return out
}

describe('boundBandTerms with short texts\' prefix terms (dozens a record, not positional)', () => {
  const gram = (v: number): string => `s_0000${String(v).padStart(4, '0')}`
  test.prop([
    fc.array(fc.record({ bands: fc.array(fc.nat(12), { maxLength: 20 }), seq: fc.nat(40), sameContent: fc.boolean(), again: fc.boolean() }), { maxLength: 30 }),
    fc.array(fc.nat(12), { minLength: 1, maxLength: 20 }),
    fc.integer({ min: 1, max: 6 }),
  ])('keeps what the term-by-term version keeps, in the same order (repeated terms and records included)', (specs, queryTerms, maxPerBand) => {
    const q: CandidateQuery = {
      fingerprint: BASE, blocks: fingerprintBlocks(BASE), minMatch: 1, maxDistance: 3,
      contentHash: hash16('content:q'), urlHash: null, titleHash: null, bands: queryTerms.map(gram),
    }
    const matches: FingerprintRecord[] = []
    specs.forEach((s, i) => {
      const r = makeRecord(`doc-${i}`, OTHER, { seq: s.seq, indexedAt: T0 + i, urlHash: null, titleHash: null, bands: s.bands.map(gram), ...(s.sameContent ? { contentHash: q.contentHash! } : {}) })
      matches.push(r)
      if (s.again) matches.push(r)
    })
    expect(boundBandTerms(matches, q, maxPerBand)).toEqual(referenceBoundBandTerms(matches, q, maxPerBand))
  })
})

describe('blockSets (the block route as one terms match)', () => {
  const u32 = fc.integer({ min: 0, max: 0xffffffff })
  const fpArb = fc.record({ hi: u32, lo: u32 })
  const scheme = { blocks: 6, minMatch: 3 }

  // Every scheme with sets (5 to 8 blocks: C(n, n − 3) ≤ 64), in both formats.
  test.prop([fpArb, fpArb, fc.uniqueArray(fc.integer({ min: 0, max: 63 }), { maxLength: 12 }), fc.integer({ min: 5, max: 8 }), fc.constantFrom(1 as const, 2 as const)], { numRuns: 4000 })(
    'two n-block records share a block set exactly when they share at least n − 3 blocks (brute force), in either format',
    (a, random, bits, blocks, format) => {
      // Half the pairs are bit flips of one another (sharing many blocks), half unrelated.
      const b = bits.length % 2 === 0 ? bits.reduce((f, bit) => (bit < 32 ? { hi: (f.hi ^ (1 << bit)) >>> 0, lo: f.lo } : { hi: f.hi, lo: (f.lo ^ (1 << (bit - 32))) >>> 0 }), a) : random
      const ba = fingerprintBlocks(a, { blocks, minMatch: blocks - 3 })
      const bb = fingerprintBlocks(b, { blocks, minMatch: blocks - 3 })
      const shared = ba.filter((x) => bb.includes(x)).length
      const setsB = new Set(blockSets(bb, format))
      expect(blockSets(ba, format).some((x) => setsB.has(x))).toBe(shared >= blocks - 3)
    },
  )

  test('6 blocks give their 20 sets of 3: joined (format 1), or 7 characters each (format 2); 4 blocks (minMatch 1) none', () => {
    const six = fingerprintBlocks(BASE, scheme)
    for (const format of [1, 2] as const) {
      expect(blockSets(six, format)).toHaveLength(20)
      expect(new Set(blockSets(six, format)).size).toBe(20)
      expect(blockSets(fingerprintBlocks(BASE), format)).toEqual([])
    }
    expect(blockSets(six, 1)[0]).toBe(six.slice(0, 3).join('.'))
    expect(blockSets(six, 2).every((x) => /^[\w-]{7}$/.test(x))).toBe(true)
    expect(blockSets(six)).toEqual(blockSets(six, 2))
  })

  test('format 2 writes blocks not cut as fingerprintBlocks cuts them joined, never equal to a compact set', () => {
    const odd = ['0_3fa', '1_0b1', '2_1c0', '3_7ff', '4_3ff', '5_3ff0'] // last block one hex digit too long
    expect(blockSets(odd, 2)).toEqual(blockSets(odd, 1))
    expect(blockSets(odd, 2).every((x) => x.includes('.'))).toBe(true)
  })

  test('with sets, lookups ask one terms of block sets per popcount window (a batch of 500 in one union search), without them a 3-of-6 clause each', () => {
    const lookups = Array.from({ length: 500 }, (_, i) => {
      const fp = { hi: Math.imul(i + 1, 0x9e3779b1) >>> 0, lo: Math.imul(i + 7, 0x85ebca77) >>> 0 }
      const q: CandidateQuery = { fingerprint: fp, blocks: fingerprintBlocks(fp, scheme), minMatch: 3, maxDistance: 3, contentHash: hash16(`c${i}`), urlHash: null, titleHash: null }
      return { at: i, query: q }
    })
    for (const format of [1, 2] as const) {
      expect(groupLookups(lookups, 500, format)).toHaveLength(1)
      // The query only: the `_source` list names dedup.blocks (read back), the query must not ask it.
      const body = JSON.stringify(unionSearchBody(lookups.map((l) => l.query), 10_000, format).query)
      expect(body).not.toContain('dedup.blocks')
      expect(body).toContain(format === 1 ? '"dedup.block_sets"' : '"dedup.block_sets_v2"')
      for (const l of lookups) for (const set of blockSets(l.query.blocks, format)) expect(body).toContain(set)
      expect(JSON.stringify(candidateQuery(lookups[0]!.query, format))).toContain(format === 1 ? '"dedup.block_sets"' : '"dedup.block_sets_v2"')
    }
    expect(groupLookups(lookups, 500, null).length).toBeGreaterThan(1)
    expect(JSON.stringify(candidateQuery(lookups[0]!.query, null))).not.toContain('dedup.block_sets')
  })
})
