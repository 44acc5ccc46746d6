import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { minhashSketch, minhashSimilarity, resemblanceBound, sketchShingles, shingleCount, sparseSketchMargin, BAND_COUNT, SKETCH_BINS, MIN_MINHASH_SHINGLES } from '../../../src/fingerprint/minhash.js'
import { mulberry32 as sfc32 } from '../../helpers/random.js'

/** The oracle: exact Jaccard of the two texts' character 5-gram sets (white space out, ASCII lower-cased). */
function shingleJaccard(a: string, b: string): number {
  const sh = (t: string) => {
    const s = t.replace(/[\s\u3000]/gu, '').toLowerCase()
    return new Set(Array.from({ length: Math.max(1, s.length - 4) }, (_, i) => s.slice(i, i + 5)))
  }
  const x = sh(a)
  const y = sh(b)
  const both = [...x].filter((s) => y.has(s)).length
  return both / (x.size + y.size - both)
}

const HAN = '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持音越维装'

/** A text of `n` characters drawn from HAN with a seeded generator. */
function text(rand: () => number, n: number): string {
  let s = ''
  for (let i = 0; i < n; i++) s += HAN[Math.floor(rand() * HAN.length)]
  return s
}

describe('minhashSketch', () => {
  test('fewer than MIN_MINHASH_SHINGLES shingles: no sketch', () => {
    expect(minhashSketch('北京大学的学生')).toBeNull()
    const n = MIN_MINHASH_SHINGLES + 4 // characters for exactly MIN_MINHASH_SHINGLES 5-grams
    expect(minhashSketch(text(sfc32(1), n - 1))).toBeNull()
    expect(minhashSketch(text(sfc32(1), n))).not.toBeNull()
    expect(shingleCount(text(sfc32(1), n))).toBe(MIN_MINHASH_SHINGLES)
  })
  test('shape: m: + distinct-shingle count + one bit per bin in hex, one band term per band', () => {
    const s = minhashSketch(text(sfc32(2), 300))!
    expect(s.sketch).toMatch(new RegExp(`^m:[0-9a-f]{${8 + SKETCH_BINS / 4}}$`))
    expect(s.bands).toHaveLength(BAND_COUNT)
    s.bands.forEach((b, i) => expect(b).toMatch(new RegExp(`^m${i}_[0-9a-f]{8}$`)))
  })
  test('white space and ASCII case are not content; character order is', () => {
    const t = `${text(sfc32(3), 80)}Hello World${text(sfc32(4), 80)}`
    expect(minhashSketch(t)).toEqual(minhashSketch(t.replace(/(.{7})/gu, '$1 \n').toLowerCase().replace('hello', 'HeLLo')))
    expect(minhashSketch(t)!.sketch).not.toBe(minhashSketch([...t].reverse().join(''))!.sketch)
  })
  test('unrelated texts share no band and estimate near 0; a copy with 15 % cut keeps most bands', () => {
    const rand = sfc32(5)
    const base = text(rand, 1200)
    const a = minhashSketch(base)!
    const cut = minhashSketch(base.slice(0, 1020))!
    const other = minhashSketch(text(rand, 1200))!
    expect(minhashSimilarity(a.sketch, other.sketch)).toBeLessThan(0.15)
    expect(a.bands.filter((t) => other.bands.includes(t))).toEqual([])
    expect(a.bands.filter((t) => cut.bands.includes(t)).length).toBeGreaterThan(2)
  })
  test.prop([fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 200, max: 3000 }), fc.double({ min: 0, max: 0.8, noNaN: true }), fc.integer({ min: 0, max: 400 })], { numRuns: 60 })(
    'the estimate is within 5 standard errors of the exact 5-gram Jaccard (edits, cuts, added text)',
    (seed, n, editShare, added) => {
      const rand = sfc32(seed)
      const base = text(rand, n)
      let edited = ''
      for (const ch of base) edited += rand() < editShare / 5 ? text(rand, 1) : ch
      edited = edited.slice(0, Math.floor(n * (1 - editShare / 2))) + text(rand, added)
      const j = shingleJaccard(base, edited)
      const est = minhashSimilarity(minhashSketch(base)!.sketch, minhashSketch(edited)!.sketch)
      // Standard error of the 1-bit estimator: √((1 − J²) / bins) (from densified bins, a little more).
      expect(Math.abs(est - j)).toBeLessThan(5 * Math.sqrt((1 - j * j) / SKETCH_BINS) + 0.02)
    },
  )
  test('averaged over many pairs, the estimate is unbiased within 0.02', () => {
    const rand = sfc32(9)
    let sumEst = 0
    let sumTrue = 0
    for (let k = 0; k < 60; k++) {
      const base = text(rand, 400 + 20 * k)
      const edited = base.slice(0, 200 + 10 * k) + text(rand, 60)
      sumEst += minhashSimilarity(minhashSketch(base)!.sketch, minhashSketch(edited)!.sketch)
      sumTrue += shingleJaccard(base, edited)
    }
    expect(Math.abs(sumEst - sumTrue) / 60).toBeLessThan(0.02)
  })
  test('few shingles (bins left empty, then filled from their neighbours): texts agree only as far as they are the same', () => {
    const rand = sfc32(11)
    for (let n = 20; n < 40; n++) {
      const ta = text(rand, n)
      const a = minhashSketch(ta)!
      const b = minhashSketch(text(rand, n))!
      expect(a.sketch).toBe(minhashSketch(ta)!.sketch)
      // Unrelated: the borrowed minima must not make them look alike.
      expect(minhashSimilarity(a.sketch, b.sketch)).toBeLessThan(0.25)
      expect(a.bands.filter((t) => b.bands.includes(t))).toEqual([])
    }
  })
  test('similarity of non-MinHash sketches, or of sketches of other sizes, is NaN', () => {
    const c = '00000010' // the count
    expect(minhashSimilarity('t:00000001', `m:${c}00`)).toBeNaN()
    expect(minhashSimilarity(`m:${c}00ff`, `m:${c}00ff00`)).toBeNaN()
    expect(minhashSimilarity(`m:${c}00fg`, `m:${c}00ff`)).toBeNaN()
    expect(minhashSimilarity(`m:${c}`, `m:${c}`)).toBeNaN() // no bits
    expect(minhashSimilarity(`m:${c}0f`, `m:${c}0f`)).toBe(1)
    expect(minhashSimilarity(`m:${c}0f`, `m:${c}f0`)).toBe(0)
  })
  test.prop([fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 5, maxLength: 400 }), fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 5, maxLength: 400 })])(
    'the sketch counts distinct shingles exactly, and resemblanceBound is an upper bound of the exact Jaccard',
    (xs, ys) => {
      // Texts over a small alphabet: many repeated 5-grams.
      const ta = xs.map((i) => HAN[i]).join('')
      const tb = ys.map((i) => HAN[i]).join('')
      const distinctOf = (t: string) => new Set(Array.from({ length: t.length - 4 }, (_, i) => t.slice(i, i + 5))).size
      const a = minhashSketch(ta, 1)!
      const b = minhashSketch(tb, 1)!
      expect(sketchShingles(a.sketch)).toBe(distinctOf(ta))
      expect(resemblanceBound(a.sketch, b.sketch)).toBeGreaterThanOrEqual(shingleJaccard(ta, tb) - 1e-12)
    },
  )
  test.prop(
    [
      fc.array(fc.constantFrom(...'0123456789abcdefAFg:m 一'), { maxLength: 140 }),
      fc.array(fc.integer({ min: 0, max: 139 }), { maxLength: 4 }),
      fc.array(fc.integer({ min: 0, max: 15 }), { maxLength: 40 }),
      fc.boolean(),
    ],
    { numRuns: 2000 },
  )('minhashSimilarity, sketchShingles and resemblanceBound equal a plain reference on valid and damaged sketches', (noise, breaks, flips, sameLength) => {
    // A real sketch, one with some of its bits flipped (or cut short), and random text with the sketch's prefix.
    const a = minhashSketch(text(sfc32(noise.length + 1), 200))!.sketch
    let b = [...a]
    for (const f of flips) b[10 + ((f * 7919) % (a.length - 10))] = (parseInt(b[10 + ((f * 7919) % (a.length - 10))]!, 16) ^ (1 << (f % 4))).toString(16)
    for (const at of breaks) b[Math.min(at, b.length - 1)] = noise[at % Math.max(1, noise.length)] ?? 'x'
    if (!sameLength) b = b.slice(0, 10 + (flips.length % 5))
    const damaged = b.join('')
    const random = `m:${noise.join('')}`
    for (const [x, y] of [[a, damaged], [damaged, a], [a, random], [random, random], [damaged, damaged]] as const) {
      expect(minhashSimilarity(x, y)).toBe(referenceSimilarity(x, y))
      expect(sketchShingles(x)).toBe(referenceShingles(x))
      expect(resemblanceBound(x, y)).toBe(referenceBound(x, y))
    }
  })
})

