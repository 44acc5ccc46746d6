import { DedupError } from '../errors.js'
import type { AnalyzerOptions } from '../fingerprint/analyzer.js'
import type { BlockScheme } from '../fingerprint/blocks.js'
import { parseJsonLine, readLines, type JsonlLine } from '../io/jsonl.js'
import type { Decision, FingerprintRecord } from '../types.js'
import { batchesOf } from './batches.js'
import type { Deduplicator } from './deduplicator.js'
import { DEFAULT_DEDUPLICATOR_OPTIONS, OPTION_LIMITS } from './options.js'
import { runBatches } from './pipeline.js'
import { prepareFromRecord, type PreparedItem } from './prepare.js'
import { createPreparePool, toPortable, versionMismatch, type PreparePool } from './prepare-pool.js'
import type { DedupStatsSnapshot } from './stats.js'

/**
 * One document of a job's source other than JSONL text (an index walked in order, a database
 * cursor): what to decide, and the caller's handle on it, given back with its batch.
 */
export interface JobDocument<R = unknown> {
  /** The document as parsed JSON (checked like a JSONL line's object), or the reason it is already rejected. */
  input: { value: unknown } | { rejected: string; id?: string | null }
  /** The caller's handle: where the document is in its source (what a resumed job continues after), the source record. */
  ref: R
  /** Decided by an earlier run of the job: kept in its batch (counted against `batchSize`, listed in `skipped`) but not decided again. */
  skip?: boolean
  /** Bytes it counts against `batchBytes`. @default 0 */
  bytes?: number
}

/** A batch as `onDecisions` sees it. */
export interface JobBatch<R> {
  /** Its documents' refs in source order, skipped ones included (the last one is where the batch ends). */
  refs: R[]
  /** The refs of the documents decided, in order: the n-th decision is the n-th of these. */
  decided: R[]
  /** The refs of the documents skipped (`JobDocument.skip`). */
  skipped: R[]
  /** 1 for this run's first batch. */
  number: number
}

/** Options of `runIndexJob`: one source (`input` JSONL text, or `documents`), the deduplicator, and what to do with decisions. */
export interface IndexJobOptions<R = JsonlLine> {
  /**
   * The deduplicator that decides (and its store), or a function that opens it: with `workers` > 1
   * and `blockScheme` given, the workers load their dictionaries while it runs.
   */
  dedup: Deduplicator | (() => Promise<Deduplicator>)
  /** JSONL text: a file's read stream, standard input, chunks of text. One document a line. (Give this or `documents`.) */
  input?: AsyncIterable<Uint8Array | string>
  /** Documents from any other source, in the order to decide them. (Give this or `input`.) */
  documents?: AsyncIterable<JobDocument<R>>
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
  /** Each JSONL line as read (before it is decided). */
  onLine?(line: JsonlLine): void
  /** Each batch's decisions, in input order, once they are stored; awaited before the next batch is decided. */
  onDecisions(decisions: Decision[], batch: JobBatch<R>): void | Promise<void>
  /** Stops after the batches in flight: every decision emitted is stored. */
  signal?: AbortSignal
  /** Stops after this many batches (a resumable job run in steps). @default no limit */
  maxBatches?: number
  /** Make everything searchable at the end (one store refresh; a no-op for the embedded store). @default true */
  refresh?: boolean
}

/** What `runIndexJob` did. */
export interface IndexJobResult {
  /** Documents decided and stored (and given to `onDecisions`). */
  docs: number
  /** Batches decided and given to `onDecisions`. */
  batches: number
  /** Whether `signal` or `maxBatches` stopped the job before the end of its source. */
  stopped: boolean
  /** The deduplicator's counts at the end. */
  summary: DedupStatsSnapshot
  /** Threads that prepared documents (1: this thread). */
  workers: number
}

/**
 * `runIndexJob` with one more stage, for the library's own jobs (reindex): `decide` replaces the
 * store round trip of a batch (reindex copies the batch into its destination first, and decides
 * it in parts no wider than its window). Not public: its items are the engine's internal type.
 */
export interface JobOptions<R> extends IndexJobOptions<R> {
  decide?(items: PreparedItem[], batch: JobBatch<R>): Promise<Decision[]>
}

/**
 * The indexing job `simdup index` and `reindex` run, as a library call: reads JSONL (or takes
 * documents from any async source), cuts it into batches by count and by bytes, prepares each
 * batch (this thread, or a pool of worker threads) ahead of the in-order store round trip, hands
 * every batch's decisions to `onDecisions` once they are stored (rejected lines included, with
 * their reason), and ends with one refresh so that a search right after sees every document.
 *
 * @example
 * const dedup = createDeduplicator({ store: await openMemoryStore({ dir: '.simdup' }) })
 * const { summary } = await runIndexJob({ dedup, input: createReadStream('docs.jsonl'), onDecisions: (d) => out.write(d.map(formatDecision).join('\n') + '\n') })
 */
