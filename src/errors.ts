/**
 * The one error class simdup throws. `code` is a closed set so callers can branch on it.
 *
 * @example
 * try { resolveDeduplicatorOptions({ maxDistance: 9 }) }
 * catch (err) { if (err instanceof DedupError && err.code === 'INVALID_OPTION') … }
 */
export type DedupErrorCode =
  | 'INVALID_OPTION'
  | 'INVALID_DOCUMENT'
  | 'INVALID_JSONL'
  | 'STORE_UNAVAILABLE'
  | 'STORE_REQUEST_FAILED'
  | 'STORE_CORRUPT'
  | 'SNAPSHOT_VERSION'
  | 'NOT_FOUND'

export class DedupError extends Error {
  override name = 'DedupError'
  readonly code: DedupErrorCode
  constructor(code: DedupErrorCode, message: string, opts: { cause?: unknown } = {}) {
    super(message, opts)
    this.code = code
  }
}

/** Describes a value for an error message: `5` (number), `"x"` (string), undefined. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (value === null) return 'null'
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value
    return `\`${JSON.stringify(shown)}\` (string)`
  }
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object'
  return `\`${String(value)}\` (${typeof value})`
}
