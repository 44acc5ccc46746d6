import { open, type FileHandle } from 'node:fs/promises'
import { resolve } from 'node:path'
import os from 'node:os'
import { createDeduplicator, formatDecision, runIndexJob, OPTION_LIMITS, type Decision, type FingerprintStore } from '../../index.js'
import { parseDuration, type DedupStatsSnapshot, type JsonlLine } from '../../internal.js'
import type { CliIO } from '../io.js'
import { InputError, OutputError, UsageError, fsReason } from '../io.js'
import { parse, intFlag, kFlag, limitFlag, K_RANGE } from '../args.js'
import { openOutputFile, type OutputFile } from '../output-file.js'
import { isRegularOrNew, refuseUnsafeOutputs } from '../output-guard.js'
import { createProgress, formatSeconds } from '../progress.js'
import { decidedBy } from '../summary.js'
import { embeddedStoreDir, INDEX_LAYOUT_HELP, indexLayoutFromFlags, openStoreFromFlags, STORE_HELP, WRITE_FLAGS } from '../store-flags.js'
import { analyzerOptionsFromFlags, ANALYZER_FLAGS, ANALYZER_HELP } from '../analyzer-flags.js'

/** `--batch-mb`: the library's `batchBytes` range in MiB. */
const BATCH_MIB = {
  min: Math.max(1, Math.ceil(OPTION_LIMITS.batchBytes.min / 2 ** 20)),
  max: Math.floor(OPTION_LIMITS.batchBytes.max / 2 ** 20),
  default: OPTION_LIMITS.batchBytes.default / 2 ** 20,
}

/** `1 to 100000 (default 500)`. */
function range(l: { min: number; max: number; default: number }): string {
  return `${l.min} to ${l.max} (default ${l.default})`
}

export const INDEX_HELP = `simdup index <file.jsonl | -> [options]

Reads JSONL (one JSON object a line: {"id", "content", "url"?, "title"?}; id a string or an
integer), decides each document (unique, duplicate, rejected) against everything indexed before
it, stores its fingerprint, and writes one decision per non-blank input line, in input order.

How a duplicate is found, in this order (the decision's layer and rule say which):
  url     same canonical URL                                   (off: --no-url)
  exact   same normalised content                              (off: --no-exact)
  simhash near-duplicate content, by one of four rules:
          simhash     SimHash distance ≤ k (the decision's distance)
          short-text  both texts short (≤ 150 letters and digits): exact character-bigram
                      Jaccard ≥ 0.85 (resemblance); never when a number or a negation differs
          containment both short: the shorter's bigrams ≥ 0.9 contained in the longer's (a
                      line added; sizes within 2×)
          minhash     character 5-gram resemblance ≥ 0.6 at any distance (off: --no-minhash)
  title   same non-generic title                               (on: --title)

  --k N              how many of the 64 SimHash bits may differ for the simhash and short-text
                     rules: ${K_RANGE.replace(')', '')}; up to blocks − min-match). It does not limit the
                     url, exact and minhash routes: a minhash match can show a distance above k.
  --out FILE         decisions JSONL (default: stdout). Written to a temporary file beside FILE
                     and renamed at the end: never a partial line; after a store failure it holds
                     the decisions made (and stored) until then; after an output failure, or
                     when the input cannot be read, FILE is left as it was. Neither output
                     may be the input nor lie inside the store directory
  --rejects FILE     rejected lines with reasons and the start of the raw line (default: next to
                     --out as <out>.rejects.jsonl when --out is a regular file; none when decisions
                     go to stdout or a device, where each rejected line's reason is in its decision)
  --batch N          documents per store round trip: ${range(OPTION_LIMITS.batchSize)}
  --batch-mb N       input MiB per batch: ${range(BATCH_MIB)}; a batch ends at --batch
                     documents or N MiB, whichever comes first: bounds memory for large documents
  --blocks M         fingerprint blocks in the index: ${OPTION_LIMITS.blocks.min} to ${OPTION_LIMITS.blocks.max} (default: the index's own; for a
                     new one 4 on the embedded store, 6 on Elasticsearch; fixed per index)
  --min-match S      blocks that must be equal for a candidate: ${OPTION_LIMITS.minMatch.min} to M − 1 (default M − 3, at
                     least 1: 1 of 4, 3 of 6)
  --window DUR       only match documents indexed within DUR (e.g. 7d, 12h; default: no limit)
  --title            also match on equal, non-generic titles (off by default)
  --no-url           skip the canonical-URL layer
  --no-exact         skip the exact-content layer
  --no-minhash       no MinHash route: changes decisions (lower recall), not cost: the sketch
                     is still computed and stored
  --no-templates     keep every line: do not learn the lines on most pages of a site (its
                     template) and leave them out of later documents' fingerprints
  --workers N|auto   worker threads for parsing + fingerprinting: ${OPTION_LIMITS.workers.min} to ${OPTION_LIMITS.workers.max}, or auto (the
                     default): one per core, up to 4, for an input file of 32 MB or more, else
                     none (in-process): each worker loads its own dictionaries
  --resume           continue a stopped or killed run: a line whose id is stored with the
                     same content (and whose stored match still verifies) is not decided
                     again; its decision is rebuilt from the store, so the output equals a
                     clean run's. Give the run's own settings: stored unique lines stay unique
  --quiet            no progress, no summary (errors are still printed)
${ANALYZER_HELP}
${STORE_HELP}
${INDEX_LAYOUT_HELP}

Ctrl-C (or SIGTERM) stops after the batches in flight: the output files hold whole lines, every
decision in them is stored, exit 130; a second Ctrl-C kills the run at once. Run the same
command with --resume to do the rest.

Exit codes: 0 done (some lines may be rejected), 2 usage error, unreadable input, or every
line rejected (not JSONL?), 3 the store is held by another process, 4 store unavailable, 5 the
store was written by another simdup version, 1 other failures (store or output; the message
names it), 130 stopped.`

