import type { Client } from '@elastic/elasticsearch'
import { DedupError, describeValue, integerOption } from '../../errors.js'
import type { Layer, Rule } from '../../types.js'
import { OPTION_LIMITS, type DeduplicatorOptions } from '../../engine/options.js'
import type { ElasticsearchAuth, ElasticsearchStoreBaseOptions } from '../options.js'

/** Which source fields hold a document's title, content and URL (dotted paths reach nested objects). */
export interface ReindexFieldMap {
  /** @default 'title' (null: no title) */
  title: string | null
  /** @default 'content' */
  content: string
  /** @default 'url' (null: no URL) */
  url: string | null
}

/** Store tuning passed to the destination store (see `ElasticsearchStoreBaseOptions` for defaults). */
export type ReindexStoreTuning = Pick<ElasticsearchStoreBaseOptions, 'concurrency' | 'bulkSize' | 'msearchSize' | 'maxCandidates' | 'retries' | 'backoffMs'>

/** Counters of a reindex job, cumulative over every process that worked on it. */
export interface ReindexCounts {
  /** Documents decided (unique + duplicates + rejected). */
  docs: number
  unique: number
  duplicates: number
  byLayer: Record<Layer, number>
  /** The simhash layer's duplicates by rule; absent in a checkpoint written before simdup counted them. */
  byRule?: Record<Rule, number>
  /** Documents without usable content, id, or that the destination refused: reported, never fatal. */
  rejected: number
  /** Documents copied into `dest` (0 in place). */
  copied: number
  /** Documents read again after a resume and skipped because this job had already decided them. */
  skipped: number
}

/** What `onProgress` gets after every batch. */
export interface ReindexProgress {
  counts: Readonly<ReindexCounts>
  /** Documents in the source when the run started (`_count`). */
  total: number
  /** `counts.docs` when this process started (non-zero on a resume): rates and ETAs start from here. */
  docsAtStart: number
  /** Batches completed by this process. */
  batches: number
  /** Milliseconds since this process started the job. */
  elapsedMs: number
}

/** Options of `reindex`. Connection: `node` (+ `auth`, `caFile`) or a `client` you own. */
export interface ReindexOptions {
  /**
   * URL of a node, e.g. `http://127.0.0.1:9200`, or of several (an array, or comma-separated) as
   * in the store's `node`; `user:pass@` in it is used and never shown.
   */
  node?: string | readonly string[]
  auth?: ElasticsearchAuth
  /** PEM file of the CA that signed the node's certificate (https). */
  caFile?: string
  /** Per-request timeout in ms. @default 30 000 */
  requestTimeoutMs?: number
  /** A configured client instead of `node`; never closed here. */
  client?: Client
  /** Index (or alias) to read. */
  source: string
  /** Index to write copies with dedup fields into; created with the source's mapping + the `dedup` object when missing. */
  dest?: string
  /** Primary shards of `dest` when this job creates it (range 1–1024). @default the source's */
  shards?: number
  /** Replicas of each shard of `dest` when this job creates it (range 0–10). @default the source's */
  replicas?: number
  /** Write only the `dedup` object of each source document (partial updates). Exactly one of `dest` / `inPlace`. */
  inPlace?: boolean
  /** @default { title: 'title', content: 'content', url: 'url' } */
  fields?: Partial<ReindexFieldMap>
  /** Source field holding the document id. Only with `dest`: the copy gets this id. @default '_id' */
  idField?: string
  /**
   * Walk (and so "first seen") order: ascending on this field, then `_shard_doc`. The earliest
   * document of a cluster becomes its representative. Needs a keyword, numeric or date field.
   * @default null: `_shard_doc` order (the index's own order; cheapest)
   */
  sort?: string | null
  /** Parallel sliced point-in-time readers, merged back into one order before deciding. @default 1 (1–64) */
  slices?: number
  /** Documents per batch (one candidate lookup, one write, one checkpoint). @default 500 (1–10 000) */
  batchSize?: number
  /** Only match documents whose `sort` field (a date) is at most this many ms earlier. Needs `sort`. @default undefined */
  windowMs?: number
  /** Progress file for resuming; null for none. @default `.simdup/reindex-<source>-<dest or in-place>.json` */
  checkpointFile?: string | null
  /** JSONL file of rejected documents (appended across resumes). @default the checkpoint file with `.rejects.jsonl`; null for none */
  rejectsFile?: string | null
  /** Ignore an existing checkpoint and start over (also allows writing into an existing `dest`). @default false */
  restart?: boolean
  /** Keep-alive of the point in time between pages; a killed run resumed within it continues exactly. @default '10m' */
  keepAlive?: string
  /** How to read: point in time (`pit`), `scroll`, or `auto` (PIT, scroll where the cluster has no PIT). @default 'auto' */
  reader?: 'auto' | 'pit' | 'scroll'
  /** Decision settings (k, layers, analyzer, …). With `workers` > 1 the analyzer must be given as portable options. */
  dedup?: Omit<DeduplicatorOptions, 'store' | 'windowMs' | 'now'>
  /** Worker threads for fingerprinting (the CPU-heavy part); deciding stays on this thread, in order. @default 1 (in-process; 1–64) */
  workers?: number
  store?: ReindexStoreTuning
  /** Refresh the written index after this many documents (keeps indices with `refresh_interval: -1` searchable). @default 20 000 */
  refreshEvery?: number
  /** Stop (resumably) after this many batches in this process. @default undefined (no limit) */
  maxBatches?: number
  /** Stop (resumably) after the batch in progress when aborted. */
  signal?: AbortSignal
  onProgress?: (progress: ReindexProgress) => void
  /** Notes worth a line in a log: reader fallback, resume mode, refusals. */
  log?: (message: string) => void
}

