/**
 * Sort handling for the two-stream merge: the hook runs the collapsed search (documents with a
 * cluster id) and a plain search (documents without one) and interleaves their hits by the
 * request's sort, so it must read the sort spec and compare the `sort` values Elasticsearch
 * returns on each hit the way Elasticsearch itself orders them.
 */
import type { estypes } from '@elastic/elasticsearch'
import { DedupError, describeValue } from '../../errors.js'
import { compareSortValue, type SortFieldValue } from '../sort-order.js'

/** One key of a sort: its name, direction, and where hits without a value go. */
export interface SortKey {
  readonly field: string
  readonly desc: boolean
  /** `missing: '_first'`; Elasticsearch's default is `_last` in both directions. */
  readonly missingFirst: boolean
}

/**
 * Relevance first, then the oldest copy: among equally scored copies of an article the one
 * indexed first (the original) heads its cluster.
 */
export function defaultSort(indexedAtField: string): estypes.SortCombinations[] {
  return [{ _score: { order: 'desc' } }, { [indexedAtField]: { order: 'asc', missing: '_last', unmapped_type: 'date' } }]
}

function orderOf(field: string, order: unknown): boolean {
  if (order === undefined) return field === '_score'
  if (order === 'desc') return true
  if (order === 'asc') return false
  throw new DedupError('INVALID_OPTION', `Expected the sort order of \`${field}\` to be 'asc' or 'desc', got ${describeValue(order)}.`)
}

/**
 * Reads a search `sort` (string, object, or array of them) into keys.
 * @example parseSort(['_score', { date: 'asc' }]) // [{ field: '_score', desc: true, … }, { field: 'date', desc: false, … }]
 */
export function parseSort(sort: estypes.Sort): SortKey[] {
  const list = Array.isArray(sort) ? sort : [sort]
  if (list.length === 0) throw new DedupError('INVALID_OPTION', 'Expected `sort` to name at least one field, got an empty array. Leave it out for relevance order.')
  return list.map((entry: unknown): SortKey => {
    if (typeof entry === 'string' && entry !== '') return { field: entry, desc: entry === '_score', missingFirst: false }
    const keys = entry !== null && typeof entry === 'object' ? Object.keys(entry) : []
    if (keys.length !== 1) {
      throw new DedupError('INVALID_OPTION', `Expected each \`sort\` entry to be a field name or an object with one field, got ${describeValue(entry)}.`)
    }
    const field = keys[0]!
    const spec = (entry as Record<string, unknown>)[field]
    if (typeof spec === 'string') return { field, desc: orderOf(field, spec), missingFirst: false }
    const o = (spec ?? {}) as { order?: unknown; missing?: unknown }
    return { field, desc: orderOf(field, o.order), missingFirst: o.missing === '_first' }
  })
}

/**
 * Negative when a hit with sort values `a` comes before one with `b`. Missing values (null) go
 * last unless the key says `_first`; numeric missing values already arrive as ±2^63 sentinels
 * that order correctly by themselves.
 * @example compareSortValues(parseSort('_score'), [2.5], [1.0]) // < 0
 */
export function compareSortValues(keys: readonly SortKey[], a: readonly estypes.FieldValue[], b: readonly estypes.FieldValue[]): number {
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const x = a[i] ?? null
    const y = b[i] ?? null
    if (x === null || y === null) {
      if (x === y) continue
      return (x === null) === key.missingFirst ? -1 : 1
    }
    const c = compareSortValue(x as SortFieldValue, y as SortFieldValue)
    if (c !== 0) return key.desc ? -c : c
  }
  return 0
}
