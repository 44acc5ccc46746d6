import { DedupError, describeValue, integerOption } from '../errors.js'
import { OPTION_LIMITS } from '../engine/options.js'

/** Credentials: an API key (encoded, or id + key) or a user and password. */
export type ElasticsearchAuth = { apiKey: string | { id: string; api_key: string } } | { username: string; password: string }

/**
 * What the store does about its index on open.
 * - `create`: create a standalone dedup index (mapping of mappings/simdup-template.json) when it
 *   is missing; if it exists it must already have the `dedup` mapping.
 * - `add-fields`: add the `dedup` mapping to an existing (content) index with `put_mapping`, or
 *   create the index when it is missing.
 * - `existing`: create and change nothing; the index must exist with the `dedup` mapping, else
 *   NOT_FOUND / INVALID_OPTION (read-only use: a mistyped name is reported, not created).
 * - `none`: touch nothing (the index and its mapping are managed elsewhere).
 */
export type EnsureIndex = 'create' | 'add-fields' | 'existing' | 'none'

/** Options shared by both ways of naming the cluster. */
export interface ElasticsearchStoreBaseOptions {
  /** Index (or alias) holding the records. Lower case, no `*`, `,`, spaces. */
  index: string
  /** @default 'create' */
  ensureIndex?: EnsureIndex
  /**
   * The index holds other fields too (a content index): `put` merges the `dedup` object into the
   * existing document (update, upsert) instead of replacing it, and `delete` removes only the
   * `dedup` object. @default true when `ensureIndex` is 'add-fields', else false
   */
  sharedIndex?: boolean
  /**
   * With `sharedIndex`: a record whose document does not exist creates it (holding only `dedup`).
   * `false` makes that record fail (status 404, `document_missing_exception`) instead, for writes
   * into documents that must already exist: an in-place reindex passes it, so a document deleted
   * while the job runs stays deleted. @default true
   */
  upsert?: boolean
  /**
   * On open, refuse an index holding dedup records without `dedup.seq` (written before records
   * carried their first-insertion order), with SNAPSHOT_VERSION: matching them would make re-runs
   * decide differently, silently. A reindex job turns it off: it only ever matches the records it
   * wrote itself, and rewrites every `dedup` object it visits. @default true
   */
  requireSequence?: boolean
  /**
   * The `refresh` parameter of writes. `false` is fastest; records become searchable at the next
   * index refresh and the store bridges the gap with its pending list. @default false
   */
  refresh?: boolean | 'wait_for'
  /**
   * Primary shards of an index the store creates (`ensureIndex` 'create' or 'add-fields' on a
   * missing index; an existing index keeps its own). 1 suits one node; on a cluster, about one
   * per data node. @default 1 (range 1–1024)
   */
  shards?: number
  /**
   * Replica copies of each shard of an index the store creates. 0 on one node (a replica could
   * never be placed); 1 or more on a cluster, so losing a node loses no data. @default 0 (range 0–10)
   */
  replicas?: number
  /** Requests in flight at once (bulk and msearch), via p-queue. @default 2 (range 1–64) */
  concurrency?: number
  /** Records per `_bulk` request. @default 1000 (range 1–100 000) */
  bulkSize?: number
  /** Lookups per `_msearch` request; a larger batch is split. @default 500 (range 1–10 000) */
  msearchSize?: number
  /** Most candidates returned per lookup (the search `size`). @default 1000 (range 1–10 000, the default max_result_window) */
  maxCandidates?: number
  /**
   * Most records one MinHash band term adds to a lookup's answer: its newest (by `indexed_at`).
   * Terms that more records have are asked apart (see _es-lookup.ts), so that content shared by
   * many documents does not cost each lookup thousands of hits. @default 4 (range 1–1000)
   */
  maxPerBand?: number
  /**
   * Bounds by cluster (see `CandidateBounds.perCluster`): most records of one cluster a band term
   * adds to an answer (those first indexed first); `maxPerBand` then counts a term's clusters (a hot
   * term is asked apart with its records collapsed by cluster). 0: no bound by cluster. The embedded
   * store's default too, so that both stores decide identically. @default 2 (range 0–1000)
   */
  maxPerCluster?: number
  /** Retries of a request (or of the documents in a bulk) that failed with 429, 5xx or no connection. @default 3 (range 0–10) */
  retries?: number
  /** First back-off before a retry in ms, doubled each time. @default 200 (range 0–60 000) */
  backoffMs?: number
  /**
   * Age of the oldest put in the pending list that `candidates` merges in (see PendingWrites) after
   * which the next lookup first refreshes the index (an entry leaves the list only by a refresh that
   * shows it; 0 turns the list off). @default 2 × the index's refresh_interval, at least 5 000 ms; none when the interval is -1
   */
  pendingTtlMs?: number
  /** Size of the pending list at which the store refreshes the index to empty it (0 turns the list off). @default 50 000 */
  maxPending?: number
  /**
   * Cap on the heap of the hot band cache (the newest records of hot MinHash band terms, kept
   * between batches; see _hot-bands.ts), in bytes as estimated per record; the oldest terms go
   * first and are asked again when met (0 turns the cache off). @default 67 108 864 (64 MiB)
   */
  hotBandCacheBytes?: number
}

