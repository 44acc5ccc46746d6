import { describe, expect, test } from 'vitest'
import { isShortText, sketchJaccard, termSetSketch } from '../../../src/fingerprint/short-text.js'

const terms = (words: string[], weight = 1) => words.map((term) => ({ term, weight }))

describe('isShortText', () => {
  test('few terms ⇒ short', () => {
    expect(isShortText(terms(['版本', '发布']))).toBe(true) // "version", "release"
    expect(isShortText(terms(Array.from({ length: 30 }, (_, i) => `t${i}`)))).toBe(false)
  })
  test('one dominant term ⇒ short, even with many terms', () => {
    const many = terms(Array.from({ length: 30 }, (_, i) => `t${i}`))
    expect(isShortText([{ term: 'big', weight: 100 }, ...many])).toBe(true)
  })
  test('thresholds are options', () => {
    expect(isShortText(terms(['a', 'b', 'c']), { minTerms: 2, maxTopShare: 0.9 })).toBe(false)
  })
})

describe('term-set sketch', () => {
  test('equal sets ⇒ 1; disjoint or empty ⇒ 0; order and repeats do not matter', () => {
    const a = termSetSketch(terms(['版本', '1', '2', '发布'])) // "version 1.2 released"
    expect(sketchJaccard(a, termSetSketch(terms(['发布', '2', '1', '版本', '版本'])))).toBe(1)
    expect(sketchJaccard(a, termSetSketch(terms(['完全', '不同'])))).toBe(0) // "completely", "different"
    // Two texts without terms share nothing (issue 24: "但是:" and "。" were duplicates).
    expect(sketchJaccard('', '')).toBe(0)
    expect(sketchJaccard('t:', 't:')).toBe(0)
  })
  test('a changed number in a short text drops overlap below the default 0.8', () => {
    const a = termSetSketch(terms(['版本', '1', '2', '发布'])) // version 1.2 released
    const b = termSetSketch(terms(['版本', '1', '3', '发布'])) // version 1.3 released
    expect(sketchJaccard(a, b)).toBeCloseTo(3 / 5)
  })
})
