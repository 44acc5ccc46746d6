/**
 * The library's internal entry: what the CLI and the server (and scripts and tests) share beyond
 * the public API in `index.ts`. package.json `exports` does not list it, so nothing here is a
 * promise to library users: names come and go with the CLI. An explicit list, like `index.ts`.
 */

// Records, decisions and the store interface, in detail.
export type { BandCheck, Layer, Rule } from './types.js'
export type { CandidateBounds, StoreBlockScheme, StagedPut } from './store/store.js'

// Options, stats and the job.
export { parseDuration, type ResolvedDeduplicatorOptions, type LayerOptions } from './engine/options.js'
export type { DedupStatsSnapshot } from './engine/stats.js'
export type { BatchLimits } from './engine/batches.js'
export type { JobBatch } from './engine/index-job.js'
export type { ReconcileOptions } from './engine/reconcile.js'
export type { VersionOf } from './engine/versions.js'
export type { PortableAnalyzerOptions } from './engine/prepare-pool.js'

// Explaining decisions (`simdup fingerprint`, `inspect`, the server's explain and compare).
export { matchCandidate, compareOrder, ruleEvidence, type Match, type MatchSubject, type MatchOptions, type RuleEvidence } from './engine/match.js'
export { explainDocuments, decideTexts, type PairReport, type DecideTextsOptions } from './engine/explain.js'
export { compareAnalyses, type Comparison } from './fingerprint/compare.js'
export { guaranteedDistance, fingerprintBlocks, type BlockScheme } from './fingerprint/blocks.js'
export { minhashSimilarity } from './fingerprint/minhash.js'
export { sketchJaccard } from './fingerprint/short-text.js'

// The embedded store's reports.
export type { MemoryStoreStats, MemoryStoreCheck, LogDamageReport, TableBytes } from './store/embedded/index.js'

// Analyzer inputs read from files (--user-dict, --stop-words).
export { parseUserDict, type UserWord } from './segment/segmenter.js'
export { parseStopWords } from './segment/stopwords.js'

// JSONL out, safe for a terminal.
export type { JsonlLine } from './io/jsonl.js'
export { terminalSafeJson } from './io/decisions.js'
