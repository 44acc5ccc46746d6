/**
 * The Elasticsearch wing's internal entry: what the CLI (and scripts and tests) use beyond
 * `simdup/elasticsearch` (`index.ts`). package.json `exports` does not list it; like `index.ts`, it
 * loads `@elastic/elasticsearch`, so the CLI imports it lazily.
 */
export {
  DEFAULT_ELASTICSEARCH_BLOCK_SCHEME, SIMDUP_INDEX_TEMPLATE, DEDUP_COMPONENT_NAME, SIMDUP_TEMPLATE_NAME,
  type EnsureIndex, type TemplateNames,
} from './store.js'
export type { ReindexStatus } from './reindex/result.js'
export { parseFieldList, defaultCheckpointFile, type ReindexStoreTuning } from './reindex/options.js'
export type { ReindexCheckpoint, ReindexJob } from './reindex/index.js'
export type { HiddenReason } from './hook/search-hook.js'
export { MAX_FOLD_DISTANCE, type FoldOutcome } from './hook/fold.js'
