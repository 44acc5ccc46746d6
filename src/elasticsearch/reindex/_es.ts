import type { Client, estypes } from '@elastic/elasticsearch'
import { DedupError } from '../../errors.js'
import { DEDUP_PROPERTIES } from '../mapping.js'
import { statusOf, toStoreError } from '../failures.js'
import { Redactor, displayUrl } from '../redaction.js'
import { awaitPrimaries, withRetries, type RetryPolicy } from '../retry.js'
import type { ElasticsearchAuth } from '../options.js'
import { fieldSort, type FieldSort } from './_sort.js'
import { secretsOf } from '../connection.js'

/** Runs one request with retries on 429/5xx/unreachable; failures come out as DedupErrors. */
export type Requester = <T>(action: string, index: string, fn: () => Promise<T>) => Promise<T>

/**
 * The requester for this job's own calls (reads, copies), worded and redacted like the store's,
 * and as patient with a red index: a partial answer is retried after waiting for the primaries of
 * the index it read (`awaitPrimaries`), not only after the back-off.
 */
export function makeRequester(policy: RetryPolicy, client: Client, node: string | readonly string[] | undefined, auth: ElasticsearchAuth | undefined): Requester {
  const redactor = new Redactor(secretsOf(node, auth))
  const where = node === undefined ? '(client)' : (typeof node === 'string' ? node.split(',') : node).map((u) => displayUrl(String(u).trim())).join(',')
  return async (action, index, fn) => {
    try {
      return await withRetries({ ...policy, awaitShards: () => awaitPrimaries(client, index) }, fn)
    } catch (err) {
      throw toStoreError(err, { action, index, node: where }, redactor)
    }
  }
}

/** Status of the client error behind a DedupError (or of the error itself). */
export function causeStatus(err: unknown): number | undefined {
  return statusOf(err) ?? statusOf((err as { cause?: unknown } | null)?.cause)
}

/** What a reindex needs to know about its source before reading. */
export interface SourceInfo {
  /** Concrete indices behind the name (an alias or pattern may have several). */
  indices: string[]
  /** Mappings of the first index (all must agree to create `dest` from them). */
  mappings: Record<string, unknown>
  /** The index settings of the first index (`index.*`). */
  settings: Record<string, unknown>
  /** Whether all indices share one mapping. */
  sameMappings: boolean
}

/**
 * Reads mappings and settings of the source and refuses what a reindex cannot work with: a
 * missing index, or a `_source` that is disabled (nothing to copy, no partial updates).
 */
export async function inspectSource(client: Client, source: string, request: Requester): Promise<SourceInfo> {
  let got: estypes.IndicesGetResponse
  try {
    got = await request('get index', source, () => client.indices.get({ index: source }))
  } catch (err) {
    if (causeStatus(err) === 404) throw new DedupError('NOT_FOUND', `Source index \`${source}\` does not exist.`, { cause: err })
    throw err
  }
  const entries = Object.entries(got)
  if (entries.length === 0) throw new DedupError('NOT_FOUND', `Source \`${source}\` names no index.`)
  const first = entries[0]![1]
  const mappings = (first.mappings ?? {}) as Record<string, unknown>
  for (const [name, state] of entries) {
    if ((state.mappings?._source as { enabled?: boolean } | undefined)?.enabled === false) {
      throw new DedupError('INVALID_INPUT', `Source index \`${name}\` has \`_source\` disabled: there is no document text to read or copy.`)
    }
  }
  const json = JSON.stringify(mappings)
  return {
    indices: entries.map(([name]) => name),
    mappings,
    settings: ((first.settings?.index ?? {}) as Record<string, unknown>),
    sameMappings: entries.every(([, s]) => JSON.stringify(s.mappings ?? {}) === json),
  }
}

/** The sort clause and kind of the `sort` field, from the source mapping. */
export async function sortOfField(client: Client, source: string, field: string, request: Requester): Promise<FieldSort> {
  const res = await request('get field mapping', source, () => client.indices.getFieldMapping({ index: source, fields: field }))
  const types = new Set<string>()
  for (const index of Object.values(res)) {
    const m = index.mappings[field]
    if (m === undefined) continue
    for (const leaf of Object.values(m.mapping)) types.add(String((leaf as { type?: unknown }).type))
  }
  if (types.size === 0) throw new DedupError('INVALID_OPTION', `Expected \`sort\` to name a mapped field of \`${source}\`, got \`${field}\` (not in its mapping).`)
  if (types.size > 1) throw new DedupError('INVALID_OPTION', `Expected \`sort\` field \`${field}\` to have one type across \`${source}\`, got ${[...types].join(', ')}.`)
  return fieldSort(field, [...types][0]!)
}

/** Settings worth carrying over to `dest`: shape and analysis, not identity, allocation or lifecycle. */
const COPIED_SETTINGS = ['number_of_shards', 'number_of_replicas', 'analysis', 'similarity', 'mapping', 'max_result_window', 'codec', 'sort', 'max_ngram_diff', 'max_shingle_diff']

