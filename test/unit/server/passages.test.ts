import { describe, expect } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { sharedPassages } from '../../../src/server/passages.js'
import { redact, toErrorResponse, HttpError } from '../../../src/server/errors.js'
import { DedupError } from '../../../src/errors.js'

/** Brute force: the offsets of `a` inside some n-character window that `b` also contains (not all whitespace). */
function coveredOffsets(a: string, b: string, n: number): Set<number> {
  const out = new Set<number>()
  for (let s = 0; s + n <= a.length; s++) {
    const w = a.slice(s, s + n)
    if (w.trim() !== '' && b.includes(w)) for (let i = s; i < s + n; i++) out.add(i)
  }
  return out
}
const offsetsOf = (spans: [number, number][]) => new Set(spans.flatMap(([s, e]) => Array.from({ length: e - s }, (_, i) => s + i)))

describe('sharedPassages', () => {
  // A small alphabet (with a space) so that shared runs are common.
  const text = fc.array(fc.constantFrom('北', '京', '大', '学', ' ', 'a'), { maxLength: 60 }).map((cs) => cs.join(''))
  test.prop([text, text, fc.integer({ min: 1, max: 6 })])('marks exactly the characters inside a shared n-character run (brute-force oracle)', (a, b, n) => {
    const got = sharedPassages(a, b, n)
    expect(offsetsOf(got.a)).toEqual(coveredOffsets(a, b, n))
    expect(offsetsOf(got.b)).toEqual(coveredOffsets(b, a, n))
    // Sorted, disjoint, not touching: one <mark> per passage.
    for (const spans of [got.a, got.b]) for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThan(spans[i - 1]![1])
  })

  test('a sentence two texts share (Beijing weather is fine, we go to the park / to climb)', () => {
    expect(sharedPassages('今天北京天气很好我们去公园', '明天北京天气很好我们去爬山', 4)).toEqual({ a: [[1, 11]], b: [[1, 11]] })
  })
})

describe('errors', () => {
  test.each([
    ['http://elastic:secret@es.example:9200/_bulk failed', 'http://***@es.example:9200/_bulk failed'],
    ['https://user:p%40ss@a, https://b', 'https://***@a, https://b'],
    ['header Authorization: Basic ZWxhc3RpYzpzZWNyZXQ=', 'header Authorization: Basic ***'],
    ['ApiKey abc123== was refused', 'ApiKey *** was refused'],
  ])('redact(%j) hides the credential', (text, shown) => {
    expect(redact(text)).toBe(shown)
  })

  test('a DedupError answers its code with the status that fits it; a bug says no more than INTERNAL', () => {
    expect(toErrorResponse(new DedupError('NOT_FOUND', 'no such id'))).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'no such id' } })
    expect(toErrorResponse(new DedupError('STORE_UNAVAILABLE', 'cannot reach http://u:pw@h:9200'))).toEqual({ status: 503, body: { code: 'STORE_UNAVAILABLE', message: 'cannot reach http://***@h:9200' }, retryAfter: 5 })
    expect(toErrorResponse(new HttpError(429, 'BUSY', 'full', { retryAfter: 1 }))).toEqual({ status: 429, body: { code: 'BUSY', message: 'full' }, retryAfter: 1 })
    expect(toErrorResponse(new TypeError('x is undefined at http://u:pw@h'))).toEqual({ status: 500, body: { code: 'INTERNAL', message: 'internal error (see the server log)' } })
  })
})
