export {
  dedupSearch,
  type SearchClient,
  type DedupSearchRequest,
  type DedupSearchResponse,
  type DedupSearchResult,
  type HiddenDuplicate,
  type HiddenReason,
} from './search-hook.js'
export { resolveDedupSearchOptions, DEFAULT_DEDUP_SEARCH_OPTIONS, type DedupSearchOptions, type ResolvedDedupSearchOptions } from './options.js'
export { foldNearDuplicates, ShownFingerprints, MAX_FOLD_DISTANCE, type FoldOutcome, type FingerprintLike } from './fold.js'
export { decodeCursor, encodeCursor, type DedupCursor } from './cursor.js'
