import { DedupError } from '../../errors.js'
import { DEFAULT_ELASTICSEARCH_STORE_OPTIONS } from '../store.js'
import { resolveReindexOptions, type ReindexOptions } from './options.js'
import { jobDifferences, lockCheckpoint, readCheckpoint } from './checkpoint.js'
import { describeJob } from './_job.js'
import { runReindex } from './_run.js'
import type { ReindexResult } from './result.js'

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
  const { job, analyzer, workerAnalyzer } = describeJob(o, options)
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
    return await runReindex(o, options, { cp, job, analyzer, workerAnalyzer, policy, log, started })
  } finally {
    await lock?.release()
  }
}
