import { hex32, hexDigit } from '../bits.js'

/**
 * The second candidate route and the resemblance check: MinHash over the character 5-grams of the
 * normalised text.
 *
 * SimHash distance grows with the share of weight that changed, so a copy with 15 % cut off or an
 * ad paragraph added drifts past k = 3. Shingle resemblance (Jaccard) degrades gently under
 * those edits. The shingles are character 5-grams of the normalised text, white space left out
 * (line wrapping is layout) and ASCII lower-cased: the resemblance of two texts is then the
 * Jaccard similarity of their 5-gram sets, the usual definition of "near-duplicate text" (and the
 * one the issue's real-page oracle uses), independent of how jieba cuts a sentence. Punctuation
 * stays: leaving it out, or folding it, was measured and lost more on real pages (pages of one
 * manual share their wording and differ in their punctuated details) than it won on
 * re-punctuated quotes, which SimHash (term-based) catches anyway (docs/EVAL.md).
 *
 * One pass hashes each shingle once and files it by one-permutation hashing (Li, Owen & Zhang
 * 2012) into `SKETCH_BINS` bins (top 7 bits pick the bin, the rest is the value; each bin keeps
 * its least value). Two products come out of the same minima:
 *
 * - **Band terms** (candidate route): the 128 bins read as 16 groups of 8 are exactly a 16-bin
 *   one-permutation sketch (the least value of a group is in its first filled bin). Pairs of those
 *   16 minima form `BAND_COUNT` LSH band terms, indexed like blocks: any equal band makes a candidate.
 * - **The stored sketch** (verification): the lowest bit of each of the 128 minima, 16 bytes
 *   (b-bit minwise hashing, Li & König 2010). Two sets' bits agree with probability
 *   (1 + J) / 2, so J is estimated as 2·agree/128 − 1, with standard error √((1 − J²)/128): 0.071 at
 *   J = 0.6, where 16 full minima (the sketch before `simdup-fp/6`, same size) gave 0.12.
 *
 * A bin no shingle fell in borrows the value of the next filled bin to its right (cyclically),
 * mixed with the distance it borrowed over, so two documents agree there only when they agree on
 * the lender ("rotation" densification, Shrivastava & Li 2014).
 */
export const SKETCH_BINS = 512
/** Minima the band terms are made of (groups of SKETCH_BINS / MINHASH_SIZE bins). */
export const MINHASH_SIZE = 16
/** Character n-gram length of a shingle. */
export const SHINGLE_CHARS = 5
/**
 * Fewest shingles a document needs for a MinHash sketch (the analyzer gives none below). With
 * fewer shingles than band minima, most minima are densified copies of a handful of values, and two
 * texts sharing two or three shingles (an attribution line, a set phrase) agree on many of them:
 * bands and estimate are noise. At one shingle per band minimum on average, each has its own sample.
 */
export const MIN_MINHASH_SHINGLES = MINHASH_SIZE
/** Minima per LSH band: two equal minima ⇒ P(band match) = J². */
export const BAND_ROWS = 2
export const BAND_COUNT = MINHASH_SIZE / BAND_ROWS

const GROUP = SKETCH_BINS / MINHASH_SIZE
const BIN_BITS = Math.log2(SKETCH_BINS)
const BIN_SHIFT = 32 - BIN_BITS
const VALUE_MASK = (1 << BIN_SHIFT) - 1
const GROUP_SHIFT = BIN_SHIFT + Math.log2(GROUP)
const GROUP_MASK = (1 << GROUP_SHIFT) - 1
/** An empty bin (values are ≥ 0; negative values mark borrowed ones while densifying). */
const EMPTY = -1

/** 32-bit finaliser (murmur3-style), as an int32: no heap numbers in the hot loop. */
function mix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  h = Math.imul(h, 0x846ca68b)
  h ^= h >>> 16
  return h
}

/** Odd multiplier of the rolling hash, and its power SHINGLE_CHARS − 1 (what the leaving unit was multiplied by). */
const ROLL_BASE = 0x9e3779b1 | 0
const ROLL_TOP = Math.imul(Math.imul(ROLL_BASE, ROLL_BASE), Math.imul(ROLL_BASE, ROLL_BASE))

const BINS = new Int32Array(SKETCH_BINS)

/**
 * Distinct-shingle counter: open addressing over the shingle hashes, in a table sized for this
 * text (the first `seenMask + 1` slots of one shared array, which only grows), cleared by a stamp.
 */
let seenKeys = new Int32Array(1 << 12)
let seenStamp = new Uint32Array(1 << 12)
let seenMask = 0
let stamp = 0
let distinct = 0