/** Options of `createElasticsearchStore`: a node URL (the store creates and closes the client) or a client you own. */
export type ElasticsearchStoreOptions<C = unknown> = ElasticsearchStoreBaseOptions &
  (
    | {
        /**
         * URL of a node, e.g. `http://127.0.0.1:9200`, or of several nodes of one cluster (an array,
         * or one string with the URLs comma-separated as `npm run es:start` prints them): requests
         * go round-robin, and one that cannot connect is retried at once on another node.
         * `user:pass@` in a URL is used as credentials and never shown.
         */
        node: string | readonly string[]
        client?: undefined
        auth?: ElasticsearchAuth
        /** PEM file of the CA that signed the node's certificate (https). */
        caFile?: string
        /**
         * Per-request timeout in ms. A bulk write asks Elasticsearch to wait at most half of it for
         * a shard's primary to start (its `timeout`), so a red index answers 503 before the client
         * gives up; the store then waits for the primaries itself. @default 30 000
         */
        requestTimeoutMs?: number
      }
    | {
        /** A configured client; the store never closes it. */
        client: C
        node?: undefined
        auth?: undefined
        caFile?: undefined
        requestTimeoutMs?: undefined
      }
  )

/** Defaults of `ElasticsearchStoreOptions` (the pending TTL follows the index's refresh interval). */
export const DEFAULT_ELASTICSEARCH_STORE_OPTIONS = Object.freeze({
  ensureIndex: 'create' as EnsureIndex,
  refresh: false as boolean | 'wait_for',
  shards: OPTION_LIMITS.shards.default,
  replicas: OPTION_LIMITS.replicas.default,
  concurrency: 2,
  bulkSize: 1000,
  msearchSize: 500,
  maxCandidates: 1000,
  maxPerBand: 4,
  maxPerCluster: OPTION_LIMITS.maxPerCluster.default,
  retries: 3,
  backoffMs: 200,
  maxPending: 50_000,
  hotBandCacheBytes: 64 * 2 ** 20,
  requestTimeoutMs: 30_000,
})

/** Options after defaults and validation (connection fields are left to the caller). */
export interface ResolvedElasticsearchStoreOptions {
  readonly index: string
  readonly ensureIndex: EnsureIndex
  readonly sharedIndex: boolean
  readonly upsert: boolean
  readonly requireSequence: boolean
  readonly refresh: boolean | 'wait_for'
  readonly shards: number
  readonly replicas: number
  readonly concurrency: number
  readonly bulkSize: number
  readonly msearchSize: number
  readonly maxCandidates: number
  readonly maxPerBand: number
  /** 0: none. */
  readonly maxPerCluster: number
  readonly retries: number
  readonly backoffMs: number
  readonly pendingTtlMs: number | undefined
  readonly maxPending: number
  readonly hotBandCacheBytes: number
  readonly requestTimeoutMs: number
}

/**
 * The node URLs of `node`: one URL, an array of URLs, or URLs separated by commas (spaces around
 * them ignored). Throws INVALID_OPTION naming the position of a bad entry, never its text (it may
 * carry a password).
 * @example parseNodeUrls('http://127.0.0.1:9250,http://127.0.0.1:9251') // ['http://127.0.0.1:9250', 'http://127.0.0.1:9251']
 */
export function parseNodeUrls(node: unknown): string[] {
  const list = typeof node === 'string' ? node.split(',') : Array.isArray(node) ? (node as unknown[]) : null
  if (list === null || list.length === 0) {
    throw new DedupError('INVALID_OPTION', 'Expected `node` to be a URL such as `http://127.0.0.1:9200`, a list of them, or URLs separated by commas.')
  }
  const urls = list.map((entry, i) => {
    const url = typeof entry === 'string' ? entry.trim() : ''
    let ok = /^https?:\/\/[^/]/.test(url)
    if (ok) {
      try {
        new URL(url)
      } catch {
        ok = false
      }
    }
    if (!ok) {
      const where = list.length === 1 ? '' : ` (entry ${i + 1} of ${list.length})`
      throw new DedupError('INVALID_OPTION', `Expected \`node\`${where} to be an http:// or https:// URL such as \`http://127.0.0.1:9200\`.`)
    }
    return url
  })
  return urls
}

/**
 * Merges defaults onto a copy and validates every field and combination.
 * @example resolveElasticsearchStoreOptions({ node: 'http://127.0.0.1:9200', index: 'simdup' })
 */
