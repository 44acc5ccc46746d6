import type { Decision } from '../types.js'
import type { PreparedItem } from './prepare.js'

/** Stages of `runBatches`. */
export interface BatchStages<B> {
  /** CPU work of a batch: synchronous on this thread, or a promise from a worker pool. */
  prepare(batch: B): PreparedItem[] | Promise<PreparedItem[]>
  /** The in-order store round trip (Deduplicator.decide). */
  decide(items: PreparedItem[]): Promise<Decision[]>
  /** Consumes each batch's decisions, in input order. */
  emit(decisions: Decision[]): void | Promise<void>
  /**
   * Batches prepared ahead of the one being decided. 1 overlaps this thread's preparation with the
   * store round trip; with a worker pool use 2, so workers never wait for the main thread.
   * @default 1
   */
  ahead?: number
}

/**
 * Drives batches through prepare → decide → emit with preparation running ahead of deciding,
 * while decisions stay in input order (each batch is decided after the previous one's decisions
 * are emitted). Used by `simdup index` and the benchmarks, so both measure the same pipeline.
 * @example await runBatches(batchesOf(lines, 500), { prepare: (b) => pool.prepareLines(b), decide: (i) => dedup.decide(i), emit, ahead: 2 })
 */
export async function runBatches<B>(batches: AsyncIterable<B> | Iterable<B>, stages: BatchStages<B>): Promise<void> {
  const ahead = stages.ahead ?? 1
  const preparing: Promise<PreparedItem[]>[] = []
  let deciding: Promise<Decision[]> | null = null
  const next = async () => {
    const items = await preparing.shift()!
    if (deciding !== null) await stages.emit(await deciding)
    deciding = stages.decide(items)
    deciding.catch(noop) // awaited later; meanwhile a rejection must not count as unhandled
  }
  for await (const batch of batches) {
    const p = Promise.resolve(stages.prepare(batch))
    p.catch(noop) // awaited in order by next()
    preparing.push(p)
    if (preparing.length > ahead) await next()
  }
  while (preparing.length > 0) await next()
  if (deciding !== null) await stages.emit(await deciding)
}

function noop(): void {}
