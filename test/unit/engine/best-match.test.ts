import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { FingerprintRecord } from '../../../src/types.js'
import { bestMatch, compareMatches, isEarlier, matchCandidate, type Match, type MatchSubject } from '../../../src/engine/match.js'
import { resolveDeduplicatorOptions } from '../../../src/engine/options.js'
import { matchRecord } from '../../helpers/match-records.js'
import type { FingerprintStore } from '../../../src/store/store.js'

// Only the matching options matter here; no store is called.
const store = {} as FingerprintStore
const analyzer = { version: 'v1', shortText: { minTerms: 12, maxTopShare: 0.35, minJaccard: 0.8, maxDistance: 3 }, analyze: () => ({}) }

/** A record (or the document) from small value sets, so every rule and layer accepts some pairs. */
const recordArb = fc.record({
  flips: fc.uniqueArray(fc.nat(63), { maxLength: 6 }),
  hash: fc.nat(3),
  url: fc.option(fc.nat(1), { nil: null }),
  title: fc.option(fc.nat(2), { nil: null }),
  short: fc.boolean(),
  // 64 sketch bits: the document's with some flipped (≤ 12 of 64 keep the estimate ≥ 0.6), or another count.
  sketchFlips: fc.uniqueArray(fc.nat(63), { maxLength: 30 }),
  count: fc.constantFrom(100, 100, 100, 30),
  noSketch: fc.boolean(),
  seq: fc.nat(40),
  id: fc.nat(30),
})

const BASE = { hi: 0x3fa20b11, lo: 0x9c00ffe1 }
const BITS = [0x12345678, 0x9abcdef0]

function toRecord(x: typeof recordArb extends fc.Arbitrary<infer T> ? T : never): FingerprintRecord {
  let { hi, lo } = BASE
  for (const b of x.flips) if (b < 32) hi = (hi ^ (1 << b)) >>> 0
  else lo = (lo ^ (1 << (b - 32))) >>> 0
  const bits = [...BITS]
  for (const b of x.sketchFlips) bits[b >> 5] = (bits[b >> 5]! ^ (1 << (b & 31))) >>> 0
  const hex = (v: number) => v.toString(16).padStart(8, '0')
  return {
    ...matchRecord({ ...x, fingerprint: { hi, lo }, version: 'v1' }),
    seq: x.seq,
    ...(x.noSketch ? {} : { sketch: `m:${hex(x.count)}${hex(bits[0]!)}${hex(bits[1]!)}` }),
  }
}

/** The plain scan: every eligible candidate through every rule, the least by `compareMatches`. */
function reference(d: MatchSubject, candidates: readonly FingerprintRecord[], o: Parameters<typeof bestMatch>[2]): Match | null {
  let best: Match | null = null
  for (const c of candidates) {
    if (c.clusterId === d.id || c.id === d.id || (d.seq !== undefined && !isEarlier(c, d))) continue
    const m = matchCandidate(d, c, o)
    if (m !== null && (best === null || compareMatches(m, best) < 0)) best = m
  }
  return best
}

describe('bestMatch', () => {
  const layerSets = [{}, { title: true }, { url: false }, { exact: false, title: true }]
  test.prop([recordArb, fc.array(recordArb, { maxLength: 30 }), fc.constantFrom(...layerSets), fc.boolean(), fc.boolean()], { numRuns: 3000 })(
    'equals the plain scan with every rule (the first pass without the MinHash rule decides only when a better rule matched)',
    (doc, candidates, layers, minhash, ordered) => {
      const o = resolveDeduplicatorOptions({ store, analyzer: analyzer as never, layers, minhash })
      const d = toRecord({ ...doc, id: 99, sketchFlips: [] })
      const subject: MatchSubject = ordered ? d : { ...d, seq: undefined }
      const records = candidates.map(toRecord)
      expect(bestMatch(subject, records, o)).toEqual(reference(subject, records, o))
    },
  )
})
