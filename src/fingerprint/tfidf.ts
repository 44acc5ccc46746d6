/**
 * TF-IDF term weights. The IDF table is jieba's (data/idf.txt.gz, 270 k words from a large
 * general Chinese corpus); words it lacks (Latin words, new words) get the table's mean IDF, so a
 * mostly-English document is weighted by sublinear term frequency.
 */
export interface IdfTable {
  get(term: string): number | undefined
  /** Mean IDF over the table: the weight of unknown words. */
  readonly mean: number
  /** Number of entries. */
  readonly size: number
}

/** A weighted term: one feature of the SimHash. */
export interface WeightedTerm {
  term: string
  weight: number
}

/** Options of term weighting, with defaults in DEFAULT_WEIGHTING_OPTIONS. */
export interface WeightingOptions {
  /** Factor for single-character tokens (one Han character or one letter): they carry little topic. @default 0.3 (0–1) */
  singleCharFactor?: number
  /** Factor for pure numbers (`2024`, `3`): dates and counts change between copies. @default 0.3 (0–1) */
  numberFactor?: number
}

export const DEFAULT_WEIGHTING_OPTIONS = Object.freeze({ singleCharFactor: 0.3, numberFactor: 0.3 })

/** Builds an IDF table from `word idf` lines (jieba's idf.txt format). @example parseIdf('北京 8.1\n大学 6.2').get('北京') // 8.1 */
export function parseIdf(text: string): IdfTable {
  const { map, mean } = parseIdfEntries(text)
  return { get: (t) => map.get(t), mean, size: map.size }
}

/** The entries of `word idf` lines (a word given twice keeps its last value) and the table's mean. */
export function parseIdfEntries(text: string): { map: Map<string, number>; mean: number } {
  const map = new Map<string, number>()
  let sum = 0
  let start = 0
  const n = text.length
  while (start < n) {
    let end = text.indexOf('\n', start)
    if (end < 0) end = n
    const space = text.lastIndexOf(' ', end)
    if (space > start) {
      const value = Number(text.slice(space + 1, end))
      if (Number.isFinite(value)) {
        map.set(text.slice(start, space), value)
        sum += value
      }
    }
    start = end + 1
  }
  return { map, mean: map.size === 0 ? 1 : sum / map.size }
}

// Tokens with at least one letter or digit are content; the rest is punctuation or space.
const CONTENT = /[\p{L}\p{N}]/u
const NUMBER = /^[\p{N}.,:%+-]+$/u

/**
 * The content tokens, in order: stop words, whitespace and punctuation dropped.
 * @example contentTokens(['北京', '的', '，', '大学'], new Set(['的'])) // ['北京', '大学']
 */
export function contentTokens(tokens: readonly string[], stopWords: ReadonlySet<string>): string[] {
  const out: string[] = []
  for (const token of tokens) if (isContentToken(token, stopWords)) out.push(token)
  return out
}

/** True for a token that is a feature: not whitespace or punctuation, not a stop word. */
export function isContentToken(token: string, stopWords: ReadonlySet<string>): boolean {
  const c = token.charCodeAt(0)
  if (token.length === 1 && c <= 0x20) return false // whitespace, the most common token
  // Fast path: a token starting with a Han ideograph or an ASCII letter/digit is content; only
  // the rest (punctuation, other scripts) needs the Unicode regex.
  const content = (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || CONTENT.test(token)
  return content && !stopWords.has(token)
}

/**
 * Counts and weights tokens: stop words and punctuation dropped, weight = (1 + ln tf) · idf ·
 * factor. Returns terms in first-occurrence order (deterministic).
 * @example weightTerms(['北京', '的', '北京'], idf, stop) // [{ term: '北京', weight: … }]
 */
export function weightTerms(
  tokens: readonly string[],
  idf: IdfTable,
  stopWords: ReadonlySet<string>,
  options: WeightingOptions = {},
): WeightedTerm[] {
  return weightContentTokens(contentTokens(tokens, stopWords), idf, options)
}

/** `weightTerms` for tokens already filtered by `contentTokens`. */
export function weightContentTokens(tokens: readonly string[], idf: IdfTable, options: WeightingOptions = {}): WeightedTerm[] {
  const singleCharFactor = options.singleCharFactor ?? DEFAULT_WEIGHTING_OPTIONS.singleCharFactor
  const numberFactor = options.numberFactor ?? DEFAULT_WEIGHTING_OPTIONS.numberFactor
  const tf = new Map<string, number>()
  for (const token of tokens) tf.set(token, (tf.get(token) ?? 0) + 1)
  const out: WeightedTerm[] = []
  for (const [term, count] of tf) {
    let w = (1 + Math.log(count)) * (idf.get(term) ?? idf.mean)
    const factor = termFactor(term, singleCharFactor, numberFactor)
    if (factor !== 1) w *= factor
    out.push({ term, weight: w })
  }
  return out
}

/**
 * The weighting factor of a content term: `numberFactor` for a pure number, `singleCharFactor` for
 * one character, 1 otherwise. @example termFactor('2024', 0.3, 0.5) // 0.5
 */
export function termFactor(term: string, singleCharFactor: number, numberFactor: number): number {
  const c = term.charCodeAt(0)
  // Numbers start with a digit, sign or dot; skip the regex for everything else (most terms).
  if (((c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2b || c === 0x2d || c > 0x7f) && NUMBER.test(term)) return numberFactor
  return isSingleChar(term) ? singleCharFactor : 1
}

function isSingleChar(term: string): boolean {
  if (term.length === 1) return true
  // One astral character (a surrogate pair) is one character too.
  return term.length === 2 && term.charCodeAt(0) >= 0xd800 && term.charCodeAt(0) <= 0xdbff
}
