import type { BandCheck, CandidateQuery } from '../../types.js'
import { hexHi, hexLo, isHex16, popcount32 } from './_bytes.js'
import { EXPLICIT_BANDS, bandPosition, canonicalBand, type PutView } from './_codec.js'

/** Bits set in each byte value. */
const BYTE_BITS = new Uint8Array(256).map((_, b) => popcount32(b))

/**
 * A query's `bandCheck`, ready to test rows against (`TableRecords.standIn`): its fingerprint,
 * keys as 32-bit halves, sketch as the bytes it is stored as (a prefix letter, then the digits'
 * bytes), and its band terms by position and value.
 */
export class RowCheck {
  readonly hi: number
  readonly lo: number
  readonly maxDistance: number
  /** Content, URL, title key halves (hi, lo); a NaN pair where the document has none. */
  readonly keys = new Float64Array(6).fill(Number.NaN)
  private readonly prefix: number
  private readonly digits: Buffer
  private readonly skip: number
  private readonly maxDiffer: number
  private readonly terms: readonly string[]
  /** Position and value of each canonical query term the first time it is listed; -1 otherwise. */
  private readonly positions: Int32Array
  private readonly values: Uint32Array

  constructor(q: CandidateQuery, check: BandCheck) {
    this.hi = q.fingerprint.hi
    this.lo = q.fingerprint.lo
    this.maxDistance = q.maxDistance
    const keys = [check.contentHash, check.urlHash, check.titleHash]
    for (let k = 0; k < 3; k++) {
      const key = keys[k]
      if (!isHex16(key)) continue
      this.keys[2 * k] = hexHi(key)
      this.keys[2 * k + 1] = hexLo(key)
    }
    this.prefix = check.sketch.charCodeAt(0)
    this.digits = Buffer.from(check.sketch.slice(2), 'hex')
    this.skip = check.skipDigits >>> 1
    this.maxDiffer = check.maxDiffer
    const terms = (this.terms = q.bands ?? [])
    this.positions = new Int32Array(terms.length).fill(-1)
    this.values = new Uint32Array(terms.length)
    for (let j = 0; j < terms.length; j++) {
      const term = terms[j]!
      const position = terms.indexOf(term) === j ? bandPosition(term) : -1
      const value = position < 0 ? -1 : canonicalBand(term, position)
      if (value < 0) continue
      this.positions[j] = position
      this.values[j] = value
    }
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
   * has the query's prefix and length and differs from its sketch in more than `maxDiffer` bits
   * past the skipped ones.
   */
  sketchFar(buf: Uint8Array, start: number, len: number): boolean {
    const digits = this.digits
    if (len - 1 !== digits.length || buf[start] !== this.prefix) return false
    let differ = 0
    const from = start + 1
    for (let i = this.skip; i < digits.length; i++) differ += BYTE_BITS[(buf[from + i]! ^ digits[i]!) & 255]!
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
