import type { CandidateQuery, FingerprintRecord } from '../types.js'
import { popcount64 } from '../fingerprint/hamming.js'
import { matchesCandidateQuery, queryKeys } from './_query.js'
import { KeyPostings } from './_keys.js'

interface Entry {
  /** The newest acknowledged version, or null for a delete (a tombstone). */
  record: FingerprintRecord | null
  at: number
  seq: number
}

/**
 * Writes this process made that a search may not see yet. Elasticsearch is near-real-time: an
 * acknowledged document becomes searchable only at the next refresh (1 s by default), so two
 * documents of one stream arriving a few hundred milliseconds apart would miss each other.
 * Recent puts are kept here and matched in memory by the same rule as the query; recent deletes
 * are kept as tombstones that hide the stale copy a search may still return.
 *
 * An entry leaves only by `refreshed()`: a refresh that started after its write made it
 * searchable. Age proves nothing (a loaded node runs its scheduled refreshes late: entries dropped
 * after a fixed time let a batch's records miss the next batch), so an entry older than `ttlMs`,
 * or more than `maxEntries` entries, only make the list `due()`: the store then refreshes the index
 * and calls `refreshed()`.
 */
export class PendingWrites {
  private readonly entries = new Map<string, Entry>()
  /** Ids of pending records by their blocks, bands and hashes. */
  private readonly postings = new KeyPostings<string>()
  private seq = 0

  /**
   * @param ttlMs age after which the list is `due()` for a refresh; null: only by size (an index with `refresh_interval: -1`).
   * @param maxEntries size at which the list is `due()` for a refresh.
   * @param now clock in ms.
   */
  constructor(
    private readonly ttlMs: number | null,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Number of pending puts and deletes. */
  get size(): number {
    return this.entries.size
  }

  /**
   * Whether the index should be refreshed before the next lookup: the oldest entry is older than
   * `ttlMs` (the index's own refreshes should have shown it by then; a refresh makes sure) or the
   * list holds `maxEntries` or more.
   */
  due(): boolean {
    if (this.entries.size === 0) return false
    if (this.entries.size >= this.maxEntries) return true
    if (this.ttlMs === null) return false
    // Entries are in write order: the first is the oldest.
    const first = this.entries.values().next().value as Entry
    return this.now() - first.at > this.ttlMs
  }

  /** Sequence number of the latest write: entries up to it are covered by a refresh started now. */
  get mark(): number {
    return this.seq
  }

  /** Records acknowledged by the store. */
  put(records: readonly FingerprintRecord[]): void {
    for (const r of records) this.set(r.id, r)
  }

  /** Deletes acknowledged by the store. */
  delete(ids: readonly string[]): void {
    for (const id of ids) this.set(id, null)
  }

  /** Drops every entry written up to `mark`: a refresh that started after it made them searchable. */
  refreshed(mark: number): void {
    for (const [id, e] of this.entries) if (e.seq <= mark) this.remove(id)
  }

  /** True when a search's copy of `id` may be stale (re-put or deleted since the last refresh). */
  shadows(id: string): boolean {
    return this.entries.has(id)
  }

  /** Whether anything is pending at all (cheap check for the hot path). */
  isEmpty(): boolean {
    return this.entries.size === 0
  }

  /** Pending records matching the lookup, by the same rule as the Elasticsearch query. */
  matches(q: CandidateQuery): FingerprintRecord[] {
    const ids = new Set<string>()
    this.postings.forEach(q, (id) => ids.add(id))
    const out: FingerprintRecord[] = []
    const pc = popcount64(q.fingerprint)
    const keys = queryKeys(q)
    for (const id of ids) {
      const r = this.entries.get(id)?.record
      if (r != null && matchesCandidateQuery(r, q, pc, keys)) out.push(r)
    }
    return out
  }

  /** Pending records holding band term `term` (not deletes). */
  withBand(term: string): FingerprintRecord[] {
    const out: FingerprintRecord[] = []
    this.postings.forEachWithBand(term, (id) => {
      const r = this.entries.get(id)?.record
      if (r != null && !out.includes(r)) out.push(r)
    })
    return out
  }

  private set(id: string, record: FingerprintRecord | null): void {
    this.remove(id)
    // Re-inserting keeps the Map in write order, so `due()` only looks at the front.
    this.entries.set(id, { record, at: this.now(), seq: ++this.seq })
    if (record !== null) this.postings.add(record, id)
  }

  private remove(id: string): void {
    const e = this.entries.get(id)
    if (e === undefined) return
    this.entries.delete(id)
    if (e.record !== null) this.postings.remove(e.record, id)
  }
}
