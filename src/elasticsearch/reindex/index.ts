export { reindex, type ReindexResult, type ReindexStatus } from './reindex.js'
export {
  resolveReindexOptions, parseFieldList, defaultCheckpointFile, DEFAULT_REINDEX_OPTIONS,
  type ReindexOptions, type ResolvedReindexOptions, type ReindexFieldMap, type ReindexCounts, type ReindexProgress, type ReindexStoreTuning,
} from './options.js'
export { CHECKPOINT_FORMAT, type ReindexCheckpoint, type ReindexJob } from './_checkpoint.js'
