/**
 * The Elasticsearch mapping of the `dedup` object, kept in code because only `dist/` is published.
 * `mappings/dedup-fields.json` and `mappings/simdup-template.json` are the same bodies for
 * operators to install with curl; a test keeps the two copies equal.
 */

/** Name under which `mappings/dedup-fields.json` is installed as a component template. */
export const DEDUP_COMPONENT_NAME = 'simdup-dedup-fields'

/** Name under which `mappings/simdup-template.json` is installed as an index template. */
export const SIMDUP_TEMPLATE_NAME = 'simdup'

/**
 * Every field lives under one object, `dedup`, so the mapping can be added to an existing content
 * index without clashing with its fields. Only what a lookup filters on is indexed; doc values
 * only where something sorts or aggregates; nothing is scored (keywords have no norms).
 */
export const DEDUP_PROPERTIES = Object.freeze({
  dedup: {
    type: 'object',
    // Unknown sub-fields stay in _source but are never mapped: no field explosion, no surprises.
    dynamic: false,
    properties: {
      id: { type: 'keyword' },
      simhash: { type: 'keyword', doc_values: false },
      blocks: { type: 'keyword', doc_values: false },
      popcount: { type: 'byte' },
      content_hash: { type: 'keyword', doc_values: false },
      url_hash: { type: 'keyword', doc_values: false },
      title_hash: { type: 'keyword', doc_values: false },
      short: { type: 'boolean' },
      cluster_id: { type: 'keyword' },
      duplicate_of: { type: 'keyword' },
      distance: { type: 'byte' },
      layer: { type: 'keyword' },
      rule: { type: 'keyword' },
      version: { type: 'keyword' },
      indexed_at: { type: 'date', format: 'epoch_millis' },
      seq: { type: 'long' },
      sketch: { type: 'keyword', index: false, doc_values: false },
      bands: { type: 'keyword', doc_values: false },
      supersedes: { type: 'keyword', doc_values: false },
      block_sets: { type: 'keyword', doc_values: false },
      block_sets_v2: { type: 'keyword', doc_values: false },
    },
  },
})

/** Body of the component template (`PUT _component_template/simdup-dedup-fields`). */
export const DEDUP_FIELDS_COMPONENT = Object.freeze({
  template: { mappings: { properties: DEDUP_PROPERTIES } },
  _meta: { description: 'simdup near-duplicate fields under one `dedup` object; compose into any index template.' },
})

/**
 * Index settings of a standalone dedup index: small and single-node friendly by default;
 * `best_compression` stores `_source` 0.60× as large as the default codec does (record format 2:
 * 233.9 against 387.3 B a record; docs/BENCHMARKS.md, "Elasticsearch against plain ingestion").
 */
export const SIMDUP_INDEX_SETTINGS = Object.freeze({
  number_of_shards: 1,
  number_of_replicas: 0,
  codec: 'best_compression',
})

/**
 * Record format 2 (`RECORD_FORMAT`): what the mapping keeps out of `_source` (indexed only). The
 * band terms are kept in `dedup.terms` in a compact form instead (_compact.ts); the block sets are
 * derived from the blocks and never read back. An index whose mapping excludes `dedup.bands` is
 * read and written in this format (`compactSourceOf` in _index-setup.ts).
 */
export const COMPACT_SOURCE_EXCLUDES = Object.freeze(['dedup.bands', 'dedup.block_sets', 'dedup.block_sets_v2'])

/** The record format of the standalone indices simdup creates (`_meta.simdup.record_format`). */
export const RECORD_FORMAT = 2

/**
 * The mapping a standalone index adds to the `dedup` fields (record format 2): the compact
 * `_source` (`COMPACT_SOURCE_EXCLUDES`), and `dedup.simhash` kept but not indexed (no lookup asks
 * it; the search hook reads it from `_source`).
 */
export const SIMDUP_INDEX_MAPPINGS = Object.freeze({
  dynamic: false,
  _meta: { simdup: { record_format: RECORD_FORMAT } },
  _source: { excludes: [...COMPACT_SOURCE_EXCLUDES] },
  properties: { dedup: { type: 'object', dynamic: false, properties: { simhash: { type: 'keyword', index: false, doc_values: false } } } },
})

/** Body of the index template for standalone `simdup*` indices (`PUT _index_template/simdup`). */
export const SIMDUP_INDEX_TEMPLATE = Object.freeze({
  index_patterns: ['simdup*'],
  composed_of: [DEDUP_COMPONENT_NAME],
  // Above the built-in templates (priority 100) without clashing with their patterns.
  priority: 150,
  template: {
    settings: SIMDUP_INDEX_SETTINGS,
    mappings: SIMDUP_INDEX_MAPPINGS,
  },
  _meta: { description: 'simdup standalone dedup index: dedup fields only, nothing mapped dynamically.' },
})

/**
 * What `indices.create` gets when the store creates a standalone index itself (no templates
 * needed), the same as the index template gives: shards and replicas default to 1 / 0; record
 * format 2 (`SIMDUP_INDEX_MAPPINGS`) and `best_compression`: together 0.53× the disk of the same
 * records in format 1, 0.54× that of the full documents (docs/BENCHMARKS.md, "Elasticsearch
 * against plain ingestion").
 */
export function simdupIndexBody(layout: { shards?: number; replicas?: number } = {}): { settings: Record<string, unknown>; mappings: Record<string, unknown> } {
  const properties = structuredClone(DEDUP_PROPERTIES) as { dedup: { properties: Record<string, unknown> } }
  Object.assign(properties.dedup.properties, SIMDUP_INDEX_MAPPINGS.properties.dedup.properties)
  return {
    settings: {
      number_of_shards: layout.shards ?? SIMDUP_INDEX_SETTINGS.number_of_shards,
      number_of_replicas: layout.replicas ?? SIMDUP_INDEX_SETTINGS.number_of_replicas,
      codec: SIMDUP_INDEX_SETTINGS.codec,
    },
    mappings: { ...structuredClone(SIMDUP_INDEX_MAPPINGS), properties },
  }
}