const FLAGS = {
  out: { type: 'string' },
  rejects: { type: 'string' },
  batch: { type: 'string' },
  'batch-mb': { type: 'string' },
  resume: { type: 'boolean' },
  quiet: { type: 'boolean' },
  workers: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...WRITE_FLAGS,
  ...ANALYZER_FLAGS,
} as const

/** `simdup index`: the main job. Returns the exit code. */
export async function indexCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, FLAGS)
  if (values.help) {
    io.stdout.write(INDEX_HELP + '\n')
    return 0
  }
  const input = positionals[0]
  if (input === undefined || positionals.length > 1) throw new UsageError('Expected one input file (or - for stdin).')
  // No block flags: the store's scheme (an Elasticsearch index's own, or its default), known once it is open.
  const blocks = limitFlag(values.blocks, 'blocks', OPTION_LIMITS.blocks)
  const minMatch = intFlag(values['min-match'], 'min-match', Math.max(OPTION_LIMITS.minMatch.min, blocks - 3), OPTION_LIMITS.minMatch.min, blocks - 1)
  const blockScheme = values.blocks === undefined && values['min-match'] === undefined ? undefined : { blocks, minMatch }
  const k = kFlag(values.k, blockScheme)
  const batchSize = limitFlag(values.batch, 'batch', OPTION_LIMITS.batchSize)
  const batchBytes = limitFlag(values['batch-mb'], 'batch-mb', BATCH_MIB) * 2 ** 20
  const workersFlag = values.workers ?? 'auto'
  const { min, max } = OPTION_LIMITS.workers
  if (workersFlag !== 'auto' && !/^\d+$/.test(workersFlag)) throw new UsageError(`Expected --workers to be auto or an integer from ${min} to ${max}, got \`${workersFlag}\`.`)
  const workers = workersFlag === 'auto' ? undefined : limitFlag(workersFlag, 'workers', OPTION_LIMITS.workers)
  const windowMs = values.window === undefined ? undefined : parseDuration(values.window)
  const analyzer = analyzerOptionsFromFlags(values, io)
  // The input is opened (and checked to be a readable file) before any output is touched.
  const inputFile = input === '-' ? null : await openInput(resolve(io.cwd, input), input)
  try {
    return await indexOpened(input, inputFile, { values, k, batchSize, batchBytes, workers, blockScheme, windowMs, analyzer }, io)
  } finally {
    await inputFile?.handle.close()
  }
}

async function openInput(path: string, shown: string): Promise<{ handle: FileHandle; size: number }> {
  let handle: FileHandle
  try {
    handle = await open(path, 'r')
  } catch (err) {
    throw new InputError(`cannot read input file ${shown}: ${fsReason(err)}`)
  }
  const st = await handle.stat()
  if (st.isDirectory()) {
    await handle.close()
    throw new InputError(`cannot read input file ${shown}: it is a directory; expected a JSONL file (or - for stdin)`)
  }
  return { handle, size: st.size }
}

type IndexSettings = {
  values: ReturnType<typeof parse<typeof FLAGS>>['values']
  k: number
  batchSize: number
  batchBytes: number
  workers: number | undefined
  blockScheme: { blocks: number; minMatch: number } | undefined
  windowMs: number | undefined
  analyzer: ReturnType<typeof analyzerOptionsFromFlags>
}

