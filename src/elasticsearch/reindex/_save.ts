import type { ReindexCounts } from './options.js'
import type { SortValue } from './_sort.js'
import type { SourceWalk } from './_walk.js'
import { CHECKPOINT_FORMAT, writeCheckpoint, type ReindexJob } from './checkpoint.js'
import type { RejectsFile } from './_rejects.js'

/** What every checkpoint of one run holds besides its position; `counts` and `segments` are the run's own, updated in place. */
export interface CheckpointState {
  job: ReindexJob
  /** Clock of the job's first batch (an earlier process's, when resumed). */
  runStartedAt: number
  segments: [number, number][]
  counts: ReindexCounts
  rejects: RejectsFile
  total: number
  walk: SourceWalk
}

/**
 * Writes the run's checkpoint (with no `checkpointFile`, only remembers the position): after each
 * acknowledged batch, and once more when the job is done.
 */
export class CheckpointWriter {
  constructor(
    private readonly file: string | null,
    private readonly state: CheckpointState,
    /** `sort` of the last document whose batch was written durably. */
    public lastAfter: SortValue[] | null,
  ) {}

  async save(after: SortValue[] | null, done: boolean, topClusters: { clusterId: string; size: number }[]): Promise<void> {
    this.lastAfter = after
    if (this.file === null) return
    const s = this.state
    await writeCheckpoint(this.file, {
      format: CHECKPOINT_FORMAT, job: s.job, runStartedAt: s.runStartedAt, segments: s.segments, after, pitId: s.walk.pitId,
      reader: s.walk.kind, counts: s.counts, rejectsBytes: s.rejects.bytes, total: s.total, done, topClusters, updatedAt: new Date().toISOString(),
    })
  }
}
