import { readFileSync } from 'node:fs'
import { Client, ClusterConnectionPool, type ClientOptions, type estypes } from '@elastic/elasticsearch'
import PQueue from 'p-queue'
import type { CandidateQuery, FingerprintRecord, PutResult } from '../types.js'
import type { CandidateBounds, FingerprintStore, StoreBlockScheme } from '../store/store.js'
import { DedupError, describeValue } from '../errors.js'
import {
  DEDUP_COMPONENT_NAME,
  DEDUP_FIELDS_COMPONENT,
  DEDUP_PROPERTIES,
  SIMDUP_INDEX_TEMPLATE,
  SIMDUP_TEMPLATE_NAME,
  simdupIndexBody,
} from './_mapping.js'
import { DEDUP_SOURCE_FIELDS, recordToSource, sourceToRecord, type DedupSource } from './_document.js'
import { canMatch, candidateQuery, candidateSearchBody } from './_query.js'
import { PendingWrites } from './_pending.js'
import {
  UNION_PAGE, addHotBandCandidates, assignCandidates, boundPendingBands, bandFrequencyRequest, bandTermsOf, groupLookups, hotBandSearches, hotBandTerms, unionSearchBody, withoutBands,
  type Lookup,
} from './_lookup.js'
import { MAX_SEQ, checkQuery, isSeq, recordProblem } from '../store/_validate.js'
import {
  Redactor,
  backoffDelay,
  displayUrl,
  sleep,
  statusOf,
  toStoreError,
  withRetries,
  type RetryPolicy,
} from './_errors.js'
import {
  parseNodeUrls,
  parseRefreshInterval,
  resolveElasticsearchStoreOptions,
  type ElasticsearchStoreOptions as StoreOptionsOf,
  type ResolvedElasticsearchStoreOptions,
} from './_options.js'

export { DEDUP_FIELDS_COMPONENT, SIMDUP_INDEX_TEMPLATE, DEDUP_COMPONENT_NAME, SIMDUP_TEMPLATE_NAME } from './_mapping.js'
export { DEFAULT_ELASTICSEARCH_STORE_OPTIONS, type ElasticsearchAuth, type EnsureIndex } from './_options.js'

/**
 * The block scheme of a new Elasticsearch index: 6 blocks (11,11,11,11,10,10 bits) of which 3 must
 * match, which guarantees distance 3 like 4 × 16 / 1 but returns ~true matches only at millions of
 * records, where any-of-4 16-bit blocks returns ~N/16,384 records per lookup that are read back and
 * dropped (docs/BENCHMARKS.md, "Block schemes on a large index"). An index with records keeps theirs.
 */
export const DEFAULT_ELASTICSEARCH_BLOCK_SCHEME = Object.freeze({ blocks: 6, minMatch: 3 })

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

/** Where `installTemplates` puts the templates. */
export interface TemplateNames {
  /** @default 'simdup-dedup-fields' */
  component?: string
  /** @default 'simdup' */
  template?: string
  /** @default ['simdup*'] */
  indexPatterns?: readonly string[]
  /** @default 150 */
  priority?: number
}

/** An item-level error of a multi-request, shaped like a client error so retries and wrapping treat it alike. */
class ItemError extends Error {
  override name = 'ResponseError'
  readonly meta: { statusCode: number; body: unknown }
  constructor(status: number, error: unknown) {
    super(`${errorType(error)}: ${errorReason(error)}`)
    this.meta = { statusCode: status, body: error }
  }
}

function errorType(error: unknown): string {
  const e = error as { type?: unknown; root_cause?: { type?: unknown }[] } | null
  return String(e?.type ?? e?.root_cause?.[0]?.type ?? 'error')
}

function errorReason(error: unknown): string {
  const e = error as { reason?: unknown; caused_by?: { reason?: unknown } } | null
  const reason = String(e?.reason ?? 'unknown reason')
  const cause = e?.caused_by?.reason
  return cause === undefined ? reason : `${reason} (${String(cause)})`
}

