import { hex8, hex32 } from '../bits.js'

/**
 * The 64-bit token hash behind every SimHash bit: FNV-1a 64 over the token's UTF-8 bytes,
 * computed in two 32-bit halves (no BigInt), followed by a murmur3-style finaliser on each half
 * so that short tokens (one Han character is three bytes) still spread over all 64 bits.
 * Changing anything here changes every fingerprint: bump FINGERPRINT_VERSION.
 *
 * Results are written to `HASH_OUT` ([hi, lo]) instead of allocating an object per token.
 */
export const HASH_OUT = new Uint32Array(2)

// FNV-1a 64 offset basis 0xcbf29ce484222325, prime 0x100000001b3 = 2^40 + 0x1b3.
const OFFSET_HI = 0xcbf29ce4
const OFFSET_LO = 0x84222325

/** The 32-bit murmur3 finaliser, unsigned. @example fmix32(1) */
export function fmix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/**
 * Hashes `token` into HASH_OUT[0] (high 32 bits) and HASH_OUT[1] (low 32 bits).
 * @example hashToken('北京'); const [hi, lo] = HASH_OUT
 */
export function hashToken(token: string): void {
  let hi = OFFSET_HI
  let lo = OFFSET_LO
  const n = token.length
  for (let i = 0; i < n; i++) {
    let c = token.charCodeAt(i)
    // Encode as UTF-8 on the fly (lone surrogates become U+FFFD, as TextEncoder does) into up to
    // four bytes packed in `bytes`, then run the FNV-1a rounds inline: no allocation per byte.
    let bytes: number
    let count: number
    if (c < 0x80) {
      bytes = c
      count = 1
    } else if (c < 0x800) {
      bytes = ((0xc0 | (c >>> 6)) << 8) | (0x80 | (c & 0x3f))
      count = 2
    } else {
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = i + 1 < n ? token.charCodeAt(i + 1) : 0
        if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
          const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
          i++
          bytes =
            ((0xf0 | (cp >>> 18)) << 24) |
            ((0x80 | ((cp >>> 12) & 0x3f)) << 16) |
            ((0x80 | ((cp >>> 6) & 0x3f)) << 8) |
            (0x80 | (cp & 0x3f))
          count = 4
        } else {
          c = 0xfffd
          bytes = ((0xe0 | (c >>> 12)) << 16) | ((0x80 | ((c >>> 6) & 0x3f)) << 8) | (0x80 | (c & 0x3f))
          count = 3
        }
      } else {
        bytes = ((0xe0 | (c >>> 12)) << 16) | ((0x80 | ((c >>> 6) & 0x3f)) << 8) | (0x80 | (c & 0x3f))
        count = 3
      }
    }
    for (let k = count - 1; k >= 0; k--) {
      lo = (lo ^ ((bytes >>> (8 * k)) & 0xff)) >>> 0
      // (hi:lo) * (2^40 + 0x1b3) mod 2^64; lo * 0x1b3 < 2^41 is exact in a double.
      const p = lo * 0x1b3
      hi = (hi * 0x1b3 + Math.floor(p / 0x100000000) + ((lo << 8) >>> 0)) >>> 0
      lo = p >>> 0
    }
  }
  const mixedLo = fmix32((lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0)
  HASH_OUT[0] = fmix32((hi ^ mixedLo) >>> 0)
  HASH_OUT[1] = mixedLo
}

/**
 * Plain FNV-1a 64 of a string's UTF-8 bytes, as 16 hex digits, without the finaliser: used for
 * content / URL / title keys (exact-match layers), where only equality matters.
 * @example hash64Hex('abc') // 'e71fa2190541574b'
 */
export function hash64Hex(text: string): string {
  let hi = OFFSET_HI
  let lo = OFFSET_LO
  const bytes = Buffer.from(text, 'utf8')
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ bytes[i]!) >>> 0
    const p = lo * 0x1b3
    hi = (hi * 0x1b3 + Math.floor(p / 0x100000000) + ((lo << 8) >>> 0)) >>> 0
    lo = p >>> 0
  }
  return hex32(hi) + hex32(lo)
}

export { hex8, hex32 }

/** fmix32 with a signed result: the same bits, but always an int32 (a Smi on 64-bit V8). */
function fmixInt32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r))
}

/** JavaScript's `\s`: the whitespace a regex `\s+` would fold. */
function isSpace(c: number): boolean {
  if (c > 0x20 && c < 0xa0) return false // the common case: printable ASCII
  return (
    c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  )
}

/**
 * The exact-content key of a normalised text: a 64-bit hash (16 hex digits) of its UTF-16 code
 * units with every whitespace run folded to one space (line layout is not content). Two 32-bit
 * murmur3-style lanes over pairs of code units, cross-mixed at the end: one pass, no UTF-8
 * encoding, no regex, far cheaper than byte-wise FNV on long texts. Only equality matters here.
 * @example contentKey('a  b\nc') === contentKey('a b c') // true
 */
export function contentKey(text: string): string {
  let h1 = 0x9747b28c
  let h2 = 0x2545f491
  let carry = -1
  let inSpace = false
  let units = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i)
    if (isSpace(c)) {
      if (inSpace) continue
      inSpace = true
      c = 0x20
    } else inSpace = false
    units++
    if (carry < 0) {
      carry = c
      continue
    }
    const k = carry | (c << 16)
    carry = -1
    h1 ^= Math.imul(rotl(Math.imul(k, 0xcc9e2d51), 15), 0x1b873593)
    h1 = (Math.imul(rotl(h1, 13), 5) + 0xe6546b64) | 0
    h2 ^= Math.imul(rotl(Math.imul(k, 0x85ebca6b), 17), 0xc2b2ae35)
    h2 = (Math.imul(rotl(h2, 11), 5) + 0x561ccd1b) | 0
  }
  if (carry >= 0) {
    h1 ^= Math.imul(rotl(Math.imul(carry, 0xcc9e2d51), 15), 0x1b873593)
    h2 ^= Math.imul(rotl(Math.imul(carry, 0x85ebca6b), 17), 0xc2b2ae35)
  }
  // Finalised in int32 only: uint32 values (fmix32's `>>> 0`) are not Smis and sent the optimised
  // loop into a deopt cycle.
  const a = ((h1 ^ units) + (h2 ^ units)) | 0
  const f1 = fmixInt32(a)
  const f2 = fmixInt32(((h2 ^ units) + a) | 0)
  const x = (f1 + f2) | 0
  return hex32(x) + hex32((f2 + x) | 0)
}

// Run the code after each hot loop once at load. Otherwise the first call of a long text (the IDF
// table is hashed whole) gets its loop compiled on the spot (OSR) before that code has run: V8
// keeps reusing that compiled loop on every later call and deoptimises at its end each time
// (seen with --trace-deopt).
hash64Hex('')
contentKey('')
