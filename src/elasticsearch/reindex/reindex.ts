import { mkdir, open, readFile, truncate, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Client } from '@elastic/elasticsearch'
import { DedupError } from '../../errors.js'
import type { Decision } from '../../types.js'
import { createAnalyzer, type Analyzer, type AnalyzerOptions } from '../../fingerprint/analyzer.js'
import { createDeduplicator } from '../../engine/deduplicator.js'
import { resolveDeduplicatorOptions } from '../../engine/options.js'
import type { PreparedItem } from '../../engine/prepare.js'
import { isAnalyzer, toPortable } from '../../engine/prepare-pool.js'
import { runJob, type JobBatch, type JobDocument } from '../../engine/index-job.js'
import type { FingerprintStore } from '../../store/store.js'
import { createElasticsearchStore, DEFAULT_ELASTICSEARCH_STORE_OPTIONS, type ElasticsearchStore } from '../store.js'
import { resolveReindexOptions, type ReindexCounts, type ReindexOptions, type ResolvedReindexOptions } from './options.js'
import { explainReason, mapHit, type MappedHit } from './_fields.js'
import { MISSING_NUMBER, type FieldSort, type SortValue } from './_sort.js'
import {
  copyDocs, countDocs, createDest, dedupStamps, indexExists, inspectSource, makeRequester, maxIndexedAt, sortOfField,
} from './_es.js'
import { openWalk, pitAlive, type SourceWalk, type WalkHit } from './_walk.js'
import { CHECKPOINT_FORMAT, jobDifferences, lockCheckpoint, readCheckpoint, writeCheckpoint, type ReindexCheckpoint, type ReindexJob } from './_checkpoint.js'
import { JobClock, JobStore, TrailingWindow } from './_run-store.js'

/** How a run ended. */
export type ReindexStatus = 'done' | 'already-done' | 'stopped'

/** What `reindex` resolves with. */
export interface ReindexResult {
  /** `done`: the walk finished; `already-done`: the checkpoint said so and nothing was touched; `stopped`: `maxBatches` / `signal`, resumable. */
  status: ReindexStatus
  /** Cumulative over the whole job (every process that worked on it). */
  counts: ReindexCounts
  /** Clusters started (= unique documents). */
  clusters: number
  /** Largest clusters (size ≥ 2), largest first; filled when the job is done. */
  topClusters: { clusterId: string; size: number }[]
  /** Documents in the source when this run started. */
  total: number
  /** Batches this process completed. */
  batches: number
  /** Milliseconds this process ran. */
  elapsedMs: number
  /** Documents this process decided per second. */
  docsPerSecond: number
  /** How this process continued an earlier one: on the same point in time (`exact`), by re-reading (`rescan`), or not at all. */
  resumed: 'exact' | 'rescan' | null
  reader: 'pit' | 'scroll' | null
  /** The index written: `dest`, or the source in place. */
  target: string
  checkpointFile: string | null
  rejectsFile: string | null
}

/** One hit on its way through a batch. */
interface Row {
  hit: WalkHit
  mapped: MappedHit
  /** Sort-field time (window only). */
  time: number
}

const EMPTY_COUNTS = (): ReindexCounts => ({
  docs: 0, unique: 0, duplicates: 0, byLayer: { url: 0, exact: 0, simhash: 0, title: 0 }, byRule: { simhash: 0, 'short-text': 0, containment: 0, minhash: 0 }, rejected: 0, copied: 0, skipped: 0,
})

/** A store that must never be used: only lets the engine's option validation run before connecting. */
const NO_STORE = new Proxy({}, { get: () => () => Promise.reject(new Error('not connected')) }) as FingerprintStore

/** The query that re-reads a sorted source from sort value `v` on (docs missing the field sort last). */
function fromValueQuery(field: string, sort: FieldSort, v: SortValue): Record<string, unknown> {
  const missing = { bool: { must_not: [{ exists: { field } }] } }
  if (v === null || (sort.numeric && v === MISSING_NUMBER)) return missing
  const range = { range: { [field]: { gte: v, ...(sort.isTime ? { format: 'epoch_millis' } : {}) } } }
  return { bool: { should: [range, missing], minimum_should_match: 1 } }
}

