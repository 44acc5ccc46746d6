import type { errors } from '@elastic/elasticsearch'
import { elastic } from './client.js'
import { DedupError } from '../errors.js'
import { displayUrl, type Redactor } from './redaction.js'

// Reading the client's failures: unreachable or answered, retryable or not, partial answers refused, and the DedupError each becomes.

/** Client errors that mean "no answer from the cluster", by name. */
const UNAVAILABLE = new Set(['ConnectionError', 'NoLivingConnectionsError', 'TimeoutError'])

/** HTTP status of a client ResponseError, or undefined. */
export function statusOf(err: unknown): number | undefined {
  const s = (err as { meta?: { statusCode?: unknown } } | null)?.meta?.statusCode
  return typeof s === 'number' && s > 0 ? s : undefined
}

/** True when the cluster could not be reached at all. */
export function isUnavailable(err: unknown): boolean {
  return err instanceof Error && UNAVAILABLE.has(err.name)
}

/**
 * What a node answered in a request that then could not reach another node, as the client's
 * ResponseError; else `err` itself. The client moves a request answered 502/503/504 (a live node
 * of a red index) to the next node; when that one is down it throws the connection error, with the
 * earlier answer (status and body) still in its `meta`. That answer is what the cluster said.
 */
export function answerOf(err: unknown): unknown {
  if (!isUnavailable(err)) return err
  const meta = (err as { meta?: { statusCode?: unknown; body?: unknown } }).meta
  if (typeof meta?.statusCode !== 'number' || meta.statusCode <= 0) return err
  return new elastic.errors.ResponseError(meta as ConstructorParameters<typeof errors.ResponseError>[0])
}

/**
 * The failure that decides a request tried several times (`failures`, in order): the last one
 * a node answered (a connection error counts as answered when a node answered earlier in it, see
 * `answerOf`); "could not reach" only when no node answered any attempt. A node killed mid-run
 * refuses connections while the live ones answer 503 for the shards it held: that is a red index,
 * not a cluster out of reach, whichever node the last attempt happened to try.
 */
export function decisiveFailure(failures: readonly unknown[]): unknown {
  const answers = failures.map(answerOf)
  return answers.findLast((e) => !isUnavailable(e)) ?? answers.at(-1)
}

/** True for a failure worth retrying: unreachable, too many requests (429) or a server error (5xx). */
export function isRetryable(err: unknown): boolean {
  if (isUnavailable(err)) return true
  const status = statusOf(err)
  return status !== undefined && (status === 429 || status >= 500)
}

/** Where a failure happened, for the message. */
export interface ErrorContext {
  /** e.g. "_msearch (candidates)". */
  action: string
  index: string
  /** The node(s) as shown in messages; absent when the caller's client is all there is (the search hook). */
  node?: string
}

/**
 * Wraps a client error: STORE_UNAVAILABLE when no node could be reached, STORE_REQUEST_FAILED
 * for anything Elasticsearch answered with an error (also when the request then met a node that
 * was down: `answerOf`). The original stays as `cause` (its message lists the root causes),
 * redacted.
 */
export function toStoreError(failure: unknown, ctx: ErrorContext, redactor: Redactor): DedupError {
  if (failure instanceof DedupError) return redactor.error(failure)
  const err = answerOf(failure)
  redactor.error(err)
  if (isUnavailable(err)) {
    return new DedupError(
      'STORE_UNAVAILABLE',
      `Cannot reach Elasticsearch${ctx.node === undefined ? '' : ` at ${displayUrl(ctx.node)}`} for ${ctx.action} on index \`${ctx.index}\`. Check that the node is up and the URL is right (e.g. \`npm run es:start\`).`,
      { cause: err },
    )
  }
  const status = statusOf(err)
  if (status === 400 && /media_type_header_exception|Accept version must be either version 8 or 7/.test(`${JSON.stringify((err as { body?: unknown }).body ?? '')} ${(err as Error).message}`)) {
    // What an Elasticsearch 8 node answers a 9.x client (one passed in by the caller, or installed beside simdup).
    return new DedupError(
      'STORE_REQUEST_FAILED',
      `Elasticsearch ${ctx.action} on index \`${ctx.index}\` was refused: the node does not speak the client's version ("Accept version must be either version 8 or 7"). ` +
        'The @elastic/elasticsearch client is 9.x; simdup supports 8.x (its peer dependency): npm install @elastic/elasticsearch@8',
      { cause: err },
    )
  }
  if (status === 401 || status === 403) {
    const what = status === 401
      ? 'authentication failed (status 401): the node wants credentials, and none were given or they are wrong'
      : 'permission denied (status 403): the credentials are valid but lack a privilege this request needs'
    return new DedupError(
      'STORE_REQUEST_FAILED',
      `Elasticsearch ${ctx.action} on index \`${ctx.index}\`${ctx.node === undefined ? '' : ` at ${displayUrl(ctx.node)}`}: ${what}. ` +
        'Credentials: the `auth` option ({ apiKey } or { username, password }); the CLI reads ES_API_KEY (or --es-api-key), or ES_USERNAME and ES_PASSWORD, or user:pass@ in the URL.',
      { cause: err },
    )
  }
  // 503: shards without a live copy (no_shard_available, unavailable_shards, a partial answer), a
  // cluster without a master; or a shard still recovering.
  const hint = shardsHint(err)
  return new DedupError(
    'STORE_REQUEST_FAILED',
    `Elasticsearch ${ctx.action} on index \`${ctx.index}\` failed${status === undefined ? '' : ` with status ${status}`}${hint}; see \`cause\` for the server's reason.`,
    { cause: err },
  )
}

