/** Why a `DedupError` was thrown: a closed set, one code per cause. */
export type DedupErrorCode =
  /** An option or argument is out of its range, of the wrong type, or contradicts another. */
  | 'INVALID_OPTION'
  /** The input as a whole cannot be used (a source index without `_source`, documents that cannot be addressed). */
  | 'INVALID_INPUT'
  /** One document or record is malformed (reported per document, e.g. in `PutResult.failed`). */
  | 'INVALID_DOCUMENT'
  /** The target is held or taken: a store or checkpoint locked by another process, a checkpoint of another job, an index or directory that exists with other content. */
  | 'CONFLICT'
  /** What was named does not exist (a store directory or index opened read-only, a reindex source). */
  | 'NOT_FOUND'
  /** The store cannot be reached or written (node down, disk failure, a closed store). Worth retrying later. */
  | 'STORE_UNAVAILABLE'
  /** The store answered with an error (Elasticsearch refused a request or a document). */
  | 'STORE_REQUEST_FAILED'
  /** Stored data cannot be read back (a damaged log, an invalid stored record or checkpoint). */
  | 'STORE_CORRUPT'
  /** Version mismatch: the store, its log or its records were written by another simdup version or fingerprint version. */
  | 'SNAPSHOT_VERSION'
  /** A request to `simdup serve` without the bearer token it requires, or with another one. */
  | 'UNAUTHORIZED'
  /** Too much work queued (`simdup serve`'s write queue is full): retry after the time given. */
  | 'BUSY'

/**
 * The one error class simdup throws. `code` is a closed set, by cause, so callers can branch on it
 * (the CLI's exit code follows it: docs/CLI.md, "Exit codes").
 *
 * @example
 * try { await openMemoryStore({ dir }) }
 * catch (err) { if (err instanceof DedupError && err.code === 'CONFLICT') … } // another process holds it
 */
export class DedupError extends Error {
  override name = 'DedupError'
  readonly code: DedupErrorCode
  constructor(code: DedupErrorCode, message: string, opts: { cause?: unknown } = {}) {
    super(message, opts)
    this.code = code
  }
}

/** Every code once (the compiler checks the list is complete). */
const CODES: Readonly<Record<DedupErrorCode, true>> = {
  INVALID_OPTION: true, INVALID_INPUT: true, INVALID_DOCUMENT: true, CONFLICT: true, NOT_FOUND: true,
  STORE_UNAVAILABLE: true, STORE_REQUEST_FAILED: true, STORE_CORRUPT: true, SNAPSHOT_VERSION: true,
  UNAUTHORIZED: true, BUSY: true,
}

/** Whether `value` is one of the DedupError codes (e.g. a code that crossed a thread as a string). */
export function isDedupErrorCode(value: unknown): value is DedupErrorCode {
  return typeof value === 'string' && Object.hasOwn(CODES, value)
}

/**
 * `value` when it is an integer from `min` to `max` (no upper bound by default); otherwise an
 * INVALID_OPTION error naming the option, the range and what was given, then `hint`.
 * @example integerOption('workers', 2, 1, 64) // 2
 */
export function integerOption(name: string, value: unknown, min: number, max = Number.POSITIVE_INFINITY, hint = ''): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.POSITIVE_INFINITY ? `≥ ${min}` : `from ${min} to ${max}`
    throw new DedupError('INVALID_OPTION', `Expected \`${name}\` to be an integer ${range}, got ${describeValue(value)}.${hint}`)
  }
  return value
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