/** The ranges of reindex's numeric options (the CLI's flags take theirs from here). */
export const REINDEX_LIMITS = Object.freeze({
  slices: Object.freeze({ min: 1, max: 64 }),
  /** One page of the walk: the library's page limit (Elasticsearch returns at most 10 000 hits a page). */
  batchSize: OPTION_LIMITS.pageSize,
  workers: OPTION_LIMITS.workers,
})

/** The defaults of the `ReindexOptions` fields left out (their ranges: `REINDEX_LIMITS`). */
export const DEFAULT_REINDEX_OPTIONS = Object.freeze({
  fields: Object.freeze({ title: 'title', content: 'content', url: 'url' }) as Readonly<ReindexFieldMap>,
  idField: '_id',
  slices: 1,
  batchSize: OPTION_LIMITS.pageSize.default,
  keepAlive: '10m',
  reader: 'auto' as 'auto' | 'pit' | 'scroll',
  refreshEvery: 20_000,
})

/** `reindex` options after defaults and validation. */
export interface ResolvedReindexOptions {
  readonly source: string
  readonly dest: string | null
  readonly inPlace: boolean
  /** Shards / replicas of a `dest` this job creates; null = the source's. */
  readonly shards: number | null
  readonly replicas: number | null
  /** The index written: `dest`, or `source` in place. */
  readonly target: string
  readonly fields: Readonly<ReindexFieldMap>
  readonly idField: string
  readonly sort: string | null
  readonly slices: number
  readonly batchSize: number
  readonly windowMs: number | undefined
  readonly checkpointFile: string | null
  readonly rejectsFile: string | null
  readonly restart: boolean
  readonly keepAlive: string
  readonly reader: 'auto' | 'pit' | 'scroll'
  readonly refreshEvery: number
  readonly maxBatches: number | undefined
  readonly workers: number
}

const INDEX_NAME = /^[a-z0-9][a-z0-9_.+-]*$/

function fieldPath(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.startsWith('.') || value.endsWith('.') || value.includes('..')) {
    throw new DedupError('INVALID_OPTION', `Expected \`${name}\` to be a field path such as \`body\` or \`meta.title\`, got ${describeValue(value)}.`)
  }
  return value
}

