import { HASH_OUT, hashToken, hex8, hex32 } from './hash.js'

/**
 * The second candidate route: a MinHash sketch of the document's word 3-shingles.
 *
 * SimHash distance grows with the share of weight that changed, so a copy with 15 % cut off or an
 * ad paragraph added drifts past k = 3. Shingle resemblance (Jaccard) degrades gently under
 * those edits. Each document keeps `MINHASH_SIZE` minima (one per seeded hash function); pairs of
 * minima form LSH band terms (indexed like blocks: any equal band makes a candidate), and the
 * 8-bit tails of the minima form the stored sketch used to estimate Jaccard during verification.
 */
export const MINHASH_SIZE = 16
/** Minima per LSH band: two equal minima ⇒ P(band match) = J². */
export const BAND_ROWS = 2
export const BAND_COUNT = MINHASH_SIZE / BAND_ROWS

// Fixed odd seeds (digits of π): part of the fingerprint version.
const SEEDS = new Uint32Array([
  0x243f6a89, 0x85a308d3, 0x13198a2f, 0x03707345, 0xa4093823, 0x299f31d1, 0x082efa99, 0xec4e6c89,
  0x452821e7, 0x38d01377, 0xbe5466cf, 0x34e90c6d, 0xc0ac29b7, 0xc97c50dd, 0x3f84d5b5, 0xb5470917,
])

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
  MINS.fill(0xffffffff)
  for (let i = 0; i + 2 < n; i++) {
    // Order-sensitive combination of three token hashes.
    const shingle = mix32((Math.imul(th[i]!, 0x9e3779b1) ^ Math.imul(th[i + 1]!, 0x85ebca77) ^ th[i + 2]!) >>> 0)
    for (let j = 0; j < MINHASH_SIZE; j++) {
      const v = mix32((shingle ^ SEEDS[j]!) >>> 0)
      if (v < MINS[j]!) MINS[j] = v
    }
  }
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
