import type { Client, estypes } from '@elastic/elasticsearch'
import type { StoreBlockScheme } from '../store/store.js'
import { DedupError } from '../errors.js'
import { COMPACT_SOURCE_EXCLUDES, DEDUP_COMPONENT_NAME, DEDUP_FIELDS_COMPONENT, DEDUP_PROPERTIES, SIMDUP_INDEX_TEMPLATE, SIMDUP_TEMPLATE_NAME, simdupIndexBody } from './mapping.js'
import { statusOf } from './failures.js'
import { parseRefreshInterval, type ResolvedElasticsearchStoreOptions } from './options.js'
import { BLOCK_SET_FIELDS, NEWEST_BLOCK_SET_FORMAT, type BlockSetFormat } from './_query.js'

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
  /** The index's record layout, set on open (`compactSourceOf`): compact = record format 2. */
  readonly layout: { compact: boolean }
}

/**
 * The block scheme of a new Elasticsearch index: 6 blocks (11,11,11,11,10,10 bits) of which 3 must
 * match, which guarantees distance 3 like 4 × 16 / 1 but returns ~true matches only at millions of
 * records, where any-of-4 16-bit blocks returns ~N/16,384 records per lookup that are read back and
 * dropped (docs/BENCHMARKS.md, "Block schemes on a large Elasticsearch index"). An index with records keeps theirs.
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

/** The mappings of every index behind the name, as read on open. */
export type IndexMappings = estypes.IndicesGetMappingResponse

/** The properties under `dedup` of one index's mapping, if it has the object. */
function dedupProperties(m: estypes.IndicesGetMappingIndexMappingRecord): Record<string, unknown> | undefined {
  const dedup = m.mappings?.properties?.dedup as { properties?: Record<string, unknown> } | undefined
  return dedup === undefined ? undefined : (dedup.properties ??= {})
}

/** The mappings of the index; null when it does not exist (with `ensureIndex: 'none'`, not yet). */
async function readMappings(ctx: IndexContext): Promise<IndexMappings | null> {
  try {
    return await ctx.request('get_mapping', () => ctx.client.indices.getMapping({ index: ctx.index }))
  } catch (err) {
    if (err instanceof DedupError && statusOf(err.cause) === 404) return null
    throw err
  }
}

/**
 * Creates the index or checks (or extends) its mapping, per `ensureIndex`; returns the mappings,
 * read once (null when the index does not exist: `ensureIndex: 'none'`).
 */
