import { describe, expect, test } from 'vitest'
import { test as fcTest } from '@fast-check/vitest'
import fc from 'fast-check'
import { parseIdf, weightTerms } from '../../../src/fingerprint/tfidf.js'
import { simhash } from '../../../src/fingerprint/simhash.js'
import { hamming } from '../../../src/fingerprint/hamming.js'
import { hashToken, HASH_OUT } from '../../../src/fingerprint/hash.js'
import { defaultIdf, defaultStopWords } from '../../../src/fingerprint/_data.js'

const idf = parseIdf('北京 8\n大学 6\n的 0.9\nbad line\n学生 4\n')

describe('parseIdf', () => {
  test('reads "word idf" lines, skips malformed ones, mean of the values', () => {
    expect(idf.size).toBe(4)
    expect(idf.get('北京')).toBe(8)
    expect(idf.get('bad')).toBeUndefined()
    expect(idf.mean).toBeCloseTo((8 + 6 + 0.9 + 4) / 4)
  })
  test('the shipped table is jieba\'s (270 k words, common words low)', () => {
    const t = defaultIdf()
    expect(t.size).toBeGreaterThan(250_000)
    expect(t.get('的')!).toBeLessThan(1) // "of": the most common word
    expect(t.get('生化学')!).toBeGreaterThan(13) // "biochemistry": rare
    expect(t.mean).toBeGreaterThan(10)
  })
})

describe('weightTerms', () => {
  const stop = new Set(['的'])
  test('drops stop words, punctuation and whitespace; sublinear tf × idf', () => {
    const terms = weightTerms(['北京', '的', '，', ' ', '北京', '大学', '。'], idf, stop)
    expect(terms.map((t) => t.term)).toEqual(['北京', '大学'])
    expect(terms[0]!.weight).toBeCloseTo((1 + Math.log(2)) * 8)
    expect(terms[1]!.weight).toBeCloseTo(6)
  })
  test('unknown words (Latin, new words) get the mean idf', () => {
    const [t] = weightTerms(['elasticsearch'], idf, stop)
    expect(t!.weight).toBeCloseTo(idf.mean)
  })
  test('single characters and pure numbers are down-weighted, not dropped', () => {
    const terms = weightTerms(['2024', '年', 'x', '学生'], idf, stop, { singleCharFactor: 0.5, numberFactor: 0.25 })
    expect(terms.map((t) => t.term)).toEqual(['2024', '年', 'x', '学生'])
    expect(terms[0]!.weight).toBeCloseTo(idf.mean * 0.25)
    expect(terms[1]!.weight).toBeCloseTo(idf.mean * 0.5)
    expect(terms[3]!.weight).toBeCloseTo(4)
  })
  test('the shipped stop words cover Chinese and English function words', () => {
    const { words } = defaultStopWords()
    for (const w of ['的', '了', '是', 'the', 'and']) expect(words.has(w)).toBe(true)
    expect(words.has('北京')).toBe(false)
  })
})

describe('simhash', () => {
  test('one term: the fingerprint is that term\'s hash', () => {
    hashToken('北京')
    expect(simhash([{ term: '北京', weight: 1 }])).toEqual({ hi: HASH_OUT[0], lo: HASH_OUT[1] })
  })
  test('no terms: all zero', () => {
    expect(simhash([])).toEqual({ hi: 0, lo: 0 })
  })
  test('a heavier term wins every bit it disagrees on', () => {
    const heavy = simhash([{ term: 'a', weight: 10 }])
    expect(simhash([{ term: 'a', weight: 10 }, { term: 'b', weight: 1 }])).toEqual(heavy)
  })
  test('order of terms does not matter; small weight changes move few bits', () => {
    const terms = Array.from({ length: 200 }, (_, i) => ({ term: `词${i}`, weight: 1 + (i % 7) }))
    const a = simhash(terms)
    expect(simhash([...terms].reverse())).toEqual(a)
    const b = simhash(terms.map((t, i) => (i === 5 ? { ...t, weight: t.weight * 1.1 } : t)))
    expect(hamming(a, b)).toBeLessThanOrEqual(3)
  })
  // The textbook definition, bit by bit: the oracle for the nibble-sum implementation.
  fcTest.prop([fc.array(fc.record({ term: fc.string({ maxLength: 4 }), weight: fc.double({ min: 0, max: 20, noNaN: true }) }), { maxLength: 60 })])(
    'equals the per-bit weighted vote wherever no vote is within rounding of zero',
    (terms) => {
      const votes = new Array<number>(64).fill(0)
      for (const { term, weight } of terms) {
        hashToken(term)
        for (let b = 0; b < 64; b++) votes[b]! += ((b < 32 ? HASH_OUT[1]! >>> b : HASH_OUT[0]! >>> (b - 32)) & 1) ? weight : -weight
      }
      const total = terms.reduce((s, t) => s + t.weight, 0)
      const got = simhash(terms)
      for (let b = 0; b < 64; b++) {
        if (Math.abs(votes[b]!) <= 1e-9 * (1 + total)) continue // a tie: either answer is a rounding artefact
        const bit = ((b < 32 ? got.lo >>> b : got.hi >>> (b - 32)) & 1) === 1
        expect(bit).toBe(votes[b]! > 0)
      }
    },
  )
})
