import { Worker } from 'node:worker_threads'
import { DedupError, describeValue, integerOption, isDedupErrorCode } from '../errors.js'
import type { JsonlLine } from '../io/jsonl.js'
import type { BlockScheme } from '../fingerprint/blocks.js'
import type { PreparedItem } from './prepare.js'
import type { WeightingOptions } from '../fingerprint/tfidf.js'
import type { ShortTextOptions } from '../fingerprint/short-text.js'
import type { UserWord } from '../segment/segmenter.js'
import type { Analyzer, AnalyzerOptions } from '../fingerprint/analyzer.js'
import { createJiebaWasmSegmenter } from '../segment/jieba.js'
import { OPTION_LIMITS } from './options.js'

/** Analyzer settings that can cross a thread boundary (no functions). */
export interface PortableAnalyzerOptions {
  userWords?: UserWord[]
  stopWords?: string[]
  weighting?: WeightingOptions
  shortText?: ShortTextOptions
  /**
   * `'jieba-wasm'` makes each worker segment with jieba-wasm even when @node-rs/jieba is
   * installed (the tokens are the same; the bench's `--segmenter wasm` uses it). @default 'default'
   */
  segmenter?: 'default' | 'jieba-wasm'
}

/** AnalyzerOptions from portable ones (stop words back into a Set). @example createAnalyzer(fromPortable({ stopWords: ['的'] })) */
export function fromPortable(p: PortableAnalyzerOptions): AnalyzerOptions {
  const { stopWords, segmenter, ...rest } = p
  checkSegmenterChoice(segmenter)
  return {
    ...rest,
    ...(stopWords === undefined ? {} : { stopWords: new Set(stopWords) }),
    ...(segmenter === 'jieba-wasm' ? { segmenter: createJiebaWasmSegmenter() } : {}),
  }
}

export function isAnalyzer(x: unknown): x is Analyzer {
  return x !== null && typeof x === 'object' && typeof (x as Analyzer).analyze === 'function'
}

/** Analyzer settings that worker threads can rebuild (the reverse of `fromPortable`); anything else (functions, tables) cannot cross. `field` names the option in errors. */
export function toPortable(a: Analyzer | AnalyzerOptions | undefined, field = '`dedup.analyzer`'): PortableAnalyzerOptions {
  if (a === undefined) return {}
  if (isAnalyzer(a)) throw new DedupError('INVALID_OPTION', `With \`workers\` > 1, pass ${field} as options (userWords, stopWords, weighting, shortText), not an Analyzer: worker threads rebuild it.`)
  const extra = Object.keys(a).filter((k) => !['userWords', 'stopWords', 'weighting', 'shortText'].includes(k))
  if (extra.length > 0) throw new DedupError('INVALID_OPTION', `With \`workers\` > 1, ${field} cannot set ${extra.map((k) => `\`${k}\``).join(', ')}: worker threads cannot receive them.`)
  const out: PortableAnalyzerOptions = {}
  if (a.userWords !== undefined) out.userWords = [...a.userWords]
  if (a.stopWords !== undefined) out.stopWords = [...a.stopWords]
  if (a.weighting !== undefined) out.weighting = a.weighting
  if (a.shortText !== undefined) out.shortText = a.shortText
  return out
}

/** An error as a worker reports it: what survives the structured clone between threads. */
interface WorkerError {
  message?: unknown
  stack?: unknown
  code?: unknown
}

/**
 * A worker's error as this thread's: a DedupError comes back a DedupError with its code (the
 * structured clone between threads keeps only a plain Error's fields), so callers and the CLI's
 * exit code see the same error as without workers; the worker's stack stays.
 */
export function fromWorker(err: WorkerError | Error): Error {
  const e = err as WorkerError
  const message = String(e.message ?? err)
  const out = isDedupErrorCode(e.code) ? new DedupError(e.code, message) : new Error(message)
  if (typeof e.stack === 'string') out.stack = e.stack
  return out
}

function checkSegmenterChoice(segmenter: unknown): void {
  if (segmenter !== undefined && segmenter !== 'default' && segmenter !== 'jieba-wasm') {
    throw new DedupError('INVALID_OPTION', `Expected \`analyzer.segmenter\` to be 'default' or 'jieba-wasm', got ${describeValue(segmenter)}.`)
  }
}

/** The error for a pool whose workers' analyzer version is not the caller's. */
export function versionMismatch(workers: string, expected: string): DedupError {
  return new DedupError('INVALID_OPTION', `Worker analyzers report version ${workers}, expected ${expected}: their settings differ from the main thread's.`)
}

/** Options of a prepare pool. */
export interface PreparePoolOptions {
  /** Worker threads. @default 2 (range 1–64) */
  workers?: number
  analyzer?: PortableAnalyzerOptions
  blockScheme: BlockScheme
  maxContentLength: number
  /** The version the main thread's analyzer reports; workers must agree or the pool fails to start. */
  expectVersion?: string
}

/** Parses and prepares JSONL lines on worker threads, results in input order. */
export interface PreparePool {
  /** The analyzer version every worker reports (a Deduplicator's `version` must equal it). */
  readonly version: string
  prepareLines(lines: readonly JsonlLine[]): Promise<PreparedItem[]>
  /**
   * Gives every worker a fresh analyzer (empty term table and run memo), freeing their memory;
   * the bench uses it to time each pass from cold caches with warm workers. Call between batches.
   */
  clearCaches(): Promise<void>
  close(): Promise<void>
}

