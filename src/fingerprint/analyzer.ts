import type { Fingerprint } from '../types.js'
import { DedupError, describeValue } from '../errors.js'
import { normalizeContent } from '../normalize/index.js'
import { JIEBA_RS_NAME, type Segmenter, type UserWord } from '../segment/segmenter.js'
import { createJiebaWasmSegmenter } from '../segment/jieba.js'
import { tryCreateNodeRsSegmenter } from '../segment/node-rs.js'
import { DEFAULT_WEIGHTING_OPTIONS, type IdfTable, type WeightedTerm, type WeightingOptions } from './tfidf.js'
import { simhashOfHashes } from './simhash.js'
import { contentKey, hash64Hex } from './hash.js'
import { isShortWeights, termSetSketchOfHashes, DEFAULT_SHORT_TEXT_OPTIONS, type ShortTextOptions } from './short-text.js'
import { defaultIdf, defaultStopWords } from './_data.js'
import { minhashSketch, type MinHashSketch } from './minhash.js'
import { SHORT_GRAM_FLOOR, fitsShortRoute, gramSet } from './short-grams.js'
import { FIGURE_VETO_MAX_CHARS, withFigures } from './figure-veto.js'
import { stripAttribution } from '../normalize/attribution.js'
import { TermTable } from './_term-table.js'
import { RunMemo } from './_run-memo.js'

/**
 * Bumped whenever normalisation, tokenisation, weighting or hashing changes output; it is part
 * of `Analyzer.version`, stored with every record, and records of another version are not compared.
 */
export const FINGERPRINT_ALGORITHM = 'simdup-fp/15'

/**
 * Everything the engine needs to know about one document's content. Read-only: an analyzer may
 * return the same object again for a text that normalises to the same string.
 */
export interface Analysis {
  normalized: string
  terms: WeightedTerm[]
  fingerprint: Fingerprint
  /** Few or dominated terms: SimHash is unreliable, only the short-text rules may match it. */
  short: boolean
  contentHash: string
  /**
   * Verification sketch: the gram set (`s:`) of a text of at most `SHORT_GRAM_MAX_CHARS` content
   * characters, the term set (`t:`) of a longer short text, or MinHash minima (`m:`) otherwise.
   */
  sketch: string | null
  /**
   * Candidate terms besides the blocks: the prefix-filter terms (`s_…`) of a gram set, or the LSH
   * band terms (`m<i>_…`) of a MinHash sketch; empty for `t:` short texts.
   */
  bands: string[]
}

/** Options of the analysis pipeline (normalise → segment → weight → fingerprint). */
export interface AnalyzerOptions {
  /** Replaceable normalise stage. @default normalizeContent (HTML auto-detected) */
  normalize?: (content: string) => string
  /**
   * @default @node-rs/jieba when the optional package loads (3× faster here), else jieba-wasm; both
   * jieba-rs with HMM off, token-for-token identical (tested on the corpus), so fingerprints agree.
   */
  segmenter?: Segmenter
  /** @default jieba's IDF table (data/idf.txt.gz) */
  idf?: IdfTable & { id?: string }
  /** @default data/stopwords.txt */
  stopWords?: ReadonlySet<string>
  /** Added to the segmenter's dictionary. @default [] */
  userWords?: readonly UserWord[]
  weighting?: WeightingOptions
  shortText?: ShortTextOptions
  /**
   * Memoise cuts per run of han characters when the segmenter is `runLocal` (both built-in ones
   * are): repeated clauses are segmented once. Never changes the output. @default true
   */
  memoizeRuns?: boolean
  /**
   * Leave a trailing attribution / signature line ("—— 李白《将进酒》", "--《论语》为政", "出自《…》")
   * out of the analysis: it says who wrote a text, not what it says (see normalize/attribution.ts).
   * @default true
   */
  stripAttribution?: boolean
}

