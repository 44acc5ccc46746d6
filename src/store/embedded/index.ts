/**
 * The embedded store: fingerprints in columnar tables in this process, made durable by an
 * append-only log in a directory (or kept in memory only, without one).
 * @example
 * import { openMemoryStore } from 'simdup'
 * const store = await openMemoryStore({ dir: '.simdup' })
 */
export {
  MemoryStore, openMemoryStore, checkMemoryStore, repairMemoryStore, DEFAULT_MEMORY_STORE_OPTIONS,
  type MemoryStoreOptions, type MemoryStoreStats, type MemoryStoreCheck, type LogDamageReport, type TableBytes,
} from './store.js'
