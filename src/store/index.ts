export type { FingerprintStore, CandidateBounds, StoreBlockScheme } from './store.js'
export {
  MemoryStore, openMemoryStore, checkMemoryStore, repairMemoryStore, DEFAULT_MEMORY_STORE_OPTIONS,
  type MemoryStoreOptions, type MemoryStoreStats, type MemoryStoreCheck, type LogDamageReport, type TableBytes,
} from './embedded/index.js'
