import type { Client, estypes } from '@elastic/elasticsearch'
import PQueue from 'p-queue'
import type { CandidateQuery, FingerprintRecord, PutResult } from '../types.js'
import type { CandidateBounds, FingerprintStore, StoreBlockScheme } from '../store/store.js'
import { DedupError, describeValue } from '../errors.js'
import { recordToSource, sourceToRecord, type DedupSource } from './_document.js'
import { CANDIDATE_SOURCE, NEWEST_BLOCK_SET_FORMAT, canMatch, candidateQuery, candidateSearchBody } from './_query.js'
import { PendingWrites } from './_pending.js'
import { HotBandCache } from './_hot-bands.js'
import {
  UNION_PAGE, addHotBandCandidates,
  CLUSTER_HITS, assignCandidates, boundBandTerms, bandFrequencyRequest, bandTermsOf, groupLookups, hotBandSearches, hotBandTerms, unionSearchBody, withoutBands,
  type Lookup,
} from './_lookup.js'
import { MAX_SEQ, checkQuery, checkUrlQuery, isSeq, recordProblem } from '../store/validate.js'
import { itemError, errorReason, errorType, shardsHint, shardsUnavailable, statusOf, toStoreError } from './failures.js'
import { type Redactor } from './redaction.js'
import { awaitPrimaries, halfRequestTimeout, pauseBeforeRetry, withRetries, type RetryPolicy } from './retry.js'
import { connect } from './connection.js'
import {
  DEFAULT_ELASTICSEARCH_BLOCK_SCHEME, blockSetFormats, compactSourceOf, installTemplates, prepareIndex, readBlockScheme, refreshInterval, storedBlockScheme,
  type BlockSetFormats, type IndexContext, type TemplateNames,
} from './_index-setup.js'
import * as reads from './_index-reads.js'
import {
  resolveElasticsearchStoreOptions,
  type ElasticsearchStoreOptions as StoreOptionsOf,
  type ResolvedElasticsearchStoreOptions,
} from './options.js'

/*
 * The Elasticsearch store: writes (sequence numbers, bulk put and delete, the pending list of
 * writes a search cannot see yet) and candidate lookups (_lookup.ts, _query.ts). The connection
 * is made in connection.ts, the index set up on open in _index-setup.ts, and the reads over the
 * whole index (members, scan, clusters, versions, count) are in _index-reads.ts.
 */

export { DEDUP_FIELDS_COMPONENT, SIMDUP_INDEX_TEMPLATE, DEDUP_COMPONENT_NAME, SIMDUP_TEMPLATE_NAME } from './mapping.js'
export { DEFAULT_ELASTICSEARCH_STORE_OPTIONS, type ElasticsearchAuth, type EnsureIndex } from './options.js'
export { DEFAULT_ELASTICSEARCH_BLOCK_SCHEME, type TemplateNames } from './_index-setup.js'

/** Options of `createElasticsearchStore` (see `ElasticsearchStoreBaseOptions` for each field's default). */
export type ElasticsearchStoreOptions = StoreOptionsOf<Client>

/** A FingerprintStore backed by an Elasticsearch index, plus the client it talks through. */
export interface ElasticsearchStore extends FingerprintStore {
  readonly client: Client
  /** The resolved options. */
  readonly options: ResolvedElasticsearchStoreOptions
  /** The index's block scheme, read on open (see `DEFAULT_ELASTICSEARCH_BLOCK_SCHEME`). */
  readonly blockScheme: StoreBlockScheme
  /**
   * Installs mappings/dedup-fields.json and mappings/simdup-template.json as cluster templates,
   * so indices matching the pattern get the mapping however they are created.
   * @example await store.installTemplates() // simdup-dedup-fields + simdup (simdup*)
   */
  installTemplates(names?: TemplateNames): Promise<void>
}

/** The parts of a candidates `_msearch` answer the store reads (index names, scores, sort values dropped). */
const MSEARCH_FILTER_PATH = [
  'responses.hits.hits._id', 'responses.hits.hits._source', 'responses.error', 'responses.status',
  // A hot band term's search collapsed by cluster (`hotBandSearches`): its records are the groups'.
  `responses.hits.hits.inner_hits.${CLUSTER_HITS}.hits.hits._id`, `responses.hits.hits.inner_hits.${CLUSTER_HITS}.hits.hits._source`,
]
/** Elasticsearch refuses a whole bulk request if one `_id` is longer than this (UTF-8 bytes). */
const MAX_ID_BYTES = 512
/** Defaults shared with the memory store, so both backends answer the same calls alike. */
const DEFAULT_MEMBERS_LIMIT = 1000
const DEFAULT_SCAN_BATCH = 1000
const DEFAULT_MIN_CLUSTER_SIZE = 2
/** Shortest default life of a pending entry, whatever the refresh interval. */
const MIN_PENDING_TTL_MS = 5000
/**
 * How long a hot band term's newest records are reused before they are asked again (another
 * writer's records show by then, if its numbers have not overtaken this store's before). A term
 * comes back less often as the index grows (copies spread over more clusters): at 60,000 documents
 * of scripts/bench-stream.ts a third of the repeats came more than 30 s after the term's last search.
 */
