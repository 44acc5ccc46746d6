import { fc, test as fcTest } from '@fast-check/vitest'
import { describe, expect, test } from 'vitest'
import { jaccard, shingleSet, similarityGroups, similarPairs } from '../../../scripts/eval/oracle.js'

// Texts over a 4-letter alphabet overlap often, so the property below meets many similar pairs.
const text = fc.string({ unit: fc.constantFrom('甲', '乙', '丙', '丁'), minLength: 0, maxLength: 14 })

describe('oracle', () => {
  test('shingles ignore case and white space; short texts are one shingle; empty has none', () => {
    expect(shingleSet('Ab c\nD', 2)).toEqual(shingleSet('abcd', 2))
    expect(shingleSet('一二三四五六', 5)).toHaveLength(2) // "one two … six": 2 five-grams
    expect(shingleSet('一二', 5)).toHaveLength(1)
    expect(shingleSet(' \n', 5)).toHaveLength(0)
  })

  test('jaccard of sorted sets', () => {
    expect(jaccard(new Float64Array([1, 2, 3]), new Float64Array([2, 3, 4]))).toBe(0.5)
    expect(jaccard(new Float64Array([]), new Float64Array([]))).toBe(1)
    expect(jaccard(new Float64Array([1]), new Float64Array([]))).toBe(0)
  })

  fcTest.prop([fc.array(text, { maxLength: 25 }), fc.constantFrom(0.3, 0.5, 0.8, 1)], { numRuns: 500 })(
    'similarPairs finds exactly the pairs a brute-force scan finds',
    (texts, threshold) => {
      const sets = texts.map((t) => shingleSet(t, 2))
      const brute: string[] = []
      for (let a = 0; a < sets.length; a++) {
        for (let b = a + 1; b < sets.length; b++) {
          const sa = sets[a] as Float64Array
          const sb = sets[b] as Float64Array
          if (sa.length > 0 && sb.length > 0 && jaccard(sa, sb) >= threshold) brute.push(`${a}-${b}`)
        }
      }
      expect(similarPairs(sets, threshold).map((p) => `${p.a}-${p.b}`)).toEqual(brute)
    },
  )

  test('regression: a token ranked 0 must not make the hash table look empty there', () => {
    // Found by the property above: the rank-0 slot was read as free, so 甲 got 丁甲's rank.
    expect(similarPairs(['甲', '丁丁', '丁丁甲'].map((t) => shingleSet(t, 2)), 0.3).map((p) => [p.a, p.b])).toEqual([[1, 2]])
  })

  test('groups are connected components labelled by their first member', () => {
    // "jia yi bing ding wu ji" and the same plus "geng" are similar; the third is unrelated.
    expect(similarityGroups(['甲乙丙丁戊己', '完全不同的文字内容', '甲乙丙丁戊己庚'], 5, 0.5)).toEqual([0, 1, 0])
    expect(() => similarPairs([], 0)).toThrow(/threshold/)
  })
})
