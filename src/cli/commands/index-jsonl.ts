import { createReadStream, createWriteStream, statSync, type WriteStream } from 'node:fs'
import { resolve } from 'node:path'
import os from 'node:os'
import { once } from 'node:events'
import { DEFAULT_DEDUPLICATOR_OPTIONS, parseDuration } from '../../engine/options.js'
import { createDeduplicator } from '../../engine/deduplicator.js'
import { createPreparePool, fromPortable, versionMismatch } from '../../engine/prepare-pool.js'
import { runBatches } from '../../engine/pipeline.js'
import { batchesOf, DEFAULT_BATCH_LIMITS } from '../../engine/batches.js'
import type { DedupStatsSnapshot } from '../../engine/stats.js'
import { parseJsonLine, readLines, type JsonlLine } from '../../io/jsonl.js'
import { formatDecision } from '../../io/decisions.js'
import type { Decision } from '../../types.js'
import type { CliIO } from '../io.js'
import { UsageError } from '../io.js'
import { parse, intFlag } from '../args.js'
import { createProgress, formatSeconds } from '../progress.js'
import { openStoreFromFlags, STORE_FLAGS, STORE_HELP } from '../store-flags.js'
import { analyzerOptionsFromFlags, ANALYZER_FLAGS, ANALYZER_HELP } from '../analyzer-flags.js'

export const INDEX_HELP = `simdup index <file.jsonl | -> [options]

Reads JSONL documents {"id", "content", "url"?, "title"?}, decides each one (unique, duplicate,
rejected) against everything indexed before it, stores its fingerprint, and writes one decision
per non-blank input line, in input order.

  --out FILE         decisions JSONL (default: stdout)
  --rejects FILE     rejected lines with reasons (default: <out>.rejects.jsonl, or
                     simdup-rejects.jsonl when decisions go to stdout)
  --k N              max Hamming distance of a near-duplicate (default 3, at most blocks − min-match)
  --batch N          documents per store round trip (default 500)
  --batch-mb N       input MiB per batch, whichever limit comes first (default 64): bounds
                     memory for large documents
  --blocks M         fingerprint blocks in the index (default 4; fixed per index)
  --min-match S      blocks that must be equal for a candidate (default 1; k ≤ M − S)
  --window DUR       only match documents indexed within DUR (e.g. 7d, 12h)
  --title            also match on equal, non-generic titles (off by default)
  --no-url           skip the canonical-URL layer
  --no-exact         skip the exact-content layer
  --no-minhash       no MinHash second route (half the memory per document, lower recall)
  --workers N|auto   worker threads for parsing + fingerprinting; auto (the default): one per
                     core, up to 4, for an input file of 32 MB or more, else none (in-process):
                     each worker loads its own dictionaries, which smaller files do not repay
  --quiet            no progress, no summary
${ANALYZER_HELP}
${STORE_HELP}`

const FLAGS = {
  out: { type: 'string' },
  rejects: { type: 'string' },
  k: { type: 'string' },
  batch: { type: 'string' },
  'batch-mb': { type: 'string' },
  window: { type: 'string' },
  title: { type: 'boolean' },
  'no-url': { type: 'boolean' },
  'no-exact': { type: 'boolean' },
  'no-minhash': { type: 'boolean' },
  quiet: { type: 'boolean' },
  workers: { type: 'string' },
  blocks: { type: 'string' },
  'min-match': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...ANALYZER_FLAGS,
  ...STORE_FLAGS,
} as const

