import { DedupError, type DedupErrorCode } from '../errors.js'

/**
 * The HTTP status of each DedupError code: the one place the service maps causes to statuses
 * (docs/SERVER.md, "Errors"), as `EXIT_CODES` does for the CLI.
 */
export const HTTP_STATUS: Readonly<Record<DedupErrorCode, number>> = Object.freeze({
  INVALID_OPTION: 400,
  INVALID_INPUT: 400,
  INVALID_DOCUMENT: 422,
  NOT_FOUND: 404,
  CONFLICT: 409,
  STORE_UNAVAILABLE: 503,
  STORE_REQUEST_FAILED: 502,
  STORE_CORRUPT: 500,
  SNAPSHOT_VERSION: 409,
  UNAUTHORIZED: 401,
  BUSY: 429,
})

/** The JSON body of every API error. */
export interface ErrorBody {
  /** A DedupError code; `INTERNAL` only for a bug (an error that is not a DedupError). */
  code: DedupErrorCode | 'INTERNAL'
  message: string
}

/** An error the service answers with a status of its own (401, 413, 429…) and a DedupError code. */
export class HttpError extends DedupError {
  readonly status: number
  /** Seconds a client should wait before retrying (429, 503): the `Retry-After` header. */
  readonly retryAfter: number | undefined
  constructor(status: number, code: DedupErrorCode, message: string, opts: { retryAfter?: number; cause?: unknown } = {}) {
    super(code, message, opts.cause === undefined ? {} : { cause: opts.cause })
    this.status = status
    this.retryAfter = opts.retryAfter
  }
}

/** `user:pass@` in URLs (an Elasticsearch node given with credentials) as `***@`: no credential in a response or log line. */
export function redact(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1***@').replace(/(ApiKey|Basic|Bearer)\s+[A-Za-z0-9+/=._-]+/g, '$1 ***')
}

/** Fastify's own error codes (body parsing, limits) as a status and a DedupError code. */
const FASTIFY_ERRORS: Record<string, [number, DedupErrorCode]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'INVALID_INPUT'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'INVALID_INPUT'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'INVALID_INPUT'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'INVALID_INPUT'],
  FST_ERR_VALIDATION: [400, 'INVALID_OPTION'],
}

/** Messages that say more than Fastify's own. */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type: send application/json (one document or a JSON array of them) or application/x-ndjson (JSONL).',
}

/**
 * Any error a route or Fastify raised as a status, headers and the JSON body: a DedupError by its
 * code, Fastify's parsing and validation errors as 4xx with the nearest code, anything else (a bug)
 * 500 with a message that says no more than that.
 */
export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; retryAfter?: number } {
  if (err instanceof HttpError) return { status: err.status, body: { code: err.code, message: redact(err.message) }, ...(err.retryAfter === undefined ? {} : { retryAfter: err.retryAfter }) }
  if (err instanceof DedupError) {
    const status = HTTP_STATUS[err.code]
    return { status, body: { code: err.code, message: redact(err.message) }, ...(status === 503 || status === 429 ? { retryAfter: 5 } : {}) }
  }
  const e = err as { code?: string; statusCode?: number; message?: string; validation?: unknown }
  const known = e.code === undefined ? undefined : FASTIFY_ERRORS[e.code]
  if (known !== undefined) return { status: known[0], body: { code: known[1], message: redact(FASTIFY_MESSAGES[e.code!] ?? e.message ?? '') } }
  if (e.validation !== undefined) return { status: 400, body: { code: 'INVALID_OPTION', message: redact(e.message ?? '') } }
  // A JSON body that does not parse (Fastify's SyntaxError carries statusCode 400).
  if (err instanceof SyntaxError || (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500)) {
    return { status: e.statusCode ?? 400, body: { code: 'INVALID_INPUT', message: redact(e.message ?? 'bad request') } }
  }
  return { status: 500, body: { code: 'INTERNAL', message: 'internal error (see the server log)' } }
}
