import type { Client, estypes } from '@elastic/elasticsearch'
import { DedupError } from '../../errors.js'
import { causeStatus, type Requester } from './_es.js'
import { isPartialAnswer } from '../failures.js'
import { compareSortValues, type SortValue } from './_sort.js'

/** One document read from the source. */
export interface WalkHit {
  _id: string
  _index: string
  _source?: Record<string, unknown>
  _routing?: string
  sort: SortValue[]
}

/** A read of the source in one global order, batch by batch. */
export interface SourceWalk {
  readonly kind: 'pit' | 'scroll'
  /** The point in time (latest id the cluster returned); null for scroll. */
  readonly pitId: string | null
  /** Batches of exactly `size` hits (the last may be shorter), in sort order. */
  batches(size: number): AsyncGenerator<WalkHit[]>
  /** Closes the point in time / scroll. Not called when a run stops to be resumed: the PIT is what makes that resume exact. */
  close(): Promise<void>
}

/** How to read. */
export interface WalkOptions {
  client: Client
  index: string
  request: Requester
  /** Sort clauses; the PIT walk appends `_shard_doc`, the scroll walk `_doc`. */
  sort: Record<string, unknown>[]
  slices: number
  pageSize: number
  keepAlive: string
  /** `_source` filter: true for everything, or the fields to fetch. */
  source: true | string[]
  /** Resume after these sort values (PIT only). */
  after: SortValue[] | null
  /** Reuse this point in time (already checked to be alive). */
  pitId: string | null
  reader: 'auto' | 'pit' | 'scroll'
  query?: Record<string, unknown>
  log: (message: string) => void
}

/**
 * Opens the walk: a point in time (reused, or opened now), or a scroll where the cluster has no
 * point-in-time API (`reader: 'auto'`), detected by the error of opening one.
 */
export async function openWalk(o: WalkOptions): Promise<SourceWalk> {
  if (o.reader === 'scroll') return new ScrollWalk(o)
  if (o.pitId !== null) return new PitWalk(o, o.pitId)
  try {
    const opened = await o.request('open point in time', o.index, () => o.client.openPointInTime({ index: o.index, keep_alive: o.keepAlive }))
    return new PitWalk(o, opened.id)
  } catch (err) {
    const status = causeStatus(err)
    // An old cluster (before 7.10) answers an unknown endpoint with 400/404/405; 401/403 are permissions, not absence.
    if (o.reader === 'auto' && (status === 400 || status === 404 || status === 405 || status === 501)) {
      o.log(`point in time unavailable on \`${o.index}\` (status ${status}); reading with scroll instead`)
      return new ScrollWalk(o)
    }
    throw err
  }
}

/** Whether a point in time is still open: a size-0 search on it. */
export async function pitAlive(client: Client, pitId: string, keepAlive: string, request: Requester, index: string): Promise<boolean> {
  try {
    await request('_search (point in time check)', index, () => client.search({ pit: { id: pitId, keep_alive: keepAlive }, size: 0, track_total_hits: false }))
    return true
  } catch (err) {
    // Expired or closed: 404 search_context_missing; a PIT id from another cluster: 400. Some of
    // its shard contexts lost (their node went down): it would walk the other shards only.
    const status = causeStatus(err)
    if (status === 404 || status === 400 || isPartialAnswer(err)) return false
    throw err
  }
}

/** One slice's pages, fetched one page ahead of the consumer. */
class SliceReader {
  private page: WalkHit[] = []
  private pos = 0
  private next: Promise<WalkHit[]> | null
  private exhausted = false

  constructor(
    private readonly fetch: (after: SortValue[] | null) => Promise<WalkHit[]>,
    private readonly pageSize: number,
    after: SortValue[] | null,
  ) {
    this.next = fetch(after)
    // The prefetch may settle while nobody awaits it; its error is taken up by head().
    this.next.catch(() => undefined)
  }

  async head(): Promise<WalkHit | null> {
    while (this.pos >= this.page.length) {
      if (this.exhausted || this.next === null) return null
      this.page = await this.next
      this.pos = 0
      // A short page is the last one: a point-in-time search fills pages while hits remain.
      if (this.page.length < this.pageSize) {
        this.exhausted = true
        this.next = null
      } else {
        this.next = this.fetch(this.page[this.page.length - 1]!.sort)
        this.next.catch(() => undefined)
      }
    }
    return this.page[this.pos]!
  }

