export { reindex } from './reindex.js'
export type { ReindexResult, ReindexStatus } from './result.js'
export {
  resolveReindexOptions, parseFieldList, defaultCheckpointFile, DEFAULT_REINDEX_OPTIONS,
  type ReindexOptions, type ResolvedReindexOptions, type ReindexFieldMap, type ReindexCounts, type ReindexProgress, type ReindexStoreTuning,
} from './options.js'
export { CHECKPOINT_FORMAT, type ReindexCheckpoint, type ReindexJob } from './checkpoint.js'
