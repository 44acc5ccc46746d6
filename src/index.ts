/**
 * simdup: near-duplicate detection and indexing for (mostly Chinese) text.
 *
 * @example
 * import { createDeduplicator, openMemoryStore } from 'simdup'
 * const dedup = createDeduplicator({ store: await openMemoryStore({ dir: '.simdup' }) })
 * const decisions = await dedup.add([{ id: 'a', content: '…' }])
 */
export * from './types.js'
export { DedupError, type DedupErrorCode } from './errors.js'
export * from './fingerprint/index.js'
export * from './segment/index.js'
export * from './normalize/index.js'
export * from './engine/index.js'
export * from './store/index.js'
export { readLines, parseJsonLine, DEFAULT_MAX_LINE_BYTES, type JsonlLine, type ReadLinesOptions } from './io/jsonl.js'
export { formatDecision } from './io/decisions.js'
export * from './elasticsearch/index.js'