async function indexOpened(input: string, inputFile: { handle: FileHandle; size: number } | null, settings: IndexSettings, io: CliIO): Promise<number> {
  const { values, k, batchSize, batchBytes, workers, blockScheme, windowMs, analyzer } = settings
  const total = inputFile?.size
  const threads = workers ?? autoWorkers(total, os.availableParallelism())
  let store: FingerprintStore | undefined
  let out: OutputFile | null = null
  let rejects: OutputFile | null = null
  let rejectsPath: string | null = null
  let rejectsArg: string | null = null
  let committed = false
  let docs = 0
  // First Ctrl-C (or SIGTERM): finish the batches in flight, write whole output files, exit 130.
  // A second one ends the process as usual (the temporary output file is left behind).
  const stop = new AbortController()
  const onSignal = () => stop.abort()
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  const progress = createProgress({
    write: (t) => (values.quiet ? undefined : io.stderr.write(t)),
    isTTY: io.stderr.isTTY === true,
    ...(total === undefined ? {} : { total }),
  })
  const source = inputFile === null ? io.stdin : inputFile.handle.createReadStream({ highWaterMark: 1 << 20, autoClose: false })
  // Per line read and not yet decided: the start of its raw text (for the rejects file) and its
  // bytes. Progress counts the bytes of DECIDED lines: input is read ahead of the decisions.
  const pending = new Map<number, { raw: string; bytes: number }>()
  let decidedBytes = 0
  const early = { seen: 0, objects: 0, first: null as { reason: string; raw: string } | null }
  let firstReject: { reason: string; raw: string } | null = null
  try {
    // The store opens while the workers (when the block scheme is known) load their dictionaries.
    const openDedup = async () => {
      const opened = await openStoreFromFlags(values, io, { layout: indexLayoutFromFlags(values) })
      store = opened.store
      const dedup = createDeduplicator({
        store: opened.store,
        maxDistance: k,
        ...(blockScheme === undefined ? {} : { blockScheme }),
        minhash: values['no-minhash'] !== true,
        templates: values['no-templates'] !== true,
        resume: values.resume === true,
        analyzer,
        layers: { url: !values['no-url'], exact: !values['no-exact'], title: values.title === true },
        ...(windowMs === undefined ? {} : { windowMs }),
      })
      const outPath = values.out === undefined ? null : resolve(io.cwd, values.out)
      // Rejects go next to --out, or where --rejects says; with decisions on stdout, only where asked.
      // (Beside --out only when it is a regular file: never /dev/null.rejects.jsonl.)
      rejectsArg = values.rejects ?? (outPath === null || !(await isRegularOrNew(outPath)) ? null : outPath.replace(/(\.jsonl?)?$/, '.rejects.jsonl'))
      rejectsPath = rejectsArg === null ? null : resolve(io.cwd, rejectsArg)
      await refuseUnsafeOutputs({ input: inputFile?.handle ?? null, stdinFd: io.stdinFd, storeDir: embeddedStoreDir(values, io) }, [['--out', outPath], ['--rejects', rejectsPath]])
      if (outPath !== null) out = await openOutputFile(outPath, `decisions file ${values.out}`)
      return dedup
    }
    const emit = async (decisions: Decision[]) => {
      let text = ''
      let rejectText = ''
      for (const d of decisions) {
        text += formatDecision(d) + '\n'
        if (d.status === 'rejected') {
          const start = d.line === null ? null : (pending.get(d.line)?.raw ?? null)
          firstReject ??= { reason: d.reason ?? '', raw: start ?? '' }
          rejectText += JSON.stringify({ line: d.line, id: d.id, reason: d.reason, raw: start }) + '\n'
        }
        if (d.line !== null) {
          decidedBytes += pending.get(d.line)?.bytes ?? 0
          pending.delete(d.line)
        }
      }
      docs += decisions.length // decided and stored, whether or not the output takes them
      const file = out as OutputFile | null
      if (file === null) {
        io.stdout.write(text)
        await io.stdout.flush?.()
      } else await file.write(text)
      if (rejectText !== '' && rejectsPath !== null) {
        rejects ??= await openOutputFile(rejectsPath, `rejects file ${rejectsArg}`)
        await rejects.write(rejectText)
      }
      progress.update(decidedBytes, docs)
    }
    const job = await runIndexJob({
      dedup: openDedup,
      input: source,
      batchSize,
      batchBytes,
      workers: threads,
      analyzer,
      ...(blockScheme === undefined ? {} : { blockScheme }),
      onLine: (l) => {
        // A copy, not a slice: a slice would keep the whole line alive until its decision is out.
        const start = 'text' in l ? l.text.slice(0, 200) : (l.head ?? '').slice(0, 200)
        pending.set(l.line, { raw: Buffer.from(start).toString(), bytes: ('text' in l ? Buffer.byteLength(l.text) : l.bytes ?? 0) + 1 })
        checkLooksLikeJsonl(l, early, input)
      },
      onDecisions: emit,
      signal: stop.signal,
    })
    for (const f of [out, rejects] as (OutputFile | null)[]) await f?.commit()
    committed = true
    progress.finish()
    const summary = job.summary
    if (!values.quiet) {
      const where = summary.rejected === 0 ? '' : rejectsPath !== null ? `\nrejects: ${rejectsPath}` : '\nrejected lines: each one\'s reason is in its decision (--rejects FILE also keeps the raw lines)'
      io.stderr.write(formatSummary(summary, progress.elapsedSeconds(), threads) + where + '\n')
    }
    if (job.stopped) {
      io.stderr.write(`simdup index: stopped by a signal after deciding ${docs} line(s), all of them stored and in the decisions; run the same command with --resume to do the rest (the lines already stored are not decided again)\n`)
      return 130
    }
    if (summary.docs === 0) {
      // An empty file (or only blank lines) is most likely a mistake: say so; nothing was decided.
      io.stderr.write(`simdup index: warning: ${input === '-' ? 'standard input' : input} has no lines to index (empty, or blank lines only); nothing was decided\n`)
    }
    if (summary.docs > 0 && summary.rejected === summary.docs) {
      const reject = firstReject as { reason: string; raw: string } | null
      io.stderr.write(`simdup index: ${allRejectedMessage(input, summary.docs, reject)}\n`)
      return 2
    }
    return 0
  } catch (err) {
    if (!(err instanceof OutputError) && docs > 0) {
      // The store (or anything but the output) failed: keep the whole lines written so far. Each
      // was emitted after its batch was stored, so every decision in --out is in the store.
      for (const f of [out, rejects] as (OutputFile | null)[]) await f?.commit().catch(() => undefined)
      committed = true
    }
    if (err instanceof OutputError && err.closedPipe && out === null) {
      // `simdup index … | head`: the reader is gone. What was decided is stored; stop quietly.
      if (!values.quiet) io.stderr.write(`simdup index: standard output closed; stopped after deciding ${docs} line(s), all of them stored\n`)
      return 0
    }
    throw err
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    if (!committed) for (const f of [out, rejects] as (OutputFile | null)[]) await f?.abort()
    await (store as FingerprintStore | undefined)?.close()
  }
}

