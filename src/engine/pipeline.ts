import type { Decision } from '../types.js'
import type { PreparedItem } from './prepare.js'

/** Stages of `runBatches`. */
export interface BatchStages<B> {
  /** CPU work of a batch: synchronous on this thread, or a promise from a worker pool. */
  prepare(batch: B): PreparedItem[] | Promise<PreparedItem[]>
  /** The in-order store round trip (Deduplicator.decide). */
  decide(items: PreparedItem[], batch: B): Promise<Decision[]>
  /** Consumes each batch's decisions, in input order. */
  emit(decisions: Decision[], batch: B): void | Promise<void>
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
 * are emitted). Used by `runIndexJob` (so `simdup index` and `reindex`) and the benchmarks, so all
 * of them measure the same pipeline.
 *
 * When anything fails (the batches' source, a preparation, a store round trip, `emit`), the batch
 * being decided is still finished and emitted before the error is thrown (its decisions are in the
 * store, so whoever consumes them sees them); batches prepared but not decided are dropped.
 * @example await runBatches(batchesOf(lines, 500), { prepare: (b) => pool.prepareLines(b), decide: (i) => dedup.decide(i), emit, ahead: 2 })
 */
export async function runBatches<B>(batches: AsyncIterable<B> | Iterable<B>, stages: BatchStages<B>): Promise<void> {
  const ahead = stages.ahead ?? 1
  const preparing: { batch: B; items: Promise<PreparedItem[]> }[] = []
  let deciding: { batch: B; decisions: Promise<Decision[]> } | null = null
  /** Emits the batch being decided, if any. */
  const settle = async () => {
    const d = deciding
    deciding = null
    if (d !== null) await stages.emit(await d.decisions, d.batch)
  }
  const next = async () => {
    const { batch, items } = preparing.shift()!
    const ready = await items
    await settle()
    const decisions = stages.decide(ready, batch)
    decisions.catch(noop) // awaited later; meanwhile a rejection must not count as unhandled
    deciding = { batch, decisions }
  }
  try {
    for await (const batch of batches) {
      const items = Promise.resolve(stages.prepare(batch))
      items.catch(noop) // awaited in order by next()
      preparing.push({ batch, items })
      if (preparing.length > ahead) await next()
    }
    while (preparing.length > 0) await next()
    await settle()
  } catch (err) {
    await settle().catch(noop)
    throw err
  }
}

function noop(): void {}
