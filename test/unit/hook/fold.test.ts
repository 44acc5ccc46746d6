import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { Fingerprint } from '../../../src/types.js'
import { fingerprintFromHex, fingerprintToHex, flipBit } from '../../../src/fingerprint/hamming.js'
import { foldNearDuplicates, ShownFingerprints, MAX_FOLD_DISTANCE, toFingerprint } from '../../../src/elasticsearch/hook/fold.js'
import { arbFingerprint, slowHamming } from '../../helpers/fingerprints.js'

/** The oracle: the same greedy rule written as plainly as possible, with BigInt distances. */
function oracle(fps: readonly (Fingerprint | null)[], k: number): { into: number | null; distance: number | null }[] {
  const shown: number[] = []
  return fps.map((fp, i) => {
    if (fp === null) return { into: null, distance: null }
    for (const j of shown) {
      const d = slowHamming(fp, fps[j]!)
      if (d <= k) return { into: j, distance: d }
    }
    shown.push(i)
    return { into: null, distance: null }
  })
}

/** Hit lists with real near-duplicates in them: some entries are a few bits off an earlier one. */
const arbHits = fc
  .array(fc.tuple(arbFingerprint, fc.nat(20), fc.uniqueArray(fc.nat(63), { maxLength: 5 }), fc.boolean(), fc.boolean()), { maxLength: 60 })
  .map((rows) => {
    const out: (Fingerprint | null)[] = []
    for (const [fresh, pick, bits, copy, missing] of rows) {
      const base = out.length > 0 && copy ? out[pick % out.length] : null
      out.push(missing ? null : bits.reduce(flipBit, base ?? fresh))
    }
    return out
  })

describe('foldNearDuplicates', () => {
  test.prop([arbHits, fc.integer({ min: 0, max: 6 })])('equals the greedy oracle, from parsed or hex fingerprints', (fps, k) => {
    expect(foldNearDuplicates(fps, k)).toEqual(oracle(fps, k))
    expect(foldNearDuplicates(fps.map((fp) => (fp === null ? null : fingerprintToHex(fp))), k)).toEqual(oracle(fps, k))
  })

  test.prop([arbHits])('no two shown hits are within k; each folded hit is within k of the shown hit it names', (fps) => {
    const out = foldNearDuplicates(fps, 3)
    const shown = fps.filter((fp, i) => fp !== null && out[i]!.into === null) as Fingerprint[]
    for (let i = 0; i < shown.length; i++) for (let j = i + 1; j < shown.length; j++) expect(slowHamming(shown[i]!, shown[j]!)).toBeGreaterThan(3)
    out.forEach((o, i) => {
      if (o.into === null) return
      expect(o.into).toBeLessThan(i)
      expect(out[o.into]!.into).toBeNull()
      expect(slowHamming(fps[i]!, fps[o.into]!)).toBe(o.distance)
    })
  })

  test('is not transitive: a chain of small edits does not pull in a distant hit', () => {
    const a: Fingerprint = { hi: 0, lo: 0 }
    const b = [0, 1, 2].reduce(flipBit, a) // 3 from a
    const c = [3, 4, 5].reduce(flipBit, b) // 3 from b, 6 from a
    // b folds into a; c is compared with a (the shown hit), not with b.
    expect(foldNearDuplicates([a, b, c], 3)).toEqual([{ into: null, distance: null }, { into: 0, distance: 3 }, { into: null, distance: null }])
  })

  test.each([
    ['absent', null],
    ['not hex', 'zzzzzzzzzzzzzzzz'],
    ['too short', '00ff'],
  ])('a hit with a fingerprint that is %s is shown, never folded or thrown on', (_why, value) => {
    expect(foldNearDuplicates(['0000000000000000', value, '0000000000000000'], 3)).toEqual([
      { into: null, distance: null },
      { into: null, distance: null },
      { into: 0, distance: 0 },
    ])
  })

  test.each([-1, 1.5, MAX_FOLD_DISTANCE + 1, Number.NaN])('rejects maxDistance %s, naming the option', (k) => {
    expect(() => foldNearDuplicates([], k)).toThrow(/`maxDistance`.*0 to 16/)
  })
})

describe('toFingerprint', () => {
  /** The oracle: the strict parser of fingerprint/hamming.ts, null where it throws. */
  const strict = (text: string) => {
    try {
      return fingerprintFromHex(text)
    } catch {
      return null
    }
  }
  const hexish = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFgx- '), minLength: 14, maxLength: 17 })
  test.prop([fc.oneof(hexish, fc.string(), arbFingerprint.map(fingerprintToHex), arbFingerprint.map((fp) => fingerprintToHex(fp).toUpperCase()))])(
    'agrees with fingerprintFromHex on any string (null where it throws)',
    (text) => {
      expect(toFingerprint(text)).toEqual(strict(text))
    },
  )
})

describe('ShownFingerprints', () => {
  test.prop([fc.array(arbFingerprint, { minLength: 70, maxLength: 200 }), arbFingerprint])('keeps everything past its initial capacity, in order', (fps, probe) => {
    const shown = new ShownFingerprints(0)
    fps.forEach((fp, i) => shown.add(fp, i))
    expect(shown.size).toBe(fps.length)
    expect(shown.fingerprints()).toEqual(fps)
    const at = fps.findIndex((fp) => slowHamming(fp, probe) === 0)
    expect(shown.nearest(probe)?.tag ?? -1).toBe(at)
    expect(shown.nearest(fps.at(-1)!)).toMatchObject({ distance: 0 })
  })
})
