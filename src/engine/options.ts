import { DedupError, describeValue } from '../errors.js'
import type { FingerprintStore } from '../store/store.js'
import { createAnalyzer, type Analyzer, type AnalyzerOptions } from '../fingerprint/analyzer.js'
import { BLOCKS_RANGE, DEFAULT_BLOCK_SCHEME, guaranteedDistance, validateBlockScheme, type BlockScheme } from '../fingerprint/blocks.js'

/** Which decision layers run, in the fixed order url → exact → simhash → title. */
export interface LayerOptions {
  /** Same canonical URL. @default true */
  url?: boolean
  /** Same normalised content. @default true */
  exact?: boolean
  /** SimHash within `maxDistance`. @default true */
  simhash?: boolean
  /** Same normalised, non-generic title. Off by default: many pages share a title. @default false */
  title?: boolean
}

/** Options of a Deduplicator. */
export interface DeduplicatorOptions {
  store: FingerprintStore
  /** The analysis pipeline, or options to build one. @default createAnalyzer() */
  analyzer?: Analyzer | AnalyzerOptions
  /** Largest Hamming distance counted as a near-duplicate; at most what the block scheme guarantees. @default 3 */
  maxDistance?: number
  /**
   * Blocks of the inverted index: m blocks, s must match, guarantees m − s.
   * @default the store's (`FingerprintStore.blockScheme`: an Elasticsearch index's own, or 6 blocks of which 3 must match for a new one), else { blocks: 4, minMatch: 1 }
   */
  blockScheme?: BlockScheme
  layers?: LayerOptions
  /**
   * Second candidate route: MinHash LSH bands over character 5-grams, verified by estimated
   * resemblance. Catches truncated copies and added paragraphs that push SimHash past k. @default true
   */
  minhash?: boolean
  /**
   * Estimated character 5-gram resemblance (Jaccard) at or above which the MinHash route calls a
   * duplicate; also the least size ratio of two texts' 5-gram sets for a SimHash match (J ≤ min/max).
   * @default 0.6 (0–1)
   */
  minResemblance?: number
  /**
   * Cross-document boilerplate: a line on most pages of a site (its template: a footer paragraph,
   * a notice, a label on every page) is left out of the fingerprints of the documents that come
   * after it was learned, online as the job goes (see engine/templates.ts). Learned from documents
   * with a URL, or HTML pages (by the stylesheets in their head). @default true
   */
  templates?: boolean
  /**
   * `minResemblance` for two documents with the same URL key (does a re-crawl say the same
   * thing?): a looser value calls more changed re-crawls duplicates instead of new versions.
   * Measured at 0.5 and 0.55 on the eval's re-crawled sections: more recall, less precision
   * (docs/EVAL.md), so not looser by default. @default minResemblance
   */
  urlMinResemblance?: number
  /** Only match documents indexed within this many milliseconds before now. @default undefined (no window) */
  windowMs?: number
  /** Largest accepted content, in UTF-16 code units. @default 10_000_000 */
  maxContentLength?: number
  /** Clock, for tests. @default Date.now */
  now?: () => number
  /**
   * Before the first batch, refuse (`SNAPSHOT_VERSION`) a store holding records of another
   * fingerprint version: they are never compared with this version's, so their duplicates would be
   * missed without a word. Off only for jobs that rewrite every record (reindex). @default true
   */
  versionCheck?: boolean
  /**
   * Resume an interrupted job: a document whose id is stored with the same content, URL and title
   * keys (same fingerprint version), and whose stored match still verifies against the record it
   * names, is not decided again: its decision is rebuilt from its record, nothing is written. The
   * output equals a clean run's, at the cost of one `get` per batch. A stored unique document stays
   * unique, so resume only with the settings of the run it continues. @default false
   */
  resume?: boolean
}

/**
 * Ranges and defaults of the numeric options: one source for the library's checks and for the
 * CLI's flags and help (`--k`, `--blocks`, `--min-match`, `--workers`, `--batch`, `--batch-mb`,
 * `--shards`, `--replicas`).
 * @example OPTION_LIMITS.batchSize // { min: 1, max: 100000, default: 500 }
 */