/**
 * The default checkpoint file of a job, relative to the working directory.
 * @example defaultCheckpointFile('news', 'news-dedup') // '.simdup/reindex-news-news-dedup.json'
 */
export function defaultCheckpointFile(source: string, dest: string | null): string {
  return `.simdup/reindex-${source}-${dest ?? 'in-place'}.json`
}

/**
 * Parses `--fields title,content,url`: positions name the title, content and URL fields; an
 * empty or `-` entry means "none" (content cannot be none).
 * @example parseFieldList('headline,body,') // { title: 'headline', content: 'body', url: null }
 */
export function parseFieldList(text: string): ReindexFieldMap {
  const parts = text.split(',').map((s) => s.trim())
  if (parts.length < 2 || parts.length > 3) {
    throw new DedupError('INVALID_OPTION', `Expected \`fields\` as title,content[,url] (e.g. \`title,body,link\`), got ${describeValue(text)}.`)
  }
  const none = (s: string | undefined) => (s === undefined || s === '' || s === '-' ? null : s)
  const content = none(parts[1])
  if (content === null) throw new DedupError('INVALID_OPTION', `Expected a content field in \`fields\` (the second entry), got ${describeValue(text)}.`)
  return { title: none(parts[0]), content, url: none(parts[2]) }
}

/**
 * Merges defaults onto a copy of `options` and validates every field and combination.
 * @example resolveReindexOptions({ node: 'http://127.0.0.1:9200', source: 'news', dest: 'news-dedup' })
 */