/** Lines looked at before a run whose lines are none of them JSON objects stops (`checkLooksLikeJsonl`). */
export const JSONL_CHECK_LINES = 20

/**
 * Stops the run (an InputError, before the first batch of the default size is decided) when
 * none of the first `JSONL_CHECK_LINES` lines is a JSON object: a CSV or a text file would
 * otherwise print a rejected decision per line before the summary says it is not JSONL.
 */
function checkLooksLikeJsonl(l: JsonlLine, state: { seen: number; objects: number; first: { reason: string; raw: string } | null }, input: string): void {
  if (state.seen >= JSONL_CHECK_LINES) return
  state.seen++
  let reason: string | null = null
  if ('error' in l) reason = l.error
  else {
    try {
      const v = JSON.parse(l.text) as unknown
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) state.objects++
      else reason = 'not a JSON object'
    } catch (err) {
      reason = `invalid JSON: ${(err as Error).message}`
    }
  }
  if (reason !== null) state.first ??= { reason: `line ${l.line}: ${reason}`, raw: 'text' in l ? l.text.slice(0, 200) : (l.head ?? '') }
  if (state.seen === JSONL_CHECK_LINES && state.objects === 0) {
    throw new InputError(`stopped at line ${l.line}: ${allRejectedMessage(input, state.seen, state.first).replace(/^every line of (.*?) was rejected \((\d+) of \d+\)/, 'the first $2 lines of $1 are not JSON objects')}`)
  }
}

/** What to say when not one line of an input could be used: it is probably not JSONL. */
export function allRejectedMessage(input: string, lines: number, first: { reason: string; raw: string } | null): string {
  const name = input === '-' ? 'standard input' : input
  const start = first?.raw.trimStart() ?? ''
  const hint = start.startsWith('[')
    ? ` It looks like a JSON array: convert it to JSONL with \`jq -c '.[]' ${input === '-' ? 'FILE' : input}\`.`
    : ''
  return (
    `every line of ${name} was rejected (${lines} of ${lines}): expected JSONL, one JSON object per line such as ` +
    `{"id": "1", "content": "…"}.${hint}` +
    (first === null ? '' : ` First reason: ${first.reason}`)
  )
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
  const layers = decidedBy(s.byLayer, s.byRule)
  return [
    `docs ${s.docs}  unique ${s.unique}  duplicates ${s.duplicates}${layers === '' ? '' : ` (${layers})`}  clusters ${s.clusters}  rejected ${s.rejected}` +
      (s.resumed > 0 ? `  resumed ${s.resumed} (already stored: not decided again)` : ''),
    `${formatSeconds(seconds)} elapsed, ${rate} docs/s, ${threads > 1 ? `${threads} workers` : 'in-process (no workers)'}`,
  ].join('\n')
}
