/**
 * simdup's Elasticsearch wing (`simdup/elasticsearch`): the store, the batch reindex and the
 * search-time dedup hook. The only part of simdup that loads `@elastic/elasticsearch`. An explicit
 * list of 25 names, types included, each with its doc comment (test/unit/api/public-names.test.ts);
 * the CLI's extra needs are in `internal.ts`, which package.json `exports` does not list.
 * @example
 * import { createElasticsearchStore } from 'simdup/elasticsearch'
 * const store = await createElasticsearchStore({ node: 'http://127.0.0.1:9200', index: 'simdup' })
 */

// The store, and the component template that adds simdup's fields to an index of yours.
export {
  createElasticsearchStore, DEFAULT_ELASTICSEARCH_STORE_OPTIONS, DEDUP_FIELDS_COMPONENT,
  type ElasticsearchStore, type ElasticsearchStoreOptions, type ElasticsearchAuth,
} from './store.js'

// The batch reindex of an existing index.
export { reindex } from './reindex/reindex.js'
export type { ReindexResult } from './reindex/result.js'
export {
  DEFAULT_REINDEX_OPTIONS, REINDEX_LIMITS, type ReindexOptions, type ReindexFieldMap, type ReindexCounts, type ReindexProgress,
} from './reindex/options.js'

// The search-time hook.
export {
  dedupSearch, type SearchClient, type DedupSearchRequest, type DedupSearchResponse, type DedupSearchResult, type HiddenDuplicate,
} from './hook/search-hook.js'
export { DEFAULT_DEDUP_SEARCH_OPTIONS, type DedupSearchOptions } from './hook/options.js'
export { foldNearDuplicates, type FingerprintLike } from './hook/fold.js'
