/**
 * simdup's Elasticsearch wing: the store, the batch reindex and the search-time dedup hook.
 * @example
 * import { createElasticsearchStore } from 'simdup/elasticsearch'
 */
export {
  createElasticsearchStore, DEDUP_FIELDS_COMPONENT, SIMDUP_INDEX_TEMPLATE, DEDUP_COMPONENT_NAME, SIMDUP_TEMPLATE_NAME, DEFAULT_ELASTICSEARCH_STORE_OPTIONS, DEFAULT_ELASTICSEARCH_BLOCK_SCHEME,
  type ElasticsearchStore, type ElasticsearchStoreOptions, type ElasticsearchAuth, type EnsureIndex, type TemplateNames,
} from './store.js'
export * from './reindex/index.js'
export * from './hook/index.js'