interface Pending {
  resolve: (items: PreparedItem[]) => void
  reject: (err: Error) => void
}

/**
 * Starts worker threads that run JSON parsing + validation + analysis (the CPU-heavy part);
 * the caller keeps deciding in order on its own thread.
 * @example const pool = await createPreparePool({ workers: 2, blockScheme, maxContentLength })
 */
export async function createPreparePool(options: PreparePoolOptions): Promise<PreparePool> {
  const n = integerOption('workers', options.workers ?? 2, OPTION_LIMITS.workers.min, OPTION_LIMITS.workers.max)
  // Under a TypeScript loader (tests, `tsx`) the worker is a .ts file and needs the loader too.
  const ts = import.meta.url.endsWith('.ts')
  const url = new URL(ts ? './_prepare-worker.ts' : './_prepare-worker.js', import.meta.url)
  checkSegmenterChoice(options.analyzer?.segmenter)
  const workerData = { analyzer: options.analyzer ?? {}, blockScheme: options.blockScheme, maxContentLength: options.maxContentLength }
  const workers: Worker[] = []
  /** Chunks sent, by message seq, with the worker each went to. */
  const pending = new Map<number, Pending & { worker: number }>()
  /** Chunks not sent yet (see pump). */
  const queue: { lines: readonly JsonlLine[]; pending: Pending }[] = []
  /** Chunks sent to each worker and not answered yet. */
  const busy = new Array<number>(n).fill(0)
  let seq = 0
  let failure: Error | null = null
  const fail = (err: Error) => {
    failure ??= err
    for (const p of pending.values()) p.reject(err)
    pending.clear()
    for (const t of queue.splice(0)) t.pending.reject(err)
  }
  const versions: Promise<string>[] = []
  for (let i = 0; i < n; i++) {
    // Under tsx, register its loader inside the worker first (workers do not inherit --import hooks).
    const w = ts
      ? new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url.href)}) })`, { eval: true, workerData })
      : new Worker(url, { workerData })
    versions.push(
      new Promise<string>((resolve, reject) => {
        w.once('message', (m: { version: string }) => resolve(m.version))
        w.once('error', (err) => reject(fromWorker(err)))
      }),
    )
    w.on('message', (m: { seq?: number; items?: PreparedItem[]; error?: WorkerError }) => {
      if (m.seq === undefined) return
      const p = pending.get(m.seq)
      pending.delete(m.seq)
      if (p === undefined) return
      busy[p.worker]!--
      if (m.error !== undefined) p.reject(fromWorker(m.error))
      else p.resolve(m.items ?? [])
      pump()
    })
    w.on('error', (err) => fail(fromWorker(err)))
    w.on('exit', (code) => {
      if (code !== 0) fail(new Error(`prepare worker exited with code ${code}`))
    })
    workers.push(w)
  }
  let got: string[]
  try {
    got = await Promise.all(versions)
  } catch (err) {
    // One worker failed to start: the others must not keep the process alive.
    await Promise.all(workers.map((w) => w.terminate()))
    throw err
  }
  let closing: Promise<void> | undefined
  const other = got.find((v) => v !== (options.expectVersion ?? got[0]))
  if (other !== undefined) {
    await Promise.all(workers.map((w) => w.terminate()))
    throw versionMismatch(other, options.expectVersion ?? got[0]!)
  }
  // Batches are cut into small chunks handed to whichever worker has room (at most two chunks
  // queued per worker): a worker that drew long documents does not hold the other one idle, and
  // each worker always has its next chunk waiting when it posts a result.
  function pump(): void {
    while (queue.length > 0) {
      let w = 0
      for (let i = 1; i < workers.length; i++) if (busy[i]! < busy[w]!) w = i
      if (busy[w]! >= 2) return
      const task = queue.shift()!
      const id = seq++
      pending.set(id, { ...task.pending, worker: w })
      busy[w]!++
      workers[w]!.postMessage({ seq: id, lines: task.lines })
    }
  }
  const call = (lines: readonly JsonlLine[]) =>
    new Promise<PreparedItem[]>((resolve, reject) => {
      if (failure !== null) return reject(failure)
      queue.push({ lines, pending: { resolve, reject } })
      pump()
    })
  return {
    version: got[0]!,
    async prepareLines(lines) {
      if (lines.length === 0) return []
      const size = Math.max(8, Math.min(64, Math.ceil(lines.length / (workers.length * 4))))
      const parts: Promise<PreparedItem[]>[] = []
      for (let i = 0; i < lines.length; i += size) parts.push(call(lines.slice(i, i + size)))
      return (await Promise.all(parts)).flat()
    },
    async clearCaches() {
      if (failure !== null) throw failure
      await Promise.all(
        workers.map(
          (w, i) =>
            new Promise<PreparedItem[]>((resolve, reject) => {
              const id = seq++
              pending.set(id, { resolve, reject, worker: i })
              busy[i]!++
              w.postMessage({ seq: id, clear: true })
            }),
        ),
      )
    },
    async close() {
      // Idempotent: a second call waits for the same termination.
      closing ??= Promise.all(workers.map((w) => w.terminate())).then(() => undefined)
      await closing
    },
  }
}
