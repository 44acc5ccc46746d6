/**
 * Elasticsearch's order of sort values (the `sort` array on each hit), for merging hits of several
 * searches the way one search would have ordered them: the search hook's two streams and reindex's
 * sliced readers.
 */

/** One non-missing sort value of a hit. */
export type SortFieldValue = string | number | boolean

/**
 * Ascending comparison of two sort values of one key as Lucene orders them: numbers numerically,
 * booleans as 0/1, strings by their UTF-8 bytes (Lucene's term order, which differs from
 * JavaScript's UTF-16 `<` above U+FFFF). Mixed types cannot come from one sort clause; they are
 * ordered by their text, stably.
 * @example compareSortValue('\uFF5E', '😀') // < 0 by UTF-8 bytes, as Lucene orders them (JavaScript's `<` says the opposite)
 */
export function compareSortValue(a: SortFieldValue, b: SortFieldValue): number {
  const x = typeof a === 'boolean' ? Number(a) : a
  const y = typeof b === 'boolean' ? Number(b) : b
  if (typeof x === 'number' && typeof y === 'number') return x < y ? -1 : x > y ? 1 : 0
  return Buffer.compare(Buffer.from(String(x), 'utf8'), Buffer.from(String(y), 'utf8'))
}
