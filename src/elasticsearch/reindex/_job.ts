import { createAnalyzer, type Analyzer, type AnalyzerOptions } from '../../fingerprint/analyzer.js'
import { resolveDeduplicatorOptions } from '../../engine/options.js'
import { isAnalyzer, toPortable } from '../../engine/prepare-pool.js'
import type { FingerprintStore } from '../../store/store.js'
import type { ReindexOptions, ResolvedReindexOptions } from './options.js'
import type { ReindexJob } from './checkpoint.js'

/** A store that must never be used: only lets the engine's option validation run before connecting. */
const NO_STORE = new Proxy({}, { get: () => () => Promise.reject(new Error('not connected')) }) as FingerprintStore

/** A job as a checkpoint names it, with the analyzer that decides it. */
export interface JobDescription {
  job: ReindexJob
  analyzer: Analyzer
  /** The analyzer options worker threads rebuild (`workers` > 1). */
  workerAnalyzer: AnalyzerOptions | undefined
}

/**
 * Builds the analyzer and checks the decision settings before anything is created or written,
 * and describes the job: what must stay the same for a later run to continue its checkpoint.
 */
export function describeJob(o: ResolvedReindexOptions, options: ReindexOptions): JobDescription {
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
  return { job, analyzer, workerAnalyzer }
}