function resetSeen(shingles: number): void {
  let size = 64
  while (size < 2 * shingles) size *= 2
  if (size > seenKeys.length) {
    seenKeys = new Int32Array(size)
    seenStamp = new Uint32Array(size)
    stamp = 0
  }
  seenMask = size - 1
  stamp = (stamp + 1) >>> 0
  if (stamp === 0) {
    seenStamp.fill(0)
    stamp = 1
  }
  distinct = 0
}

/** Files one shingle hash into its bin (top bits), keeping the bin's least value, and counts it once. */
function fileShingle(h: number): void {
  const mask = seenMask
  let at = h & mask
  while (seenStamp[at] === stamp) {
    if (seenKeys[at] === h) return
    at = (at + 1) & mask
  }
  seenStamp[at] = stamp
  seenKeys[at] = h
  distinct++
  const bin = h >>> BIN_SHIFT
  const v = h & VALUE_MASK
  const old = BINS[bin]!
  if (old < 0 || v < old) BINS[bin] = v
}
const MINS = new Int32Array(MINHASH_SIZE)
let units = new Uint16Array(4096)

/** Sketch and band terms of a text, or null when it has too few shingles. */
export interface MinHashSketch {
  /** `m:` + 8 hex digits of the number of distinct shingles + one bit per bin in hex (see above). */
  sketch: string
  /** `m<band>_<8 hex>` terms. */
  bands: string[]
}

/** Number of character 5-gram shingles of `text` (white space left out), as `minhashSketch` counts them. */
export function shingleCount(text: string): number {
  const content = contentUnits()
  let n = 0
  for (let i = 0; i < text.length; i++) if (content[text.charCodeAt(i)] !== 0) n++
  return n >= SHINGLE_CHARS ? n - SHINGLE_CHARS + 1 : n > 0 ? 1 : 0
}

let CONTENT: Uint8Array | null = null
/** 1 for each UTF-16 unit that counts in a shingle: all but white space and control or format characters; built on first use. */
function contentUnits(): Uint8Array {
  if (CONTENT !== null) return CONTENT
  const t = new Uint8Array(0x10000)
  const re = /[\s\p{Cc}\p{Cf}]/u
  for (let c = 0; c < 0x10000; c++) t[c] = (c >= 0xd800 && c <= 0xdfff) || !re.test(String.fromCharCode(c)) ? 1 : 0
  CONTENT = t
  return t
}

/**
 * MinHash over the character 5-grams of `text` (normalised text; white space and control
 * characters are skipped and ASCII letters lower-cased here). Null when it has fewer than `minShingles` shingles.
 * @example minhashSketch('北京大学的学生宿舍在校园东边，食堂在西边。')?.bands.length // 8
 */
export function minhashSketch(text: string, minShingles = MIN_MINHASH_SHINGLES): MinHashSketch | null {
  if (units.length < text.length) units = new Uint16Array(Math.max(text.length, units.length * 2))
  const content = contentUnits()
  let n = 0
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i)
    if (content[c] === 0) continue
    if (c >= 0x41 && c <= 0x5a) c += 0x20
    units[n++] = c
  }
  const shingles = n >= SHINGLE_CHARS ? n - SHINGLE_CHARS + 1 : n > 0 ? 1 : 0
  if (shingles < Math.max(1, minShingles)) return null
  BINS.fill(EMPTY)
  resetSeen(shingles)
  if (n < SHINGLE_CHARS) {
    // One shingle: the whole (short) text.
    let h = 0
    for (let j = 0; j < n; j++) h = (Math.imul(h, ROLL_BASE) + units[j]!) | 0
    fileShingle(mix32(h ^ n))
  } else {
    // Polynomial rolling hash of each window of SHINGLE_CHARS units (mod 2^32), then a finaliser;
    // counting and filing inlined (this loop is most of the sketch's cost).
    const u = units
    const bins = BINS
    const keys = seenKeys
    const stamps = seenStamp
    const st = stamp
    const mask = seenMask
    let count = 0
    let h = 0
    for (let j = 0; j < SHINGLE_CHARS - 1; j++) h = (Math.imul(h, ROLL_BASE) + u[j]!) | 0
    for (let i = SHINGLE_CHARS - 1; i < n; i++) {
      if (i >= SHINGLE_CHARS) h = (h - Math.imul(u[i - SHINGLE_CHARS]!, ROLL_TOP)) | 0
      h = (Math.imul(h, ROLL_BASE) + u[i]!) | 0
      const x = mix32(h ^ SHINGLE_CHARS)
      let at = x & mask
      let seen = false
      while (stamps[at] === st) {
        if (keys[at] === x) {
          seen = true
          break
        }
        at = (at + 1) & mask
      }
      if (seen) continue
      stamps[at] = st
      keys[at] = x
      count++
      const bin = x >>> BIN_SHIFT
      const v = x & VALUE_MASK
      const old = bins[bin]!
      if (old < 0 || v < old) bins[bin] = v
    }
    distinct = count
  }
  // The 16-bin sketch: a group's least value (bin index within the group, then value) is in its
  // first filled bin. Taken before densifying the 128 bins, which would invent values.
  MINS.fill(EMPTY)
  for (let g = 0; g < MINHASH_SIZE; g++) {
    for (let j = 0; j < GROUP; j++) {
      const v = BINS[g * GROUP + j]!
      if (v !== EMPTY) {
        MINS[g] = ((j << BIN_SHIFT) | v) & GROUP_MASK
        break
      }
    }
  }
  densify(BINS, VALUE_MASK)
  densify(MINS, GROUP_MASK)
  let sketch = `m:${hex32(distinct)}`
  for (let w = 0; w < SKETCH_BINS / 32; w++) {
    let word = 0
    for (let j = 0; j < 32; j++) word |= (BINS[w * 32 + j]! & 1) << (31 - j)
    sketch += hex32(word)
  }
  const bands: string[] = []
  for (let b = 0; b < BAND_COUNT; b++) {
    let h = 0x811c9dc5 ^ b
    for (let r = 0; r < BAND_ROWS; r++) h = mix32(Math.imul(h, 0x01000193) ^ MINS[b * BAND_ROWS + r]!)
    bands.push(`m${b}_${hex32(h)}`)
  }
  return { sketch, bands }
}

