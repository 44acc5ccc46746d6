import type { Client } from '@elastic/elasticsearch'
import type { Decision } from '../../types.js'
import type { Deduplicator } from '../../engine/deduplicator.js'
import type { PreparedItem } from '../../engine/prepare.js'
import type { JobBatch } from '../../engine/index-job.js'
import type { ElasticsearchStore } from '../store.js'
import type { ReindexCounts, ReindexOptions, ResolvedReindexOptions } from './options.js'
import { explainReason } from './_fields.js'
import { copyDocs, type Requester } from './_es.js'
import type { JobClock, JobStore, TrailingWindow } from './_run-store.js'
import type { RejectsFile } from './_rejects.js'
import type { CheckpointWriter } from './_save.js'
import { withoutDedup, type Row } from './_rows.js'

/** What a run's batches write through and count into. */
export interface BatchContext {
  o: ResolvedReindexOptions
  client: Client
  request: Requester
  policy: { retries: number; backoffMs: number }
  /** The store on the written index (refreshed every `refreshEvery` documents). */
  store: ElasticsearchStore
  engine: Deduplicator
  jobStore: JobStore
  window: TrailingWindow | null
  clock: JobClock
  /** The run's clock intervals; the last one is this process's, extended after each batch. */
  segments: [number, number][]
  counts: ReindexCounts
  rejects: RejectsFile
  checkpoint: CheckpointWriter
  onProgress: ReindexOptions['onProgress']
  total: number
  /** `counts.docs` when this process started. */
  docsAtStart: number
  /** `performance.now()` when `reindex` was called. */
  started: number
}

/**
 * A run's two steps per batch for the job runner: `decide` (the batch's store round trips) and
 * `onDecisions` (after the batch is written: rejects, checkpoint, progress).
 */
export class ReindexBatches {
  /** Documents this process decided. */
  decidedHere = 0
  private sinceRefresh = 0

  constructor(private readonly ctx: BatchContext) {}

  /** A batch's store round trips: the copies into `dest` first, then the decisions. */
  readonly decide = async (prepared: PreparedItem[], batch: JobBatch<Row>): Promise<Decision[]> => {
    const { o, window } = this.ctx
    const rows = batch.decided
    if (window !== null) for (const r of batch.skipped) if (r.mapped.id !== null) window.add(r.mapped.id, r.time)
    const items = [...prepared]
    if (o.dest !== null) await this.copy(o.dest, rows, items)
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
        this.ctx.jobStore.batchTimes = new Map(rows.slice(from, to).flatMap((r) => (r.mapped.id === null ? [] : [[r.mapped.id, r.time] as [string, number]])))
      }
      const part = await this.ctx.engine.decide(items.slice(from, to))
      decisions.push(...part)
      if (window !== null) part.forEach((d, k) => d.status !== 'rejected' && d.id !== null && window.add(d.id, rows[from + k]!.time))
      from = to
    }
    return decisions
  }

  /** After a batch is written: its rejects, then the checkpoint, each acknowledged; then progress. */
  readonly onDecisions = async (decisions: Decision[], batch: JobBatch<Row>): Promise<void> => {
    const { o, counts } = this.ctx
    await this.ctx.rejects.append(this.count(decisions, batch.decided))
    this.decidedHere += decisions.length
    this.sinceRefresh += decisions.length
    if (this.sinceRefresh >= o.refreshEvery) {
      await this.ctx.store.refresh()
      this.sinceRefresh = 0
    }
    counts.skipped += batch.skipped.length
    const segments = this.ctx.segments
    segments[segments.length - 1]![1] = this.ctx.clock.latest
    await this.ctx.checkpoint.save(batch.refs[batch.refs.length - 1]!.hit.sort, false, [])
    this.ctx.onProgress?.({ counts, total: this.ctx.total, docsAtStart: this.ctx.docsAtStart, batches: batch.number, elapsedMs: performance.now() - this.ctx.started })
  }

  /**
   * Copies the rows into `dest` (without their old `dedup` object); a row whose copy failed is
   * rejected in `items` instead of decided: an update would otherwise create a document of dedup
   * fields only.
   */
  private async copy(dest: string, rows: readonly Row[], items: PreparedItem[]): Promise<void> {
    const copies: { id: string; source: Record<string, unknown> }[] = []
    for (const r of rows) if (r.mapped.id !== null) copies.push({ id: r.mapped.id, source: withoutDedup(r.hit._source) })
    const failed = copies.length === 0 ? new Map<string, string>() : await copyDocs(this.ctx.client, dest, copies, this.ctx.policy, this.ctx.request)
    this.ctx.counts.copied += copies.length - failed.size
    rows.forEach((r, i) => {
      const why = r.mapped.id === null ? undefined : failed.get(r.mapped.id)
      if (why !== undefined) items[i] = { ok: false, id: r.mapped.id, line: null, reason: `copy into \`${dest}\` failed: ${why}` }
    })
  }

  /** Counts a batch's decisions; returns the rejects file's lines for the rejected ones. */
  private count(decisions: readonly Decision[], rows: readonly Row[]): string {
    const { counts, o } = this.ctx
    let rejectText = ''
    decisions.forEach((d, i) => {
      counts.docs++
      if (d.status === 'rejected') {
        counts.rejected++
        const hit = rows[i]!.hit
        rejectText += JSON.stringify({ _index: hit._index, _id: hit._id, id: d.id, reason: explainReason(d.reason ?? '', o.fields) }) + '\n'
      } else if (d.layer === null) counts.unique++
      else {
        counts.duplicates++
        counts.byLayer[d.layer]++
        if (d.layer === 'simhash' && d.rule !== null && counts.byRule !== undefined) counts.byRule[d.rule]++
      }
    })
    return rejectText
  }
}