/** What a failure that found shards without a started copy (`isShardsUnavailable`) says of it. */
const SHARDS_HINT = '(shards of the index have no started copy: a node down or just back, the index red?)'

/** ` ${SHARDS_HINT}` for a failure that found shards without a started copy (`isShardsUnavailable`), else ''. */
export function shardsHint(err: unknown): string {
  return isShardsUnavailable(err) ? ` ${SHARDS_HINT}` : ''
}

/** An answer some shards did not give (a red index, a point in time that lost a node's contexts), as a 503. */
class PartialAnswerError extends Error {
  override name = 'ResponseError'
  readonly meta: { statusCode: number; body: unknown }
  constructor(what: string, reason: unknown, body: unknown) {
    const type = (reason as { type?: unknown } | null | undefined)?.type
    super(`${what} (${typeof type === 'string' ? type : 'no reason given'}; a node down, the index red?)`)
    this.meta = { statusCode: 503, body }
  }
}

/** A sub-search (of an _msearch) that failed with 503 because shards had no live copy: waited for like a partial answer. */
export function shardsUnavailable(error: unknown): Error {
  return new PartialAnswerError('a search found shards without a live copy', error, error)
}

/**
 * True when a node answered `err` because shards of the index have no started copy: a 503 (no
 * live copy: a red index), a partial answer refused, or a shard still recovering on a node just
 * back (500, `illegal_index_shard_state_exception`). Worth waiting for the primaries.
 */
export function isShardsUnavailable(err: unknown): boolean {
  const answer = answerOf(err)
  return err instanceof PartialAnswerError || statusOf(answer) === 503 || errorTypesOf(answer).includes('illegal_index_shard_state_exception')
}

/** The error types of a client ResponseError's body: its own, its root causes' and its causes'. */
function errorTypesOf(err: unknown): string[] {
  type Body = { type?: unknown; root_cause?: Body[]; caused_by?: Body }
  const top = (err as { meta?: { body?: { error?: Body } } } | null)?.meta?.body?.error
  const out: string[] = []
  const seen = new Set<Body>()
  const todo: Body[] = top !== null && typeof top === 'object' ? [top] : []
  while (todo.length > 0 && out.length < 32) {
    const e = todo.pop()!
    if (seen.has(e)) continue
    seen.add(e)
    if (typeof e.type === 'string') out.push(e.type)
    for (const next of [...(Array.isArray(e.root_cause) ? e.root_cause : []), e.caused_by]) if (next !== null && typeof next === 'object') todo.push(next)
  }
  return out
}

/** True when `err` (or its cause) is a partial answer refused by wholeAnswer. */
export function isPartialAnswer(err: unknown): boolean {
  return err instanceof PartialAnswerError || (err instanceof Error && err.cause instanceof PartialAnswerError)
}

/**
 * Elasticsearch answers a search, count or multi-get over a shard with no live copy with 200 and
 * what the other shards hold (`_shards.failed`, or an `error` in place of a document): less than
 * is stored, which simdup would take for "not there" (a copy decided unique, a number handed out
 * twice, a document skipped by reindex). Such an answer is refused as a 503, so it is retried
 * and, if the shard stays away, fails the run with a message; never used.
 */
export function wholeAnswer<T>(res: T): T {
  if (res === null || typeof res !== 'object') return res
  const shards = (res as { _shards?: { failed?: unknown; total?: unknown; failures?: { reason?: unknown }[] } })._shards
  if (typeof shards?.failed === 'number' && shards.failed > 0) {
    throw new PartialAnswerError(`${shards.failed} of ${String(shards.total)} shards did not answer`, shards.failures?.[0]?.reason, res)
  }
  const docs = (res as { docs?: unknown }).docs
  if (Array.isArray(docs)) {
    const missing = docs.filter((d): d is { error: unknown } => d !== null && typeof d === 'object' && 'error' in d)
    if (missing.length > 0) throw new PartialAnswerError(`${missing.length} of ${docs.length} documents could not be read`, missing[0]!.error, res)
  }
  return res
}

/**
 * An item-level error of a multi-request (one `_msearch` search, one bulk item) as the client's own
 * ResponseError of that status, so retries (429, 5xx) and wrapping treat it like a failed request.
 */
export function itemError(status: number, error: unknown): errors.ResponseError {
  return new elastic.errors.ResponseError({ body: { error, status }, statusCode: status, headers: {}, warnings: null, meta: {} as never })
}

export function errorType(error: unknown): string {
  const e = error as { type?: unknown; root_cause?: { type?: unknown }[] } | null
  return String(e?.type ?? e?.root_cause?.[0]?.type ?? 'error')
}

export function errorReason(error: unknown): string {
  const e = error as { reason?: unknown; caused_by?: { reason?: unknown } } | null
  const reason = String(e?.reason ?? 'unknown reason')
  const cause = e?.caused_by?.reason
  return cause === undefined ? reason : `${reason} (${String(cause)})`
}