/**
 * Fills each empty slot from the next slot to its right that a shingle fell in (there is one).
 * Borrowed values are kept negative (one's complement) until all slots are filled, so none is
 * lent on.
 */
function densify(mins: Int32Array, mask: number): void {
  const k = mins.length
  for (let j = 0; j < k; j++) {
    if (mins[j] !== EMPTY) continue
    let t = 1
    let at = j + 1 === k ? 0 : j + 1
    while (mins[at]! < 0) {
      t++
      at = at + 1 === k ? 0 : at + 1
    }
    // Mixed with the distance: a borrowed value equals another document's only when both borrow
    // the same value over the same distance.
    mins[j] = ~(mix32(mins[at]! ^ Math.imul(t, 0x9e3779b1)) & mask)
  }
  for (let j = 0; j < k; j++) if (mins[j]! < 0) mins[j] = ~mins[j]!
}

/** Bits set in each hex digit's value. */
const NIBBLE_BITS = new Uint8Array([0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4])

/** Value of the hex digit `s[i]`, or -1 when it is not one (lower case only). */
function hexAt(s: string, i: number): number {
  return hexDigit(s.charCodeAt(i))
}

/** Hex digits before the bits: the distinct-shingle count. */
const COUNT_DIGITS = 8
/** Where the bits start: after `m:` and the count. */
const BITS_START = 2 + COUNT_DIGITS

/** Characters of an `m:` sketch: prefix, count, one bit per bin in hex. */
export const MINHASH_SKETCH_CHARS = BITS_START + SKETCH_BINS / 4

/**
 * The MinHash part of a sketch: an `m:` sketch may carry more hex digits after its bits (a short
 * article's veto facts, figure-veto.ts `withFigures`); every other sketch is itself.
 */
export function minhashPart(sketch: string): string {
  return sketch.length > MINHASH_SKETCH_CHARS && sketch.charCodeAt(0) === 0x6d && sketch.charCodeAt(1) === 0x3a ? sketch.slice(0, MINHASH_SKETCH_CHARS) : sketch
}

/** Whether `s` is an `m:` sketch (prefix, count, then at least one lower-case hex digit of bits). */
function isSketch(s: string): boolean {
  if (s.length <= BITS_START || s.charCodeAt(0) !== 0x6d || s.charCodeAt(1) !== 0x3a) return false
  for (let i = 2; i < s.length; i++) if (hexAt(s, i) < 0) return false
  return true
}

/** The distinct-shingle count an `m:` sketch starts with, or NaN. */
export function sketchShingles(s: string): number {
  return isSketch(s) ? countOf(s) : NaN
}

/** The count digits of a string starting `m:`, read without checking the bits after them; NaN when one is not a hex digit. */
function countOf(s: string): number {
  let n = 0
  for (let i = 2; i < BITS_START; i++) {
    const d = hexAt(s, i)
    if (d < 0) return NaN
    n = n * 16 + d
  }
  return n
}

/**
 * The largest resemblance two texts can have, from their distinct-shingle counts alone:
 * J = |A ∩ B| / |A ∪ B| ≤ min(|A|, |B|) / max(|A|, |B|). A text and one twice its length (a section
 * and its whole page) are at most 0.5 alike whatever their SimHash says. NaN unless both are sketches.
 * @example resemblanceBound(section.sketch, page.sketch) // 0.4
 */
export function resemblanceBound(a: string, b: string): number {
  const x = sketchShingles(a)
  const y = sketchShingles(b)
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN
  return x === y ? 1 : Math.min(x, y) / Math.max(x, y)
}