export function resolveReindexOptions(options: ReindexOptions): ResolvedReindexOptions {
  if (options === null || typeof options !== 'object') {
    throw new DedupError('INVALID_OPTION', `Expected reindex options to be an object, got ${describeValue(options)}.`)
  }
  if ((options.node === undefined) === (options.client === undefined)) {
    throw new DedupError('INVALID_OPTION', `Expected exactly one of \`node\` (a URL) or \`client\`, got ${options.node === undefined ? 'neither' : 'both'}.`)
  }
  for (const name of ['source', 'dest'] as const) {
    const v = options[name]
    if (name === 'dest' && v === undefined) continue
    if (typeof v !== 'string' || !INDEX_NAME.test(v) || v.length > 255) {
      throw new DedupError('INVALID_OPTION', `Expected \`${name}\` to be a lower-case Elasticsearch index name, got ${describeValue(v)}.`)
    }
  }
  const inPlace = options.inPlace === true
  const dest = options.dest ?? null
  if (inPlace === (dest !== null)) {
    throw new DedupError('INVALID_OPTION', `Expected exactly one of \`dest\` (an index to copy into) or \`inPlace: true\`, got ${dest === null ? 'neither' : 'both'}.`)
  }
  if (dest === options.source) {
    throw new DedupError('INVALID_OPTION', `Expected \`dest\` to differ from \`source\` (both \`${dest}\`). To add dedup fields to the source itself, use \`inPlace: true\`.`)
  }
  const given = options.fields ?? {}
  const fields: ReindexFieldMap = {
    title: given.title === undefined ? DEFAULT_REINDEX_OPTIONS.fields.title : given.title === null ? null : fieldPath('fields.title', given.title),
    content: fieldPath('fields.content', given.content ?? DEFAULT_REINDEX_OPTIONS.fields.content),
    url: given.url === undefined ? DEFAULT_REINDEX_OPTIONS.fields.url : given.url === null ? null : fieldPath('fields.url', given.url),
  }
  const idField = options.idField === undefined || options.idField === '_id' ? '_id' : fieldPath('idField', options.idField)
  if (inPlace && idField !== '_id') {
    throw new DedupError(
      'INVALID_OPTION',
      `Expected \`idField\` to be \`_id\` in place, got ${describeValue(idField)}: a partial update can only target the document's own _id. Use \`dest\` to re-key documents.`,
    )
  }
  const sort = options.sort ?? null
  if (sort !== null) fieldPath('sort', sort)
  const windowMs = options.windowMs
  if (windowMs !== undefined) {
    if (!(typeof windowMs === 'number' && Number.isFinite(windowMs) && windowMs > 0)) {
      throw new DedupError('INVALID_OPTION', `Expected \`windowMs\` to be a positive number of milliseconds, got ${describeValue(windowMs)}.`)
    }
    if (sort === null) {
      throw new DedupError('INVALID_OPTION', 'The `windowMs` option requires `sort` (a date field): the window is measured on that field, not on when the reindex ran.')
    }
  }
  const reader = options.reader ?? DEFAULT_REINDEX_OPTIONS.reader
  if (!['auto', 'pit', 'scroll'].includes(reader)) {
    throw new DedupError('INVALID_OPTION', `Expected \`reader\` to be 'auto', 'pit' or 'scroll', got ${describeValue(reader)}.`)
  }
  const keepAlive = options.keepAlive ?? DEFAULT_REINDEX_OPTIONS.keepAlive
  if (typeof keepAlive !== 'string' || !/^\d+(ms|s|m|h|d)$/.test(keepAlive)) {
    throw new DedupError('INVALID_OPTION', `Expected \`keepAlive\` to be an Elasticsearch time value such as \`10m\`, got ${describeValue(keepAlive)}.`)
  }
  const checkpointFile = options.checkpointFile === undefined ? defaultCheckpointFile(options.source, dest) : options.checkpointFile
  if (checkpointFile !== null && (typeof checkpointFile !== 'string' || checkpointFile === '')) {
    throw new DedupError('INVALID_OPTION', `Expected \`checkpointFile\` to be a file path or null, got ${describeValue(checkpointFile)}.`)
  }
  const rejectsFile =
    options.rejectsFile === undefined ? (checkpointFile === null ? null : checkpointFile.replace(/(\.json)?$/, '.rejects.jsonl')) : options.rejectsFile
  if (rejectsFile !== null && (typeof rejectsFile !== 'string' || rejectsFile === '')) {
    throw new DedupError('INVALID_OPTION', `Expected \`rejectsFile\` to be a file path or null, got ${describeValue(rejectsFile)}.`)
  }
  return Object.freeze({
    source: options.source,
    dest,
    inPlace,
    shards: options.shards === undefined ? null : integerOption('shards', options.shards, OPTION_LIMITS.shards.min, OPTION_LIMITS.shards.max),
    replicas: options.replicas === undefined ? null : integerOption('replicas', options.replicas, OPTION_LIMITS.replicas.min, OPTION_LIMITS.replicas.max),
    target: dest ?? options.source,
    fields: Object.freeze(fields),
    idField,
    sort,
    slices: integerOption('slices', options.slices ?? DEFAULT_REINDEX_OPTIONS.slices, REINDEX_LIMITS.slices.min, REINDEX_LIMITS.slices.max),
    batchSize: integerOption('batchSize', options.batchSize ?? DEFAULT_REINDEX_OPTIONS.batchSize, REINDEX_LIMITS.batchSize.min, REINDEX_LIMITS.batchSize.max),
    windowMs,
    checkpointFile,
    rejectsFile,
    restart: options.restart === true,
    keepAlive,
    reader,
    refreshEvery: integerOption('refreshEvery', options.refreshEvery ?? DEFAULT_REINDEX_OPTIONS.refreshEvery, 1, 10_000_000),
    maxBatches: options.maxBatches === undefined ? undefined : integerOption('maxBatches', options.maxBatches, 1, Number.MAX_SAFE_INTEGER),
    workers: integerOption('workers', options.workers ?? OPTION_LIMITS.workers.default, REINDEX_LIMITS.workers.min, REINDEX_LIMITS.workers.max),
  })
}