function withoutDedup(source: Record<string, unknown> | undefined): Record<string, unknown> {
  const copy = { ...source }
  // A source that already carries simdup fields (an earlier run) gets fresh ones, never a mix.
  delete copy.dedup
  return copy
}

/**
 * Walks an existing index in one global order (point in time + `search_after`, optionally sliced
 * and merged back), decides every document with the engine against an Elasticsearch store on the
 * written index, and writes the `dedup` object into copies (`dest`) or into the source documents
 * themselves (`inPlace`, partial updates that touch nothing else). Rejected documents are counted
 * and written to the rejects file. Progress is checkpointed after each acknowledged batch, so a
 * killed run resumes where it stopped; a finished job run again changes nothing.
 *
 * @example
 * const result = await reindex({ node: 'http://127.0.0.1:9200', source: 'news', dest: 'news-dedup', sort: 'published_at' })
 * result.counts.duplicates // near-duplicates found; each points at the earliest document of its cluster
 */
export async function reindex(options: ReindexOptions): Promise<ReindexResult> {
  const o = resolveReindexOptions(options)
  const log = options.log ?? (() => undefined)
  const started = performance.now()
  const tuning = options.store ?? {}
  const policy = { retries: tuning.retries ?? DEFAULT_ELASTICSEARCH_STORE_OPTIONS.retries, backoffMs: tuning.backoffMs ?? DEFAULT_ELASTICSEARCH_STORE_OPTIONS.backoffMs }
  const given = options.dedup?.analyzer
  // Worker threads rebuild the analyzer from its options: checked (toPortable) before anything is touched.
  if (o.workers > 1) toPortable(given)
  const workerAnalyzer = o.workers > 1 && given !== undefined && !isAnalyzer(given) ? given : undefined
  const analyzer = isAnalyzer(given) ? given : createAnalyzer(given ?? {})
  // Validate the decision settings before anything is created or written.
  const decider = resolveDeduplicatorOptions({ ...options.dedup, analyzer, store: NO_STORE })
  const job: ReindexJob = {
    source: o.source,
    dest: o.dest,
    fields: { ...o.fields },
    idField: o.idField,
    sort: o.sort,
    windowMs: o.windowMs ?? null,
    batchSize: o.batchSize,
    decider: JSON.stringify({
      version: analyzer.version, maxDistance: decider.maxDistance, blockScheme: decider.blockScheme, layers: decider.layers,
      minhash: decider.minhash, minResemblance: decider.minResemblance, maxContentLength: decider.maxContentLength,
      // Named only when off, so checkpoints written before the option was part of the job still match.
      ...(decider.templates ? {} : { templates: false }),
    }),
  }
  const lock = o.checkpointFile === null ? null : await lockCheckpoint(o.checkpointFile)
  try {
    const cp = o.checkpointFile === null || o.restart ? null : await readCheckpoint(o.checkpointFile)
    if (cp !== null) {
      const diff = jobDifferences(cp.job, job)
      if (diff.length > 0) {
        throw new DedupError(
          'CONFLICT',
          `Checkpoint ${o.checkpointFile} belongs to another job; it differs in ${diff.join('; ')}. ` +
            'Run with the same options, name another checkpoint file, or pass `restart` to start over.',
        )
      }
      if (cp.done) {
        // No log line: the result's status says it (the CLI prints it once, in its summary).
        return {
          status: 'already-done', counts: cp.counts, clusters: cp.counts.unique, topClusters: cp.topClusters, total: cp.total, batches: 0,
          elapsedMs: performance.now() - started, docsPerSecond: 0, resumed: null, reader: cp.reader, target: o.target,
          checkpointFile: o.checkpointFile, rejectsFile: o.rejectsFile,
        }
      }
    }
    return await run(o, options, { cp, job, analyzer, workerAnalyzer, policy, log, started })
  } finally {
    await lock?.release()
  }
}

