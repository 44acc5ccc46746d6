import type { Client } from '@elastic/elasticsearch'
import { decisiveFailure, isRetryable, isShardsUnavailable, statusOf, wholeAnswer } from './failures.js'

// Retrying a request: the policy, exponential back-off with jitter, and the wait for a red index's primaries.

/** How often and how patiently to retry. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number
  /** First back-off in ms; doubled each retry, ±25 % jitter. */
  backoffMs: number
  /** Before retrying a 503 or a partial answer (see wholeAnswer): wait until the shards are back, or give up waiting. */
  awaitShards?: () => Promise<void>
}

/**
 * Waits until every primary of `index` has a live copy (cluster health yellow), up to a minute, as
 * Elasticsearch gives a bulk write to such a shard: the `awaitShards` of a red index. Asked in
 * waits of half the client's request timeout (undici ends a request there, whatever the request's
 * own timeout says), repeated while the health answers "timed out" (408). Never throws: the retry
 * that follows tells whether the shards came back.
 */
export async function awaitPrimaries(client: Client, index: string): Promise<void> {
  const slice = halfRequestTimeout(client)
  const until = Date.now() + 60_000
  for (let left = until - Date.now(); left > 0; left = until - Date.now()) {
    try {
      await client.cluster.health({ index, wait_for_status: 'yellow', timeout: `${Math.min(slice, left)}ms` })
      return
    } catch (err) {
      if (statusOf(err) !== 408) return
    }
  }
}

/**
 * Half the client's request timeout in ms (the store's own client: `requestTimeoutMs`; a caller's:
 * its own): how long a request may ask Elasticsearch to wait and still get its answer.
 */
export function halfRequestTimeout(client: Client): number {
  return Math.max(1, Math.floor((client.connectionPool.connections[0]?.timeout ?? 30_000) / 2))
}

/** Delay before retry number `attempt` (0-based). */
export function backoffDelay(policy: RetryPolicy, attempt: number): number {
  const base = policy.backoffMs * 2 ** attempt
  return Math.round(base * (0.75 + Math.random() * 0.5))
}

/**
 * The pause before retry number `attempt` (0-based) of a request or of bulk items that failed with
 * `failures`: the back-off, and, when one of them found shards without a started copy
 * (`isShardsUnavailable`: a red index), the wait for the primaries as well (`awaitShards`).
 */
export async function pauseBeforeRetry(policy: RetryPolicy, attempt: number, failures: readonly unknown[]): Promise<void> {
  await Promise.all([sleep(backoffDelay(policy, attempt)), failures.some(isShardsUnavailable) ? policy.awaitShards?.() : undefined])
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}


/**
 * Runs `fn`, retrying retryable failures with exponential back-off, and waiting for the shards
 * (`awaitShards`) after a 503 or a partial answer (see wholeAnswer, a failure too); rejects with
 * the failure that decides (`decisiveFailure`): the last one a node answered.
 */
export async function withRetries<T>(policy: RetryPolicy, fn: () => Promise<T>): Promise<T> {
  const failures: unknown[] = []
  for (let attempt = 0; ; attempt++) {
    try {
      return wholeAnswer(await fn())
    } catch (err) {
      failures.push(err)
      if (attempt >= policy.retries || !isRetryable(err)) throw decisiveFailure(failures)
      await pauseBeforeRetry(policy, attempt, [err])
    }
  }
}
