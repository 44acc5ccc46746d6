import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { compareSortValues, parseSort, defaultSort } from '../../../src/elasticsearch/hook/_sort.js'

describe('parseSort', () => {
  test.each([
    ['_score', [{ field: '_score', desc: true, missingFirst: false }]],
    ['date', [{ field: 'date', desc: false, missingFirst: false }]],
    [[{ date: 'desc' }, { title: { order: 'asc', missing: '_first' } }], [{ field: 'date', desc: true, missingFirst: false }, { field: 'title', desc: false, missingFirst: true }]],
    [{ _score: {} }, [{ field: '_score', desc: true, missingFirst: false }]],
  ])('reads %j', (sort, keys) => {
    expect(parseSort(sort as never)).toEqual(keys)
  })

  test('the default sort is relevance, then oldest copy first', () => {
    expect(parseSort(defaultSort('dedup.indexed_at'))).toEqual([
      { field: '_score', desc: true, missingFirst: false },
      { field: 'dedup.indexed_at', desc: false, missingFirst: false },
    ])
  })

  test.each([
    [[], /at least one field/],
    [[{ a: 'asc', b: 'desc' }], /one field/],
    [[{ a: 'up' }], /`a`.*'asc' or 'desc'.*"up"/],
    [[42], /field name or an object/],
  ])('rejects %j', (sort, message) => {
    expect(() => parseSort(sort as never)).toThrow(message)
  })
})

describe('compareSortValues', () => {
  const keys = parseSort(['_score', { date: 'asc' }, { title: { order: 'desc', missing: '_first' } }])

  test('orders by each key in turn, in its direction', () => {
    expect(compareSortValues(keys, [2, 5, 'a'], [1, 1, 'z'])).toBeLessThan(0) // higher score first
    expect(compareSortValues(keys, [1, 1, 'a'], [1, 5, 'a'])).toBeLessThan(0) // then older date
    expect(compareSortValues(keys, [1, 1, 'z'], [1, 1, 'a'])).toBeLessThan(0) // then title descending
    expect(compareSortValues(keys, [1, 1, 'a'], [1, 1, 'a'])).toBe(0)
  })

  test('null (a missing keyword) goes where `missing` says, whatever the direction', () => {
    expect(compareSortValues(keys, [1, 1, null], [1, 1, 'a'])).toBeLessThan(0) // title: _first
    const last = parseSort([{ title: 'desc' }])
    expect(compareSortValues(last, [null], ['a'])).toBeGreaterThan(0)
    expect(compareSortValues(last, [null], [null])).toBe(0)
  })

  test('keywords compare by UTF-8 bytes like Lucene, not by UTF-16 units', () => {
    const byTitle = parseSort([{ title: 'asc' }])
    // U+FF21 (fullwidth A) is one UTF-16 unit above the surrogates of U+1F600, but below it in UTF-8.
    expect('\uFF21' > '\u{1F600}').toBe(true)
    expect(compareSortValues(byTitle, ['\uFF21'], ['\u{1F600}'])).toBeLessThan(0)
  })

  const row = fc.tuple(fc.double({ noNaN: true }), fc.option(fc.string(), { nil: null }))
  test.prop([row, row, row])('is a total order: antisymmetric and transitive (infinite scores too)', (a, b, c) => {
    const k = parseSort(['_score', { title: 'asc' }])
    const cmp = (x: typeof a, y: typeof a) => Math.sign(compareSortValues(k, x, y))
    expect(cmp(a, b)).toBe(-cmp(b, a) || 0)
    if (cmp(a, b) <= 0 && cmp(b, c) <= 0) expect(cmp(a, c)).toBeLessThanOrEqual(0)
  })
})
