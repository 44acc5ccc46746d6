export type { FingerprintStore } from './store.js'
export {
  MemoryStore, openMemoryStore, checkMemoryStore, repairMemoryStore, DEFAULT_MEMORY_STORE_OPTIONS,
  type MemoryStoreOptions, type MemoryStoreStats, type MemoryStoreCheck, type LogDamageReport, type TableBytes,
} from './memory.js'
export {
  createElasticsearchStore, DEDUP_FIELDS_COMPONENT, SIMDUP_INDEX_TEMPLATE, DEDUP_COMPONENT_NAME, SIMDUP_TEMPLATE_NAME, DEFAULT_ELASTICSEARCH_STORE_OPTIONS,
  type ElasticsearchStore, type ElasticsearchStoreOptions, type ElasticsearchAuth, type EnsureIndex, type TemplateNames,
} from './elasticsearch.js'