export const OPTION_LIMITS = Object.freeze({
  /** `maxDistance` (`--k`): from 0 to `guaranteedDistance(blockScheme)` (3 for the default scheme). */
  maxDistance: Object.freeze({ min: 0, default: 3 }),
  /** `blockScheme.blocks` (`--blocks`). */
  blocks: Object.freeze({ ...BLOCKS_RANGE, default: DEFAULT_BLOCK_SCHEME.blocks }),
  /** `blockScheme.minMatch` (`--min-match`): from 1 to blocks − 1. */
  minMatch: Object.freeze({ min: 1, default: DEFAULT_BLOCK_SCHEME.minMatch }),
  /** Threads preparing documents: `runIndexJob`'s and reindex's `workers` (`--workers`). */
  workers: Object.freeze({ min: 1, max: 64, default: 1 }),
  /** Documents per store round trip of `runIndexJob` (`simdup index --batch`). */
  batchSize: Object.freeze({ min: 1, max: 100_000, default: 500 }),
  /** Input bytes per batch of `runIndexJob` (`--batch-mb`, in MiB there). */
  batchBytes: Object.freeze({ min: 1, max: 4 * 2 ** 30, default: 64 * 2 ** 20 }),
  /**
   * Records per page of a walk over a store or an index: reconcile's and reindex's `batchSize`
   * (their `--batch`). Elasticsearch returns at most 10 000 hits a page (`index.max_result_window`).
   */
  pageSize: Object.freeze({ min: 1, max: 10_000, default: 500 }),
  /** Primary shards of an Elasticsearch index simdup creates (`shards`, `--shards`). */
  shards: Object.freeze({ min: 1, max: 1024, default: 1 }),
  /** Replicas of each shard of an Elasticsearch index simdup creates (`replicas`, `--replicas`). */
  replicas: Object.freeze({ min: 0, max: 10, default: 0 }),
  /**
   * Records of one cluster a lookup route keeps (`maxPerCluster` of both stores; 0: no bound by
   * cluster). One default for both stores: they then decide identically, down to the member
   * `duplicate_of` names (docs/DESIGN.md, "Bounds").
   */
  maxPerCluster: Object.freeze({ min: 0, max: 1000, default: 2 }),
})

/** Which layers run when `layers` leaves them out. */
export const DEFAULT_LAYERS: Readonly<Required<LayerOptions>> = Object.freeze({ url: true, exact: true, simhash: true, title: false })

/** The defaults of every `DeduplicatorOptions` field left out (`layers`: `DEFAULT_LAYERS`; `batch`: the job's batch limits). */
export const DEFAULT_DEDUPLICATOR_OPTIONS = Object.freeze({
  maxDistance: OPTION_LIMITS.maxDistance.default,
  layers: DEFAULT_LAYERS,
  minhash: true,
  minResemblance: 0.6,
  maxContentLength: 10_000_000,
  templates: true,
})

/** Options after defaults and validation. */
export interface ResolvedDeduplicatorOptions {
  readonly store: FingerprintStore
  readonly analyzer: Analyzer
  readonly maxDistance: number
  readonly blockScheme: BlockScheme
  readonly layers: Readonly<Required<LayerOptions>>
  readonly windowMs: number | undefined
  readonly minhash: boolean
  readonly minResemblance: number
  readonly urlMinResemblance: number
  readonly maxContentLength: number
  readonly now: () => number
  readonly versionCheck: boolean
  readonly templates: boolean
  readonly resume: boolean
}

function isAnalyzer(x: Analyzer | AnalyzerOptions | undefined): x is Analyzer {
  return x !== undefined && typeof (x as Analyzer).analyze === 'function'
}

/**
 * Merges defaults onto a copy of `options` and validates every field and combination.
 * @example resolveDeduplicatorOptions({ store, maxDistance: 2 })
 */
