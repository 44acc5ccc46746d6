import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { FingerprintRecord } from '../../../src/types.js'
import { BatchIndex } from '../../../src/engine/_batch-index.js'
import { bestMatch, matchCandidate } from '../../../src/engine/match.js'
import { resolveDeduplicatorOptions } from '../../../src/engine/options.js'
import { fingerprintBlocks } from '../../../src/fingerprint/blocks.js'
import type { FingerprintStore } from '../../../src/store/store.js'

// Only the matching options matter here; no store is called.
const store = {} as FingerprintStore
const analyzer = { version: 'v1', shortText: { minTerms: 12, maxTopShare: 0.35, minJaccard: 0.8, maxDistance: 3 }, analyze: () => ({}) }

const hex2 = fc.integer({ min: 0, max: 255 }).map((v) => v.toString(16).padStart(2, '0'))
/** Small value sets, so equal hashes, near fingerprints and alike sketches all happen often. */
const docArb = fc.record({
  base: fc.nat(3),
  // Two bits in each 16-bit block: pairs at distance ≤ 3 that share one block only are common.
  flips: fc.uniqueArray(fc.constantFrom(20, 27, 3, 9, 52, 60, 35, 40), { maxLength: 4 }),
  hash: fc.nat(9),
  url: fc.option(fc.nat(4), { nil: null }),
  title: fc.option(fc.nat(4), { nil: null }),
  short: fc.boolean(),
  sketchBase: fc.nat(2),
  sketchEdits: fc.array(fc.tuple(fc.nat(15), hex2), { maxLength: 10 }),
  version: fc.constantFrom('v1', 'v1', 'v1', 'v0'),
  id: fc.nat(25),
})
const BASES = [{ hi: 0x3fa20b11, lo: 0x9c00ffe1 }, { hi: 0, lo: 0 }, { hi: 0xffffffff, lo: 0x12345678 }, { hi: 0x0f0f0f0f, lo: 0xf0f0f0f0 }]
const SKETCHES = ['m:' + '00112233445566778899aabbccddeeff', 'm:' + 'ffeeddccbbaa99887766554433221100', 't:0000000100000002']

function toRecord(x: typeof docArb extends fc.Arbitrary<infer T> ? T : never): FingerprintRecord {
  let fp = { ...BASES[x.base]! }
  for (const b of x.flips) fp = b < 32 ? { hi: (fp.hi ^ (1 << b)) >>> 0, lo: fp.lo } : { hi: fp.hi, lo: (fp.lo ^ (1 << (b - 32))) >>> 0 }
  let sketch = SKETCHES[x.sketchBase]!
  if (sketch.startsWith('m:')) for (const [j, v] of x.sketchEdits) sketch = sketch.slice(0, 2 + 2 * j) + v + sketch.slice(4 + 2 * j)
  return {
    id: `d${x.id}`,
    fingerprint: fp,
    blocks: fingerprintBlocks(fp),
    contentHash: `c${x.hash}`,
    urlHash: x.url === null ? null : `u${x.url}`,
    titleHash: x.title === null ? null : `t${x.title}`,
    short: x.short,
    clusterId: `d${x.id}`,
    duplicateOf: null,
    distance: null,
    layer: null,
    version: x.version,
    indexedAt: 1,
    sketch,
    // Band terms of the sketch: 8 groups of 4 hex digits (equal groups ⇒ shared band).
    ...(sketch.startsWith('m:') ? { bands: Array.from({ length: 8 }, (_, b) => `m${b}_${sketch.slice(2 + 4 * b, 6 + 4 * b)}`) } : {}),
  }
}

/** Whether two records share a MinHash band term. */
const shareBand = (a: FingerprintRecord, b: FingerprintRecord) => (a.bands ?? []).some((t) => (b.bands ?? []).includes(t))
/** Whether two records share a block. */
const shareBlock = (a: FingerprintRecord, b: FingerprintRecord) => a.blocks.some((k) => b.blocks.includes(k))
/**
 * Whether a lookup by `a`'s keys finds `b` (the store's candidate routes): a band term, or a block,
 * URL, content or title key of an enabled layer. Every candidate is verified by every rule, so a
 * MinHash-rule match is reachable through any of them.
 */
const reachableBy = (a: FingerprintRecord, b: FingerprintRecord, layers: { url: boolean; exact: boolean; simhash: boolean; title: boolean }) =>
  shareBand(a, b) || (layers.simhash && shareBlock(a, b)) || (layers.url && a.urlHash !== null && a.urlHash === b.urlHash) ||
  (layers.exact && a.contentHash === b.contentHash) || (layers.title && a.titleHash !== null && a.titleHash === b.titleHash)

describe('BatchIndex', () => {
  const layerSets = [{}, { title: true }, { url: false, exact: false }, { simhash: false, title: true }]
  test.prop([fc.array(docArb, { minLength: 1, maxLength: 40 }), fc.constantFrom(...layerSets), fc.boolean(), fc.constantFrom(0.3, 0.5, 0.9)], { numRuns: 300 })(
    'the best match among its candidates is the best match among all earlier records (MinHash-route matches: those sharing a band term)',
    (docs, layers, minhash, minResemblance) => {
      const o = resolveDeduplicatorOptions({ store, analyzer: analyzer as never, layers, minhash, minResemblance })
      const index = new BatchIndex(o)
      const current = new Map<string, FingerprintRecord>()
      for (const x of docs) {
        const d = toRecord(x)
        // The oracle: a scan of every earlier record (latest copy of each id), as decide() did, where
        // a match by the MinHash rule counts only when a lookup finds it: a shared band term, or a
        // key of an enabled layer (every candidate is verified by every rule, in the store too).
        const reachable = [...current.values()].filter((r) => {
          const m = matchCandidate(d, r, o)
          return m === null || !(m.layer === 'simhash' && m.rule === 'minhash') || reachableBy(d, r, o.layers)
        })
        expect(bestMatch(d, index.candidates(d), o)).toEqual(bestMatch(d, reachable, o))
        index.add(d)
        current.set(d.id, d)
      }
    },
  )
})
