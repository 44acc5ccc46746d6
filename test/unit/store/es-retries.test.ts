/**
 * Which failure decides a request the Elasticsearch store tried several times (issue 13): a node
 * killed mid-run refuses connections while the live nodes answer 503 for the shards it held, and
 * the run must report the red index (exit 1, after waiting for the primaries), not "cannot reach"
 * (exit 4), whichever node the last attempt tried. The errors are the client's own classes, built
 * as its transport builds them; that the transport really leaves an earlier 503 in a connection
 * error's `meta` is checked on a real node (test/integration/es-cluster.test.ts, "a red index").
 */
import { errors } from '@elastic/elasticsearch'
import { describe, expect, test } from 'vitest'
import { fc, test as fcTest } from '@fast-check/vitest'
import { decisiveFailure, statusOf, toStoreError, isUnavailable } from '../../../src/elasticsearch/failures.js'
import { Redactor } from '../../../src/elasticsearch/redaction.js'
import { withRetries } from '../../../src/elasticsearch/retry.js'
import { exitCodeOf } from '../../../src/cli/main.js'

const RED_BODY = { error: { type: 'search_phase_execution_exception', reason: 'Search rejected due to missing shards [[news][1]]' }, status: 503 }

/** What the transport keeps of a request: the last answer a node gave in it (statusCode 0: none). */
function meta(statusCode: number, body: unknown = statusCode === 0 ? undefined : RED_BODY): never {
  return { body, statusCode, headers: {}, warnings: null, meta: { attempts: 1 } } as never
}

/** A node answered `status`. */
const answered = (status: number) => new errors.ResponseError(meta(status, { error: { type: `status_${status}` }, status }))
/** The last node tried refused the connection; `earlier`: the status a node answered before in the same request (0: none). */
const refused = (earlier = 0) => new errors.ConnectionError('connect ECONNREFUSED 127.0.0.1:9252', meta(earlier))

const ctx = { action: '_termvectors (band frequencies)', index: 'news', node: 'http://127.0.0.1:9250,http://127.0.0.1:9251,http://127.0.0.1:9252' }
const wrap = (err: unknown) => toStoreError(err, ctx, new Redactor([]))

describe('decisiveFailure', () => {
  test('a 503 from a live node, then the dead node refusing: the 503 decides', () => {
    const red = answered(503)
    expect(decisiveFailure([red, refused()])).toBe(red)
    expect(decisiveFailure([refused(), red, refused(), refused()])).toBe(red)
  })

  test('a connection error that followed a 503 in the same request is that 503, with its body', () => {
    const got = decisiveFailure([refused(503)])
    expect(got).toBeInstanceOf(errors.ResponseError)
    expect(statusOf(got)).toBe(503)
    expect((got as errors.ResponseError).message).toMatch(/search_phase_execution_exception/)
  })

  test('no node answered any attempt: the last connection error', () => {
    const last = refused()
    expect(decisiveFailure([refused(), refused(), last])).toBe(last)
  })

  test('several answers: the last one', () => {
    const bad = answered(400)
    expect(decisiveFailure([answered(503), refused(), bad])).toBe(bad)
  })

  // Oracle: "cannot reach" exactly when no attempt holds an answer; otherwise the status of the last
  // answer. (The transport moves on, keeping the answer, only after a 502, 503 or 504.)
  fcTest.prop([fc.array(fc.oneof(fc.constantFrom(0, 502, 503, 504).map((s) => ({ kind: 'refused' as const, earlier: s })), fc.constantFrom(400, 404, 429, 500, 503).map((s) => ({ kind: 'answered' as const, status: s }))), { minLength: 1, maxLength: 8 })])(
    'over any sequence of attempts: unreachable only when no node answered, else the last answer',
    (attempts) => {
      const got = decisiveFailure(attempts.map((a) => (a.kind === 'refused' ? refused(a.earlier) : answered(a.status))))
      const statuses = attempts.map((a) => (a.kind === 'refused' ? a.earlier : a.status)).filter((s) => s > 0)
      expect(isUnavailable(got)).toBe(statuses.length === 0)
      expect(statusOf(got)).toBe(statuses.at(-1))
    },
  )
})

describe('withRetries and toStoreError on a red index with a node down', () => {
  /** `fn` failing with `outcomes` in turn; the number of waits for the primaries. */
  async function run(outcomes: Error[]): Promise<{ err: unknown; waits: number }> {
    let i = 0
    let waits = 0
    const policy = { retries: outcomes.length - 1, backoffMs: 1, awaitShards: async () => void waits++ }
    const err = await withRetries(policy, () => Promise.reject(outcomes[i++]!)).catch((e: unknown) => e)
    return { err, waits }
  }

  test('503, then the dead node twice: waits for the primaries after the 503, ends STORE_REQUEST_FAILED (exit 1) naming the red index', async () => {
    const { err, waits } = await run([answered(503), refused(), refused()])
    expect(waits).toBe(1)
    const wrapped = wrap(err)
    expect(wrapped).toMatchObject({ code: 'STORE_REQUEST_FAILED', message: expect.stringMatching(/status 503 \(shards of the index have no started copy: a node down or just back, the index red\?\)/) })
    expect(exitCodeOf(wrapped)).toBe(1)
  })

  test('every attempt a 503 answered before the dead node refused: a wait before each retry, STORE_REQUEST_FAILED with the answer as cause', async () => {
    const { err, waits } = await run([refused(503), refused(503), refused(503)])
    expect(waits).toBe(2)
    const wrapped = wrap(err)
    expect(wrapped.code).toBe('STORE_REQUEST_FAILED')
    expect(wrapped.cause).toBeInstanceOf(errors.ResponseError)
    expect((wrapped.cause as Error).message).toMatch(/search_phase_execution_exception/)
  })

  test('a shard still recovering on the node just back (500, illegal_index_shard_state_exception) is waited for like a 503', async () => {
    // As the fault script met it: `_termvectors` routed to the restarted node's shard before it started.
    const recovering = new errors.ResponseError(meta(500, {
      error: { type: 'exception', reason: 'failed to execute term vector request', caused_by: { type: 'illegal_index_shard_state_exception', reason: 'CurrentState[RECOVERING] operations only allowed when shard state is one of [POST_RECOVERY, STARTED]' } },
      status: 500,
    }))
    const { err, waits } = await run([recovering, recovering])
    expect(waits).toBe(1)
    expect(wrap(err)).toMatchObject({ code: 'STORE_REQUEST_FAILED', message: expect.stringMatching(/status 500 \(shards of the index have no started copy/) })
    // Any other 500 is retried after the back-off alone, and says nothing of shards.
    const other = await run([answered(500), answered(500)])
    expect(other.waits).toBe(0)
    expect(wrap(other.err).message).not.toMatch(/started copy/)
  })

  test('every node down: no wait, STORE_UNAVAILABLE (exit 4) naming the nodes', async () => {
    const { err, waits } = await run([refused(), refused(), refused()])
    expect(waits).toBe(0)
    const wrapped = wrap(err)
    expect(wrapped).toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining(ctx.node) })
    expect(exitCodeOf(wrapped)).toBe(4)
  })
})