/** A configured pipeline. `version` names every setting that changes fingerprints. */
export interface Analyzer {
  readonly version: string
  /** Resolved short-text thresholds (the engine applies the match rule). */
  readonly shortText: Readonly<Required<ShortTextOptions>>
  analyze(content: string): Analysis
  /** The text `analyze` fingerprints (normalised, attribution stripped when on), without analysing it. */
  normalize(content: string): string
  /**
   * The analysis of a text that is already normalised (the `normalized` of an earlier analysis,
   * or part of it): no normalisation, no attribution stripping.
   */
  analyzeNormalized(normalized: string): Analysis
  /** Tokens after normalisation (for `simdup compare` / explain). */
  segment(normalized: string): string[]
}

let shared: Segmenter | undefined

/** The default segmenter, one per thread: @node-rs/jieba if installed, else jieba-wasm. */
export function defaultSegmenter(): Segmenter {
  shared ??= tryCreateNodeRsSegmenter() ?? createJiebaWasmSegmenter()
  return shared
}

/**
 * Builds the pure analysis pipeline.
 * @example
 * const analyzer = createAnalyzer()
 * const { fingerprint, short } = analyzer.analyze('<p>北京大学的学生</p>')
 */
export function createAnalyzer(options: AnalyzerOptions = {}): Analyzer {
  const normalize = options.normalize ?? ((c: string) => normalizeContent(c))
  // The default segmenter (a dictionary build, ~0.2–0.3 s) loads at the first analysis: a thread
  // that only needs the version (the CLI's main thread while a worker pool analyses) never pays.
  let segmenter = options.segmenter
  const idf = options.idf ?? defaultIdf()
  const stop = options.stopWords === undefined ? defaultStopWords() : { words: options.stopWords, id: `custom-${hash64Hex([...options.stopWords].sort().join('\n')).slice(0, 8)}` }
  const weighting = { ...DEFAULT_WEIGHTING_OPTIONS, ...options.weighting }
  const shortText = { ...DEFAULT_SHORT_TEXT_OPTIONS, ...options.shortText }
  for (const [name, value] of Object.entries(weighting)) {
    if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
      throw new DedupError('INVALID_OPTION', `Expected \`weighting.${name}\` to be a number from 0 to 1, got ${describeValue(value)}.`)
    }
  }
  const floors = { minGramJaccard: SHORT_GRAM_FLOOR.jaccard, minLongGramJaccard: SHORT_GRAM_FLOOR.jaccard, minContainment: SHORT_GRAM_FLOOR.containment } as const
  for (const [name, floor] of Object.entries(floors)) {
    const value = shortText[name as keyof typeof floors]
    if (typeof value !== 'number' || !(value >= floor && value <= 1)) {
      throw new DedupError('INVALID_OPTION', `Expected \`shortText.${name}\` to be a number from ${floor} to 1, got ${describeValue(value)}. The short-text index serves thresholds down to ${floor} only.`)
    }
  }
  if (!Number.isInteger(shortText.minContainedGrams) || shortText.minContainedGrams < 2) {
    throw new DedupError('INVALID_OPTION', `Expected \`shortText.minContainedGrams\` to be an integer of at least 2, got ${describeValue(shortText.minContainedGrams)}.`)
  }
  const userWords = options.userWords ?? []
  if (userWords.length > 0) segmenter?.addWords(userWords)
  const userId = userWords.length === 0 ? 'none' : hash64Hex(userWords.map((w) => `${w.word} ${w.freq ?? ''}`).join('\n')).slice(0, 8)
  const version = [
    FINGERPRINT_ALGORITHM,
    `norm=${options.normalize === undefined ? 'default' : 'custom'}`,
    `seg=${segmenter?.name ?? JIEBA_RS_NAME}`,
    `idf=${idf.id ?? `custom-${idf.size}-${idf.mean.toFixed(4)}`}`,
    `stop=${stop.id}`,
    `user=${userId}`,
    `w=${weighting.singleCharFactor},${weighting.numberFactor}`,
    `short=${shortText.minTerms},${shortText.maxTopShare}`,
    ...(options.stripAttribution === false ? ['attr=keep'] : []),
  ].join(';')
  const attribution = options.stripAttribution !== false
  const table = new TermTable(idf, stop.words, weighting.singleCharFactor, weighting.numberFactor)
  let memo: RunMemo | undefined
  const ready = (): Segmenter => {
    if (segmenter === undefined) {
      segmenter = defaultSegmenter()
      if (userWords.length > 0) segmenter.addWords(userWords)
    }
    if (memo === undefined && segmenter.runLocal === true && options.memoizeRuns !== false) memo = new RunMemo(table, segmenter)
    return segmenter
  }
  // Exact repeats of a normalised text (mirrors, reposts, the same page crawled twice) get the
  // analysis made before: keyed by contentKey, confirmed by comparing the text. Bounded in entries
  // and characters; long texts are not kept.
  const recent = new Map<string, Analysis>()
  let recentChars = 0

  const analyzeNormalized = (normalized: string): Analysis => {
    const key = contentKey(normalized)
    const seen = recent.get(key)
    if (seen !== undefined && seen.normalized === normalized) return seen
    // The term table gives contentTokens → weightContentTokens → simhash / minhashSketch /
    // termSetSketch results without re-hashing or re-classifying tokens seen before.
    const seg = ready()
    if (memo === undefined) table.load(seg.cut(normalized))
    else memo.load(normalized)
    const d = table.distinctLength
    // A text of few content characters is decided by its exact gram set (short-grams.ts): SimHash
    // and a MinHash estimate are unreliable there. A longer one with few or dominated terms keeps
    // the term-set rule.
    const grams = fitsShortRoute(normalized) ? gramSet(normalized) : null
    // `short`: SimHash is unreliable by the terms (few or dominated); a gram-set text that is not
    // may still match by SimHash within k when no number or negation differs (engine/match.ts).
    const short = isShortWeights(table.weights, d, shortText)
    // A MinHash sketch estimates resemblance only from enough shingles (see MIN_MINHASH_SHINGLES).
    const minhash: MinHashSketch | null = short || grams !== null ? null : minhashSketch(normalized)
    const analysis = new TableAnalysis(
      normalized,
      table.termStrings,
      table.distinct.slice(0, d),
      table.weights.slice(0, d),
      simhashOfHashes(table.hi, table.lo, table.distinct, table.weights, d),
      short,
      key,
      grams !== null
        ? grams.sketch
        : short
          ? termSetSketchOfHashes(table.lo, table.distinct, d)
          : minhash === null
            ? null
            : fitsShortRoute(normalized, FIGURE_VETO_MAX_CHARS) ? withFigures(minhash.sketch, normalized) : minhash.sketch,
      grams !== null ? grams.terms : (minhash?.bands ?? []),
    )
    if (normalized.length <= RECENT_MAX_TEXT) {
      if (recent.size >= RECENT_MAX_ENTRIES || recentChars > RECENT_MAX_CHARS) {
        recent.clear()
        recentChars = 0
      }
      recent.set(key, analysis)
      recentChars += normalized.length
    }
    return analysis
  }

  return {
    version,
    shortText: Object.freeze(shortText),
    segment: (normalized) => ready().cut(normalized),
    analyze(content: string): Analysis {
      return analyzeNormalized(attribution ? stripAttribution(normalize(content)) : normalize(content))
    },
    normalize: (content: string) => (attribution ? stripAttribution(normalize(content)) : normalize(content)),
    analyzeNormalized,
  }
}

/** Bounds of the analyzer's cache of recent analyses (exact repeats). */
const RECENT_MAX_ENTRIES = 4096
const RECENT_MAX_CHARS = 4_000_000
const RECENT_MAX_TEXT = 100_000

// The engine never reads `terms`: build the objects only when asked (compare, explain).
class TableAnalysis implements Analysis {
  private built: WeightedTerm[] | undefined
  constructor(
    readonly normalized: string,
    private readonly strings: readonly string[],
    private readonly ids: Int32Array,
    private readonly weights: Float64Array,
    readonly fingerprint: Fingerprint,
    readonly short: boolean,
    readonly contentHash: string,
    readonly sketch: string | null,
    readonly bands: string[],
  ) {}

  get terms(): WeightedTerm[] {
    this.built ??= Array.from(this.ids, (id, k) => ({ term: this.strings[id]!, weight: this.weights[k]! }))
    return this.built
  }
}
