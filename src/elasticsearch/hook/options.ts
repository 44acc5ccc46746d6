import { DedupError, describeValue, integerOption } from '../../errors.js'
import { checkFoldDistance } from './fold.js'

/** Options of `dedupSearch` (how to collapse and fold; the search itself is the request). */
export interface DedupSearchOptions {
  /** Hits whose SimHash is within this Hamming distance of a better-ranked shown hit are folded into it. @default 3 (0–16) */
  maxDistance?: number
  /** Hidden duplicates listed per result from the collapsed group (inner_hits); `duplicateCount` counts them all. @default 3 (0–99) */
  duplicates?: number
  /** Name of the inner_hits block. @default 'duplicates' */
  innerHitsName?: string
  /** Extra fields (fields API) returned for each listed duplicate, e.g. `['title', 'url']`. @default [] */
  duplicateFields?: readonly string[]
  /** Keyword field with doc values that names a document's cluster. @default 'dedup.cluster_id' */
  clusterField?: string
  /** Field holding the 16-hex SimHash. @default 'dedup.simhash' */
  simhashField?: string
  /** Date field of the default tie-break (oldest copy first). @default 'dedup.indexed_at' */
  indexedAtField?: string
  /**
   * Extra collapsed groups fetched per round beyond the page size, to make up for folded ones.
   * Each group returned costs the server one inner_hits search, so this stays small; documents
   * without a cluster id (no inner hits, and the usual ones to fold) are fetched 2 × size + overfetch.
   * A page that folds more than this takes another round. @default 2 (0–1 000)
   */
  overfetch?: number
  /** Most rounds of searches per page when folding keeps the page short; a short page still gets a valid `next`. @default 4 (1–20) */
  maxRounds?: number
  /** Shown hits remembered in the cursor for folding and cluster checks on later pages (≈ 19 bytes each). @default 200 (0–2 000) */
  cursorMemory?: number
  /** The index's `max_result_window`: no search asks past it, so pages end there. @default 10 000 */
  maxResultWindow?: number
}

/** The defaults of the `DedupSearchOptions` fields left out. */
export const DEFAULT_DEDUP_SEARCH_OPTIONS = Object.freeze({
  maxDistance: 3,
  duplicates: 3,
  innerHitsName: 'duplicates',
  duplicateFields: Object.freeze([]) as readonly string[],
  clusterField: 'dedup.cluster_id',
  simhashField: 'dedup.simhash',
  indexedAtField: 'dedup.indexed_at',
  overfetch: 2,
  maxRounds: 4,
  cursorMemory: 200,
  maxResultWindow: 10_000,
})

/** Options after defaults and validation. */
export interface ResolvedDedupSearchOptions {
  readonly maxDistance: number
  readonly duplicates: number
  readonly innerHitsName: string
  readonly duplicateFields: readonly string[]
  readonly clusterField: string
  readonly simhashField: string
  readonly indexedAtField: string
  readonly overfetch: number
  readonly maxRounds: number
  readonly cursorMemory: number
  readonly maxResultWindow: number
}

function name(key: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new DedupError('INVALID_OPTION', `Expected \`${key}\` to be a non-empty field name, got ${describeValue(value)}.`)
  return value
}

/**
 * Merges defaults onto a copy of `options` and validates each field.
 * @example resolveDedupSearchOptions({ maxDistance: 2 }).duplicates // 3
 */
export function resolveDedupSearchOptions(options: DedupSearchOptions = {}): ResolvedDedupSearchOptions {
  if (options === null || typeof options !== 'object') {
    throw new DedupError('INVALID_OPTION', `Expected \`options\` to be an object, got ${describeValue(options)}.`)
  }
  // Explicit undefineds from JS callers must not wipe a default.
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as DedupSearchOptions
  const o = { ...DEFAULT_DEDUP_SEARCH_OPTIONS, ...given }
  const fields = o.duplicateFields
  if (!Array.isArray(fields) || !fields.every((f) => typeof f === 'string' && f !== '')) {
    throw new DedupError('INVALID_OPTION', `Expected \`duplicateFields\` to be an array of field names, got ${describeValue(fields)}.`)
  }
  return Object.freeze({
    maxDistance: checkFoldDistance(o.maxDistance),
    // inner_hits holds the shown hit too, and index.max_inner_result_window defaults to 100.
    duplicates: integerOption('duplicates', o.duplicates, 0, 99),
    innerHitsName: name('innerHitsName', o.innerHitsName),
    duplicateFields: Object.freeze([...fields]),
    clusterField: name('clusterField', o.clusterField),
    simhashField: name('simhashField', o.simhashField),
    indexedAtField: name('indexedAtField', o.indexedAtField),
    overfetch: integerOption('overfetch', o.overfetch, 0, 1000),
    maxRounds: integerOption('maxRounds', o.maxRounds, 1, 20),
    cursorMemory: integerOption('cursorMemory', o.cursorMemory, 0, 2000),
    maxResultWindow: integerOption('maxResultWindow', o.maxResultWindow, 1, 1_000_000_000),
  })
}
