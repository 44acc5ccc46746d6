import type { CandidateQuery, FingerprintRecord, PutResult } from '../../types.js'
import type { CandidateBounds, FingerprintStore } from '../../store/store.js'

/**
 * Which records a reindex job wrote, by the clock value in `indexed_at`: the intervals of earlier
 * processes that a checkpoint covers, and everything from this process's start on.
 */
export class JobClock {
  private last: number

  /**
   * @param prior closed intervals of earlier processes (checkpointed writes only)
   * @param start first clock value of this process: after every `indexed_at` already in the index
   */
  constructor(
    readonly prior: readonly (readonly [number, number])[],
    readonly start: number,
  ) {
    this.last = start - 1
  }

  /** Strictly increasing per call, so batch order is also `indexed_at` order (the engine breaks ties by it). */
  readonly now = (): number => {
    this.last = Math.max(Date.now(), this.last + 1)
    return this.last
  }

  /** Last value handed out (start − 1 before the first). */
  get latest(): number {
    return this.last
  }

  /** Earliest clock value this job ever used: lookups need nothing older. */
  get jobStart(): number {
    return this.prior.length === 0 ? this.start : Math.min(this.start, ...this.prior.map(([a]) => a))
  }

  /** Written by an earlier process of this job, and covered by its checkpoint. */
  wasDoneBefore(indexedAt: number): boolean {
    return this.prior.some(([a, b]) => a <= indexedAt && indexedAt <= b)
  }

  /** Written by this job in walk order: by an earlier process (checkpointed) or by this one. */
  isJobRecord(indexedAt: number): boolean {
    return indexedAt >= this.start || this.wasDoneBefore(indexedAt)
  }
}

/** Times (the sort field, ms) of documents of a windowed reindex: the trailing window only. */
export class TrailingWindow {
  /** Insertion order is walk order, which is time order: eviction only looks at the front. */
  private readonly times = new Map<string, number>()

  constructor(readonly windowMs: number) {}

  add(id: string, time: number): void {
    if (!this.times.has(id)) this.times.set(id, time)
  }

  /** Drops documents that no document at or after `time` can match any more. */
  evictBefore(time: number): void {
    const oldest = time - this.windowMs
    for (const [id, t] of this.times) {
      if (t >= oldest) break
      this.times.delete(id)
    }
  }

  /** Whether document `id` lies within the window before a document at `time`. */
  covers(id: string, time: number): boolean {
    const t = this.times.get(id)
    return t !== undefined && t >= time - this.windowMs
  }

  get size(): number {
    return this.times.size
  }
}

/**
 * The destination store as the engine sees it during a reindex. Lookups only return records
 * this job wrote in walk order (so documents not reached yet, data from before the job and a
 * killed process's unacknowledged tail never count as "seen first"), and, with a window, only
 * documents whose sort time lies within the window before the one being decided.
 */
export class JobStore implements FingerprintStore {
  /** Sort time of each document of the batch being decided (window only). */
  batchTimes = new Map<string, number>()

  constructor(
    private readonly inner: FingerprintStore,
    private readonly clock: JobClock,
    private readonly window: TrailingWindow | null,
  ) {}

  get candidateBounds(): CandidateBounds {
    return this.inner.candidateBounds
  }

  async candidates(queries: readonly CandidateQuery[]): Promise<FingerprintRecord[][]> {
    const since = this.clock.jobStart
    // The clock bound goes to the server: records from before the job never cross the wire.
    const bounded = queries.map((q) => ({ ...q, since: Math.max(q.since ?? since, since) }))
    const found = await this.inner.candidates(bounded)
    return found.map((list, i) => {
      const q = queries[i]!
      const time = this.window === null || q.excludeId === undefined ? undefined : this.batchTimes.get(q.excludeId)
      return list.filter((r) => this.clock.isJobRecord(r.indexedAt) && (time === undefined || this.window!.covers(r.id, time)))
    })
  }

  put(records: readonly FingerprintRecord[]): Promise<PutResult> {
    return this.inner.put(records)
  }

  /**
   * Always fresh numbers: the job's order is its walk order, not the order an earlier job (or an
   * earlier `simdup index`) first wrote these ids in. Resumed processes number above the earlier
   * ones, so the numbers follow the walk across a resume too.
   */
  sequence(ids: readonly string[]): Promise<number[]> {
    return this.inner.sequence(ids, { fresh: true })
  }

  get(ids: readonly string[]): Promise<Map<string, FingerprintRecord>> {
    return this.inner.get(ids)
  }

  /** This job's records only, as for `candidates`. */
  async byUrl(urlHashes: readonly string[], limit?: number): Promise<FingerprintRecord[][]> {
    const found = await this.inner.byUrl(urlHashes, limit)
    return found.map((list) => list.filter((r) => this.clock.isJobRecord(r.indexedAt)))
  }

  members(clusterId: string, limit?: number): Promise<FingerprintRecord[]> {
    return this.inner.members(clusterId, limit)
  }

  delete(ids: readonly string[]): Promise<void> {
    return this.inner.delete(ids)
  }

  scan(batchSize?: number): AsyncIterable<FingerprintRecord[]> {
    return this.inner.scan(batchSize)
  }

  clusterSize(clusterId: string): Promise<number> {
    return this.inner.clusterSize(clusterId)
  }

  topClusters(limit: number, minSize?: number): Promise<{ clusterId: string; size: number }[]> {
    return this.inner.topClusters(limit, minSize)
  }

  versions(): Promise<string[]> {
    return this.inner.versions()
  }

  count(): Promise<number> {
    return this.inner.count()
  }

  refresh(): Promise<void> {
    return this.inner.refresh()
  }

  /** The inner store is closed by whoever opened it. */
  async close(): Promise<void> {}
}