/** Plain reference implementations (the code before the one-pass versions): parse every string whole, then compare. */
function referenceBits(s: string): number {
  if (!s.startsWith('m:') || s.length <= 10) return 0
  for (let i = 2; i < s.length; i++) if (!/[0-9a-f]/.test(s[i]!)) return 0
  return 4 * (s.length - 10)
}
function referenceShingles(s: string): number {
  return referenceBits(s) === 0 ? NaN : parseInt(s.slice(2, 10), 16)
}
function referenceBound(a: string, b: string): number {
  const x = referenceShingles(a)
  const y = referenceShingles(b)
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN
  return x === y ? 1 : Math.min(x, y) / Math.max(x, y)
}
function referenceSimilarity(a: string, b: string): number {
  const bits = referenceBits(a)
  if (bits === 0 || a.length !== b.length || referenceBits(b) !== bits) return NaN
  let agree = 0
  for (let i = 10; i < a.length; i++) {
    const x = parseInt(a[i]!, 16)
    const y = parseInt(b[i]!, 16)
    for (let k = 0; k < 4; k++) if (((x >> k) & 1) === ((y >> k) & 1)) agree++
  }
  return Math.max(0, (2 * agree) / bits - 1)
}

describe('sparseSketchMargin', () => {
  const sketch = (t: string): string => minhashSketch(t)!.sketch
  /** A copy of `base` with about `share` of its characters replaced. */
  const edit = (rand: () => number, base: string, share: number): string => {
    let out = ''
    for (const ch of base) out += rand() < share ? text(rand, 1) : ch
    return out
  }
  test.prop([fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 1100, max: 4000 }), fc.double({ min: 0, max: 0.15, noNaN: true })], { numRuns: 30 })(
    'nothing is added for texts whose shingles fill the sketch (a union of 1,024 shingles or more)',
    (seed, n, share) => {
      const rand = sfc32(seed)
      const base = text(rand, n)
      const a = sketch(base)
      const b = sketch(edit(rand, base, share))
      expect(sparseSketchMargin(a, b, minhashSimilarity(a, b), 0.6)).toBe(0)
    },
  )
  test.prop([fc.integer({ min: 1, max: 2 ** 31 }), fc.integer({ min: 30, max: 400 }), fc.integer({ min: 1, max: 400 })], { numRuns: 40 })(
    'more shingles never ask for a larger margin; it stays under 0.12 from 26 shingles on',
    (seed, n, more) => {
      const rand = sfc32(seed)
      const small = sketch(text(rand, n))
      const large = sketch(text(rand, n + more))
      const m = sparseSketchMargin(small, small, 0.6, 0.6)
      expect(sparseSketchMargin(large, large, 0.6, 0.6)).toBeLessThanOrEqual(m)
      expect(m).toBeGreaterThan(0)
      expect(m).toBeLessThan(0.12)
    },
  )
  test('on short texts it turns away most estimates that cross the threshold by noise, and keeps clear duplicates', () => {
    // Pairs of 60–160-character texts against the exact 5-gram Jaccard (the oracle): those under
    // the threshold that the bare estimate accepts are what the margin exists for.
    const rand = sfc32(15)
    let below = 0
    let bareAccepts = 0
    let marginAccepts = 0
    let clear = 0
    let clearKept = 0
    for (let k = 0; k < 3000; k++) {
      const base = text(rand, 60 + Math.floor(rand() * 100))
      const copy = edit(rand, base, 0.01 + rand() * 0.12)
      const j = shingleJaccard(base, copy)
      const a = sketch(base)
      const b = sketch(copy)
      const est = minhashSimilarity(a, b)
      const accepted = est >= 0.6 + sparseSketchMargin(a, b, est, 0.6)
      if (j < 0.6) {
        below++
        if (est >= 0.6) bareAccepts++
        if (accepted) marginAccepts++
      } else if (j >= 0.8) {
        clear++
        if (accepted) clearKept++
      }
    }
    expect(below).toBeGreaterThan(300)
    expect(bareAccepts).toBeGreaterThan(20)
    expect(marginAccepts).toBeLessThan(bareAccepts / 2)
    expect(clear).toBeGreaterThan(300)
    expect(clearKept / clear).toBeGreaterThan(0.99)
  })
})
