/**
 * simdup's Elasticsearch wing (`simdup/elasticsearch`): the store, the batch reindex and the
 * search-time dedup hook. The only part of simdup that loads `@elastic/elasticsearch`.
 * @example
 * import { createElasticsearchStore } from 'simdup/elasticsearch'
 * const store = await createElasticsearchStore({ node: 'http://127.0.0.1:9200', index: 'simdup' })
 */
export {
  createElasticsearchStore, DEFAULT_ELASTICSEARCH_STORE_OPTIONS, DEFAULT_ELASTICSEARCH_BLOCK_SCHEME,
  DEDUP_FIELDS_COMPONENT, SIMDUP_INDEX_TEMPLATE, DEDUP_COMPONENT_NAME, SIMDUP_TEMPLATE_NAME,
  type ElasticsearchStore, type ElasticsearchStoreOptions, type ElasticsearchAuth, type EnsureIndex, type TemplateNames,
} from './store.js'
export { reindex, type ReindexResult, type ReindexStatus } from './reindex/reindex.js'
export {
  parseFieldList, defaultCheckpointFile, DEFAULT_REINDEX_OPTIONS, REINDEX_LIMITS,
  type ReindexOptions, type ReindexFieldMap, type ReindexCounts, type ReindexProgress, type ReindexStoreTuning,
} from './reindex/options.js'
export type { ReindexCheckpoint, ReindexJob } from './reindex/_checkpoint.js'
export {
  dedupSearch, type SearchClient, type DedupSearchRequest, type DedupSearchResponse, type DedupSearchResult, type HiddenDuplicate, type HiddenReason,
} from './hook/search-hook.js'
export { DEFAULT_DEDUP_SEARCH_OPTIONS, type DedupSearchOptions } from './hook/options.js'
export { foldNearDuplicates, MAX_FOLD_DISTANCE, type FoldOutcome, type FingerprintLike } from './hook/fold.js'