export async function runIndexJob<R = JsonlLine>(options: IndexJobOptions<R>): Promise<IndexJobResult> {
  return runJob(options)
}

/** A batch on its way: what to prepare, and what `onDecisions` is told. */
interface Batch<R> {
  /** JSONL lines (`input`), or the documents to decide (`documents`, skipped ones left out). */
  lines: JsonlLine[] | null
  docs: JobDocument<R>[]
  view: JobBatch<R>
}

/** `runIndexJob` and the internal `decide` stage (see JobOptions). */
export async function runJob<R>(options: JobOptions<R>): Promise<IndexJobResult> {
  if ((options.input === undefined) === (options.documents === undefined)) {
    throw new DedupError('INVALID_OPTION', 'Expected exactly one of `input` (JSONL text) and `documents`, got ' + (options.input === undefined ? 'neither.' : 'both.'))
  }
  const max = options.maxBatches
  if (max !== undefined && (!Number.isInteger(max) || max < 1)) throw new DedupError('INVALID_OPTION', `Expected \`maxBatches\` to be an integer ≥ 1, got \`${String(max)}\`.`)
  const threads = options.workers ?? OPTION_LIMITS.workers.default
  const startPool = (blockScheme: BlockScheme, maxContentLength: number) => {
    const started = createPreparePool({ workers: threads, analyzer: toPortable(options.analyzer, '`analyzer`'), blockScheme, maxContentLength })
    started.catch(() => undefined) // a failed start is reported where it is awaited
    return started
  }
  // Started before the deduplicator is open on the settings it will most likely have; checked below.
  const early = threads > 1 && options.blockScheme !== undefined ? { blockScheme: options.blockScheme, maxContentLength: DEFAULT_DEDUPLICATOR_OPTIONS.maxContentLength } : null
  let poolStart: Promise<PreparePool> | null = early === null ? null : startPool(early.blockScheme, early.maxContentLength)
  try {
    const dedup = typeof options.dedup === 'function' ? await options.dedup() : options.dedup
    const { blockScheme, maxContentLength } = dedup.options
    if (early !== null && (early.blockScheme.blocks !== blockScheme.blocks || early.blockScheme.minMatch !== blockScheme.minMatch || early.maxContentLength !== maxContentLength)) {
      // Workers must cut blocks and reject long documents exactly as the deduplicator does.
      const stale = poolStart
      poolStart = null
      await (await stale?.catch(() => null))?.close()
    }
    if (threads > 1 && poolStart === null) poolStart = startPool(blockScheme, maxContentLength)
    const pool = poolStart === null ? null : await poolStart
    if (pool !== null && pool.version !== dedup.version) throw versionMismatch(pool.version, dedup.version)
    const aborted = () => options.signal?.aborted === true
    const limits = { batchSize: options.batchSize ?? OPTION_LIMITS.batchSize.default, batchBytes: options.batchBytes ?? OPTION_LIMITS.batchBytes.default }
    let docs = 0
    let begun = 0
    const state = { stopped: false }
    /** Batches of the source, until it ends, `maxBatches` are begun or `signal` stops the job. */
    const batches = async function* (): AsyncGenerator<Batch<R>> {
      for await (const batch of sourceBatches(options, limits)) {
        // A batch read but not begun is left for the next run (a resumed job reads it again).
        if ((max !== undefined && begun >= max) || aborted()) {
          state.stopped = true
          return
        }
        begun++
        batch.view.number = begun
        yield batch
        // After a stop, do not wait for more input (standard input may be idle).
        if (aborted()) {
          state.stopped = true
          return
        }
      }
    }
    // Preparation (CPU, or the worker pool) runs ahead of the in-order store round trips.
    await runBatches(batches(), {
      prepare: (batch) => (batch.lines !== null ? prepareLines(batch.lines, dedup, pool) : prepareDocuments(batch.docs, dedup, pool)),
      decide: (items, batch) => (options.decide === undefined ? dedup.decide(items) : options.decide(items, batch.view)),
      emit: async (decisions, batch) => {
        docs += decisions.length
        await options.onDecisions(decisions, batch.view)
      },
      ahead: pool === null ? 1 : 2,
    })
    // The job ends with every document searchable (one refresh; a no-op for the embedded store),
    // as the bulk helper's refreshOnCompletion does: a search or Kibana right after sees them all.
    if (options.refresh !== false) await dedup.options.store.refresh()
    return { docs, batches: begun, stopped: state.stopped, summary: dedup.summary(), workers: threads }
  } finally {
    // The pool stops however the job ended, also one that never got to run.
    await (await poolStart?.catch(() => null))?.close()
  }
}