const HOT_BAND_TTL_MS = 600_000
/** Hot band terms whose newest records are held at most (oldest dropped first). */
const HOT_BAND_TERMS = 100_000

/** An id Elasticsearch can hold; others cannot exist there. */
function storableId(id: unknown): id is string {
  return typeof id === 'string' && id.length > 0 && Buffer.byteLength(id) <= MAX_ID_BYTES
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

function actionId(action: unknown): string {
  const op = Object.values(action as Record<string, { _id?: unknown }>)[0]
  return String(op?._id)
}

class EsStore implements ElasticsearchStore {
  private readonly queue: PQueue
  private readonly policy: RetryPolicy
  private readonly index: string
  /** Null when writes refresh themselves or the pending list is off. */
  private pending: PendingWrites | null = null
  /**
   * The newest records of hot band terms met so far, kept up to date with this store's writes;
   * null when a search may miss this store's own writes untracked (no refresh, no pending list).
   */
  private hotCache: HotBandCache | null = null
  /** Counts acknowledged writes and refreshes: a search answered across one is not held in the hot band cache. */
  private writeEpoch = 0
  private lastWriteSeq = 0
  private refreshedSeq = 0
  /** Largest record `seq` this store handed out (fresh numbers start above it and the index's largest). */
  private handedSeq = 0
  /**
   * The largest sequence number stored or handed out before the last `sequence` call's fresh
   * ones: a lookup whose `maxSeq` is above it comes before nothing stored (see `hotBandSearches`).
   * Until `sequence` runs, every lookup is bounded by its own `maxSeq`.
   */
  private seqFloor = Number.POSITIVE_INFINITY
  /** The largest number of a record this store wrote (a later put of a number at or below it replaces a record). */
  private writtenSeq = 0
  /** Exact keys are not bounded here (a lookup returns up to `maxCandidates` records in all). */
  get candidateBounds(): CandidateBounds {
    const perCluster = this.options.maxPerCluster
    return perCluster > 0 ? { perKey: Number.POSITIVE_INFINITY, perBand: this.options.maxPerBand, perCluster } : { perKey: Number.POSITIVE_INFINITY, perBand: this.options.maxPerBand }
  }

  /** The records the last `sequence` read (`storedSeqs`), for a `get` of the same ids before any write; taken once. */
  private lastRead: { epoch: number; ids: ReadonlySet<string>; found: ReadonlyMap<string, FingerprintRecord> } | null = null

  /** Whether `sequence` has refreshed the index once. */
  private seqSynced = false
  /** The block sets the block route looks up (null: blocks) and those new records carry (see `blockSetFormats`). */
  private sets: BlockSetFormats = { lookup: null, write: NEWEST_BLOCK_SET_FORMAT }

  /** What the index set-up and whole-index reads (_index-setup.ts, _index-reads.ts) work through. */
  private readonly ctx: IndexContext
  /** The index's record layout, set on open: compact = record format 2 (`compactSourceOf`). */
  private readonly layout = { compact: false }

  /** Set on open from a stored record's blocks (see `readBlockScheme`). */
  blockScheme: StoreBlockScheme = { ...DEFAULT_ELASTICSEARCH_BLOCK_SCHEME, fixed: false }

  constructor(
    readonly client: Client,
    readonly options: ResolvedElasticsearchStoreOptions,
    private readonly ownsClient: boolean,
    private readonly node: string,
    private readonly redactor: Redactor,
  ) {
    this.queue = new PQueue({ concurrency: options.concurrency })
    this.policy = {
      retries: options.retries,
      backoffMs: options.backoffMs,
      // A red index (a primary and its copies lost) gets up to a minute per retry to come back.
      awaitShards: () => awaitPrimaries(this.client, this.index),
    }
    this.index = options.index
    this.ctx = { client, index: this.index, node, options, request: (action, fn) => this.request(action, fn), layout: this.layout }
  }

  /** One request through the queue, with retries; failures come out as DedupErrors. */
  private async request<T>(action: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.queue.add(() => withRetries(this.policy, fn), { throwOnTimeout: true })
    } catch (err) {
      throw toStoreError(err, { action, index: this.index, node: this.node }, this.redactor)
    }
  }

  /** Index creation / mapping per `ensureIndex`, then the pending list sized to the refresh interval. */
  async open(): Promise<void> {
    const mappings = await prepareIndex(this.ctx)
    this.layout.compact = compactSourceOf(this.index, mappings)
    this.blockScheme = await readBlockScheme(this.ctx)
    this.sets = await blockSetFormats(this.ctx, mappings)
    const interval = await refreshInterval(this.ctx)
    // How long after a write the index's own refreshes should show it (null: never, interval -1).
    const visibilityMs = interval === null ? null : 2 * interval
    if (this.options.refresh === false) {
      // The TTL only says when a lookup refreshes explicitly (PendingWrites.due); no entry is
      // dropped on it. The floor keeps those extra refreshes rare.
      const ttl = this.options.pendingTtlMs ?? (visibilityMs === null ? null : Math.max(visibilityMs, MIN_PENDING_TTL_MS))
      if (ttl !== 0 && this.options.maxPending > 0) this.pending = new PendingWrites(ttl, this.options.maxPending)
    }
    if ((this.options.refresh !== false || this.pending !== null) && this.options.hotBandCacheBytes > 0) {
      this.hotCache = new HotBandCache(this.options.maxPerBand + 1, HOT_BAND_TTL_MS, HOT_BAND_TERMS, Date.now, this.options.hotBandCacheBytes, this.options.maxPerCluster > 0 ? this.options.maxPerCluster + 1 : 0)
    }
  }

  // ---- writes ----

  async sequence(ids: readonly string[], options: { fresh?: boolean } = {}): Promise<number[]> {
    if (!Array.isArray(ids)) throw new DedupError('INVALID_OPTION', `Expected \`ids\` to be an array, got ${describeValue(ids)}.`)
    if (ids.length === 0) return []
    // The first call refreshes, so the largest number counts the writes of a process that stopped
    // just before this one started (re-running after a crash), not only what a refresh showed.
    if (!this.seqSynced) {
      await this.refresh()
      this.seqSynced = true
    }
    // Stored numbers by mget (real-time: sees writes a search may not yet), and the largest number
    // in the index (searchable writes of every process), asked at the same time.
    const [stored, largest] = await Promise.all([
      options.fresh === true ? new Map<string, number>() : this.storedSeqs(ids),
      this.largestSeq(),
    ])
    // Numbers seen by mget count too: fresh ones go above every number this process has met.
    for (const seq of stored.values()) if (seq > this.handedSeq) this.handedSeq = seq
    // Numbers this store did not hand out: another writer, whose records the hot band cache lacks.
    if (largest > this.handedSeq) this.hotCache?.clear()
    let next = Math.max(this.handedSeq, largest)
    this.seqFloor = next
    const first = new Map<string, number>()
    return ids.map((id) => {
      let seq = first.get(id) ?? stored.get(id)
      if (seq === undefined) {
        seq = ++next
        if (seq > MAX_SEQ) throw new DedupError('STORE_REQUEST_FAILED', `Index \`${this.index}\` has used ${MAX_SEQ} sequence numbers, simdup's limit; index into a new index.`)
        this.handedSeq = seq
      }
      first.set(id, seq)
      return seq
    })
  }

  /**
   * `seq` of each stored id (ids not stored, or that Elasticsearch cannot hold, are absent). The
   * records are read whole and kept for a `get` of the same ids before any write (`lastRead`): the
   * engine asks both for each batch, and one `_mget` answers both.
   */
  private async storedSeqs(ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>()
    const epoch = this.writeEpoch
    const found = await this.mgetRecords(ids, '_mget (seq)')
    for (const [id, r] of found) if (isSeq(r.seq)) out.set(id, r.seq)
    this.lastRead = epoch === this.writeEpoch ? { epoch, ids: new Set(ids), found } : null
    return out
  }

  /** Records of `ids` by `_mget` (real-time: reads the translog, no refresh or pending merge needed). */
  private async mgetRecords(ids: readonly string[], action: string): Promise<Map<string, FingerprintRecord>> {
    const found = new Map<string, FingerprintRecord>()
    const unique = [...new Set(ids)].filter(storableId)
    await Promise.all(
      chunks(unique, this.options.bulkSize).map(async (c) => {
        const res = await this.request(action, () => this.client.mget<{ dedup?: unknown }>({ index: this.index, ids: c, _source: CANDIDATE_SOURCE.includes }))
        for (const doc of res.docs) {
          if (!('found' in doc) || !doc.found) continue
          const record = sourceToRecord(doc._id, doc._source, this.layout.compact)
          if (record !== null) found.set(record.id, record)
        }
      }),
    )
    return found
  }

  /** The largest `seq` a search sees in the index (0 when none). */
  private async largestSeq(): Promise<number> {
    const res = await this.request('_search (largest seq)', () =>
      this.client.search({ index: this.index, size: 0, track_total_hits: false, aggs: { seq: { max: { field: 'dedup.seq' } } } }),
    )
    const value = (res.aggregations?.seq as estypes.AggregationsMaxAggregate | undefined)?.value
    return typeof value === 'number' && Number.isFinite(value) ? value : 0
  }

  async put(records: readonly FingerprintRecord[]): Promise<PutResult> {
    if (!Array.isArray(records)) throw new DedupError('INVALID_OPTION', `Expected \`records\` to be an array, got ${describeValue(records)}.`)
    if (records.length === 0) return { written: 0, failed: [] }
    // Records without a number keep their id's stored one, or get a fresh one.
    const unnumbered = records.filter((r) => r !== null && typeof r === 'object' && r.seq === undefined && typeof r.id === 'string')
    if (unnumbered.length > 0) {
      const seqs = await this.sequence(unnumbered.map((r) => r.id))
      const given = new Map(unnumbered.map((r, i) => [r, seqs[i]!]))
      records = records.map((r) => (given.has(r) ? { ...r, seq: given.get(r)! } : r))
    }
    const failed: PutResult['failed'] = []
    // Insert-or-replace: the last copy of an id wins. Sending only that copy keeps parallel bulk
    // requests from racing two versions of one document.
    const last = new Map<string, FingerprintRecord>()
    const valid: FingerprintRecord[] = []
    for (const r of records) {
      // The same checks as the memory store, plus Elasticsearch's id limit (which would fail the whole request).
      const problem = recordProblem(r) ?? (storableId(r.id) ? null : `Record ${describeValue(r.id)}: expected \`id\` to be at most ${MAX_ID_BYTES} UTF-8 bytes (Elasticsearch's limit).`)
      if (problem !== null) {
        const id = r !== null && typeof r === 'object' && typeof r.id === 'string' ? r.id : ''
        failed.push({ id, error: new DedupError('INVALID_DOCUMENT', problem) })
        continue
      }
      valid.push(r)
      last.delete(r.id)
      last.set(r.id, r)
    }
    // The first records of an index fix its block count for deduplicators made after this put.
    const first = valid.find((r) => r.blocks.length >= 2 && r.blocks.length <= 16)
    if (!this.blockScheme.fixed && first !== undefined) this.blockScheme = storedBlockScheme(first.blocks.length)
    const failures = new Map<string, Error>()
    const acked: FingerprintRecord[] = []
    const settled = await Promise.allSettled(chunks([...last.values()], this.options.bulkSize).map((c) => this.bulkPut(c, acked, failures)))
    // Whatever was acknowledged is written, even if another chunk then failed.
    this.wrote(acked, [])
    // A writer that never looks up still bounds its pending list (by a refresh, see settlePending).
    // Its records are written whatever the refresh does: a failed one leaves the list as it is, for
    // the next lookup to refresh (and report a node that still fails).
    if (this.pending !== null && this.pending.size >= this.options.maxPending) await this.settlePending().catch(() => undefined)
    const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected')
    if (rejected !== undefined) throw rejected.reason
    const ackedIds = new Set(acked.map((r) => r.id))
    let written = 0
    for (const r of valid) {
      if (ackedIds.has(r.id)) written++
      else {
        failed.push({
          id: r.id,
          error: failures.get(r.id) ?? new DedupError('STORE_REQUEST_FAILED', `Elasticsearch did not acknowledge document \`${r.id}\`.`),
        })
      }
    }
    return { written, failed }
  }

  /**
   * How long Elasticsearch may wait for an unavailable primary before answering a bulk item 503
   * (its `timeout`; its own default, a minute, outlasts the request timeout, so the client gave up
   * first and the red index looked like a node out of reach): half the request timeout. The store
   * then waits for the primaries itself (`pauseBeforeRetry`) and retries the items.
   */
  private get bulkTimeout(): string {
    return `${halfRequestTimeout(this.client)}ms`
  }

  /**
   * One bulk request of records via the client's bulk helper; item failures with 429/5xx are
   * retried with back-off, after waiting for the primaries when an item's shard had no started copy.
   */
  private async bulkPut(records: FingerprintRecord[], acked: FingerprintRecord[], failures: Map<string, Error>): Promise<void> {
    const byId = new Map(records.map((r) => [r.id, r]))
    const shared = this.options.sharedIndex
    let todo = records
    // Retries count rounds that wrote nothing: a node shedding load (429) but writing part of each
    // round is waited out however many rounds it takes (each round writes at least one).
    for (let attempt = 0; todo.length > 0; ) {
      const retry: FingerprintRecord[] = []
      const retried: Error[] = []
      const docs = todo.map((r) => ({ dedup: recordToSource(r, this.sets.write, this.layout.compact) }))
      const okIds: string[] = []
      const dropped = new Map<string, { status: number; error: unknown }>()
      await this.request('_bulk (put)', async () => {
        okIds.length = 0
        dropped.clear()
        await this.client.helpers.bulk<{ dedup: DedupSource }>({
          datasource: docs,
          onDocument: (doc) =>
            shared
              ? // Merge into the content document instead of replacing it (creating it if absent,
                // unless `upsert` is off).
                [{ update: { _index: this.index, _id: doc.dedup.id } }, { doc_as_upsert: this.options.upsert }]
              : { index: { _index: this.index, _id: doc.dedup.id } },
          onSuccess: ({ result }) => okIds.push(actionId(result)),
          onDrop: (d) => dropped.set(actionId(d.operation), { status: d.status, error: d.error }),
          // One request per chunk (chunks run in parallel through the queue); retries are ours.
          flushBytes: Number.MAX_SAFE_INTEGER,
          flushInterval: 600_000,
          concurrency: 1,
          retries: 0,
          timeout: this.bulkTimeout,
          ...(this.options.refresh === false ? {} : { refresh: this.options.refresh }),
        })
      })
      for (const id of okIds) {
        const r = byId.get(id)
        if (r !== undefined) acked.push(r)
      }
      if (okIds.length > 0) attempt = 0
      // In input order, so a retry sends documents in the order the caller gave them.
      for (const r of todo) {
        const d = dropped.get(r.id)
        if (d === undefined) continue
        if ((d.status === 429 || d.status >= 500) && attempt < this.options.retries) {
          retry.push(r)
          retried.push(itemError(d.status, d.error))
        } else failures.set(r.id, this.itemFailure(r.id, d.status, d.error))
      }
      if (retry.length > 0) await pauseBeforeRetry(this.policy, attempt++, retried)
      todo = retry
    }
  }

  private itemFailure(id: string, status: number, error: unknown): DedupError {
    const detail = error === null || error === undefined ? 'too many requests, retries exhausted' : `${errorType(error)}: ${errorReason(error)}`
    // Retried after waiting for the primaries (up to a minute each time) until the retries ran out.
    const hint = shardsHint(itemError(status, error))
    return new DedupError('STORE_REQUEST_FAILED', this.redactor.text(`Elasticsearch rejected document \`${id}\` (status ${status})${hint}: ${detail}`), {
      cause: error,
    })
  }

  async delete(ids: readonly string[]): Promise<void> {
    if (!Array.isArray(ids)) throw new DedupError('INVALID_OPTION', `Expected \`ids\` to be an array, got ${describeValue(ids)}.`)
    // An id Elasticsearch cannot hold is not there to delete (and would fail the whole request).
    const unique = [...new Set(ids)].filter(storableId)
    if (unique.length === 0) return
    const failed: string[] = []
    let firstError: Error | undefined
    await Promise.all(
      chunks(unique, this.options.bulkSize).map(async (c) => {
        let todo = c
        for (let attempt = 0; todo.length > 0; attempt++) {
          const retry: string[] = []
          const retried: Error[] = []
          const operations = todo.flatMap((id): estypes.BulkOperationContainer[] | [estypes.BulkOperationContainer, object] =>
            this.options.sharedIndex
              ? // Remove only simdup's object from a content document.
                [{ update: { _index: this.index, _id: id } }, { doc: { dedup: null } }]
              : [{ delete: { _index: this.index, _id: id } }],
          )
          const res = await this.request('_bulk (delete)', () =>
            this.client.bulk({ operations, timeout: this.bulkTimeout, ...(this.options.refresh === false ? {} : { refresh: this.options.refresh }) }),
          )
          for (const item of res.items) {
            const r = Object.values(item)[0]
            if (r === undefined || r.status < 300 || r.status === 404) continue
            if ((r.status === 429 || r.status >= 500) && attempt < this.options.retries) {
              retry.push(String(r._id))
              retried.push(itemError(r.status, r.error))
            } else {
              failed.push(String(r._id))
              firstError ??= itemError(r.status, r.error)
            }
          }
          if (retry.length > 0) await pauseBeforeRetry(this.policy, attempt, retried)
          todo = retry
        }
      }),
    )
    const done = unique.filter((id) => !failed.includes(id))
    this.wrote([], done)
    if (failed.length > 0) {
      throw new DedupError(
        'STORE_REQUEST_FAILED',
        `Elasticsearch failed to delete ${failed.length} of ${unique.length} records from index \`${this.index}\` (first: \`${failed[0]}\`); see \`cause\`.`,
        { cause: this.redactor.error(firstError) },
      )
    }
  }

  /** Bookkeeping after acknowledged writes: pending list, and whether reads need a refresh first. */
  private wrote(put: readonly FingerprintRecord[], deleted: readonly string[]): void {
    if (put.length === 0 && deleted.length === 0) return
    this.lastWriteSeq++
    this.writeEpoch++
    if (this.pending !== null) {
      // A number at or below the batch's floor, or one this store wrote before, is a stored id's (as
      // is an id still pending): its older version may be searchable. Before any `sequence` the
      // floor is unknown: every put counts.
      const pending = this.pending
      const floor = Math.max(this.seqFloor, this.writtenSeq)
      pending.put(put, put.some((r) => r.seq === undefined || r.seq <= floor || pending.shadows(r.id)))
      pending.delete(deleted)
    }
    for (const r of put) if (r.seq !== undefined && r.seq > this.writtenSeq) this.writtenSeq = r.seq
    if (deleted.length > 0) this.hotCache?.clear()
    else this.hotCache?.put(put)
  }

  // ---- reads ----

  async candidates(queries: readonly CandidateQuery[]): Promise<FingerprintRecord[][]> {
    if (!Array.isArray(queries)) throw new DedupError('INVALID_OPTION', `Expected \`queries\` to be an array, got ${describeValue(queries)}.`)
    queries.forEach(checkQuery)
    await this.settlePending()
    const out: FingerprintRecord[][] = queries.map(() => [])
    const lookups: Lookup[] = []
    // A query that can match nothing (no keys, no usable block clause) needs no round trip.
    queries.forEach((query, at) => {
      if (canMatch(query)) lookups.push({ at, query })
    })
    // Band terms shared by many records are asked apart, for their newest records (see _es-lookup.ts).
    // A maintenance pass asks for every band match (allBands): no term is asked apart then.
    const hot = lookups.some((l) => l.query.allBands === true) ? new Set<string>() : await this.hotBands(lookups)
    const union = hot.size === 0 ? lookups : lookups.map((l) => ({ at: l.at, query: withoutBands(l.query, hot) })).filter((l) => canMatch(l.query))
    const [hotHits] = await Promise.all([
      this.hotBandHits(lookups, hot),
      ...chunks(union, this.options.msearchSize).map((c) => this.lookup(groupLookups(c, this.options.msearchSize, this.sets.lookup), out)),
    ])
    if (hot.size > 0) addHotBandCandidates(out, lookups, hot, hotHits, this.options.maxPerBand, this.options.maxCandidates, this.seqFloor, this.options.maxPerCluster)
    // The pending copy of an id is its newest: a search's copy of it is left out. The band bound is
    // applied once, over the search's answer and the pending records together, so which records
    // it keeps does not depend on which of them a refresh had shown (a bound on each side apart
    // kept up to twice as many, and a record counted on the search side then dropped there took
    // the place of an older one). One shard's term statistics decide what is hot: on several
    // shards a term can bring more, which the bound trims too.
    const pending = this.pending !== null && !this.pending.isEmpty() ? this.pending : null
    queries.forEach((q, i) => {
      const found = pending === null ? out[i]! : out[i]!.filter((r) => !pending.shadows(r.id)).concat(pending.matches(q))
      out[i] = q.allBands === true ? found : boundBandTerms(found, q, this.options.maxPerBand, this.options.maxPerCluster)
    })
    return out
  }

  /**
   * One `_msearch` with one union search per group (see _es-lookup.ts). A group whose union filled
   * its page may have lost hits: it is split in two and asked again; a single lookup that does
   * so is asked by its own search, capped at maxCandidates as always.
   */
  private async lookup(groups: Lookup[][], out: FingerprintRecord[][], own = false): Promise<void> {
    const bodies = groups.map((g) =>
      own ? candidateSearchBody(candidateQuery(g[0]!.query, this.sets.lookup)!, this.options.maxCandidates) : unionSearchBody(g.map((l) => l.query), UNION_PAGE, this.sets.lookup),
    )
    const hits = await this.msearch(bodies)
    const split: Lookup[][] = []
    const alone: Lookup[][] = []
    groups.forEach((g, k) => {
      const records = hits[k]!
      if (own) out[g[0]!.at] = records
      else if (records.length < UNION_PAGE) {
        const answers = assignCandidates(records, g.map((l) => l.query), this.options.maxCandidates)
        g.forEach((l, i) => (out[l.at] = answers[i]!))
      } else if (g.length === 1) alone.push(g)
      else split.push(g.slice(0, g.length >> 1), g.slice(g.length >> 1))
    })
    await Promise.all([split.length > 0 && this.lookup(split, out), alone.length > 0 && this.lookup(alone, out, true)])
  }

  /**
   * The band terms of `lookups` that more than `maxPerBand` records have: those held in the hot
   * band cache, and of the others what one `_termvectors` request says.
   */
  private async hotBands(lookups: readonly Lookup[]): Promise<Set<string>> {
    const held = new Set<string>()
    const cache = this.hotCache
    const terms = cache === null ? bandTermsOf(lookups) : bandTermsOf(lookups).filter((t) => (cache.get(t) === undefined ? true : (held.add(t), false)))
    if (terms.length === 0) return held
    const res = await this.request('_termvectors (band frequencies)', async () => {
      try {
        return await this.client.termvectors({ index: this.index, ...bandFrequencyRequest(terms) })
      } catch (err) {
        // An alias over several indices has no single term dictionary (400): no term is treated as hot.
        if (statusOf(err) === 400) return null
        throw err
      }
    })
    const hot = hotBandTerms(res, this.options.maxPerBand)
    for (const t of held) hot.add(t)
    return hot
  }

  /**
   * The newest records of each hot band term `lookups` ask for, by `hotBandSearches` key: from the
   * hot band cache, else asked (one `_msearch` per msearchSize terms) and then held there.
   */
  private async hotBandHits(lookups: readonly Lookup[], hot: ReadonlySet<string>): Promise<Map<string, readonly FingerprintRecord[]>> {
    const hits = new Map<string, readonly FingerprintRecord[]>()
    if (hot.size === 0) return hits
    const searches = hotBandSearches(lookups, hot, this.options.maxPerBand, this.seqFloor, this.options.maxPerCluster)
    const cache = this.hotCache
    const ask: string[] = []
    for (const [key, search] of searches) {
      const held = cache !== null && search.open ? cache.get(search.term) : undefined
      if (held !== undefined) hits.set(key, held)
      else ask.push(key)
    }
    await Promise.all(
      chunks(ask, this.options.msearchSize).map(async (keys) => {
        const epoch = this.writeEpoch
        const answers = await this.msearch(keys.map((k) => searches.get(k)!.body))
        // A write or refresh while the search ran: its answer may lack what neither it nor the pending list shows.
        const holdable = cache !== null && epoch === this.writeEpoch
        keys.forEach((k, i) => {
          const answer = answers[i]!
          hits.set(k, answer)
          const { term, open } = searches.get(k)!
          const pending = this.pending
          // A hit shadowed by a pending write leaves the answer short of the term's newest: not held.
          if (holdable && open && (pending === null || !answer.some((r) => pending.shadows(r.id)))) cache.set(term, answer, pending?.withBand(term) ?? [])
        })
      }),
    )
    return hits
  }

  /** Records of each search's hits, in hit order. */
  private async msearch(bodies: Record<string, unknown>[]): Promise<FingerprintRecord[][]> {
    const searches: estypes.MsearchRequestItem[] = []
    // A sub-search over a shard with no live copy fails (and is retried) instead of answering without it.
    for (const body of bodies) searches.push({ allow_partial_search_results: false }, body as estypes.MsearchMultisearchBody)
    const res = await this.request('_msearch (candidates)', async () => {
      const r = await this.client.msearch<{ dedup?: unknown }>({ index: this.index, searches, filter_path: MSEARCH_FILTER_PATH })
      // A rejected sub-search (429 under load, a shard failure) fails the batch, so it is retried whole.
      for (const item of r.responses) {
        if ('error' in item) throw item.status === 503 ? shardsUnavailable(item.error) : itemError(item.status, item.error)
      }
      return r
    })
    return res.responses.map((item) => {
      const list: FingerprintRecord[] = []
      if ('error' in item) return list
      // A search without hits comes back without `hits` at all once filtered.
      for (const hit of item.hits?.hits ?? []) {
        const group = hit.inner_hits?.[CLUSTER_HITS]?.hits.hits
        if (group !== undefined) {
          for (const member of group) {
            const record = sourceToRecord(String(member._id), member._source, this.layout.compact)
            if (record !== null) list.push(record)
          }
          continue
        }
        const record = sourceToRecord(String(hit._id), hit._source, this.layout.compact)
        if (record !== null) list.push(record)
      }
      return list
    })
  }

  async get(ids: readonly string[]): Promise<Map<string, FingerprintRecord>> {
    if (!Array.isArray(ids)) throw new DedupError('INVALID_OPTION', `Expected \`ids\` to be an array, got ${describeValue(ids)}.`)
    // The records `sequence` read for these ids, when nothing was written since: the same answer.
    const last = this.lastRead
    this.lastRead = null
    if (last !== null && last.epoch === this.writeEpoch && ids.every((id) => last.ids.has(id))) {
      const found = new Map<string, FingerprintRecord>()
      for (const id of ids) {
        const r = last.found.get(id)
        if (r !== undefined) found.set(id, r)
      }
      return found
    }
    return this.mgetRecords(ids, '_mget')
  }

  async installTemplates(names: TemplateNames = {}): Promise<void> {
    await installTemplates(this.ctx, names)
  }

  async byUrl(urlHashes: readonly string[], limit = DEFAULT_MEMBERS_LIMIT): Promise<FingerprintRecord[][]> {
    checkUrlQuery(urlHashes, limit)
    if (urlHashes.length === 0) return []
    if (limit === 0) return urlHashes.map(() => [])
    await this.syncReads()
    return reads.byUrl(this.ctx, urlHashes, limit, this.options.msearchSize)
  }

  async members(clusterId: string, limit = DEFAULT_MEMBERS_LIMIT): Promise<FingerprintRecord[]> {
    if (typeof clusterId !== 'string') throw new DedupError('INVALID_OPTION', `Expected \`clusterId\` to be a string, got ${describeValue(clusterId)}.`)
    if (!Number.isInteger(limit) || limit < 0) throw new DedupError('INVALID_OPTION', `Expected \`limit\` to be an integer ≥ 0, got ${describeValue(limit)}.`)
    if (limit === 0) return []
    await this.syncReads()
    return reads.members(this.ctx, clusterId, limit)
  }

  async *scan(batchSize = DEFAULT_SCAN_BATCH): AsyncIterable<FingerprintRecord[]> {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new DedupError('INVALID_OPTION', `Expected \`batchSize\` to be an integer ≥ 1, got ${describeValue(batchSize)}.`)
    // A search page holds at most 10 000 hits (index.max_result_window); batches may be smaller than asked.
    const page = Math.min(batchSize, 10_000)
    await this.syncReads()
    yield* reads.scan(this.ctx, page)
  }

  async clusterSize(clusterId: string): Promise<number> {
    if (typeof clusterId !== 'string') throw new DedupError('INVALID_OPTION', `Expected \`clusterId\` to be a string, got ${describeValue(clusterId)}.`)
    await this.syncReads()
    return reads.clusterSize(this.ctx, clusterId)
  }

  async topClusters(limit: number, minSize = DEFAULT_MIN_CLUSTER_SIZE): Promise<{ clusterId: string; size: number }[]> {
    if (!Number.isInteger(limit) || limit < 0) throw new DedupError('INVALID_OPTION', `Expected \`limit\` to be an integer ≥ 0, got ${describeValue(limit)}.`)
    if (!Number.isInteger(minSize) || minSize < 1) throw new DedupError('INVALID_OPTION', `Expected \`minSize\` to be an integer ≥ 1, got ${describeValue(minSize)}.`)
    if (limit === 0) return []
    await this.syncReads()
    return reads.topClusters(this.ctx, limit, minSize)
  }

  async versions(): Promise<string[]> {
    await this.syncReads()
    return reads.versions(this.ctx)
  }

  async count(): Promise<number> {
    await this.syncReads()
    return reads.count(this.ctx)
  }

  async refresh(): Promise<void> {
    const mark = this.pending?.mark ?? 0
    const seq = this.lastWriteSeq
    await this.request('refresh', () => this.client.indices.refresh({ index: this.index }))
    this.writeEpoch++
    this.pending?.refreshed(mark)
    this.refreshedSeq = seq
  }

  /**
   * Refreshes the index when the pending list is due (`PendingWrites.due`: an entry older than its
   * TTL, or the list full), so that its entries leave it only once a search shows them. Dropping
   * them by age alone lost matches under load: a node that ran its scheduled refresh late left a
   * batch's records invisible to the next batch's searches once they had left the list.
   */
  private async settlePending(): Promise<void> {
    if (this.pending?.due() === true) await this.refresh()
  }

  /**
   * Before a read that has no pending merge (count, members, scan, topClusters): refresh when this
   * store wrote something a search may not see yet, so each answers with the store's own writes.
   */
  private async syncReads(): Promise<void> {
    if (this.options.refresh !== false || this.lastWriteSeq === this.refreshedSeq) return
    // However long ago the write was: a loaded node runs its scheduled refreshes late.
    await this.refresh()
  }

  async close(): Promise<void> {
    await this.queue.onIdle()
    if (this.ownsClient) await this.client.close()
  }
}

/**
 * Opens a FingerprintStore on an Elasticsearch index: checks or creates the index per
 * `ensureIndex`, then answers lookups with one `_msearch` per batch and writes with the bulk
 * helper. Connection failures reject with STORE_UNAVAILABLE, server errors with
 * STORE_REQUEST_FAILED (the client error as `cause`); credentials never appear in messages.
 *
 * @example
 * const store = await createElasticsearchStore({ node: 'http://127.0.0.1:9200', index: 'simdup' })
 * const dedup = createDeduplicator({ store })
 */
export async function createElasticsearchStore(options: ElasticsearchStoreOptions): Promise<ElasticsearchStore> {
  const resolved = resolveElasticsearchStoreOptions(options)
  const { client, node, owns, redactor } = connect(options, resolved)
  const store = new EsStore(client, resolved, owns, node, redactor)
  try {
    await store.open()
  } catch (err) {
    if (owns) await client.close().catch(() => undefined)
    throw err instanceof DedupError ? err : toStoreError(err, { action: 'open', index: resolved.index, node }, redactor)
  }
  return store
}