/** `simdup index`: the main job. Returns the exit code. */
export async function indexCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, FLAGS)
  if (values.help) {
    io.stdout.write(INDEX_HELP + '\n')
    return 0
  }
  const input = positionals[0]
  if (input === undefined || positionals.length > 1) throw new UsageError(`Expected one input file (or - for stdin).\n\n${INDEX_HELP}`)
  const k = intFlag(values.k, 'k', 3, 0, 32)
  const batchSize = intFlag(values.batch, 'batch', 500, 1, 100_000)
  const batchBytes = intFlag(values['batch-mb'], 'batch-mb', DEFAULT_BATCH_LIMITS.batchBytes / 2 ** 20, 1, 4096) * 2 ** 20
  const workersFlag = values.workers ?? 'auto'
  if (workersFlag !== 'auto' && !/^\d+$/.test(workersFlag)) throw new UsageError(`Expected --workers to be auto or an integer from 1 to 64, got \`${workersFlag}\`.`)
  const workers = workersFlag === 'auto' ? undefined : intFlag(workersFlag, 'workers', 1, 1, 64)
  const blockScheme = { blocks: intFlag(values.blocks, 'blocks', 4, 2, 16), minMatch: intFlag(values['min-match'], 'min-match', 1, 1, 15) }
  const windowMs = values.window === undefined ? undefined : parseDuration(values.window)
  const inputPath = input === '-' ? null : resolve(io.cwd, input)
  let total: number | undefined
  if (inputPath !== null) {
    try {
      total = statSync(inputPath).size
    } catch (err) {
      throw new UsageError(`Cannot read input file ${input}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
    }
  }
  const threads = workers ?? autoWorkers(total, os.availableParallelism())
  const analyzer = analyzerOptionsFromFlags(values, io)
  // Workers load their dictionaries while this thread opens the store and loads its own.
  const poolStart = threads > 1
    ? createPreparePool({ workers: threads, analyzer, blockScheme, maxContentLength: DEFAULT_DEDUPLICATOR_OPTIONS.maxContentLength })
    : null
  poolStart?.catch(() => undefined) // a failed start is reported where it is awaited
  let opened: Awaited<ReturnType<typeof openStoreFromFlags>> | undefined
  let summary: DedupStatsSnapshot
  let elapsed: number
  try {
    opened = await openStoreFromFlags(values, io)
    const store = opened.store
    const dedup = createDeduplicator({
      store,
      maxDistance: k,
      blockScheme,
      minhash: values['no-minhash'] !== true,
      analyzer: fromPortable(analyzer),
      layers: { url: !values['no-url'], exact: !values['no-exact'], title: values.title === true },
      ...(windowMs === undefined ? {} : { windowMs }),
    })
    const pool = poolStart === null ? null : await poolStart
    if (pool !== null && pool.version !== dedup.version) {
      throw versionMismatch(pool.version, dedup.version)
    }
    const outPath = values.out === undefined ? null : resolve(io.cwd, values.out)
    const out: WriteStream | null = outPath === null ? null : createWriteStream(outPath)
    const rejectsPath = resolve(io.cwd, values.rejects ?? (outPath === null ? 'simdup-rejects.jsonl' : outPath.replace(/(\.jsonl?)?$/, '.rejects.jsonl')))
    let rejects: WriteStream | null = null
    const write = async (stream: WriteStream | null, text: string) => {
      if (stream === null) io.stdout.write(text)
      else if (!stream.write(text)) await once(stream, 'drain')
    }
    const progress = createProgress({
      write: (t) => (values.quiet ? undefined : io.stderr.write(t)),
      isTTY: io.stderr.isTTY === true,
      ...(total === undefined ? {} : { total }),
    })
    let bytes = 0
    const counted = (async function* () {
      const source = inputPath === null ? io.stdin : createReadStream(inputPath, { highWaterMark: 1 << 20 })
      for await (const chunk of source) {
        bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength
        yield chunk
      }
    })()
    const raw = new Map<number, string>() // line → start of its raw text, for the rejects file
    let docs = 0
    const emit = async (decisions: Decision[]) => {
      let text = ''
      let rejectText = ''
      for (const d of decisions) {
        text += formatDecision(d) + '\n'
        if (d.status === 'rejected') {
          rejectText += JSON.stringify({ line: d.line, id: d.id, reason: d.reason, raw: d.line === null ? null : (raw.get(d.line) ?? null) }) + '\n'
        }
        if (d.line !== null) raw.delete(d.line)
      }
      await write(out, text)
      if (rejectText !== '') {
        rejects ??= createWriteStream(rejectsPath)
        await write(rejects, rejectText)
      }
      docs += decisions.length
      progress.update(bytes, docs)
    }
    // Preparation (CPU, or the worker pool) runs ahead of the in-order store round trips.
    const lines = async function* () {
      for await (const l of readLines(counted)) {
        // A copy, not a slice: a slice would keep the whole line alive until its decision is out.
        raw.set(l.line, 'text' in l ? Buffer.from(l.text.slice(0, 200)).toString() : '')
        yield l
      }
    }
    const lineBytes = (l: JsonlLine) => ('text' in l ? Buffer.byteLength(l.text) : 0)
    await runBatches(batchesOf(lines(), { batchSize, batchBytes }, lineBytes), {
      prepare: (lines) => (pool === null ? dedup.prepareBatch(lines.map(parseJsonLine)) : pool.prepareLines(lines)),
      decide: (items) => dedup.decide(items),
      emit,
      ahead: pool === null ? 1 : 2,
    })
    for (const s of [out, rejects]) {
      if (s !== null) {
        s.end()
        await once(s, 'finish')
      }
    }
    // The job ends with every document searchable (one refresh; a no-op for the embedded store),
    // as the bulk helper's refreshOnCompletion does: a search or Kibana right after sees them all.
    await opened.store.refresh()
    progress.finish()
    summary = dedup.summary()
    elapsed = progress.elapsedSeconds()
    if (!values.quiet) {
      io.stderr.write(formatSummary(summary, elapsed, threads) + (summary.rejected > 0 ? `\nrejects: ${rejectsPath}` : '') + '\n')
    }
  } finally {
    // The pool stops however the run ended, also one that never got to run (the store did not
    // open, options were refused).
    await (await poolStart?.catch(() => null))?.close()
    await opened?.store.close()
  }
  return 0
}

/** Input files from this size on get a worker pool by default (`--workers auto`). */
export const AUTO_WORKERS_MIN_BYTES = 32_000_000
const AUTO_WORKERS_MAX = 4

/**
 * `--workers auto`: one worker per core (up to 4) for an input file of 32 MB or more, else 1 (no
 * pool). A pool costs each worker its own dictionary load and JIT warm-up, and splits the run
 * memo; `scripts/bench-cli.ts` measures where it starts to pay on 2 cores (7–15 MB; README).
 * Standard input (size unknown) runs in-process.
 */
export function autoWorkers(inputBytes: number | undefined, cores: number): number {
  if (inputBytes === undefined || inputBytes < AUTO_WORKERS_MIN_BYTES || cores < 2) return 1
  return Math.min(cores, AUTO_WORKERS_MAX)
}

/** The end-of-run summary. */
export function formatSummary(s: DedupStatsSnapshot, seconds: number, threads = 1): string {
  const rate = seconds > 0 ? Math.round(s.docs / seconds) : 0
  const layers = (Object.entries(s.byLayer) as [string, number][]).filter(([, n]) => n > 0).map(([l, n]) => `${l} ${n}`).join(', ')
  return [
    `docs ${s.docs}  unique ${s.unique}  duplicates ${s.duplicates}${layers === '' ? '' : ` (${layers})`}  clusters ${s.clusters}  rejected ${s.rejected}`,
    `${formatSeconds(seconds)} elapsed, ${rate} docs/s, ${threads > 1 ? `${threads} workers` : 'in-process (no workers)'}`,
  ].join('\n')
}
