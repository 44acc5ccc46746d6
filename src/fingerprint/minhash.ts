import { HASH_OUT, hashToken, hex8, hex32 } from './hash.js'

/**
 * The second candidate route: a MinHash sketch of the document's word 3-shingles.
 *
 * SimHash distance grows with the share of weight that changed, so a copy with 15 % cut off or an
 * ad paragraph added drifts past k = 3. Shingle resemblance (Jaccard) degrades gently under
 * those edits. Each document keeps `MINHASH_SIZE` minima; pairs of minima form LSH band terms
 * (indexed like blocks: any equal band makes a candidate), and the 8-bit tails of the minima form
 * the stored sketch used to estimate Jaccard during verification.
 *
 * The minima come from one-permutation hashing: each shingle is hashed once, the top 4 bits pick
 * its bin and the rest is its value, and each bin keeps its least value (Li, Owen & Zhang 2012).
 * That is one hash a shingle where 16 seeded hash functions cost 16, and two sets' bins agree
 * with probability their Jaccard resemblance, as the minima of independent functions do. A bin no
 * shingle fell in borrows the value of the next filled bin to its right (cyclically), mixed with
 * the distance it borrowed over, so two documents agree there only when they agree on the lender
 * ("rotation" densification, Shrivastava & Li 2014).
 */
export const MINHASH_SIZE = 16
/**
 * Fewest word 3-shingles a document needs for a MinHash sketch (the analyzer gives none below).
 * With fewer shingles than bins, most minima are densified copies of a handful of values, and two
 * texts sharing two or three shingles (an attribution line, a set phrase) agree on many bins: the
 * estimate is noise. At one shingle per bin on average, each minimum has its own sample.
 */
export const MIN_MINHASH_SHINGLES = MINHASH_SIZE
/** Minima per LSH band: two equal minima ⇒ P(band match) = J². */
export const BAND_ROWS = 2
export const BAND_COUNT = MINHASH_SIZE / BAND_ROWS

const BIN_SHIFT = 32 - Math.log2(MINHASH_SIZE)
const VALUE_MASK = (1 << BIN_SHIFT) - 1
const EMPTY = 0xffffffff

function mix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  h = Math.imul(h, 0x846ca68b)
  h ^= h >>> 16
  return h >>> 0
}

const MINS = new Uint32Array(MINHASH_SIZE)

/** Sketch and band terms of a token sequence, or null when it has fewer than 3 tokens. */
export interface MinHashSketch {
  /** `m:` + 2 hex digits per minimum (8-bit tails). */
  sketch: string
  /** `m<band>_<8 hex>` terms. */
  bands: string[]
}

/**
 * MinHash over word 3-shingles of `tokens` (content tokens, in order).
 * @example minhashSketch(['北京', '大学', '学生', '宿舍'])?.bands.length // 8
 */
export function minhashSketch(tokens: readonly string[]): MinHashSketch | null {
  const n = tokens.length
  if (n < 3) return null
  const th = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    hashToken(tokens[i]!)
    th[i] = HASH_OUT[1]!
  }
  return minhashOfHashes(th, n)
}

/** `minhashSketch` of tokens given by the low halves of their hashes (`th[0..n)`). */
export function minhashOfHashes(th: Int32Array, n: number): MinHashSketch | null {
  if (n < 3) return null
  MINS.fill(EMPTY)
  for (let i = 0; i + 2 < n; i++) {
    // Order-sensitive combination of three token hashes.
    const h = mix32((Math.imul(th[i]!, 0x9e3779b1) ^ Math.imul(th[i + 1]!, 0x85ebca77) ^ th[i + 2]!) >>> 0)
    const bin = h >>> BIN_SHIFT
    const v = h & VALUE_MASK
    if (v < MINS[bin]!) MINS[bin] = v
  }
  densify()
  let sketch = 'm:'
  for (let j = 0; j < MINHASH_SIZE; j++) sketch += hex8(MINS[j]! & 0xff)
  const bands: string[] = []
  for (let b = 0; b < BAND_COUNT; b++) {
    let h = 0x811c9dc5 ^ b
    for (let r = 0; r < BAND_ROWS; r++) h = mix32((Math.imul(h, 0x01000193) ^ MINS[b * BAND_ROWS + r]!) >>> 0)
    bands.push(`m${b}_${hex32(h)}`)
  }
  return { sketch, bands }
}

/**
 * Fills each empty bin from the next bin to its right that a shingle fell in (there is one).
 * Borrowed values carry the high bit until all bins are filled, so none is lent on.
 */
function densify(): void {
  for (let j = 0; j < MINHASH_SIZE; j++) {
    if (MINS[j] !== EMPTY) continue
    let t = 1
    while (MINS[(j + t) % MINHASH_SIZE]! > VALUE_MASK) t++
    // Mixed with the distance: a borrowed value equals another document's only when both borrow
    // the same value over the same distance.
    MINS[j] = (mix32((MINS[(j + t) % MINHASH_SIZE]! ^ Math.imul(t, 0x9e3779b1)) >>> 0) & VALUE_MASK) | 0x80000000
  }
  for (let j = 0; j < MINHASH_SIZE; j++) MINS[j] = MINS[j]! & VALUE_MASK
}

/**
 * Estimated Jaccard resemblance of two `m:` sketches: the share of equal 8-bit minima, corrected
 * for the 1/256 chance of equal tails by accident. NaN when either is not a MinHash sketch.
 * @example minhashSimilarity('m:00ff…', 'm:00ff…') // 1
 */
export function minhashSimilarity(a: string, b: string): number {
  if (!a.startsWith('m:') || !b.startsWith('m:') || a.length !== b.length) return NaN
  let equal = 0
  const k = (a.length - 2) / 2
  for (let j = 0; j < k; j++) {
    if (a.charCodeAt(2 + 2 * j) === b.charCodeAt(2 + 2 * j) && a.charCodeAt(3 + 2 * j) === b.charCodeAt(3 + 2 * j)) equal++
  }
  const raw = equal / k
  return Math.max(0, (raw - 1 / 256) / (1 - 1 / 256))
}

/**
 * Keys such that two MinHash sketches with `minhashSimilarity(a, b) >= min` share at least one
 * (an exact pre-filter, unlike the probabilistic LSH bands). A similarity of `min` needs `e` equal
 * minima of `k`, so at most `k − e` differ; of `k − e + 1` disjoint groups of positions at least
 * one is then entirely equal (pigeonhole), and each group's digits make a key.
 * Returns [] when no similarity can reach `min`, and null when keys cannot help (a string that is
 * not a sketch of whole minima, or `min` ≤ 0, which every pair reaches): compare with everything.
 * @example minhashGroupKeys(minhashSketch(tokens)!.sketch, 0.5)?.length // 8 groups of 2 minima
 */
export function minhashGroupKeys(sketch: string, min: number): string[] | null {
  if (!(min > 0) || !sketch.startsWith('m:') || sketch.length % 2 !== 0 || sketch.length < 4) return null
  const k = (sketch.length - 2) / 2
  // The fewest equal minima that reach `min`, by the very formula of minhashSimilarity.
  let e = 1
  while (e <= k && !(Math.max(0, (e / k - 1 / 256) / (1 - 1 / 256)) >= min)) e++
  if (e > k) return []
  const groups = k - e + 1
  const keys: string[] = []
  for (let g = 0; g < groups; g++) {
    const from = Math.floor((g * k) / groups)
    const to = Math.floor(((g + 1) * k) / groups)
    keys.push(`${k}/${g}/${sketch.slice(2 + 2 * from, 2 + 2 * to)}`)
  }
  return keys
}
