import type { AnalyzerOptions } from '../fingerprint/analyzer.js'
import type { BlockScheme } from '../fingerprint/blocks.js'
import { parseJsonLine, readLines, type JsonlLine } from '../io/jsonl.js'
import type { Decision } from '../types.js'
import { batchesOf, DEFAULT_BATCH_LIMITS } from './batches.js'
import type { Deduplicator } from './deduplicator.js'
import { DEFAULT_DEDUPLICATOR_OPTIONS } from './options.js'
import { runBatches } from './pipeline.js'
import { createPreparePool, toPortable, versionMismatch, type PreparePool } from './prepare-pool.js'
import type { DedupStatsSnapshot } from './stats.js'

/** Options of `runIndexJob`. */
export interface IndexJobOptions {
  /**
   * The deduplicator that decides (and its store), or a function that opens it: with `workers` > 1
   * and `blockScheme` given, the workers load their dictionaries while it runs.
   */
  dedup: Deduplicator | (() => Promise<Deduplicator>)
  /** JSONL text: a file's read stream, standard input, chunks of text. One document a line. */
  input: AsyncIterable<Uint8Array | string>
  /** Documents per store round trip. @default 500 (range 1–100 000) */
  batchSize?: number
  /** Input bytes per batch: a batch ends at `batchSize` documents or this many bytes. @default 67_108_864 (64 MiB) */
  batchBytes?: number
  /** Threads parsing and fingerprinting; 1 runs them in this thread. @default 1 (range 1–64) */
  workers?: number
  /** The deduplicator's analyzer settings, as plain data the workers rebuild (needed with `workers` > 1 unless the defaults). */
  analyzer?: AnalyzerOptions
  /** The deduplicator's block scheme, when known before it is open (lets the workers start early). */
  blockScheme?: BlockScheme
  /** Each line as read (before it is decided). */
  onLine?(line: JsonlLine): void
  /** Each batch's decisions, in input order, once they are stored; awaited before the next batch's. */
  onDecisions(decisions: Decision[]): void | Promise<void>
  /** Stops after the batches in flight: every decision emitted is stored. */
  signal?: AbortSignal
  /** Make everything searchable at the end (one store refresh; a no-op for the embedded store). @default true */
  refresh?: boolean
}

/** What `runIndexJob` did. */
export interface IndexJobResult {
  /** Documents decided and stored (and given to `onDecisions`). */
  docs: number
  /** Whether `signal` stopped the job before the end of the input. */
  stopped: boolean
  /** The deduplicator's counts at the end. */
  summary: DedupStatsSnapshot
  /** Threads that prepared documents (1: this thread). */
  workers: number
}

/**
 * The indexing job `simdup index` runs, as a library call: reads JSONL, cuts it into batches by
 * count and by bytes, prepares each batch (this thread, or a pool of worker threads) ahead of the
 * in-order store round trip, hands every batch's decisions to `onDecisions` once they are stored
 * (rejected lines included, with their reason), and ends with one refresh so that a search right
 * after sees every document.
 *
 * @example
 * const dedup = createDeduplicator({ store: await openMemoryStore({ dir: '.simdup' }) })
 * const { summary } = await runIndexJob({ dedup, input: createReadStream('docs.jsonl'), onDecisions: (d) => out.write(d.map(formatDecision).join('\n') + '\n') })
 */
export async function runIndexJob(options: IndexJobOptions): Promise<IndexJobResult> {
  const threads = options.workers ?? 1
  const startPool = (blockScheme: BlockScheme) => {
    const started = createPreparePool({
      workers: threads,
      analyzer: toPortable(options.analyzer, '`analyzer`'),
      blockScheme,
      maxContentLength: DEFAULT_DEDUPLICATOR_OPTIONS.maxContentLength,
    })
    started.catch(() => undefined) // a failed start is reported where it is awaited
    return started
  }
  let poolStart: Promise<PreparePool> | null = threads > 1 && options.blockScheme !== undefined ? startPool(options.blockScheme) : null
  try {
    const dedup = typeof options.dedup === 'function' ? await options.dedup() : options.dedup
    if (threads > 1 && poolStart === null) poolStart = startPool(dedup.options.blockScheme)
    const pool = poolStart === null ? null : await poolStart
    if (pool !== null && pool.version !== dedup.version) throw versionMismatch(pool.version, dedup.version)
    let docs = 0
    const signal = options.signal
    const lines = async function* () {
      for await (const l of readLines(options.input)) {
        options.onLine?.(l)
        yield l
      }
    }
    const lineBytes = (l: JsonlLine) => ('text' in l ? Buffer.byteLength(l.text) : 0)
    const limits = { batchSize: options.batchSize ?? DEFAULT_BATCH_LIMITS.batchSize, batchBytes: options.batchBytes ?? DEFAULT_BATCH_LIMITS.batchBytes }
    const batches = async function* () {
      for await (const batch of batchesOf(lines(), limits, lineBytes)) {
        yield batch
        if (signal?.aborted === true) return
      }
    }
    // Preparation (CPU, or the worker pool) runs ahead of the in-order store round trips.
    await runBatches(batches(), {
      prepare: (batch) => (pool === null ? dedup.prepareBatch(batch.map(parseJsonLine)) : pool.prepareLines(batch)),
      decide: (items) => dedup.decide(items),
      emit: async (decisions) => {
        docs += decisions.length
        await options.onDecisions(decisions)
      },
      ahead: pool === null ? 1 : 2,
    })
    // The job ends with every document searchable (one refresh; a no-op for the embedded store),
    // as the bulk helper's refreshOnCompletion does: a search or Kibana right after sees them all.
    if (options.refresh !== false) await dedup.options.store.refresh()
    return { docs, stopped: signal?.aborted === true, summary: dedup.summary(), workers: threads }
  } finally {
    // The pool stops however the job ended, also one that never got to run.
    await (await poolStart?.catch(() => null))?.close()
  }
}