/** The source cut into batches by count and bytes: JSONL lines, or documents. */
function sourceBatches<R>(options: JobOptions<R>, limits: { batchSize: number; batchBytes: number }): AsyncIterable<Batch<R>> {
  if (options.input !== undefined) {
    const input = options.input
    const lines = async function* () {
      for await (const l of readLines(input)) {
        options.onLine?.(l)
        yield l
      }
    }
    const lineBytes = (l: JsonlLine) => ('text' in l ? Buffer.byteLength(l.text) : 0)
    return mapAsync(batchesOf(lines(), limits, lineBytes), (b) => ({ lines: b, docs: [], view: { refs: b as R[], decided: b as R[], skipped: [], number: 0 } }))
  }
  return mapAsync(batchesOf(options.documents!, limits, (d) => d.bytes ?? 0), (b) => {
    const decided = b.filter((d) => d.skip !== true)
    return {
      lines: null,
      docs: decided,
      view: { refs: b.map((d) => d.ref), decided: decided.map((d) => d.ref), skipped: b.filter((d) => d.skip === true).map((d) => d.ref), number: 0 },
    }
  })
}

async function* mapAsync<T, U>(items: AsyncIterable<T>, f: (item: T) => U): AsyncGenerator<U> {
  for await (const item of items) yield f(item)
}

async function prepareLines(lines: JsonlLine[], dedup: Deduplicator, pool: PreparePool | null): Promise<PreparedItem[]> {
  if (dedup.options.resume) return prepareResumed(lines, dedup, pool)
  return pool === null ? dedup.prepareBatch(lines.map(parseJsonLine)) : pool.prepareLines(lines)
}

/**
 * `resume`: the lines whose id is stored with the same text, URL and title are prepared from their
 * records (one `get` for the batch; normalisation only, see `prepareFromRecord`), the others in full
 * (this thread or the pool). The decisions are those of full preparation.
 */
async function prepareResumed(lines: JsonlLine[], dedup: Deduplicator, pool: PreparePool | null): Promise<PreparedItem[]> {
  const parsed = lines.map(parseJsonLine)
  const idOf = (p: (typeof parsed)[number]): string | null => {
    if (!('value' in p) || typeof p.value !== 'object' || p.value === null) return null
    const id = (p.value as { id?: unknown }).id
    return typeof id === 'string' ? id : typeof id === 'number' && Number.isSafeInteger(id) ? String(id) : null
  }
  const ids = [...new Set(parsed.map(idOf).filter((id): id is string => id !== null && id !== ''))]
  const stored = ids.length === 0 ? new Map<string, FingerprintRecord>() : await dedup.options.store.get(ids)
  const out: (PreparedItem | null)[] = parsed.map((p) => {
    const id = idOf(p)
    const record = id === null ? undefined : stored.get(id)
    return record === undefined ? null : prepareFromRecord(p, dedup.options, record)
  })
  const rest = out.flatMap((r, i) => (r === null ? [i] : []))
  if (rest.length > 0) {
    const full = pool === null ? await dedup.prepareBatch(rest.map((i) => parsed[i]!)) : await pool.prepareLines(rest.map((i) => lines[i]!))
    rest.forEach((i, k) => (out[i] = full[k]!))
  }
  return out as PreparedItem[]
}

/** Documents have no line: their decisions say `line: null`. */
async function prepareDocuments<R>(docs: JobDocument<R>[], dedup: Deduplicator, pool: PreparePool | null): Promise<PreparedItem[]> {
  let prepared: PreparedItem[]
  if (pool === null) prepared = await dedup.prepareBatch(docs.map((d) => d.input))
  else {
    // Workers take JSONL lines; documents already rejected by their source never go there.
    const lines = docs.flatMap((d, i) => ('value' in d.input ? [{ line: i + 1, text: JSON.stringify(d.input.value) }] : []))
    const fromPool = await pool.prepareLines(lines)
    let k = 0
    prepared = docs.map((d) => ('value' in d.input ? fromPool[k++]! : dedup.prepare(d.input)))
  }
  return prepared.map((p) => (p.ok ? { ...p, doc: { ...p.doc, line: null } } : { ...p, line: null }))
}
