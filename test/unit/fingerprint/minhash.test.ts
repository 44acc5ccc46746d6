import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { minhashGroupKeys, minhashSketch, minhashSimilarity, MINHASH_SIZE, BAND_COUNT } from '../../../src/fingerprint/minhash.js'

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`)

/** Exact Jaccard of two token sequences' 3-shingle sets: the oracle the sketch estimates. */
function shingleJaccard(a: string[], b: string[]): number {
  const sh = (t: string[]) => new Set(t.slice(0, -2).map((_, i) => `${t[i]}\u0001${t[i + 1]}\u0001${t[i + 2]}`))
  const x = sh(a)
  const y = sh(b)
  const both = [...x].filter((s) => y.has(s)).length
  return both / (x.size + y.size - both)
}

describe('minhashSketch', () => {
  test('fewer than three tokens: no sketch', () => {
    expect(minhashSketch(['北京', '大学'])).toBeNull() // "Beijing", "university"
  })
  test('shape: m: + 2 hex per minimum, one band term per band', () => {
    const s = minhashSketch(words(50))!
    expect(s.sketch).toMatch(new RegExp(`^m:[0-9a-f]{${2 * MINHASH_SIZE}}$`))
    expect(s.bands).toHaveLength(BAND_COUNT)
    s.bands.forEach((b, i) => expect(b).toMatch(new RegExp(`^m${i}_[0-9a-f]{8}$`)))
  })
  test('identical sequences: identical sketches; word order matters (shingles)', () => {
    expect(minhashSketch(words(40))).toEqual(minhashSketch(words(40)))
    expect(minhashSketch(words(40))!.sketch).not.toBe(minhashSketch(words(40).reverse())!.sketch)
  })
  test('estimates shingle Jaccard: truncation keeps most bands, unrelated text shares none', () => {
    const base = words(400)
    const cut = base.slice(0, 340) // 15 % cut off the end
    const other = words(400, 'x')
    const a = minhashSketch(base)!
    const b = minhashSketch(cut)!
    const c = minhashSketch(other)!
    const j = shingleJaccard(base, cut)
    expect(Math.abs(minhashSimilarity(a.sketch, b.sketch) - j)).toBeLessThan(0.35) // 16 minima: coarse
    expect(minhashSimilarity(a.sketch, c.sketch)).toBeLessThan(0.2)
    expect(a.bands.filter((t) => c.bands.includes(t))).toEqual([])
  })
  test('averaged over many pairs, the estimate is unbiased within 0.05', () => {
    let sumEst = 0
    let sumTrue = 0
    for (let k = 0; k < 40; k++) {
      const base = words(300, `d${k}_`)
      const edited = base.slice(0, 200 + k).concat(words(30, `ad${k}_`))
      sumEst += minhashSimilarity(minhashSketch(base)!.sketch, minhashSketch(edited)!.sketch)
      sumTrue += shingleJaccard(base, edited)
    }
    expect(Math.abs(sumEst - sumTrue) / 40).toBeLessThan(0.05)
  })
  test('few shingles (bins left empty, then filled from their neighbours): texts agree only as far as they are the same', () => {
    for (let n = 3; n < 12; n++) {
      const a = minhashSketch(words(n, `a${n}_`))!
      const b = minhashSketch(words(n, `b${n}_`))!
      expect(a.sketch).toBe(minhashSketch(words(n, `a${n}_`))!.sketch)
      // Unrelated: the borrowed minima must not make them look alike.
      expect(minhashSimilarity(a.sketch, b.sketch)).toBeLessThan(0.2)
      expect(a.bands.filter((t) => b.bands.includes(t))).toEqual([])
      // One shingle fills every bin: the borrowed ones are not copies of one value.
      expect(new Set(a.sketch.slice(2).match(/../g)).size).toBeGreaterThan(n === 3 ? 8 : 4)
    }
  })
  test('similarity of non-MinHash sketches is NaN', () => {
    expect(minhashSimilarity('t:00000001', 'm:00')).toBeNaN()
  })
})

describe('minhashGroupKeys', () => {
  const hex2 = fc.integer({ min: 0, max: 255 }).map((v) => v.toString(16).padStart(2, '0'))
  const sketchArb = fc.array(hex2, { minLength: MINHASH_SIZE, maxLength: MINHASH_SIZE }).map((xs) => `m:${xs.join('')}`)

  test.prop([sketchArb, fc.uniqueArray(fc.nat(MINHASH_SIZE - 1), { maxLength: MINHASH_SIZE }), hex2, fc.double({ min: 0.01, max: 1, noNaN: true })])(
    'two sketches at least `min` alike always share a key (the pre-filter never hides a match)',
    (a, changed, value, min) => {
      // b: a with some minima replaced (possibly by the same value).
      const b = changed.reduce((s, j) => s.slice(0, 2 + 2 * j) + value + s.slice(4 + 2 * j), a)
      const ka = minhashGroupKeys(a, min)!
      const kb = new Set(minhashGroupKeys(b, min)!)
      if (minhashSimilarity(a, b) >= min) expect(ka.some((k) => kb.has(k))).toBe(true)
    },
  )

  test('group count: k − e + 1 for e minima needed; none when even equal sketches fall short; null when keys cannot tell', () => {
    const s = minhashSketch(words(50))!.sketch
    // 0.5 needs 9 equal minima of 16: 8 groups of 2.
    expect(minhashGroupKeys(s, 0.5)).toHaveLength(8)
    expect(minhashGroupKeys(s, 1)).toEqual([`16/0/${s.slice(2)}`])
    expect(minhashGroupKeys(s, 1.5)).toEqual([])
    expect(minhashGroupKeys('m:abc', 0.5)).toBeNull() // half a minimum
    expect(minhashGroupKeys('t:00000001', 0.5)).toBeNull()
    expect(minhashGroupKeys(s, 0)).toBeNull() // every pair reaches 0
  })
})
