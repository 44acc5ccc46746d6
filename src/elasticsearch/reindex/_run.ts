import { DedupError } from '../../errors.js'
import { createDeduplicator } from '../../engine/deduplicator.js'
import { runJob, type JobDocument } from '../../engine/index-job.js'
import { createElasticsearchStore, type ElasticsearchStore } from '../store.js'
import type { ReindexCounts, ReindexOptions, ResolvedReindexOptions } from './options.js'
import { makeRequester, maxIndexedAt } from './_es.js'
import { openWalk } from './_walk.js'
import type { ReindexCheckpoint } from './checkpoint.js'
import { JobClock, JobStore, TrailingWindow } from './_run-store.js'
import { connect, type ReindexConnection } from './_connect.js'
import { prepareSource } from './_prepare.js'
import { RejectsFile } from './_rejects.js'
import { startPoint } from './_start.js'
import { doneRows, sourceFields, toRows, type DoneContext, type Row } from './_rows.js'
import { rebuildWindow } from './_rebuild-window.js'
import { CheckpointWriter } from './_save.js'
import { ReindexBatches } from './_batches.js'
import type { JobDescription } from './_job.js'
import type { ReindexResult } from './result.js'

/** What `reindex` hands its run: the checkpoint it continues (null: a new job) and the job it described. */
export interface RunContext extends JobDescription {
  cp: ReindexCheckpoint | null
  policy: { retries: number; backoffMs: number }
  log: (message: string) => void
  started: number
}

const EMPTY_COUNTS = (): ReindexCounts => ({
  docs: 0, unique: 0, duplicates: 0, byLayer: { url: 0, exact: 0, simhash: 0, title: 0 }, byRule: { simhash: 0, 'short-text': 0, containment: 0, minhash: 0 }, rejected: 0, copied: 0, skipped: 0,
})

/**
 * One process's part of a job, in order: connect, check the source and prepare the target, open
 * the store on the written index and the job's clock, the rejects file, where to start reading
 * (and the window's reload on a resume); then the job runner over the walk's batches
 * (`ReindexBatches`), and the final checkpoint when the walk is done.
 */
export async function runReindex(o: ResolvedReindexOptions, options: ReindexOptions, ctx: RunContext): Promise<ReindexResult> {
  const { cp, log } = ctx
  const tuning = options.store ?? {}
  let connection: ReindexConnection | null = null
  let store: ElasticsearchStore | null = null
  let rejects: RejectsFile | null = null
  try {
    connection = await connect(o, options, ctx.policy)
    const { client } = connection
    const request = makeRequester(ctx.policy, client, options.node, options.auth)
    const { sortInfo, total } = await prepareSource(client, o, cp, request)
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

    // The job's clock: which records this job wrote, and when this process started.
    const prior = (cp?.segments ?? []).filter(([a, b]) => b >= a).map(([a, b]) => [a, b] as [number, number])
    const latestPrior = prior.reduce((m, [, b]) => Math.max(m, b), 0)
    const start = Math.max(Date.now(), ((await maxIndexedAt(client, o.target, request)) ?? 0) + 1, latestPrior + 1)
    const clock = new JobClock(prior, start)
    const segments: [number, number][] = [...prior, [start, start - 1]]
    const window = o.windowMs === undefined ? null : new TrailingWindow(o.windowMs)
    const jobStore = new JobStore(store, clock, window)
    const engine = createDeduplicator({ ...options.dedup, analyzer: ctx.analyzer, store: jobStore, now: clock.now, versionCheck: false })
    const counts = cp === null ? EMPTY_COUNTS() : structuredClone(cp.counts)
    const docsAtStart = counts.docs

    rejects = o.rejectsFile === null ? RejectsFile.none() : await RejectsFile.open(o.rejectsFile, cp)

    if (cp !== null) {
      // What an earlier process wrote may not be searchable yet (its pending list died with it, and
      // an idle index skips scheduled refreshes): lookups, and in place the re-read's dedup stamps,
      // must see it.
      await store.refresh()
    }

    const { resumed, after, pitId, query } = await startPoint(client, o, cp, sortInfo, request, log)
    const done: DoneContext = { o, client, request, version: ctx.analyzer.version, clock, rejectedBefore: rejects.rejectedBefore }
    const sortClauses = sortInfo === null ? [] : [sortInfo.clause]
    if (window !== null && cp !== null && cp.after !== null && o.sort !== null) await rebuildWindow(window, cp.after, o.sort, sortClauses, done, log)

    const walk = await openWalk({
      client, index: o.source, request, sort: sortClauses, slices: o.slices, pageSize: o.batchSize, keepAlive: o.keepAlive,
      source: sourceFields(o, resumed === 'rescan'), after, pitId, reader: o.reader, log, ...(query === undefined ? {} : { query }),
    })
    const checkpoint = new CheckpointWriter(
      o.checkpointFile, { job: ctx.job, runStartedAt: cp?.runStartedAt ?? start, segments, counts, rejects, total, walk }, cp?.after ?? null,
    )
    if (cp === null) {
      // Claim the checkpoint file now: after a `restart`, a crash before the first batch must not
      // leave the old job's "done" behind.
      await checkpoint.save(null, false, [])
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
        const rows = toRows(hits, o, window)
        const skip = resumed === 'rescan' ? await doneRows(done, rows) : null
        for (const r of rows) yield { input: r.mapped.item, ref: r, skip: skip?.has(r) === true }
      }
    }

    const batches = new ReindexBatches({
      o, client, request, policy: ctx.policy, store, engine, jobStore, window, clock, segments, counts, rejects, checkpoint,
      onProgress: options.onProgress, total, docsAtStart, started: ctx.started,
    })
    // The one job runner (`simdup index`'s): batches, preparation ahead (this thread or the worker
    // pool) of the in-order round trips, the stop, and the final refresh.
    const job = await runJob<Row>({
      dedup: engine,
      documents: documents(),
      batchSize: o.batchSize,
      workers: o.workers,
      ...(ctx.workerAnalyzer === undefined ? {} : { analyzer: ctx.workerAnalyzer }),
      decide: batches.decide,
      onDecisions: batches.onDecisions,
      ...(o.maxBatches === undefined ? {} : { maxBatches: o.maxBatches }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })

    let topClusters: { clusterId: string; size: number }[] = []
    if (!job.stopped) {
      // The runner's final refresh made every decision searchable.
      topClusters = await store.topClusters(5)
      await walk.close()
      await checkpoint.save(checkpoint.lastAfter, true, topClusters)
    }
    const elapsedMs = performance.now() - ctx.started
    return {
      status: job.stopped ? 'stopped' : 'done', counts, clusters: counts.unique, topClusters, total, batches: job.batches, elapsedMs,
      docsPerSecond: elapsedMs > 0 ? (batches.decidedHere * 1000) / elapsedMs : 0, resumed, reader: walk.kind, target: o.target,
      checkpointFile: o.checkpointFile, rejectsFile: o.rejectsFile,
    }
  } finally {
    await rejects?.close()
    await store?.close()
    await connection?.boot?.close()
  }
}
