import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { CandidateQuery, FingerprintRecord } from '../../../src/types.js'
import { boundCandidates } from '../../../src/engine/_bounds.js'
import { compareOrder } from '../../../src/engine/match.js'
import { hamming } from '../../../src/fingerprint/hamming.js'
import { fingerprintBlocks } from '../../../src/fingerprint/blocks.js'

/** Records from small value sets: shared keys, blocks and band terms (some listed twice) are common. */
const recordArb = fc.record({
  id: fc.nat(20),
  seq: fc.option(fc.nat(30), { nil: undefined }),
  hash: fc.nat(3),
  url: fc.option(fc.nat(2), { nil: null }),
  flips: fc.uniqueArray(fc.nat(63), { maxLength: 5 }),
  bands: fc.option(fc.array(fc.nat(6), { maxLength: 8 }), { nil: undefined }),
  indexedAt: fc.nat(3),
})

function toRecord(x: typeof recordArb extends fc.Arbitrary<infer T> ? T : never): FingerprintRecord {
  let hi = 0x3fa20b11
  let lo = 0x9c00ffe1
  for (const b of x.flips) if (b < 32) hi = (hi ^ (1 << b)) >>> 0
  else lo = (lo ^ (1 << (b - 32))) >>> 0
  return {
    id: `d${x.id}`, fingerprint: { hi, lo }, blocks: fingerprintBlocks({ hi, lo }), contentHash: `c${x.hash}`, urlHash: x.url === null ? null : `u${x.url}`,
    titleHash: null, short: false, clusterId: `d${x.id}`, duplicateOf: null, distance: null, layer: null, version: 'v1', indexedAt: x.indexedAt,
    ...(x.seq === undefined ? {} : { seq: x.seq }),
    ...(x.bands === undefined ? {} : { bands: x.bands.map((b) => `m${b % 3}_${b}`) }),
  }
}

/** The rules written out plainly: one filter of all records per key and per band term. */
function reference(q: CandidateQuery, records: readonly FingerprintRecord[], perKey: number, perBand: number): Set<FingerprintRecord> {
  const keep = new Set<FingerprintRecord>()
  const eligible = records.filter((r) => r.id !== q.excludeId && (q.since === undefined || r.indexedAt >= q.since) && (q.maxSeq === undefined || (r.seq ?? Infinity) <= q.maxSeq))
  const newest = (list: FingerprintRecord[], n: number) => [...list].sort((a, b) => compareOrder(b, a)).slice(0, n).forEach((r) => keep.add(r))
  for (const key of ['contentHash', 'urlHash', 'titleHash'] as const) {
    if (q[key] != null) newest(eligible.filter((r) => r[key] === q[key]), perKey)
  }
  for (const r of eligible) {
    const shared = r.blocks.filter((b, i) => q.blocks.includes(b) && r.blocks.indexOf(b) === i).length
    if (shared >= q.minMatch && hamming(r.fingerprint, q.fingerprint) <= q.maxDistance) keep.add(r)
  }
  for (const term of new Set(q.bands ?? [])) newest(eligible.filter((r) => r.bands?.includes(term) === true), perBand)
  return keep
}

describe('boundCandidates', () => {
  test.prop([recordArb, fc.array(recordArb, { maxLength: 40 }), fc.nat(4), fc.integer({ min: 1, max: 4 }), fc.option(fc.nat(30), { nil: undefined }), fc.option(fc.nat(3), { nil: undefined })], { numRuns: 1000 })(
    'keeps what the plain per-key and per-term filters keep (newest perKey / perBand by first-insertion order, blocks within k)',
    (doc, others, perKey, perBand, maxSeq, since) => {
      const d = toRecord(doc)
      const q: CandidateQuery = {
        fingerprint: d.fingerprint, blocks: d.blocks, minMatch: 1, maxDistance: 3, contentHash: d.contentHash, urlHash: d.urlHash, titleHash: null,
        excludeId: d.id, ...(d.bands === undefined ? {} : { bands: d.bands }), ...(maxSeq === undefined ? {} : { maxSeq }), ...(since === undefined ? {} : { since }),
      }
      const records = others.map(toRecord)
      const bounds = { perKey: perKey + 1, perBand }
      expect([...boundCandidates(q, records, bounds)].sort(compareOrder)).toEqual([...reference(q, records, bounds.perKey, bounds.perBand)].sort(compareOrder))
    },
  )
})
