export type { FingerprintStore } from './store.js'
export {
  MemoryStore, openMemoryStore, DEFAULT_MEMORY_STORE_OPTIONS, type MemoryStoreOptions, type MemoryStoreStats,
} from './memory.js'
export {
  createElasticsearchStore, DEDUP_FIELDS_COMPONENT, SIMDUP_INDEX_TEMPLATE, DEFAULT_ELASTICSEARCH_STORE_OPTIONS,
  type ElasticsearchStore, type ElasticsearchStoreOptions, type ElasticsearchAuth, type EnsureIndex,
} from './elasticsearch.js'
