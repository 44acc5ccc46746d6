/**
 * simdup: near-duplicate detection and indexing for (mostly Chinese) text.
 *
 * The public API: an explicit list of 40 names, types included, each with its doc comment
 * (test/unit/api/public-names.test.ts counts them); everything else is internal. The CLI and the
 * server share more through `internal.ts`, which package.json `exports` does not list. The
 * Elasticsearch store, reindex and the search hook are in the second entry point,
 * `simdup/elasticsearch`, so that this one never loads the Elasticsearch client.
 *
 * @example
 * import { createDeduplicator, openMemoryStore } from 'simdup'
 * const dedup = createDeduplicator({ store: await openMemoryStore({ dir: '.simdup' }) })
 * const decisions = await dedup.add([{ id: 'a', content: '…' }])
 */

// Deduplication: documents in, decisions out.
export { createDeduplicator, type Deduplicator } from './engine/deduplicator.js'
export { DEFAULT_DEDUPLICATOR_OPTIONS, OPTION_LIMITS, type DeduplicatorOptions } from './engine/options.js'
export type { InputDocument, Decision } from './types.js'
export type { IncomingItem, PreparedItem } from './engine/prepare.js'
export { formatDecision } from './io/decisions.js'

// Errors.
export { DedupError, type DedupErrorCode } from './errors.js'

// The indexing job and maintenance.
export { runIndexJob, type IndexJobOptions, type IndexJobResult, type JobDocument } from './engine/index-job.js'
export { reconcile, deleteDocuments, type ReconcileResult } from './engine/reconcile.js'
export { newestVersion, versionHistory } from './engine/versions.js'

// The store interface (for another backend) and the embedded store.
export type { Fingerprint, FingerprintRecord, CandidateQuery, PutResult } from './types.js'
export type { FingerprintStore } from './store/store.js'
export {
  openMemoryStore, checkMemoryStore, repairMemoryStore, type MemoryStore, type MemoryStoreOptions,
} from './store/embedded/index.js'

// Analysis: the replaceable stages and what they give.
export { createAnalyzer, type Analyzer, type AnalyzerOptions, type Analysis } from './fingerprint/analyzer.js'
export { createJiebaWasmSegmenter } from './segment/jieba.js'
export type { Segmenter } from './segment/segmenter.js'
export { compareTexts } from './fingerprint/compare.js'
export { hamming, fingerprintToHex } from './fingerprint/hamming.js'