/**
 * Estimated Jaccard resemblance of two `m:` sketches of one bit per bin: agreeing bits are
 * (1 + J) / 2 of them in expectation, so J ≈ 2·agree/bits − 1 (clamped at 0). NaN when either is
 * not a MinHash sketch or their sizes differ. One pass over both strings (it is called for every
 * MinHash candidate a lookup verifies): the digits are checked as they are compared.
 * @example minhashSimilarity(a.sketch, a.sketch) // 1
 */
export function minhashSimilarity(a: string, b: string): number {
  const n = a.length
  if (n !== b.length || n <= BITS_START || a.charCodeAt(0) !== 0x6d || a.charCodeAt(1) !== 0x3a || b.charCodeAt(0) !== 0x6d || b.charCodeAt(1) !== 0x3a) return NaN
  let bad = 0
  for (let i = 2; i < BITS_START; i++) bad |= hexAt(a, i) | hexAt(b, i)
  let differ = 0
  for (let i = BITS_START; i < n; i++) {
    const x = hexAt(a, i)
    const y = hexAt(b, i)
    bad |= x | y
    differ += NIBBLE_BITS[(x ^ y) & 15]!
  }
  if (bad < 0) return NaN
  const bits = 4 * (n - BITS_START)
  return similarityOf(bits - differ, bits)
}

/** Hex digits of an `m:` sketch's shingle count (before its bits): what a bit comparison skips. */
export const SKETCH_COUNT_DIGITS = COUNT_DIGITS

/**
 * The most bits in which an `m:` sketch of `sketch`'s size may differ from it (count digits left
 * out) while `minhashSimilarity` still reaches `threshold`: one more, and the MinHash rule cannot
 * accept the pair (its margin only adds to the threshold). -1 when no sketch of that size
 * reaches it; NaN when `sketch` is not an `m:` sketch.
 * @example minhashMaxDiffer(a.sketch, 0.6) // 102 of 512 bits
 */
export function minhashMaxDiffer(whole: string, threshold: number): number {
  const sketch = minhashPart(whole)
  if (!isSketch(sketch) || (sketch.length - BITS_START) % 2 !== 0) return NaN
  const bits = 4 * (sketch.length - BITS_START)
  // The same arithmetic as the estimate, bit by bit: no rounding can make the two disagree.
  let differ = 0
  while (differ <= bits && similarityOf(bits - differ, bits) >= threshold) differ++
  return differ - 1
}

function similarityOf(agree: number, bits: number): number {
  return Math.max(0, (2 * agree) / bits - 1)
}

/** Bins filled, in expectation, by a union of 2B shingles: the reference of `sparseSketchMargin`. */
const FULL_SKETCH_BINS = SKETCH_BINS * -Math.expm1(-2)

/**
 * How far above `threshold` a resemblance estimate of two sparse sketches must be, beyond what a
 * full sketch needs: one standard error of the estimate for the pair's shingle counts, less that
 * of a pair whose shingles fill the sketch twice over (a union of 2B shingles, 1,024; 0 above).
 *
 * Model: bin j of the two sketches holds the same minimum with probability J, so the lowest bits
 * agree with p = (1 + J) / 2 and the estimate 2·agree/n − 1 has variance 4p(1 − p)/n over n
 * independent bins. Only bins a shingle of either text fell in are independent (a densified bin
 * copies its lender): for a union of U shingles, n = B(1 − e^(−U/B)) of the B bins in
 * expectation, with U = (|A| + |B|) / (1 + J). Evaluated at J = `threshold`. The model is
 * conservative on short pages: on real page pairs under 200 shingles the measured spread of the
 * estimate is about 0.8 of it, above that about the same (scripts/eval/sketch-spread.ts).
 * @example sparseSketchMargin(a, b, 0.65, 0.6) // ≈ 0.06 for two 64-character pages, 0 for long ones
 */
export function sparseSketchMargin(a: string, b: string, resemblance: number, threshold: number): number {
  // Only the counts matter here: the bits were checked by the estimate this margin goes with.
  const na = a.length > BITS_START && a.startsWith('m:') ? countOf(a) : NaN
  const nb = b.length > BITS_START && b.startsWith('m:') ? countOf(b) : NaN
  if (!(na >= 0 && nb >= 0)) return 0
  const union = (na + nb) / (1 + Math.max(0, Math.min(1, resemblance)))
  const p = (1 + threshold) / 2
  const variance = 4 * p * (1 - p)
  const filled = SKETCH_BINS * -Math.expm1(-union / SKETCH_BINS)
  if (filled <= 0) return 0
  return Math.max(0, Math.sqrt(variance / filled) - Math.sqrt(variance / FULL_SKETCH_BINS))
}