/** The parts of a candidates `_msearch` answer the store reads (index names, scores, sort values dropped). */
const MSEARCH_FILTER_PATH = ['responses.hits.hits._id', 'responses.hits.hits._source', 'responses.error', 'responses.status']
/** Elasticsearch refuses a whole bulk request if one `_id` is longer than this (UTF-8 bytes). */
const MAX_ID_BYTES = 512
/** Defaults shared with the memory store, so both backends answer the same calls alike. */
const DEFAULT_MEMBERS_LIMIT = 1000
const DEFAULT_SCAN_BATCH = 1000
const DEFAULT_MIN_CLUSTER_SIZE = 2
/** Shortest default life of a pending entry, whatever the refresh interval. */
const MIN_PENDING_TTL_MS = 5000

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

/** Collects every credential the options carry, for redaction. */
function secretsOf(options: ElasticsearchStoreOptions): string[] {
  const out: string[] = []
  const nodes = options.node === undefined ? [] : typeof options.node === 'string' ? options.node.split(',') : options.node
  for (const node of nodes) {
    try {
      const u = new URL(String(node).trim())
      if (u.password !== '') {
        out.push(u.password, decodeURIComponent(u.password))
        out.push(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`)
      }
    } catch {
      // An unparsable URL fails validation; nothing to collect.
    }
  }
  const auth = options.auth
  if (auth !== undefined) {
    if ('password' in auth) out.push(auth.password, `${auth.username}:${auth.password}`)
    else if (typeof auth.apiKey === 'string') out.push(auth.apiKey)
    else out.push(auth.apiKey.api_key, `${auth.apiKey.id}:${auth.apiKey.api_key}`)
  }
  return out
}

/**
 * Whether a terms aggregation's top clusters (count desc, key asc) are provably the true ones:
 * every count exact, and no cluster left out could reach the last one shown (or `minSize` when
 * fewer than `limit` came back). Always so on one shard; on several, each shard only sends its
 * own top `shard_size`.
 */
function topTermsAreExact(
  agg: estypes.AggregationsStringTermsAggregate | undefined,
  buckets: readonly estypes.AggregationsStringTermsBucket[],
  limit: number,
  minSize: number,
): boolean {
  if (agg === undefined) return true
  const missing = agg.doc_count_error_upper_bound ?? 0
  if (missing === 0) return buckets.every((b) => (b.doc_count_error_upper_bound ?? 0) === 0)
  if (buckets.some((b) => (b.doc_count_error_upper_bound ?? 0) !== 0)) return false
  // A cluster left out has at most `missing` members; ties are ordered by id, so it must be fewer.
  return buckets.length < limit ? missing < minSize : missing < buckets[buckets.length - 1]!.doc_count
}

/** The scheme of records cut into `blocks` blocks: the must-match count that keeps distance 3 (4 → 1, 6 → 3). */
function storedBlockScheme(blocks: number): StoreBlockScheme {
  return { blocks, minMatch: Math.max(1, blocks - 3), fixed: true }
}

class EsStore implements ElasticsearchStore {
  private readonly queue: PQueue
  private readonly policy: RetryPolicy
  private readonly index: string
  /** Null when writes refresh themselves or the pending list is off. */
  private pending: PendingWrites | null = null
  /** How long after a write a search may still miss it; null = until `refresh()`. */
  private visibilityMs: number | null = 1000
  private lastWrite = 0
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
  /** Exact keys are not bounded here (a lookup returns up to `maxCandidates` records in all). */
  get candidateBounds(): CandidateBounds {
    return { perKey: Number.POSITIVE_INFINITY, perBand: this.options.maxPerBand }
  }

  /** Whether `sequence` has refreshed the index once. */
  private seqSynced = false

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
      // A red index (a primary and its copies lost) gets up to a minute per retry to come back,
      // as Elasticsearch gives a bulk write to such a shard.
      awaitShards: () =>
        this.client.cluster.health({ index: this.index, wait_for_status: 'yellow', timeout: '60s' }).then(
          () => undefined,
          () => undefined,
        ),
    }
    this.index = options.index
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
    const mode = this.options.ensureIndex
    if (mode !== 'none') {
      const exists = await this.request('index check', () => this.client.indices.exists({ index: this.index }))
      if (!exists && mode === 'existing') {
        throw new DedupError('NOT_FOUND', `Index \`${this.index}\` does not exist on ${this.node}: check the index name (simdup index creates it).`)
      }
      if (!exists) await this.createIndex()
      else if (mode === 'add-fields') {
        await this.request('put_mapping', () =>
          this.client.indices.putMapping({ index: this.index, properties: DEDUP_PROPERTIES as Record<string, estypes.MappingProperty> }),
        )
      } else await this.checkMapping()
      await this.checkSequenced()
    }
    this.blockScheme = await this.readBlockScheme()
    const interval = await this.refreshInterval()
    this.visibilityMs = interval === null ? null : 2 * interval
    if (this.options.refresh === false) {
      // Keeping an entry too long costs a little memory; dropping it too early misses a duplicate.
      // A loaded node can run late on refreshes, hence the floor.
      const ttl = this.options.pendingTtlMs ?? (this.visibilityMs === null ? null : Math.max(this.visibilityMs, MIN_PENDING_TTL_MS))
      if (ttl !== 0 && this.options.maxPending > 0) this.pending = new PendingWrites(ttl, this.options.maxPending)
    }
  }

  private async createIndex(): Promise<void> {
    const body = simdupIndexBody({ shards: this.options.shards, replicas: this.options.replicas })
    try {
      await this.request('index creation', () =>
        this.client.indices.create({
          index: this.index,
          settings: body.settings as estypes.IndicesIndexSettings,
          mappings: body.mappings as estypes.MappingTypeMapping,
        }),
      )
    } catch (err) {
      // Another process created it between the check and the create: that is the goal reached.
      const cause = (err as { cause?: unknown }).cause
      if (statusOf(cause) === 400 && /resource_already_exists_exception/.test(String((cause as Error).message))) return
      throw err
    }
  }

  private async checkMapping(): Promise<void> {
    const res = await this.request('get_mapping', () => this.client.indices.getMapping({ index: this.index }))
    for (const [name, m] of Object.entries(res)) {
      if (m.mappings.properties?.dedup === undefined) {
        throw new DedupError(
          'INVALID_OPTION',
          `Index \`${name}\` exists but has no \`dedup\` mapping, so simdup's fields would be mapped dynamically. ` +
            "Use `ensureIndex: 'add-fields'` to add it, or another index name.",
        )
      }
    }
  }

  /**
   * Refuses an index holding dedup records without `dedup.seq` (written before records carried
   * their first-insertion order): mixing them with numbered ones would make re-runs decide
   * differently, silently. An index without a `seq` mapping gets one if it holds no records.
   */
  private async checkSequenced(): Promise<void> {
    const res = await this.request('get_mapping', () => this.client.indices.getMapping({ index: this.index }))
    const unmapped = Object.entries(res).filter(([, m]) => {
      const dedup = m.mappings.properties?.dedup as { properties?: Record<string, unknown> } | undefined
      return dedup !== undefined && dedup.properties?.seq === undefined
    })
    if (unmapped.length > 0) {
      await this.request('put_mapping', () =>
        this.client.indices.putMapping({ index: this.index, properties: { dedup: { properties: { seq: { type: 'long' } } } } }),
      )
    }
    if (!this.options.requireSequence) return
    const old = await this.request('_count (records without seq)', () =>
      // A decided record has a cluster id; a content index may hold partial `dedup` objects (a
      // SimHash computed at ingest, say) that simdup never decided: those are not refused.
      this.client.count({ index: this.index, query: { bool: { filter: [{ exists: { field: 'dedup.cluster_id' } }], must_not: [{ exists: { field: 'dedup.seq' } }] } } }),
    )
    if (old.count > 0) {
      throw new DedupError(
        'SNAPSHOT_VERSION',
        `Index \`${this.index}\` holds ${old.count} dedup records written by an older simdup, without \`dedup.seq\` (the first-insertion order that makes re-runs decide like one clean run). ` +
          'Index into a new index (e.g. `--index <new name>`), or delete the old records first.',
      )
    }
  }

  /**
   * The block scheme of the index's records: the block count of one stored record (every record of
   * an index shares it: the deduplicator refuses another), with the must-match count that keeps
   * distance 3 (4 → 1, 6 → 3); the default for a new index when it holds none. Indexes written
   * before the default became 6 blocks hold 4-block records and keep 4 × 16 / 1.
   */
  private async readBlockScheme(): Promise<StoreBlockScheme> {
    let res: estypes.SearchResponse<{ dedup?: { blocks?: unknown } }>
    try {
      res = await this.request('_search (block layout)', () =>
        this.client.search<{ dedup?: { blocks?: unknown } }>({
          index: this.index,
          size: 1,
          terminate_after: 1,
          track_total_hits: false,
          query: { exists: { field: 'dedup.blocks' } },
          _source: ['dedup.blocks'],
        }),
      )
    } catch (err) {
      // With ensureIndex 'none' the index may not exist yet.
      if (err instanceof DedupError && err.code === 'STORE_REQUEST_FAILED' && statusOf(err.cause) === 404) return { ...DEFAULT_ELASTICSEARCH_BLOCK_SCHEME, fixed: false }
      throw err
    }
    const blocks = res.hits.hits[0]?._source?.dedup?.blocks
    const count = Array.isArray(blocks) ? blocks.length : typeof blocks === 'string' ? 1 : 0
    return count < 2 || count > 16 ? { ...DEFAULT_ELASTICSEARCH_BLOCK_SCHEME, fixed: false } : storedBlockScheme(count)
  }

  /** The index's refresh interval in ms (largest over an alias's indices); null when refresh is disabled. */
  private async refreshInterval(): Promise<number | null> {
    let res: estypes.IndicesGetSettingsResponse
    try {
      res = await this.request('get_settings', () =>
        this.client.indices.getSettings({ index: this.index, name: 'index.refresh_interval', include_defaults: true, flat_settings: true }),
      )
    } catch (err) {
      // With ensureIndex 'none' the index may not exist yet: assume the default interval.
      if (err instanceof DedupError && err.code === 'STORE_REQUEST_FAILED' && statusOf(err.cause) === 404) return 1000
      throw err
    }
    let longest: number | null = 0
    for (const s of Object.values(res)) {
      const flat = { ...(s.defaults as Record<string, unknown> | undefined), ...(s.settings as Record<string, unknown> | undefined) }
      const ms = parseRefreshInterval(flat['index.refresh_interval'])
      if (ms === null) return null
      longest = Math.max(longest, ms)
    }
    return longest === 0 ? 1000 : longest
  }

  async installTemplates(names: TemplateNames = {}): Promise<void> {
    const component = names.component ?? DEDUP_COMPONENT_NAME
    const template = { ...structuredClone(SIMDUP_INDEX_TEMPLATE), composed_of: [component] } as Record<string, unknown>
    if (names.indexPatterns !== undefined) template.index_patterns = [...names.indexPatterns]
    if (names.priority !== undefined) template.priority = names.priority
    await this.request('put component template', () =>
      this.client.cluster.putComponentTemplate({ name: component, ...structuredClone(DEDUP_FIELDS_COMPONENT) } as estypes.ClusterPutComponentTemplateRequest),
    )
    await this.request('put index template', () =>
      this.client.indices.putIndexTemplate({ name: names.template ?? SIMDUP_TEMPLATE_NAME, ...template } as estypes.IndicesPutIndexTemplateRequest),
    )
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

  /** `seq` of each stored id (ids not stored, or that Elasticsearch cannot hold, are absent). */
  private async storedSeqs(ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>()
    const unique = [...new Set(ids)].filter(storableId)
    await Promise.all(
      chunks(unique, this.options.bulkSize).map(async (c) => {
        const res = await this.request('_mget (seq)', () => this.client.mget<{ dedup?: { seq?: unknown } }>({ index: this.index, ids: c, _source: ['dedup.seq'] }))
        for (const doc of res.docs) {
          if (!('found' in doc) || !doc.found) continue
          const seq = doc._source?.dedup?.seq
          if (isSeq(seq)) out.set(doc._id, seq)
        }
      }),
    )
    return out
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

  /** One bulk request of records via the client's bulk helper; item failures with 429/5xx are retried with back-off. */
  private async bulkPut(records: FingerprintRecord[], acked: FingerprintRecord[], failures: Map<string, Error>): Promise<void> {
    const byId = new Map(records.map((r) => [r.id, r]))
    const shared = this.options.sharedIndex
    let todo = records
    for (let attempt = 0; todo.length > 0; attempt++) {
      const retry: FingerprintRecord[] = []
      const docs = todo.map((r) => ({ dedup: recordToSource(r) }))
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
          ...(this.options.refresh === false ? {} : { refresh: this.options.refresh }),
        })
      })
      for (const id of okIds) {
        const r = byId.get(id)
        if (r !== undefined) acked.push(r)
      }
      // In input order, so a retry sends documents in the order the caller gave them.
      for (const r of todo) {
        const d = dropped.get(r.id)
        if (d === undefined) continue
        if ((d.status === 429 || d.status >= 500) && attempt < this.options.retries) retry.push(r)
        else failures.set(r.id, this.itemFailure(r.id, d.status, d.error))
      }
      if (retry.length > 0) await sleep(backoffDelay(this.policy, attempt))
      todo = retry
    }
  }

  private itemFailure(id: string, status: number, error: unknown): DedupError {
    const detail = error === null || error === undefined ? 'too many requests, retries exhausted' : `${errorType(error)}: ${errorReason(error)}`
    return new DedupError('STORE_REQUEST_FAILED', this.redactor.text(`Elasticsearch rejected document \`${id}\` (status ${status}): ${detail}`), {
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
          const operations = todo.flatMap((id): estypes.BulkOperationContainer[] | [estypes.BulkOperationContainer, object] =>
            this.options.sharedIndex
              ? // Remove only simdup's object from a content document.
                [{ update: { _index: this.index, _id: id } }, { doc: { dedup: null } }]
              : [{ delete: { _index: this.index, _id: id } }],
          )
          const res = await this.request('_bulk (delete)', () =>
            this.client.bulk({ operations, ...(this.options.refresh === false ? {} : { refresh: this.options.refresh }) }),
          )
          for (const item of res.items) {
            const r = Object.values(item)[0]
            if (r === undefined || r.status < 300 || r.status === 404) continue
            if ((r.status === 429 || r.status >= 500) && attempt < this.options.retries) retry.push(String(r._id))
            else {
              failed.push(String(r._id))
              firstError ??= new ItemError(r.status, r.error)
            }
          }
          if (retry.length > 0) await sleep(backoffDelay(this.policy, attempt))
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
    this.lastWrite = Date.now()
    this.lastWriteSeq++
    if (this.pending !== null) {
      this.pending.put(put)
      this.pending.delete(deleted)
    }
  }

  // ---- reads ----

  async candidates(queries: readonly CandidateQuery[]): Promise<FingerprintRecord[][]> {
    if (!Array.isArray(queries)) throw new DedupError('INVALID_OPTION', `Expected \`queries\` to be an array, got ${describeValue(queries)}.`)
    queries.forEach(checkQuery)
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
      ...chunks(union, this.options.msearchSize).map((c) => this.lookup(groupLookups(c, this.options.msearchSize), out)),
    ])
    if (hot.size > 0) addHotBandCandidates(out, lookups, hot, hotHits, this.options.maxPerBand, this.options.maxCandidates, this.seqFloor)
    const pending = this.pending
    if (pending !== null && !pending.isEmpty()) {
      queries.forEach((q, i) => {
        // The pending copy is the newest: drop a search's copy of the same id (maybe stale or deleted).
        const merged = out[i]!.filter((r) => !pending.shadows(r.id))
        out[i] = merged.concat(q.allBands === true ? pending.matches(q) : boundPendingBands(pending.matches(q), q, this.options.maxPerBand))
      })
    }
    return out
  }

  /**
   * One `_msearch` with one union search per group (see _es-lookup.ts). A group whose union filled
   * its page may have lost hits: it is split in two and asked again; a single lookup that does
   * so is asked by its own search, capped at maxCandidates as always.
   */
  private async lookup(groups: Lookup[][], out: FingerprintRecord[][], own = false): Promise<void> {
    const bodies = groups.map((g) =>
      own ? candidateSearchBody(candidateQuery(g[0]!.query)!, this.options.maxCandidates) : unionSearchBody(g.map((l) => l.query), UNION_PAGE),
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

  /** The band terms of `lookups` that more than `maxPerBand` records have (one `_termvectors` request). */
  private async hotBands(lookups: readonly Lookup[]): Promise<Set<string>> {
    const terms = bandTermsOf(lookups)
    if (terms.length === 0) return new Set()
    const res = await this.request('_termvectors (band frequencies)', async () => {
      try {
        return await this.client.termvectors({ index: this.index, ...bandFrequencyRequest(terms) })
      } catch (err) {
        // An alias over several indices has no single term dictionary (400): no term is treated as hot.
        if (statusOf(err) === 400) return null
        throw err
      }
    })
    return hotBandTerms(res, this.options.maxPerBand)
  }

  /** The newest records of each hot band term `lookups` ask for, by `hotBandSearches` key (one `_msearch` per msearchSize terms). */
  private async hotBandHits(lookups: readonly Lookup[], hot: ReadonlySet<string>): Promise<Map<string, FingerprintRecord[]>> {
    const hits = new Map<string, FingerprintRecord[]>()
    if (hot.size === 0) return hits
    const searches = hotBandSearches(lookups, hot, this.options.maxPerBand, this.seqFloor)
    await Promise.all(
      chunks([...searches.keys()], this.options.msearchSize).map(async (keys) => {
        const answers = await this.msearch(keys.map((k) => searches.get(k)!))
        keys.forEach((k, i) => hits.set(k, answers[i]!))
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
        if ('error' in item) throw new ItemError(item.status, item.error)
      }
      return r
    })
    return res.responses.map((item) => {
      const list: FingerprintRecord[] = []
      if ('error' in item) return list
      // A search without hits comes back without `hits` at all once filtered.
      for (const hit of item.hits?.hits ?? []) {
        const record = sourceToRecord(String(hit._id), hit._source)
        if (record !== null) list.push(record)
      }
      return list
    })
  }

  async get(ids: readonly string[]): Promise<Map<string, FingerprintRecord>> {
    if (!Array.isArray(ids)) throw new DedupError('INVALID_OPTION', `Expected \`ids\` to be an array, got ${describeValue(ids)}.`)
    const found = new Map<string, FingerprintRecord>()
    const unique = [...new Set(ids)].filter(storableId)
    await Promise.all(
      chunks(unique, this.options.bulkSize).map(async (c) => {
        // mget is real-time (reads the translog): no refresh or pending merge needed.
        const res = await this.request('_mget', () => this.client.mget<{ dedup?: unknown }>({ index: this.index, ids: c, _source: DEDUP_SOURCE_FIELDS }))
        for (const doc of res.docs) {
          if (!('found' in doc) || !doc.found) continue
          const record = sourceToRecord(doc._id, doc._source)
          if (record !== null) found.set(record.id, record)
        }
      }),
    )
    return found
  }

  async members(clusterId: string, limit = DEFAULT_MEMBERS_LIMIT): Promise<FingerprintRecord[]> {
    if (typeof clusterId !== 'string') throw new DedupError('INVALID_OPTION', `Expected \`clusterId\` to be a string, got ${describeValue(clusterId)}.`)
    if (!Number.isInteger(limit) || limit < 0) throw new DedupError('INVALID_OPTION', `Expected \`limit\` to be an integer ≥ 0, got ${describeValue(limit)}.`)
    if (limit === 0) return []
    await this.syncReads()
    const out: FingerprintRecord[] = []
    let after: estypes.SortResults | undefined
    while (out.length < limit) {
      const size = Math.min(1000, limit - out.length)
      const res = await this.request('_search (members)', () =>
        this.client.search<{ dedup?: unknown }>({
          index: this.index,
          query: { bool: { filter: [{ term: { 'dedup.cluster_id': clusterId } }] } },
          // First-insertion order then id: a total order, so search_after pages neither skip nor repeat.
          sort: [{ 'dedup.seq': 'asc' }, { 'dedup.id': 'asc' }],
          size,
          track_total_hits: false,
          _source: DEDUP_SOURCE_FIELDS,
          ...(after === undefined ? {} : { search_after: after }),
        }),
      )
      const hits = res.hits.hits
      for (const hit of hits) {
        const record = sourceToRecord(String(hit._id), hit._source)
        if (record !== null) out.push(record)
      }
      if (hits.length < size) break
      after = hits[hits.length - 1]!.sort
    }
    return out
  }

  async *scan(batchSize = DEFAULT_SCAN_BATCH): AsyncIterable<FingerprintRecord[]> {
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new DedupError('INVALID_OPTION', `Expected \`batchSize\` to be an integer ≥ 1, got ${describeValue(batchSize)}.`)
    // A search page holds at most 10 000 hits (index.max_result_window); batches may be smaller than asked.
    const page = Math.min(batchSize, 10_000)
    await this.syncReads()
    const opened = await this.request('open point in time', () => this.client.openPointInTime({ index: this.index, keep_alive: '2m' }))
    let pitId = opened.id
    try {
      let after: estypes.SortResults | undefined
      for (;;) {
        const res = await this.request('_search (scan)', () =>
          this.client.search<{ dedup?: unknown }>({
            pit: { id: pitId, keep_alive: '2m' },
            query: { exists: { field: 'dedup.id' } },
            // _shard_doc: the cheapest total order of a point in time, made for search_after.
            sort: [{ _shard_doc: 'asc' }],
            size: page,
            track_total_hits: false,
            _source: DEDUP_SOURCE_FIELDS,
            ...(after === undefined ? {} : { search_after: after }),
          }),
        )
        if (res.pit_id !== undefined) pitId = res.pit_id
        const hits = res.hits.hits
        const batch: FingerprintRecord[] = []
        for (const hit of hits) {
          const record = sourceToRecord(String(hit._id), hit._source)
          if (record !== null) batch.push(record)
        }
        if (batch.length > 0) yield batch
        if (hits.length < page) break
        after = hits[hits.length - 1]!.sort
      }
    } finally {
      // Also runs when the consumer stops early: a point in time holds segments until it closes.
      await this.client.closePointInTime({ id: pitId }).catch(() => undefined)
    }
  }

  async topClusters(limit: number, minSize = DEFAULT_MIN_CLUSTER_SIZE): Promise<{ clusterId: string; size: number }[]> {
    if (!Number.isInteger(limit) || limit < 0) throw new DedupError('INVALID_OPTION', `Expected \`limit\` to be an integer ≥ 0, got ${describeValue(limit)}.`)
    if (!Number.isInteger(minSize) || minSize < 1) throw new DedupError('INVALID_OPTION', `Expected \`minSize\` to be an integer ≥ 1, got ${describeValue(minSize)}.`)
    if (limit === 0) return []
    await this.syncReads()
    const aggs = await this.aggregate('topClusters', {
      clusters: {
        terms: {
          field: 'dedup.cluster_id',
          size: Math.min(limit, 65_000),
          // Per-shard candidates: with several shards the default (size × 1.5 + 10) undercounts.
          shard_size: Math.min(Math.max(1000, limit * 20), 65_000),
          min_doc_count: minSize,
          order: [{ _count: 'desc' }, { _key: 'asc' }],
          show_term_doc_count_error: true,
        },
      },
    })
    const agg = aggs?.clusters as estypes.AggregationsStringTermsAggregate | undefined
    const buckets = (agg?.buckets ?? []) as estypes.AggregationsStringTermsBucket[]
    const top = buckets.map((b) => ({ clusterId: String(b.key), size: b.doc_count }))
    return topTermsAreExact(agg, buckets, limit, minSize) ? top : this.topClustersExact(limit, minSize)
  }

  /**
   * The largest clusters counted over every cluster id (a composite aggregation, paged): exact on
   * any number of shards, at the cost of one bucket per cluster. Used when the terms aggregation's
   * error bounds cannot prove its answer.
   */
  private async topClustersExact(limit: number, minSize: number): Promise<{ clusterId: string; size: number }[]> {
    const best: { clusterId: string; size: number }[] = []
    const order = (a: { clusterId: string; size: number }, b: { clusterId: string; size: number }) =>
      b.size - a.size || (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0)
    let after: Record<string, string | number | boolean | null> | undefined
    for (;;) {
      const page = await this.aggregate('topClusters, composite', {
        clusters: {
          composite: { size: 10_000, sources: [{ id: { terms: { field: 'dedup.cluster_id' } } }], ...(after === undefined ? {} : { after }) },
        },
      })
      const agg = page?.clusters as estypes.AggregationsCompositeAggregate | undefined
      const buckets = (agg?.buckets ?? []) as estypes.AggregationsCompositeBucket[]
      for (const b of buckets) if (b.doc_count >= minSize) best.push({ clusterId: String(b.key.id), size: b.doc_count })
      // Keep the list short: sort and cut once it is well past the limit.
      if (best.length > 2 * limit + 10_000) best.sort(order).length = limit
      if (buckets.length === 0 || agg?.after_key === undefined) break
      after = agg.after_key as Record<string, string | number | boolean | null>
    }
    best.sort(order)
    return best.slice(0, limit)
  }

  async versions(): Promise<string[]> {
    await this.syncReads()
    const aggs = await this.aggregate('versions', { versions: { terms: { field: 'dedup.version', size: 1000 } } })
    const agg = aggs?.versions as estypes.AggregationsStringTermsAggregate | undefined
    const buckets = Array.isArray(agg?.buckets) ? agg.buckets : []
    return buckets.map((b) => String(b.key)).sort()
  }

  /** Aggregations over every record of the index (no hits, no total): `clusters`, `versions`. */
  private async aggregate(action: string, aggs: Record<string, estypes.AggregationsAggregationContainer>): Promise<Record<string, estypes.AggregationsAggregate> | undefined> {
    const res = await this.request(`_search (${action})`, () =>
      this.client.search({ index: this.index, size: 0, track_total_hits: false, query: { exists: { field: 'dedup.id' } }, aggs }),
    )
    return res.aggregations
  }

  async count(): Promise<number> {
    await this.syncReads()
    const res = await this.request('_count', () => this.client.count({ index: this.index, query: { exists: { field: 'dedup.id' } } }))
    return res.count
  }

  async refresh(): Promise<void> {
    const mark = this.pending?.mark ?? 0
    const seq = this.lastWriteSeq
    await this.request('refresh', () => this.client.indices.refresh({ index: this.index }))
    this.pending?.refreshed(mark)
    this.refreshedSeq = seq
  }

  /**
   * Before a read that has no pending merge (count, members, scan, topClusters): refresh when this
   * store wrote something a search may not see yet, so each answers with the store's own writes.
   */
  private async syncReads(): Promise<void> {
    if (this.options.refresh !== false || this.lastWriteSeq === this.refreshedSeq) return
    if (this.visibilityMs !== null && Date.now() - this.lastWrite > this.visibilityMs) return
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
  const redactor = new Redactor(secretsOf(options))
  let client: Client
  let node: string
  const owns = options.client === undefined
  if (options.client !== undefined) {
    client = options.client
    const first = client.connectionPool.connections[0]
    node = first === undefined ? '(client)' : displayUrl(first.url.toString())
  } else {
    const nodes = parseNodeUrls(options.node)
    node = nodes.map(displayUrl).join(',')
    const clientOptions: ClientOptions = {
      nodes,
      // The store retries with back-off itself. The transport retries only to move to another
      // node: a connection error marks the node dead and the next attempt goes to a live one.
      maxRetries: nodes.length - 1,
      // The client also marks a node dead when it answers 503, which a live node does for a red
      // index; the default weighted pool can then find no node at all ("no living connections")
      // for a minute. This pool tries every node when all are marked dead.
      ConnectionPool: ClusterConnectionPool,
      requestTimeout: resolved.requestTimeoutMs,
    }
    if (options.auth !== undefined) clientOptions.auth = options.auth
    if (options.caFile !== undefined) {
      try {
        clientOptions.tls = { ca: readFileSync(options.caFile) }
      } catch (cause) {
        throw new DedupError('INVALID_OPTION', `Expected \`caFile\` to be a readable PEM file, got ${describeValue(options.caFile)}.`, { cause })
      }
    }
    try {
      client = new Client(clientOptions)
    } catch (cause) {
      throw new DedupError('INVALID_OPTION', redactor.text(`Cannot configure an Elasticsearch client for ${node}.`), { cause: redactor.error(cause) })
    }
  }
  const store = new EsStore(client, resolved, owns, node, redactor)
  try {
    await store.open()
  } catch (err) {
    if (owns) await client.close().catch(() => undefined)
    throw err instanceof DedupError ? err : toStoreError(err, { action: 'open', index: resolved.index, node }, redactor)
  }
  return store
}