/**
 * Creates `dest` with the source's mapping plus the `dedup` object (the same properties as the
 * dedup-fields component template). A required `_routing` is dropped: copies are routed by id,
 * which is also what the store's updates use.
 */
export async function createDest(
  client: Client,
  dest: string,
  info: SourceInfo,
  request: Requester,
  layout: { shards: number | null; replicas: number | null } = { shards: null, replicas: null },
): Promise<void> {
  if (!info.sameMappings) {
    throw new DedupError(
      'INVALID_INPUT',
      `Source resolves to ${info.indices.length} indices with different mappings (${info.indices.slice(0, 3).join(', ')}…): create \`${dest}\` yourself ` +
        '(with the simdup-dedup-fields component) and pass `restart` to reindex into it.',
    )
  }
  const mappings = structuredClone(info.mappings)
  delete mappings._routing
  mappings.properties = { ...((mappings.properties ?? {}) as Record<string, unknown>), ...structuredClone(DEDUP_PROPERTIES) }
  const settings: Record<string, unknown> = {}
  for (const key of COPIED_SETTINGS) if (info.settings[key] !== undefined) settings[key] = structuredClone(info.settings[key])
  if (layout.shards !== null) settings.number_of_shards = layout.shards
  if (layout.replicas !== null) settings.number_of_replicas = layout.replicas
  await request('index creation', dest, () =>
    client.indices.create({ index: dest, settings: settings as estypes.IndicesIndexSettings, mappings: mappings as estypes.MappingTypeMapping }),
  )
}

/** Whether an index (or alias) exists. */
export async function indexExists(client: Client, index: string, request: Requester): Promise<boolean> {
  return request('index check', index, () => client.indices.exists({ index }))
}

/** Documents in an index. */
export async function countDocs(client: Client, index: string, request: Requester): Promise<number> {
  const res = await request('_count', index, () => client.count({ index }))
  return res.count
}

/** Largest `dedup.indexed_at` in `index` (null when none): this job's clock starts after it. */
export async function maxIndexedAt(client: Client, index: string, request: Requester): Promise<number | null> {
  const res = await request('_search (max indexed_at)', index, () =>
    client.search({ index, size: 0, track_total_hits: false, aggs: { last: { max: { field: 'dedup.indexed_at' } } } }),
  )
  const v = (res.aggregations?.last as estypes.AggregationsMaxAggregate | undefined)?.value
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

/** `version` and `indexed_at` of the `dedup` objects of `ids` in `index` (absent ids are left out). */
export async function dedupStamps(client: Client, index: string, ids: readonly string[], request: Requester): Promise<Map<string, { version: unknown; indexedAt: unknown }>> {
  const out = new Map<string, { version: unknown; indexedAt: unknown }>()
  if (ids.length === 0) return out
  // mget is real-time: it sees writes a search would not see before the next refresh.
  const res = await request('_mget (dedup stamps)', index, () =>
    client.mget<{ dedup?: { version?: unknown; indexed_at?: unknown } }>({ index, ids: [...new Set(ids)], _source: ['dedup.version', 'dedup.indexed_at'] }),
  )
  for (const doc of res.docs) {
    if (!('found' in doc) || !doc.found) continue
    const d = doc._source?.dedup
    if (d !== undefined && d !== null) out.set(doc._id, { version: d.version, indexedAt: d.indexed_at })
  }
  return out
}

/**
 * Copies documents into `index` (whole `_source`, replacing any copy with the same id), retrying
 * items refused with 429/5xx. Resolves with the ids that failed and why; the rest are acknowledged.
 */
export async function copyDocs(
  client: Client,
  index: string,
  docs: readonly { id: string; source: Record<string, unknown> }[],
  policy: RetryPolicy,
  request: Requester,
): Promise<Map<string, string>> {
  const failed = new Map<string, string>()
  let todo = docs
  // Retries count rounds that wrote nothing (see the store's bulk put).
  for (let attempt = 0; todo.length > 0; ) {
    const operations: (estypes.BulkOperationContainer | Record<string, unknown>)[] = []
    for (const d of todo) operations.push({ index: { _index: index, _id: d.id } }, d.source)
    const res = await request('_bulk (copy)', index, () => client.bulk({ operations }))
    const retry = new Set<string>()
    if (res.items.some((item) => item.index !== undefined && item.index.status < 300)) attempt = 0
    for (const item of res.items) {
      const r = item.index
      if (r === undefined || r.status < 300) continue
      const id = String(r._id)
      if ((r.status === 429 || r.status >= 500) && attempt < policy.retries) retry.add(id)
      else failed.set(id, `status ${r.status}: ${r.error?.type ?? 'error'}: ${r.error?.reason ?? 'unknown reason'}`)
    }
    todo = todo.filter((d) => retry.has(d.id))
    if (todo.length > 0) await new Promise((resolve) => setTimeout(resolve, policy.backoffMs * 2 ** attempt++))
  }
  return failed
}