export async function prepareIndex(ctx: IndexContext): Promise<IndexMappings | null> {
  const mode = ctx.options.ensureIndex
  if (mode === 'none') return readMappings(ctx)
  const exists = await ctx.request('index check', () => ctx.client.indices.exists({ index: ctx.index }))
  if (!exists && mode === 'existing') {
    throw new DedupError('NOT_FOUND', `Index \`${ctx.index}\` does not exist on ${ctx.node}: check the index name (simdup index creates it).`)
  }
  if (!exists) await createIndex(ctx)
  else if (mode === 'add-fields') {
    // Without `simhash`: an index simdup made in record format 2 has it unindexed, which a mapping
    // update cannot change; `checkSequenced` adds it where it is missing.
    const properties = structuredClone(DEDUP_PROPERTIES) as { dedup: { properties: Record<string, unknown> } }
    delete properties.dedup.properties.simhash
    await ctx.request('put_mapping', () => ctx.client.indices.putMapping({ index: ctx.index, properties: properties as Record<string, estypes.MappingProperty> }))
  }
  const mappings = await readMappings(ctx)
  if (mappings === null) throw new DedupError('NOT_FOUND', `Index \`${ctx.index}\` was deleted on ${ctx.node} while simdup opened it.`)
  if (exists && mode !== 'add-fields') checkMapping(mappings)
  await checkSequenced(ctx, mappings)
  return mappings
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

function checkMapping(mappings: IndexMappings): void {
  for (const [name, m] of Object.entries(mappings)) {
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
 * differently, silently. An index without a `seq` (or `supersedes`, block sets) mapping gets one,
 * in `mappings` too.
 */
async function checkSequenced(ctx: IndexContext, mappings: IndexMappings): Promise<void> {
  // Fields added since the index was made (`seq`; `rule`, absent in older records; `supersedes`, which older records lack: they
  // supersede nothing until `reconcile` derives it; the block sets' fields, which the block route
  // uses only once every record has one, see `blockSetFormats`) are added to its mapping: additive, safe.
  const added: Record<string, estypes.MappingProperty> = {}
  for (const m of Object.values(mappings)) {
    const props = dedupProperties(m)
    if (props === undefined) continue
    for (const field of ['seq', 'supersedes', 'rule', 'simhash', ...Object.values(BLOCK_SET_FIELDS)] as const) {
      if (props[field] === undefined) added[field] = DEDUP_PROPERTIES.dedup.properties[field] as estypes.MappingProperty
    }
  }
  if (Object.keys(added).length > 0) {
    await ctx.request('put_mapping', () => ctx.client.indices.putMapping({ index: ctx.index, properties: { dedup: { properties: added } } }))
    for (const m of Object.values(mappings)) {
      const props = dedupProperties(m)
      if (props !== undefined) for (const [field, mapping] of Object.entries(added)) props[field] ??= mapping
    }
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

/** The block-set formats of an index: the one lookups ask (null: blocks, not sets), the one new records carry. */
export interface BlockSetFormats {
  lookup: BlockSetFormat | null
  write: BlockSetFormat
}

/**
 * Which block sets the block route may look up instead of blocks: the newest format (see
 * `BlockSetFormat`) that every index behind the name maps and that no stored record with blocks
 * lacks; then new records are written in it too, so an index never mixes formats. When none
 * qualifies (an index written before records carried sets, an index whose records disagree on
 * the format, 4 × 16 / 1 blocks, a name that is no index yet), lookups ask blocks and records get
 * the newest format. Each format has a field of its own, so records an older simdup writes into
 * the index later (without the newer field) make the newer format unusable there on the next
 * open instead of being missed; a writer of the format this store looks up is missed by it until
 * then only if it is older than that format: one writer version per index.
 */
export async function blockSetFormats(ctx: IndexContext, mappings: IndexMappings | null): Promise<BlockSetFormats> {
  const all = mappings === null ? [] : Object.values(mappings)
  const formats = ([2, 1] as const).filter((f) => all.length > 0 && all.every((m) => dedupProperties(m)?.[BLOCK_SET_FIELDS[f]] !== undefined))
  if (formats.length === 0) return { lookup: null, write: NEWEST_BLOCK_SET_FORMAT }
  // Writes of a process that stopped just before count too.
  await ctx.request('refresh', () => ctx.client.indices.refresh({ index: ctx.index }))
  const lacking = Object.fromEntries(formats.map((f) => [f, { bool: { must_not: [{ exists: { field: `dedup.${BLOCK_SET_FIELDS[f]}` } }] } }]))
  const res = await ctx.request('_search (records without block sets)', () =>
    ctx.client.search({ index: ctx.index, size: 0, track_total_hits: false, query: { exists: { field: 'dedup.blocks' } }, aggs: { lacking: { filters: { filters: lacking } } } }),
  )
  const buckets = (res.aggregations?.lacking as estypes.AggregationsFiltersAggregate | undefined)?.buckets as Record<string, { doc_count: number }> | undefined
  const lookup = formats.find((f) => buckets?.[f]?.doc_count === 0) ?? null
  return { lookup, write: lookup ?? NEWEST_BLOCK_SET_FORMAT }
}

/**
 * Whether the index is of record format 2 (its mapping keeps `dedup.bands` out of `_source`, see
 * `COMPACT_SOURCE_EXCLUDES`): its records are then written and read in the compact layout. An
 * index of format 1 (made by an older simdup, or a shared content index) keeps the full layout.
 * An alias over indices of both formats is refused: a write to one layout would be misread in the other.
 */
export function compactSourceOf(index: string, mappings: IndexMappings | null): boolean {
  const all = mappings === null ? [] : Object.entries(mappings)
  const compact = all.filter(([, m]) => {
    const excludes = (m.mappings?._source as { excludes?: unknown } | undefined)?.excludes
    return Array.isArray(excludes) && excludes.includes(COMPACT_SOURCE_EXCLUDES[0])
  })
  if (compact.length > 0 && compact.length < all.length) {
    throw new DedupError(
      'CONFLICT',
      `\`${index}\` names indices of two record formats: ${compact.map(([n]) => `\`${n}\``).join(', ')} keep \`dedup.bands\` out of \`_source\` (format 2), the others do not. ` +
        'Point simdup at indices of one format.',
    )
  }
  return compact.length > 0
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
