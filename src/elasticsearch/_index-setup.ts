import type { Client, estypes } from '@elastic/elasticsearch'
import type { StoreBlockScheme } from '../store/store.js'
import { DedupError } from '../errors.js'
import { DEDUP_COMPONENT_NAME, DEDUP_FIELDS_COMPONENT, DEDUP_PROPERTIES, SIMDUP_INDEX_TEMPLATE, SIMDUP_TEMPLATE_NAME, simdupIndexBody } from './_mapping.js'
import { statusOf } from './_errors.js'
import { parseRefreshInterval, type ResolvedElasticsearchStoreOptions } from './_options.js'

/*
 * The Elasticsearch store's index set-up, run on open: create the index or check its mapping
 * (per `ensureIndex`), refuse records written without `dedup.seq`, read the block scheme of the
 * stored records and the refresh interval; and the templates `installTemplates` puts.
 */

/** What the store's index-level calls need: the client, the index, and the store's request path (queue, retries, error wording). */
export interface IndexContext {
  readonly client: Client
  readonly index: string
  /** The node(s) as shown in messages (credentials removed). */
  readonly node: string
  readonly options: ResolvedElasticsearchStoreOptions
  /** One request through the store's queue, with retries; failures come out as DedupErrors. */
  request<T>(action: string, fn: () => Promise<T>): Promise<T>
}

/**
 * The block scheme of a new Elasticsearch index: 6 blocks (11,11,11,11,10,10 bits) of which 3 must
 * match, which guarantees distance 3 like 4 × 16 / 1 but returns ~true matches only at millions of
 * records, where any-of-4 16-bit blocks returns ~N/16,384 records per lookup that are read back and
 * dropped (docs/BENCHMARKS.md, "Block schemes on a large index"). An index with records keeps theirs.
 */
export const DEFAULT_ELASTICSEARCH_BLOCK_SCHEME = Object.freeze({ blocks: 6, minMatch: 3 })

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

/** Creates the index or checks (or extends) its mapping, per `ensureIndex`. */
export async function prepareIndex(ctx: IndexContext): Promise<void> {
  const mode = ctx.options.ensureIndex
  if (mode !== 'none') {
    const exists = await ctx.request('index check', () => ctx.client.indices.exists({ index: ctx.index }))
    if (!exists && mode === 'existing') {
      throw new DedupError('NOT_FOUND', `Index \`${ctx.index}\` does not exist on ${ctx.node}: check the index name (simdup index creates it).`)
    }
    if (!exists) await createIndex(ctx)
    else if (mode === 'add-fields') {
      await ctx.request('put_mapping', () =>
        ctx.client.indices.putMapping({ index: ctx.index, properties: DEDUP_PROPERTIES as Record<string, estypes.MappingProperty> }),
      )
    } else await checkMapping(ctx)
    await checkSequenced(ctx)
  }
}