export function resolveDeduplicatorOptions(options: DeduplicatorOptions): ResolvedDeduplicatorOptions {
  if (options === null || typeof options !== 'object' || options.store === undefined) {
    throw new DedupError('INVALID_OPTION', 'Expected `store` to be a FingerprintStore, got undefined. Pass `openMemoryStore()` or an Elasticsearch store.')
  }
  // A store that names no scheme (or not as numbers, e.g. a stand-in) leaves the engine's default.
  const advertised = options.store.blockScheme
  const stored = typeof advertised?.blocks === 'number' && typeof advertised.minMatch === 'number' ? advertised : undefined
  const preferred = stored === undefined ? DEFAULT_BLOCK_SCHEME : { blocks: stored.blocks, minMatch: stored.minMatch }
  const blockScheme = validateBlockScheme({ ...preferred, ...options.blockScheme })
  if (stored?.fixed === true && blockScheme.blocks !== stored.blocks) {
    throw new DedupError(
      'INVALID_OPTION',
      `Expected \`blockScheme.blocks\` to be ${stored.blocks}, the block count of the records in the store, got ${describeValue(blockScheme.blocks)}. ` +
        'The block count is fixed per store (lookups cut into another count find none of its records by the block route): ' +
        'leave it out to use the store\'s, or index into a new store (another --index or --store).',
    )
  }
  const maxDistance = options.maxDistance ?? DEFAULT_DEDUPLICATOR_OPTIONS.maxDistance
  const limit = guaranteedDistance(blockScheme)
  if (!Number.isInteger(maxDistance) || maxDistance < OPTION_LIMITS.maxDistance.min || maxDistance > limit) {
    throw new DedupError(
      'INVALID_OPTION',
      `Expected \`maxDistance\` to be an integer from 0 to ${limit}, got ${describeValue(maxDistance)}. ` +
        `With ${blockScheme.blocks} blocks of which ${blockScheme.minMatch} must match, larger distances can miss duplicates.`,
    )
  }
  const layers = { ...DEFAULT_LAYERS, ...options.layers }
  if (!layers.url && !layers.exact && !layers.simhash && !layers.title) {
    throw new DedupError('INVALID_OPTION', 'Expected at least one of `layers.url`, `layers.exact`, `layers.simhash`, `layers.title` to be true, got all false.')
  }
  const windowMs = options.windowMs
  if (windowMs !== undefined && !(Number.isFinite(windowMs) && windowMs > 0)) {
    throw new DedupError('INVALID_OPTION', `Expected \`windowMs\` to be a positive number of milliseconds, got ${describeValue(windowMs)}.`)
  }
  const maxContentLength = options.maxContentLength ?? DEFAULT_DEDUPLICATOR_OPTIONS.maxContentLength
  if (!Number.isInteger(maxContentLength) || maxContentLength < 1) {
    throw new DedupError('INVALID_OPTION', `Expected \`maxContentLength\` to be a positive integer, got ${describeValue(maxContentLength)}.`)
  }
  const minResemblance = options.minResemblance ?? DEFAULT_DEDUPLICATOR_OPTIONS.minResemblance
  if (typeof minResemblance !== 'number' || !(minResemblance > 0 && minResemblance <= 1)) {
    throw new DedupError('INVALID_OPTION', `Expected \`minResemblance\` to be a number above 0 and at most 1, got ${describeValue(minResemblance)}.`)
  }
  const urlMinResemblance = options.urlMinResemblance ?? minResemblance
  if (typeof urlMinResemblance !== 'number' || !(urlMinResemblance > 0 && urlMinResemblance <= 1)) {
    throw new DedupError('INVALID_OPTION', `Expected \`urlMinResemblance\` to be a number above 0 and at most 1, got ${describeValue(urlMinResemblance)}.`)
  }
  const analyzer = isAnalyzer(options.analyzer) ? options.analyzer : createAnalyzer(options.analyzer ?? {})
  return Object.freeze({
    store: options.store,
    analyzer,
    maxDistance,
    blockScheme,
    layers: Object.freeze(layers),
    windowMs,
    minhash: options.minhash ?? DEFAULT_DEDUPLICATOR_OPTIONS.minhash,
    minResemblance,
    urlMinResemblance,
    maxContentLength,
    now: options.now ?? Date.now,
    versionCheck: options.versionCheck ?? true,
    templates: options.templates ?? DEFAULT_DEDUPLICATOR_OPTIONS.templates,
    resume: options.resume ?? false,
  })
}

/** Parses `7d`, `12h`, `30m`, `45s`, `500ms` into milliseconds. @example parseDuration('7d') // 604800000 */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/.exec(text.trim())
  if (m === null) {
    throw new DedupError('INVALID_OPTION', `Expected a duration such as \`7d\`, \`12h\` or \`30m\`, got ${describeValue(text)}.`)
  }
  const unit = { ms: 1, s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 }[m[2] as 'ms']
  return Number(m[1]) * unit
}
