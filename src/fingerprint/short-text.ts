import type { WeightedTerm } from './tfidf.js'
import { HASH_OUT, hashToken, hex32 } from './hash.js'

/**
 * When SimHash is unreliable: with few features, or one feature carrying most of the weight,
 * a single changed word flips many bits and unrelated short texts collide. Such documents are
 * decided by the stricter short-text rule (term-set overlap on a stored sketch).
 */
export interface ShortTextOptions {
  /** Fewer distinct weighted terms than this ⇒ short. @default 12 (0 disables) */
  minTerms?: number
  /** Top term's share of the total weight at or above this ⇒ short (one dominant term). @default 0.35 (0–1) */
  maxTopShare?: number
  /** Short texts match when their term sets' Jaccard similarity is at least this. @default 0.8 (0–1) */
  minJaccard?: number
  /** …and their fingerprints are within this distance. @default 3 */
  maxDistance?: number
  /**
   * Texts of at most 150 content characters (short-grams.ts) match when the Jaccard similarity of
   * their character-bigram sets is at least this (exact, not estimated), when the larger set has
   * at most 40 bigrams (title length: a title, a UI string, a saying). @default 0.85 (0.5–1)
   */
  minGramJaccard?: number
  /**
   * …or at least this when the larger set has more than 40 bigrams (a sentence or more: a review,
   * a package description). @default 0.75 (0.5–1)
   */
  minLongGramJaccard?: number
  /**
   * …or when the shorter one's bigrams are this share of the shared ones at least (containment: a
   * short item with a line added), the shorter has `minContainedGrams` bigrams or more and the
   * longer at most twice as many. @default 0.9 (0.75–1)
   */
  minContainment?: number
  /** Fewest bigrams of the shorter text for a containment match. @default 6 */
  minContainedGrams?: number
}

export const DEFAULT_SHORT_TEXT_OPTIONS = Object.freeze({
  minTerms: 12, maxTopShare: 0.35, minJaccard: 0.8, maxDistance: 3, minGramJaccard: 0.85, minLongGramJaccard: 0.75, minContainment: 0.9, minContainedGrams: 6,
})

/** True when the weighted terms are too few or too dominated for SimHash. @example isShortText([{ term: '你好', weight: 5 }]) // true */
export function isShortText(terms: readonly WeightedTerm[], options: ShortTextOptions = {}): boolean {
  let sum = 0
  let top = 0
  for (const t of terms) {
    sum += t.weight
    if (t.weight > top) top = t.weight
  }
  return shortBySums(terms.length, sum, top, options)
}

/** `isShortText` of the weights `weights[0..n)`. */
export function isShortWeights(weights: Float64Array, n: number, options: ShortTextOptions = {}): boolean {
  let sum = 0
  let top = 0
  for (let i = 0; i < n; i++) {
    const w = weights[i]!
    sum += w
    if (w > top) top = w
  }
  return shortBySums(n, sum, top, options)
}

function shortBySums(count: number, sum: number, top: number, options: ShortTextOptions): boolean {
  const minTerms = options.minTerms ?? DEFAULT_SHORT_TEXT_OPTIONS.minTerms
  const maxTopShare = options.maxTopShare ?? DEFAULT_SHORT_TEXT_OPTIONS.maxTopShare
  if (count < minTerms) return true
  return sum <= 0 || top / sum >= maxTopShare
}

/**
 * The short-text sketch: the sorted, distinct 32-bit hashes of the terms, as 8-hex chunks.
 * Stored with short records only, so it stays small.
 * @example termSetSketch([{ term: 'a', weight: 1 }]) // 't:' + 8 hex digits
 */
export function termSetSketch(terms: readonly WeightedTerm[]): string {
  return TERM_SET_PREFIX + termHashes(terms)
}

/** Prefix of term-set sketches (MinHash sketches start with `m:`). */
export const TERM_SET_PREFIX = 't:'

function termHashes(terms: readonly WeightedTerm[]): string {
  const hashes = new Uint32Array(terms.length)
  for (let i = 0; i < terms.length; i++) {
    hashToken(terms[i]!.term)
    hashes[i] = HASH_OUT[1]!
  }
  return sortedHex(hashes)
}

/** `termSetSketch` of terms given by the low halves of their hashes: `lo[ids[i]]`, i < n. */
export function termSetSketchOfHashes(lo: Int32Array, ids: Int32Array, n: number): string {
  const hashes = new Uint32Array(n)
  for (let i = 0; i < n; i++) hashes[i] = lo[ids[i]!]!
  return TERM_SET_PREFIX + sortedHex(hashes)
}

function sortedHex(hashes: Uint32Array): string {
  hashes.sort()
  let out = ''
  let prev = -1
  for (const h of hashes) {
    if (h === prev) continue
    prev = h
    out += hex32(h)
  }
  return out
}

/** Jaccard similarity of two term-set sketches (0 when either set is empty). @example sketchJaccard('0000000a', '0000000a') // 1 */
export function sketchJaccard(a: string, b: string): number {
  if (a.startsWith(TERM_SET_PREFIX)) a = a.slice(TERM_SET_PREFIX.length)
  if (b.startsWith(TERM_SET_PREFIX)) b = b.slice(TERM_SET_PREFIX.length)
  const na = a.length >>> 3
  const nb = b.length >>> 3
  // Two texts without terms share nothing: they are duplicates only when their content is equal.
  if (na === 0 || nb === 0) return 0
  // Both are sorted: merge-count the intersection on the hex chunks (same width ⇒ string order = numeric order).
  let i = 0
  let j = 0
  let both = 0
  while (i < na && j < nb) {
    const x = a.slice(i * 8, i * 8 + 8)
    const y = b.slice(j * 8, j * 8 + 8)
    if (x === y) {
      both++
      i++
      j++
    } else if (x < y) i++
    else j++
  }
  return both / (na + nb - both)
}