async function createIndex(ctx: IndexContext): Promise<void> {
  const body = simdupIndexBody({ shards: ctx.options.shards, replicas: ctx.options.replicas })
  try {
    await ctx.request('index creation', () =>
      ctx.client.indices.create({
        index: ctx.index,
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

async function checkMapping(ctx: IndexContext): Promise<void> {
  const res = await ctx.request('get_mapping', () => ctx.client.indices.getMapping({ index: ctx.index }))
  for (const [name, m] of Object.entries(res)) {
    if (m.mappings.properties?.dedup === undefined) {
      throw new DedupError(
        'CONFLICT',
        `Index \`${name}\` exists but has no \`dedup\` mapping, so simdup's fields would be mapped dynamically. ` +
          "Use `ensureIndex: 'add-fields'` to add it, or another index name.",
      )
    }
  }
}

/**
 * Refuses an index holding dedup records without `dedup.seq` (written before records carried
 * their first-insertion order): mixing them with numbered ones would make re-runs decide
 * differently, silently. An index without a `seq` (or `supersedes`) mapping gets one.
 */
async function checkSequenced(ctx: IndexContext): Promise<void> {
  const res = await ctx.request('get_mapping', () => ctx.client.indices.getMapping({ index: ctx.index }))
  // Fields added since the index was made (`seq`; `supersedes`, which older records lack: they
  // supersede nothing until `reconcile` derives it; `block_sets`, which the block route uses only
  // once every record has them, see `blockSetsComplete`) are added to its mapping: additive, safe.
  const added: Record<string, estypes.MappingProperty> = {}
  for (const m of Object.values(res)) {
    const dedup = m.mappings.properties?.dedup as { properties?: Record<string, unknown> } | undefined
    if (dedup === undefined) continue
    for (const field of ['seq', 'supersedes', 'block_sets'] as const) {
      if (dedup.properties?.[field] === undefined) added[field] = DEDUP_PROPERTIES.dedup.properties[field] as estypes.MappingProperty
    }
  }
  if (Object.keys(added).length > 0) {
    await ctx.request('put_mapping', () => ctx.client.indices.putMapping({ index: ctx.index, properties: { dedup: { properties: added } } }))
  }
  if (!ctx.options.requireSequence) return
  const old = await ctx.request('_count (records without seq)', () =>
    // A decided record has a cluster id; a content index may hold partial `dedup` objects (a
    // SimHash computed at ingest, say) that simdup never decided: those are not refused.
    ctx.client.count({ index: ctx.index, query: { bool: { filter: [{ exists: { field: 'dedup.cluster_id' } }], must_not: [{ exists: { field: 'dedup.seq' } }] } } }),
  )
  if (old.count > 0) {
    throw new DedupError(
      'SNAPSHOT_VERSION',
      `Index \`${ctx.index}\` holds ${old.count} dedup records written by an older simdup, without \`dedup.seq\` (the first-insertion order that makes re-runs decide like one clean run). ` +
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
export async function readBlockScheme(ctx: IndexContext): Promise<StoreBlockScheme> {
  let res: estypes.SearchResponse<{ dedup?: { blocks?: unknown } }>
  try {
    res = await ctx.request('_search (block layout)', () =>
      ctx.client.search<{ dedup?: { blocks?: unknown } }>({
        index: ctx.index,
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

/**
 * Whether the block route may look up block sets (`dedup.block_sets`, see `blockSets`) instead of
 * blocks: every index behind the name maps them and no stored record with blocks lacks them (an
 * index written before records carried them, or with 4 × 16 / 1 blocks, keeps the block lookup).
 * False when the index does not exist yet (with `ensureIndex: 'none'`, its mapping is not known).
 * Records written later by an older simdup would lack them: one writer version per index.
 */
export async function blockSetsComplete(ctx: IndexContext): Promise<boolean> {
  let mappings: estypes.IndicesGetMappingResponse
  try {
    mappings = await ctx.request('get_mapping', () => ctx.client.indices.getMapping({ index: ctx.index }))
  } catch (err) {
    if (err instanceof DedupError && statusOf(err.cause) === 404) return false
    throw err
  }
  const all = Object.values(mappings)
  const mapped = (m: estypes.IndicesGetMappingIndexMappingRecord): boolean =>
    (m.mappings?.properties?.dedup as { properties?: Record<string, unknown> } | undefined)?.properties?.block_sets !== undefined
  if (all.length === 0 || !all.every(mapped)) return false
  // Writes of a process that stopped just before count too.
  await ctx.request('refresh', () => ctx.client.indices.refresh({ index: ctx.index }))
  const res = await ctx.request('_count (records without block sets)', () =>
    ctx.client.count({ index: ctx.index, query: { bool: { filter: [{ exists: { field: 'dedup.blocks' } }], must_not: [{ exists: { field: 'dedup.block_sets' } }] } } }),
  )
  return res.count === 0
}

/** The index's refresh interval in ms (largest over an alias's indices); null when refresh is disabled. */
export async function refreshInterval(ctx: IndexContext): Promise<number | null> {
  let res: estypes.IndicesGetSettingsResponse
  try {
    res = await ctx.request('get_settings', () =>
      ctx.client.indices.getSettings({ index: ctx.index, name: 'index.refresh_interval', include_defaults: true, flat_settings: true }),
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

/** Installs the component and index templates (see `ElasticsearchStore.installTemplates`). */
export async function installTemplates(ctx: IndexContext, names: TemplateNames = {}): Promise<void> {
  const component = names.component ?? DEDUP_COMPONENT_NAME
  const template = { ...structuredClone(SIMDUP_INDEX_TEMPLATE), composed_of: [component] } as Record<string, unknown>
  if (names.indexPatterns !== undefined) template.index_patterns = [...names.indexPatterns]
  if (names.priority !== undefined) template.priority = names.priority
  await ctx.request('put component template', () =>
    ctx.client.cluster.putComponentTemplate({ name: component, ...structuredClone(DEDUP_FIELDS_COMPONENT) } as estypes.ClusterPutComponentTemplateRequest),
  )
  await ctx.request('put index template', () =>
    ctx.client.indices.putIndexTemplate({ name: names.template ?? SIMDUP_TEMPLATE_NAME, ...template } as estypes.IndicesPutIndexTemplateRequest),
  )
}

/** The scheme of records cut into `blocks` blocks: the must-match count that keeps distance 3 (4 → 1, 6 → 3). */
export function storedBlockScheme(blocks: number): StoreBlockScheme {
  return { blocks, minMatch: Math.max(1, blocks - 3), fixed: true }
}
