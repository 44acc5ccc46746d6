import type { ReindexCounts } from './options.js'

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
