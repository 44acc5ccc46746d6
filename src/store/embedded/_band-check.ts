import type { BandCheck, CandidateQuery } from '../../types.js'
import { hexDigit } from '../../bits.js'
import { hexHi, hexLo, isHex16, popcount32 } from './_bytes.js'
import { EXPLICIT_BANDS, bandPosition, canonicalBand, type PutView } from './_codec.js'
import { minhashPart } from '../../fingerprint/minhash.js'

/** Bits set in each byte value. */
const BYTE_BITS = new Uint8Array(256).map((_, b) => popcount32(b))

/**
 * A query's `bandCheck`, ready to test rows against (`TableRecords.standIn`): its fingerprint,
 * keys as 32-bit halves, sketch as the bytes it is stored as (a prefix letter, then the digits'
 * bytes), and its band terms by position and value.
 */
export class RowCheck {
  hi = 0
  lo = 0
  maxDistance = 0
  /** Content, URL, title key halves (hi, lo); a NaN pair where the document has none. */
  readonly keys = new Float64Array(6)
  private prefix = 0
  /** The sketch's digits as bytes (`length` of them; the array is reused and grows). */
  private digits = new Uint8Array(80)
  private length = 0
  private skip = 0
  private maxDiffer = 0
  private terms: readonly string[] = []
  /** Position and value of each canonical query term the first time it is listed; -1 otherwise. */
  private positions = new Int32Array(16)
  private values = new Uint32Array(16)

  /** Sets the query to test rows against: one object serves every query of a call in turn. */
  reset(q: CandidateQuery, check: BandCheck): this {
    this.hi = q.fingerprint.hi
    this.lo = q.fingerprint.lo
    this.maxDistance = q.maxDistance
    const keys = [check.contentHash, check.urlHash, check.titleHash]
    this.keys.fill(Number.NaN)
    for (let k = 0; k < 3; k++) {
      const key = keys[k]
      if (!isHex16(key)) continue
      this.keys[2 * k] = hexHi(key)
      this.keys[2 * k + 1] = hexLo(key)
    }
    const sketch = minhashPart(check.sketch)
    this.prefix = sketch.charCodeAt(0)
    this.length = (sketch.length - 2) >>> 1
    if (this.digits.length < this.length) this.digits = new Uint8Array(this.length)
    // Digits validated by the store's checkQuery: lower-case hex, an even number of them.
    for (let i = 0; i < this.length; i++) this.digits[i] = (hexDigit(sketch.charCodeAt(2 + 2 * i)) << 4) | hexDigit(sketch.charCodeAt(3 + 2 * i))
    this.skip = check.skipDigits >>> 1
    this.maxDiffer = check.maxDiffer
    const terms = (this.terms = q.bands ?? [])
    if (this.positions.length < terms.length) {
      this.positions = new Int32Array(terms.length)
      this.values = new Uint32Array(terms.length)
    }
    for (let j = 0; j < terms.length; j++) {
      const term = terms[j]!
      const position = terms.indexOf(term) === j ? bandPosition(term) : -1
      const value = position < 0 ? -1 : canonicalBand(term, position)
      this.positions[j] = value < 0 ? -1 : position
      this.values[j] = value < 0 ? 0 : value
    }
    return this
  }

  /** Whether a fingerprint lies farther than `maxDistance` from the query's. */
  far(hi: number, lo: number): boolean {
    return popcount32((hi ^ this.hi) >>> 0) + popcount32((lo ^ this.lo) >>> 0) > this.maxDistance
  }

  /** Whether key `k` (0 content, 1 URL, 2 title) of the query is (hi, lo). */
  keyIs(k: number, hi: number, lo: number): boolean {
    return this.keys[2 * k] === hi && this.keys[2 * k + 1] === lo
  }

  /**
   * Whether the stored hex sketch `buf[start, start + len)` (prefix byte, then the digits' bytes)
   * has the query's prefix, at least its length (more digits after: `minhashPart`) and differs from its sketch in more than `maxDiffer` bits
   * past the skipped ones.
   */
  sketchFar(buf: Uint8Array, start: number, len: number): boolean {
    const digits = this.digits
    const n = this.length
    // A stored `m:` sketch may carry a short article's veto facts after its bits (figure-veto.ts).
    if (len - 1 < n || buf[start] !== this.prefix) return false
    let differ = 0
    const from = start + 1
    for (let i = this.skip; i < n; i++) differ += BYTE_BITS[(buf[from + i]! ^ digits[i]!) & 255]!
    return differ > this.maxDiffer
  }

  /**
   * The query's terms (its own strings, each once) that a PUT entry's canonical bands hold, or
   * null when its bands are not canonical (kept as strings: rare) or absent.
   */
  sharedBands(buf: Uint8Array, v: PutView): string[] | null {
    const count = v.bandCount
    if (count === 0 || count === EXPLICIT_BANDS) return null
    const out: string[] = []
    for (let j = 0; j < this.terms.length; j++) {
      const position = this.positions[j]!
      if (position < 0 || position >= count) continue
      const p = v.bandStart + 4 * position
      if (((buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) >>> 0) === this.values[j]) out.push(this.terms[j]!)
    }
    return out
  }

  /** The query's terms (each once) among `own` (a row's terms as strings), or null when it has none. */
  sharedTerms(own: readonly string[] | undefined): string[] | null {
    if (own === undefined) return null
    const out: string[] = []
    for (let j = 0; j < this.terms.length; j++) {
      const term = this.terms[j]!
      if (this.terms.indexOf(term) === j && own.includes(term)) out.push(term)
    }
    return out
  }
}