  take(): void {
    this.pos++
  }
}

class PitWalk implements SourceWalk {
  readonly kind = 'pit'
  private id: string

  constructor(
    private readonly o: WalkOptions,
    pitId: string,
  ) {
    this.id = pitId
  }

  get pitId(): string {
    return this.id
  }

  private async fetch(slice: number, after: SortValue[] | null): Promise<WalkHit[]> {
    const o = this.o
    const res = await o.request('_search (read source)', o.index, () =>
      o.client.search({
        pit: { id: this.id, keep_alive: o.keepAlive },
        // _shard_doc: a total order within the point in time, and comparable across slices.
        sort: [...o.sort, { _shard_doc: 'asc' }] as estypes.Sort,
        size: o.pageSize,
        track_total_hits: false,
        _source: o.source,
        ...(o.query === undefined ? {} : { query: o.query as estypes.QueryDslQueryContainer }),
        ...(after === null ? {} : { search_after: after as estypes.SortResults }),
        ...(o.slices > 1 ? { slice: { id: String(slice), max: o.slices } } : {}),
      }),
    )
    if (res.pit_id !== undefined) this.id = res.pit_id
    return res.hits.hits as unknown as WalkHit[]
  }

  async *batches(size: number): AsyncGenerator<WalkHit[]> {
    const readers: SliceReader[] = []
    for (let s = 0; s < this.o.slices; s++) readers.push(new SliceReader((after) => this.fetch(s, after), this.o.pageSize, this.o.after))
    let batch: WalkHit[] = []
    for (;;) {
      // Merge: the slices partition the documents, each in sort order; taking the smallest head
      // every time yields exactly the order of one unsliced walk of the same point in time.
      let best: SliceReader | null = null
      let bestHit: WalkHit | null = null
      for (const r of readers) {
        const h = await r.head()
        if (h !== null && (bestHit === null || compareSortValues(h.sort, bestHit.sort) < 0)) {
          best = r
          bestHit = h
        }
      }
      if (best === null || bestHit === null) break
      best.take()
      batch.push(bestHit)
      if (batch.length >= size) {
        yield batch
        batch = []
      }
    }
    if (batch.length > 0) yield batch
  }

  async close(): Promise<void> {
    await this.o.client.closePointInTime({ id: this.id }).catch(() => undefined)
  }
}

/**
 * Fallback reader for clusters without point in time. One reader (slices would have no common
 * order to merge by), sorted by the sort field then `_doc`. A scroll cannot be continued by
 * another process, so a resume re-reads (from the checkpoint's sort value when there is one).
 */
class ScrollWalk implements SourceWalk {
  readonly kind = 'scroll'
  readonly pitId = null
  private scrollId: string | null = null

  constructor(private readonly o: WalkOptions) {
    if (o.after !== null) throw new DedupError('INVALID_OPTION', 'A scroll cannot start after a sort value; resume it with a query instead.')
    if (o.slices > 1) o.log(`scroll reader: --slices ${o.slices} ignored (slices of a scroll share no order to merge by)`)
  }

  async *batches(size: number): AsyncGenerator<WalkHit[]> {
    const o = this.o
    let res = await o.request('_search (scroll source)', o.index, () =>
      o.client.search({
        index: o.index,
        scroll: o.keepAlive,
        sort: [...o.sort, '_doc'] as estypes.Sort,
        size: o.pageSize,
        _source: o.source,
        ...(o.query === undefined ? {} : { query: o.query as estypes.QueryDslQueryContainer }),
      }),
    )
    let batch: WalkHit[] = []
    for (;;) {
      if (res._scroll_id !== undefined) this.scrollId = res._scroll_id
      const hits = res.hits.hits as unknown as WalkHit[]
      for (const h of hits) {
        batch.push(h)
        if (batch.length >= size) {
          yield batch
          batch = []
        }
      }
      if (hits.length === 0 || this.scrollId === null) break
      const scrollId = this.scrollId
      res = await o.request('_scroll (source)', o.index, () => o.client.scroll({ scroll_id: scrollId, scroll: o.keepAlive }))
    }
    if (batch.length > 0) yield batch
  }

  async close(): Promise<void> {
    const id = this.scrollId
    if (id !== null) await this.o.client.clearScroll({ scroll_id: id }).catch(() => undefined)
  }
}
