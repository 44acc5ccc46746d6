/**
 * simdup: near-duplicate detection and indexing for (mostly Chinese) text.
 *
 * The public API: an explicit list (everything else is internal). The Elasticsearch store, reindex
 * and the search hook are in the second entry point, `simdup/elasticsearch`, so that this one never
 * loads the Elasticsearch client.
 *
 * @example
 * import { createDeduplicator, openMemoryStore } from 'simdup'
 * const dedup = createDeduplicator({ store: await openMemoryStore({ dir: '.simdup' }) })
 * const decisions = await dedup.add([{ id: 'a', content: '…' }])
 */

// Records, decisions and the store interface.
export type {
  Fingerprint, FingerprintRecord, CandidateQuery, BandCheck, PutResult, InputDocument, Decision, Layer, Rule,
} from './types.js'
export type { FingerprintStore, CandidateBounds, StoreBlockScheme } from './store/store.js'

// Errors.
export { DedupError, type DedupErrorCode } from './errors.js'

// Deduplication, the indexing job and maintenance.
export { createDeduplicator, type Deduplicator } from './engine/deduplicator.js'
export {
  DEFAULT_DEDUPLICATOR_OPTIONS, OPTION_LIMITS, parseDuration, type DeduplicatorOptions, type ResolvedDeduplicatorOptions, type LayerOptions,
} from './engine/options.js'
export type { DedupStatsSnapshot } from './engine/stats.js'
export type { BatchLimits } from './engine/batches.js'
export { runIndexJob, type IndexJobOptions, type IndexJobResult, type JobDocument, type JobBatch } from './engine/index-job.js'
export { reconcile, deleteDocuments, type ReconcileOptions, type ReconcileResult } from './engine/reconcile.js'
export { newestVersion, versionHistory, type VersionOf } from './engine/versions.js'
export { matchCandidate, compareOrder, ruleEvidence, type Match, type MatchSubject, type MatchOptions, type RuleEvidence } from './engine/match.js'
export type { PortableAnalyzerOptions } from './engine/prepare-pool.js'
export { explainDocuments, decideTexts, type PairReport, type DecideTextsOptions } from './engine/explain.js'

// The embedded store.
export {
  openMemoryStore, checkMemoryStore, repairMemoryStore,
  type MemoryStore, type MemoryStoreOptions, type MemoryStoreStats, type MemoryStoreCheck, type LogDamageReport, type TableBytes,
} from './store/embedded/index.js'

// Analysis: the replaceable stages and what they give.
export { createAnalyzer, type Analyzer, type AnalyzerOptions, type Analysis } from './fingerprint/analyzer.js'
export { compareTexts, compareAnalyses, type Comparison } from './fingerprint/compare.js'
export { createJiebaWasmSegmenter } from './segment/jieba.js'
export { parseUserDict, type Segmenter, type UserWord } from './segment/segmenter.js'
export { parseStopWords } from './segment/stopwords.js'
export { hamming, fingerprintToHex } from './fingerprint/hamming.js'
export { guaranteedDistance, fingerprintBlocks, type BlockScheme } from './fingerprint/blocks.js'
export { minhashSimilarity } from './fingerprint/minhash.js'
export { sketchJaccard } from './fingerprint/short-text.js'

// Decisions out (JSONL in is `runIndexJob`'s `input`).
export type { JsonlLine } from './io/jsonl.js'
export { formatDecision, terminalSafeJson } from './io/decisions.js'
