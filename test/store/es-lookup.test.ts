import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { CandidateQuery, FingerprintRecord } from '../../src/types.js'
import { boundBandTerms } from '../../src/elasticsearch/_lookup.js'
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