export function resolveElasticsearchStoreOptions(options: ElasticsearchStoreOptions): ResolvedElasticsearchStoreOptions {
  if (options === null || typeof options !== 'object') {
    throw new DedupError('INVALID_OPTION', `Expected Elasticsearch store options to be an object, got ${describeValue(options)}.`)
  }
  // Drop explicit undefineds so `{ bulkSize: undefined }` from a JS caller cannot wipe a default.
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as ElasticsearchStoreOptions
  const o = { ...DEFAULT_ELASTICSEARCH_STORE_OPTIONS, ...given }
  if ((o.node === undefined) === (o.client === undefined)) {
    throw new DedupError('INVALID_OPTION', 'Expected exactly one of `node` (a URL) or `client` (an Elasticsearch client), got ' + (o.node === undefined ? 'neither.' : 'both.'))
  }
  if (o.node !== undefined) parseNodeUrls(o.node)
  // Elasticsearch's own rules for index names, so a bad name fails here and not on the first write.
  if (typeof o.index !== 'string' || !/^[a-z0-9][a-z0-9_.+-]*$/.test(o.index) || o.index.length > 255 || o.index === '.' || o.index === '..') {
    throw new DedupError(
      'INVALID_OPTION',
      `Expected \`index\` to be a lower-case Elasticsearch index name (letters, digits, _ . + -, not starting with _ - +), got ${describeValue(o.index)}.`,
    )
  }
  if (!['create', 'add-fields', 'existing', 'none'].includes(o.ensureIndex)) {
    throw new DedupError('INVALID_OPTION', `Expected \`ensureIndex\` to be 'create', 'add-fields', 'existing' or 'none', got ${describeValue(o.ensureIndex)}.`)
  }
  if (o.refresh !== true && o.refresh !== false && o.refresh !== 'wait_for') {
    throw new DedupError('INVALID_OPTION', `Expected \`refresh\` to be true, false or 'wait_for', got ${describeValue(o.refresh)}.`)
  }
  const sharedIndex = o.sharedIndex ?? o.ensureIndex === 'add-fields'
  if (typeof sharedIndex !== 'boolean') {
    throw new DedupError('INVALID_OPTION', `Expected \`sharedIndex\` to be a boolean, got ${describeValue(sharedIndex)}.`)
  }
  const upsert = o.upsert ?? true
  if (typeof upsert !== 'boolean') {
    throw new DedupError('INVALID_OPTION', `Expected \`upsert\` to be a boolean, got ${describeValue(upsert)}.`)
  }
  const requireSequence = o.requireSequence ?? true
  if (typeof requireSequence !== 'boolean') {
    throw new DedupError('INVALID_OPTION', `Expected \`requireSequence\` to be a boolean, got ${describeValue(requireSequence)}.`)
  }
  const pendingTtlMs = o.pendingTtlMs
  if (pendingTtlMs !== undefined && !(Number.isFinite(pendingTtlMs) && pendingTtlMs >= 0)) {
    throw new DedupError('INVALID_OPTION', `Expected \`pendingTtlMs\` to be a number of milliseconds ≥ 0, got ${describeValue(pendingTtlMs)}.`)
  }
  return Object.freeze({
    index: o.index,
    ensureIndex: o.ensureIndex,
    sharedIndex,
    upsert,
    requireSequence,
    refresh: o.refresh,
    shards: integerOption('shards', o.shards, OPTION_LIMITS.shards.min, OPTION_LIMITS.shards.max),
    replicas: integerOption('replicas', o.replicas, OPTION_LIMITS.replicas.min, OPTION_LIMITS.replicas.max),
    concurrency: integerOption('concurrency', o.concurrency, 1, 64),
    bulkSize: integerOption('bulkSize', o.bulkSize, 1, 100_000),
    msearchSize: integerOption('msearchSize', o.msearchSize, 1, 10_000),
    maxCandidates: integerOption('maxCandidates', o.maxCandidates, 1, 10_000, ' Larger pages exceed the default `index.max_result_window`.'),
    maxPerBand: integerOption('maxPerBand', o.maxPerBand, 1, 1000),
    maxPerCluster: integerOption('maxPerCluster', o.maxPerCluster, OPTION_LIMITS.maxPerCluster.min, OPTION_LIMITS.maxPerCluster.max),
    retries: integerOption('retries', o.retries, 0, 10),
    backoffMs: integerOption('backoffMs', o.backoffMs, 0, 60_000),
    pendingTtlMs,
    maxPending: integerOption('maxPending', o.maxPending, 0, 10_000_000),
    hotBandCacheBytes: integerOption('hotBandCacheBytes', o.hotBandCacheBytes, 0, 2 ** 40),
    requestTimeoutMs: integerOption('requestTimeoutMs', o.requestTimeoutMs ?? DEFAULT_ELASTICSEARCH_STORE_OPTIONS.requestTimeoutMs, 1, 3_600_000),
  })
}

/** Parses an index `refresh_interval` ("1s", "500ms", "-1") into ms; null for -1 (refresh disabled). */
export function parseRefreshInterval(value: unknown): number | null {
  if (value === undefined || value === null) return 1000
  const text = String(value).trim()
  if (text === '-1') return null
  const m = /^(\d+(?:\.\d+)?)(nanos|micros|ms|s|m|h|d)?$/.exec(text)
  if (m === null) return 1000
  const unit = { nanos: 1e-6, micros: 1e-3, ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3 }[(m[2] ?? 'ms') as 'ms']
  return Number(m[1]) * unit
}