interface RunContext {
  cp: ReindexCheckpoint | null
  job: ReindexJob
  analyzer: Analyzer
  /** The analyzer options worker threads rebuild (`workers` > 1). */
  workerAnalyzer: AnalyzerOptions | undefined
  policy: { retries: number; backoffMs: number }
  log: (message: string) => void
  started: number
}

async function run(o: ResolvedReindexOptions, options: ReindexOptions, ctx: RunContext): Promise<ReindexResult> {
  const { cp, log } = ctx
  const tuning = options.store ?? {}
  let boot: ElasticsearchStore | null = null
  let store: ElasticsearchStore | null = null
  let rejects: FileHandle | null = null
  try {
    let client: Client
    if (options.client !== undefined) client = options.client
    else {
      // No client given: open a store on the source just for its connection, so the client is made in one
      // place (`connect` in connection.ts: nodes, auth, CA file, version check) and closed with `boot`.
      boot = await createElasticsearchStore({
        node: options.node!,
        index: o.source,
        ensureIndex: 'none',
        retries: ctx.policy.retries,
        backoffMs: ctx.policy.backoffMs,
        ...(options.auth === undefined ? {} : { auth: options.auth }),
        ...(options.caFile === undefined ? {} : { caFile: options.caFile }),
        ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
      })
      client = boot.client
    }

    const request = makeRequester(ctx.policy, client, options.node, options.auth)
    const info = await inspectSource(client, o.source, request)
    if (o.inPlace && info.indices.length !== 1) {
      throw new DedupError('INVALID_OPTION', `In place needs \`source\` to be one index, but \`${o.source}\` resolves to ${info.indices.length} (${info.indices.slice(0, 3).join(', ')}…). Reindex each, or use \`dest\`.`)
    }
    const sortInfo = o.sort === null ? null : await sortOfField(client, o.source, o.sort, request)
    if (o.windowMs !== undefined && sortInfo?.isTime !== true) {
      throw new DedupError('INVALID_OPTION', `The window needs \`sort\` to be a date field; \`${o.sort}\` is not.`)
    }
    const total = await countDocs(client, o.source, request)
    if (o.dest !== null) {
      if (!(await indexExists(client, o.dest, request))) await createDest(client, o.dest, info, request, o)
      else if (cp === null && !o.restart) {
        throw new DedupError(
          'CONFLICT',
          `Index \`${o.dest}\` already exists and no checkpoint (${o.checkpointFile ?? 'none'}) continues a job into it. ` +
            'Pass `restart` to reindex into it anyway (documents with the same id are replaced), or choose a new `dest`.',
        )
      }
    }
    store = await createElasticsearchStore({
      client,
      index: o.target,
      // Adds the dedup mapping to the source (in place) or checks it on dest; writes merge `dedup` only.
      ensureIndex: 'add-fields',
      sharedIndex: true,
      // The documents written to exist (the source's, or copies made first): one deleted while
      // the job runs must not come back as a document of dedup fields only.
      upsert: false,
      // Dedup fields an older simdup left here are overwritten, never matched (JobStore).
      requireSequence: false,
      refresh: false,
      ...tuning,
    })

    // ---- the job's clock: which records this job wrote, and when this process started ----
    const prior = (cp?.segments ?? []).filter(([a, b]) => b >= a).map(([a, b]) => [a, b] as [number, number])
    const latestPrior = prior.reduce((m, [, b]) => Math.max(m, b), 0)
    const start = Math.max(Date.now(), ((await maxIndexedAt(client, o.target, request)) ?? 0) + 1, latestPrior + 1)
    const clock = new JobClock(prior, start)
    const segments: [number, number][] = [...prior, [start, start - 1]]
    const window = o.windowMs === undefined ? null : new TrailingWindow(o.windowMs)
    const jobStore = new JobStore(store, clock, window)
    const engine = createDeduplicator({ ...options.dedup, analyzer: ctx.analyzer, store: jobStore, now: clock.now, versionCheck: false })
    const version = ctx.analyzer.version
    const counts = cp === null ? EMPTY_COUNTS() : structuredClone(cp.counts)
    const docsAtStart = counts.docs

    // ---- rejects file: cut back to what the checkpoint covers, then append ----
    let rejectsBytes = 0
    const rejectedBefore = new Set<string>()
    if (o.rejectsFile !== null) {
      await mkdir(dirname(o.rejectsFile), { recursive: true })
      rejectsBytes = cp?.rejectsBytes ?? 0
      await truncate(o.rejectsFile, rejectsBytes).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err
      })
      if (cp !== null && rejectsBytes > 0) {
        // Rejected documents carry no dedup record; the rejects file is how a re-read recognises them.
        for (const line of (await readFile(o.rejectsFile, 'utf8')).split('\n')) {
          if (line === '') continue
          const r = JSON.parse(line) as { _index?: string; _id?: string }
          rejectedBefore.add(`${r._index}\u0000${r._id}`)
        }
      }
      rejects = await open(o.rejectsFile, 'a')
    }

    if (cp !== null) {
      // What an earlier process wrote may not be searchable yet (its pending list died with it, and
      // an idle index skips scheduled refreshes): lookups, and in place the re-read's dedup stamps,
      // must see it.
      await store.refresh()
    }

    // ---- where to start reading ----
    let resumed: 'exact' | 'rescan' | null = null
    let after: SortValue[] | null = null
    let pitId: string | null = null
    let query: Record<string, unknown> | undefined
    if (cp !== null && cp.after !== null) {
      if (cp.reader === 'pit' && cp.pitId !== null && o.reader !== 'scroll' && (await pitAlive(client, cp.pitId, o.keepAlive, request, o.source))) {
        resumed = 'exact'
        after = cp.after
        pitId = cp.pitId
        log(`resuming after ${JSON.stringify(cp.after)} on the same point in time (${cp.counts.docs} documents done)`)
      } else {
        // A new point in time orders documents differently (segments merge, in-place updates move
        // documents), so position alone cannot be trusted: re-read from the last sort value (or the
        // start) and skip what this job already decided, recognised by its clock.
        resumed = 'rescan'
        if (o.sort !== null && sortInfo !== null) query = fromValueQuery(o.sort, sortInfo, cp.after[0] ?? null)
        log(`point in time of the checkpoint is gone; re-reading ${query === undefined ? 'from the start' : `from ${o.sort} ≥ ${JSON.stringify(cp.after[0])}`} and skipping documents already done`)
      }
    }

    /** The rows this job already decided in an earlier process (by dedup stamp, or listed in the rejects file). */
    const doneRows = async (rows: readonly Row[]): Promise<Set<Row>> => {
      const done = new Set<Row>()
      for (const r of rows) if (rejectedBefore.has(`${r.hit._index}\u0000${r.hit._id}`)) done.add(r)
      const isDone = (stamp: { version: unknown; indexedAt: unknown } | undefined) => {
        if (stamp === undefined || stamp.version !== version) return false
        const at = Number(stamp.indexedAt)
        return Number.isFinite(at) && clock.wasDoneBefore(at)
      }
      if (o.inPlace) {
        for (const r of rows) {
          const d = r.hit._source?.dedup as { version?: unknown; indexed_at?: unknown } | null | undefined
          if (d != null && isDone({ version: d.version, indexedAt: d.indexed_at })) done.add(r)
        }
      } else {
        const ids = rows.map((r) => r.mapped.id).filter((id): id is string => id !== null)
        const stamps = await dedupStamps(client, o.target, ids, request)
        for (const r of rows) if (r.mapped.id !== null && isDone(stamps.get(r.mapped.id))) done.add(r)
      }
      return done
    }
    const timeOf = (hit: WalkHit): number => (typeof hit.sort[0] === 'number' ? hit.sort[0] : MISSING_NUMBER)
    const toRows = (hits: readonly WalkHit[]): Row[] =>
      hits.map((hit) => ({ hit, mapped: mapHit(hit._id, hit._source, o.fields, o.idField), time: window === null ? 0 : timeOf(hit) }))
    // In place, only the mapped fields are read (plus `dedup` to recognise done documents); a copy needs everything.
    const sourceFields = (withDedup: boolean): true | string[] => {
      if (!o.inPlace) return true
      const f = [o.fields.content, o.fields.title, o.fields.url].filter((x): x is string => x !== null)
      return withDedup ? [...f, 'dedup'] : f
    }
    const sortClauses = sortInfo === null ? [] : [sortInfo.clause]

    // ---- window: rebuild the trailing window of documents this job already decided ----
    if (window !== null && cp !== null && cp.after !== null && o.sort !== null) {
      const last = typeof cp.after[0] === 'number' ? cp.after[0] : MISSING_NUMBER
      const rebuild = await openWalk({
        client, index: o.source, request, sort: sortClauses, slices: 1, pageSize: 1000, keepAlive: o.keepAlive, source: sourceFields(true),
        after: null, pitId: null, reader: o.reader, log,
        query: last === MISSING_NUMBER
          ? { bool: { must_not: [{ exists: { field: o.sort } }] } }
          : { range: { [o.sort]: { gte: last - window.windowMs, lte: last, format: 'epoch_millis' } } },
      })
      try {
        for await (const hits of rebuild.batches(1000)) {
          const rows = toRows(hits)
          for (const r of await doneRows(rows)) if (r.mapped.id !== null) window.add(r.mapped.id, r.time)
        }
      } finally {
        await rebuild.close()
      }
      log(`window: ${window.size} documents of the last ${o.windowMs} ms reloaded`)
    }

    const walk: SourceWalk = await openWalk({
      client, index: o.source, request, sort: sortClauses, slices: o.slices, pageSize: o.batchSize, keepAlive: o.keepAlive,
      source: sourceFields(resumed === 'rescan'), after, pitId, reader: o.reader, log, ...(query === undefined ? {} : { query }),
    })
    let decidedHere = 0
    let sinceRefresh = 0

    let lastAfter: SortValue[] | null = cp?.after ?? null
    const save = async (afterValues: SortValue[] | null, done: boolean, top: { clusterId: string; size: number }[]) => {
      lastAfter = afterValues
      if (o.checkpointFile === null) return
      await writeCheckpoint(o.checkpointFile, {
        format: CHECKPOINT_FORMAT, job: ctx.job, runStartedAt: cp?.runStartedAt ?? start, segments, after: afterValues, pitId: walk.pitId,
        reader: walk.kind, counts, rejectsBytes, total, done, topClusters: top, updatedAt: new Date().toISOString(),
      })
    }

    if (cp === null) {
      // Claim the checkpoint file now: after a `restart`, a crash before the first batch must not
      // leave the old job's "done" behind.
      await save(null, false, [])
    }

    /** The walk's hits as the job's documents; after a re-read, those an earlier process decided are skipped. */
    const documents = async function* (): AsyncGenerator<JobDocument<Row>> {
      for await (const hits of walk.batches(o.batchSize)) {
        if (o.inPlace) {
          const routed = hits.find((h) => h._routing !== undefined)
          if (routed !== undefined) {
            throw new DedupError('INVALID_INPUT', `Document \`${routed._id}\` of \`${routed._index}\` uses custom routing; in-place updates address documents by id only. Reindex into a \`dest\` instead.`)
          }
        }
        const rows = toRows(hits)
        const done = resumed === 'rescan' ? await doneRows(rows) : null
        for (const r of rows) yield { input: r.mapped.item, ref: r, skip: done?.has(r) === true }
      }
    }

    /** A batch's store round trips: the copies into `dest` first, then the decisions. */
    const decide = async (prepared: PreparedItem[], batch: JobBatch<Row>): Promise<Decision[]> => {
      const rows = batch.decided
      if (window !== null) for (const r of batch.skipped) if (r.mapped.id !== null) window.add(r.mapped.id, r.time)
      const items = [...prepared]
      if (o.dest !== null) {
        const copies: { id: string; source: Record<string, unknown> }[] = []
        for (const r of rows) if (r.mapped.id !== null) copies.push({ id: r.mapped.id, source: withoutDedup(r.hit._source) })
        const failed = copies.length === 0 ? new Map<string, string>() : await copyDocs(client, o.dest, copies, ctx.policy, request)
        counts.copied += copies.length - failed.size
        rows.forEach((r, i) => {
          const why = r.mapped.id === null ? undefined : failed.get(r.mapped.id)
          // No copy, no dedup fields: an update would otherwise create a document of dedup fields only.
          if (why !== undefined) items[i] = { ok: false, id: r.mapped.id, line: null, reason: `copy into \`${o.dest}\` failed: ${why}` }
        })
      }
      // With a window, a batch is decided in parts no wider than the window: the engine matches
      // documents of one decide() call with each other without looking at time.
      const decisions: Decision[] = []
      let from = 0
      while (from < rows.length) {
        let to = from + 1
        if (window !== null) while (to < rows.length && rows[to]!.time - rows[from]!.time <= window.windowMs) to++
        else to = rows.length
        if (window !== null) {
          window.evictBefore(rows[from]!.time)
          jobStore.batchTimes = new Map(rows.slice(from, to).flatMap((r) => (r.mapped.id === null ? [] : [[r.mapped.id, r.time] as [string, number]])))
        }
        const part = await engine.decide(items.slice(from, to))
        decisions.push(...part)
        if (window !== null) part.forEach((d, k) => d.status !== 'rejected' && d.id !== null && window.add(d.id, rows[from + k]!.time))
        from = to
      }
      return decisions
    }

    /** After a batch is written: its rejects, then the checkpoint, each acknowledged; then progress. */
    const onDecisions = async (decisions: Decision[], batch: JobBatch<Row>): Promise<void> => {
      let rejectText = ''
      decisions.forEach((d, i) => {
        counts.docs++
        if (d.status === 'rejected') {
          counts.rejected++
          const hit = batch.decided[i]!.hit
          rejectText += JSON.stringify({ _index: hit._index, _id: hit._id, id: d.id, reason: explainReason(d.reason ?? '', o.fields) }) + '\n'
        } else if (d.layer === null) counts.unique++
        else {
          counts.duplicates++
          counts.byLayer[d.layer]++
          if (d.layer === 'simhash' && d.rule !== null && counts.byRule !== undefined) counts.byRule[d.rule]++
        }
      })
      if (rejects !== null && rejectText !== '') {
        const bytes = Buffer.from(rejectText)
        await rejects.write(bytes)
        await rejects.sync()
        rejectsBytes += bytes.length
      }
      decidedHere += decisions.length
      sinceRefresh += decisions.length
      if (sinceRefresh >= o.refreshEvery) {
        await store!.refresh()
        sinceRefresh = 0
      }
      counts.skipped += batch.skipped.length
      segments[segments.length - 1]![1] = clock.latest
      await save(batch.refs[batch.refs.length - 1]!.hit.sort, false, [])
      options.onProgress?.({ counts, total, docsAtStart, batches: batch.number, elapsedMs: performance.now() - ctx.started })
    }

    // The one job runner (`simdup index`'s): batches, preparation ahead (this thread or the worker
    // pool) of the in-order round trips, the stop, and the final refresh.
    const job = await runJob<Row>({
      dedup: engine,
      documents: documents(),
      batchSize: o.batchSize,
      workers: o.workers,
      ...(ctx.workerAnalyzer === undefined ? {} : { analyzer: ctx.workerAnalyzer }),
      decide,
      onDecisions,
      ...(o.maxBatches === undefined ? {} : { maxBatches: o.maxBatches }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
    const stopped = job.stopped
    const batches = job.batches

    let topClusters: { clusterId: string; size: number }[] = []
    if (!stopped) {
      // The runner's final refresh made every decision searchable.
      topClusters = await store.topClusters(5)
      await walk.close()
      await save(lastAfter, true, topClusters)
    }
    const elapsedMs = performance.now() - ctx.started
    return {
      status: stopped ? 'stopped' : 'done', counts, clusters: counts.unique, topClusters, total, batches, elapsedMs,
      docsPerSecond: elapsedMs > 0 ? (decidedHere * 1000) / elapsedMs : 0, resumed, reader: walk.kind, target: o.target,
      checkpointFile: o.checkpointFile, rejectsFile: o.rejectsFile,
    }
  } finally {
    await rejects?.close()
    await store?.close()
    await boot?.close()
  }
}
