import { DedupError } from '../../errors.js'
import { compareSortValue } from '../sort-order.js'

/** One value of a hit's `sort` array. */
export type SortValue = string | number | boolean | null

/**
 * Stand-in for a missing date/number. Elasticsearch's own `_last` is Long.MAX_VALUE, which JSON
 * rounds and `search_after` then refuses; this value survives the round trip and still sorts last.
 */
export const MISSING_NUMBER = Number.MAX_SAFE_INTEGER

/** Largest value per integer type, used as its "missing, sorts last" value. */
const INTEGER_MAX: Record<string, number> = { byte: 127, short: 32_767, integer: 2_147_483_647, long: MISSING_NUMBER }
const FLOATS = new Set(['double', 'float', 'half_float', 'scaled_float'])
const DATES = new Set(['date', 'date_nanos'])
/** Types whose missing values come back as null, which `search_after` accepts. */
const NULL_MISSING = new Set(['keyword', 'constant_keyword', 'boolean', 'ip', 'version'])

/** How the walk sorts on a field, and whether its values are times (for the window). */
export interface FieldSort {
  clause: Record<string, unknown>
  /** Values are milliseconds since the epoch. */
  isTime: boolean
  /** Values are numbers (missing ones are `MISSING_NUMBER` or the type's maximum). */
  numeric: boolean
}

/**
 * The sort clause for `field` of mapping type `type`, ascending with missing values last in a
 * form that survives JSON. Throws INVALID_OPTION for types Elasticsearch cannot sort on cheaply.
 * @example fieldSort('published', 'date').clause // { published: { order: 'asc', missing: 9007199254740991 } }
 */
export function fieldSort(field: string, type: string): FieldSort {
  if (DATES.has(type)) {
    // numeric_type 'date' turns date_nanos into milliseconds: nanosecond longs do not fit a double.
    return { clause: { [field]: { order: 'asc', missing: MISSING_NUMBER, ...(type === 'date_nanos' ? { numeric_type: 'date' } : {}) } }, isTime: true, numeric: true }
  }
  const max = INTEGER_MAX[type]
  if (max !== undefined) return { clause: { [field]: { order: 'asc', missing: max } }, isTime: false, numeric: true }
  if (FLOATS.has(type)) return { clause: { [field]: { order: 'asc', missing: MISSING_NUMBER } }, isTime: false, numeric: true }
  if (NULL_MISSING.has(type)) return { clause: { [field]: { order: 'asc', missing: '_last' } }, isTime: false, numeric: false }
  const hint = type === 'text' ? ` A text field cannot be sorted; use its keyword sub-field (e.g. \`${field}.keyword\`).` : ''
  throw new DedupError('INVALID_OPTION', `Expected \`sort\` to name a date, numeric or keyword field, got \`${field}\` of type \`${type}\`.${hint}`)
}

/**
 * Compares two `sort` arrays the way Elasticsearch orders them ascending (`compareSortValue`),
 * null (missing) last. Used to merge sliced readers into the unsliced order.
 * @example compareSortValues([1, 5], [1, 7]) // < 0
 */
export function compareSortValues(a: readonly SortValue[], b: readonly SortValue[]): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const c = compareOne(a[i] ?? null, b[i] ?? null)
    if (c !== 0) return c
  }
  return a.length - b.length
}

/** One key ascending, missing (null) last (see `compareSortValue`). */
function compareOne(x: SortValue, y: SortValue): number {
  if (x === y) return 0
  if (x === null) return 1
  if (y === null) return -1
  return compareSortValue(x, y)
}
