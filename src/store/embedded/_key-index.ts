import { CHUNK_BITS, type BitColumn } from './_columns.js'

/** Fewest bucket bits: the bucket must pin down the top 16 bits of the mixed key. */
const MIN_BITS = 16
const MAX_BITS = 30
/** Most bucket bits of a tag-only index: it knows 24 bits of each mixed key (16 at the chain's end, 8 in the tag). */
const MAX_TAGGED_BITS = 24
const CHUNK_ROWS = 1 << CHUNK_BITS
const CHUNK_MASK = CHUNK_ROWS - 1
/** Stored link word meaning "see the overflow Map". */
const FAR = 0xffffff

/** Keys of the three Feistel rounds of the 64-bit mix (arbitrary odd constants). */
const ROUND_KEYS_64 = [0x3c6ef372, 0xa54ff53a, 0x510e527f] as const
/** Keys of the four Feistel rounds of the 32-bit mix. */
const ROUND_KEYS_32 = [0x9b05688c, 0x1f83d9ab, 0x5be0cd19, 0x6a09e667] as const

/** Round function: a 32-bit avalanche of `x` under round key `k`. */
function round(x: number, k: number): number {
  let h = Math.imul(x ^ k, 0x9e3779b1)
  h ^= h >>> 15
  h = Math.imul(h, 0x85ebca6b)
  return (h ^ (h >>> 13)) >>> 0
}

/** Scratch out-parameter of the mixes and of `KeyIndex.keyOf`: [hi, lo]. */
export const KEY_OUT: [number, number] = [0, 0]

/**
 * A bijective mix of a 64-bit key (hi, lo) into KEY_OUT: a 3-round Feistel network over the two
 * halves. Bijective, so the key can be rebuilt from the mixed bits; mixing, so keys that are not
 * already uniform (small test values) still spread over the buckets.
 */
function mix64(hi: number, lo: number): void {
  let l = hi >>> 0
  let r = lo >>> 0
  for (const k of ROUND_KEYS_64) {
    const t = (l ^ round(r, k)) >>> 0
    l = r
    r = t
  }
  KEY_OUT[0] = l
  KEY_OUT[1] = r
}

function unmix64(hi: number, lo: number): void {
  let l = hi >>> 0
  let r = lo >>> 0
  for (let i = ROUND_KEYS_64.length - 1; i >= 0; i--) {
    const t = (r ^ round(l, ROUND_KEYS_64[i]!)) >>> 0
    r = l
    l = t
  }
  KEY_OUT[0] = l
  KEY_OUT[1] = r
}

/** A bijective mix of a 32-bit key: a 4-round Feistel network over its 16-bit halves (exported for tests). */
export function mix32(v: number): number {
  let l = v >>> 16
  let r = v & 0xffff
  for (const k of ROUND_KEYS_32) {
    const t = l ^ (round(r, k) >>> 16)
    l = r
    r = t
  }
  return ((l << 16) | r) >>> 0
}

/** The inverse of `mix32`. */
export function unmix32(v: number): number {
  let l = v >>> 16
  let r = v & 0xffff
  for (let i = ROUND_KEYS_32.length - 1; i >= 0; i--) {
    const t = r ^ (round(l, ROUND_KEYS_32[i]!) >>> 16)
    r = l
    l = t
  }
  return ((l << 16) | r) >>> 0
}

/**
 * A hash index of rows by a 32- or 64-bit key that also holds the keys, in fewer bytes than the
 * key itself: a quotient table with chained buckets.
 *
 * The key is mixed by a bijection and the bucket is the top `bits` (≥ 16) bits of the result, so
 * every row of a bucket shares the mixed key's top 16 bits. Each row therefore stores only the
 * rest (16 bits of a 32-bit key, 48 of a 64-bit one) next to its 3-byte chain link, in one slot
 * (one cache line to read per row walked); the 16 shared bits are kept once per chain, in its
 * oldest row's link. A 64-bit key costs 9 bytes + 4 / load of heads (11.7 as two uint32 columns
 * beside a chain index), a 32-bit one 5 + 4 / load (7.5).
 *
 * A lookup compares remainders within one bucket, which is exact. Rebuilding a row's key walks
 * its chain to the end (a few rows; `chainEnds` walks several chains at once so the reads
 * overlap). Chains run newest to oldest; dead rows stay linked until `grow` (or the owner's
 * rebuild) drops them, and walkers skip them.
 *
 * The link word w is read against its row: 1 ≤ w ≤ row is the distance back to the next (older)
 * row; w > row ends the chain with top bits w − row − 1 (rows below 2^24 − 2^16 − 1 always fit);
 * FAR sends the rare word that does not fit to an overflow Map.
 */
export class KeyIndex {
  heads: Int32Array
  bits = MIN_BITS
  /** Rows linked since the last reset (dead ones included). */
  linked = 0
  /**
   * Bytes per row: link (3), bits 15..0 of the mixed key's high word (2), its low word (4, 64-bit
   * keys); tag-only: link (3) and bits 15..8 (1).
   */
  private readonly stride: number
  private readonly maxBits: number
  private readonly chunks: (Uint8Array | undefined)[] = []
  private readonly far = new Map<number, number>()
  private qRem16 = 0
  private qRem32 = 0

  /**
   * `wide`: 64-bit keys (else 32-bit). `maxLoad`: average rows per bucket before the heads double.
   * `tagOnly` (32-bit keys): keep 8 bits of remainder, not 16, for owners that can read each
   * row's key elsewhere: a match then means the top 24 bits of the mixed key are equal (about
   * rows / 2^24 false matches a lookup, for the owner to reject), and `keyOf`/`keyAt` are unavailable.
   */
  constructor(readonly wide: boolean, private readonly maxLoad: number, readonly tagOnly = false) {
    this.stride = wide ? 9 : tagOnly ? 4 : 5
    this.maxBits = tagOnly ? MAX_TAGGED_BITS : MAX_BITS
    this.heads = new Int32Array(1 << MIN_BITS).fill(-1)
  }

  /** Sizes an empty index for about `rows` rows, so filling it (replay, rebuild) never grows it. */
  reserve(rows: number): void {
    if (this.linked > 0) return
    let bits = MIN_BITS
    while (bits < this.maxBits && rows > this.maxLoad * (1 << bits)) bits++
    if (bits !== this.bits) {
      this.bits = bits
      this.heads = new Int32Array(1 << bits).fill(-1)
    }
  }

  /** Links `row` (newer than every linked row) under key (hi, lo); `hi` is ignored for 32-bit keys. */
  link(row: number, hi: number, lo: number, alive: BitColumn): void {
    const m = this.mixed(hi, lo)
    const bucket = m >>> (32 - this.bits)
    const k = row >>> CHUNK_BITS
    let chunk = this.chunks[k]
    if (chunk === undefined) this.chunks[k] = chunk = new Uint8Array(CHUNK_ROWS * this.stride)
    const i = (row & CHUNK_MASK) * this.stride
    if (this.tagOnly) {
      chunk[i + 3] = m >>> 8
    } else {
      chunk[i + 3] = m
      chunk[i + 4] = m >>> 8
    }
    if (this.wide) {
      const r = KEY_OUT[1]
      chunk[i + 5] = r
      chunk[i + 6] = r >>> 8
      chunk[i + 7] = r >>> 16
      chunk[i + 8] = r >>> 24
    }
    this.setLink(row, this.heads[bucket]!, m >>> 16)
    this.heads[bucket] = row
    if (++this.linked > this.maxLoad * this.heads.length && this.bits < this.maxBits) this.grow(alive)
  }

  /**
   * Starts a lookup of key (hi, lo): returns the newest row of its bucket (or a negative number);
   * walk on with `next` while ≥ 0 and keep the rows for which `matches` holds.
   */
  seek(hi: number, lo: number): number {
    const m = this.mixed(hi, lo)
    this.qRem16 = this.tagOnly ? (m >>> 8) & 0xff : m & 0xffff
    this.qRem32 = KEY_OUT[1]
    return this.heads[m >>> (32 - this.bits)]!
  }

  /** Whether `row` (met while walking the sought bucket) has the key passed to `seek`. */
  matches(row: number): boolean {
    const chunk = this.chunks[row >>> CHUNK_BITS]!
    const i = (row & CHUNK_MASK) * this.stride
    if (this.tagOnly) return chunk[i + 3] === this.qRem16
    if ((chunk[i + 3]! | (chunk[i + 4]! << 8)) !== this.qRem16) return false
    return !this.wide || ((chunk[i + 5]! | (chunk[i + 6]! << 8) | (chunk[i + 7]! << 16) | (chunk[i + 8]! << 24)) >>> 0) === this.qRem32
  }

  /** The row after `row` in its bucket, or −1 − (the chain's top 16 bits) at its end. */
  next(row: number): number {
    const chunk = this.chunks[row >>> CHUNK_BITS]
    if (chunk === undefined) return -1
    const i = (row & CHUNK_MASK) * this.stride
    const w = chunk[i]! | (chunk[i + 1]! << 8) | (chunk[i + 2]! << 16)
    return w === FAR ? this.far.get(row)! : row - w
  }

  /** The key of linked `row` into KEY_OUT ([hi, lo]; a 32-bit key in lo, hi = 0). */
  keyOf(row: number): void {
    let end = this.next(row)
    while (end >= 0) end = this.next(end)
    this.keyAt(row, end)
  }

  /**
   * The key of linked `row` into KEY_OUT, given `end`: what `next` returned at the end of its
   * chain (see `chainEnds`).
   */
  keyAt(row: number, end: number): void {
    if (this.tagOnly) throw new Error('a tag-only KeyIndex cannot rebuild keys')
    const chunk = this.chunks[row >>> CHUNK_BITS]!
    const i = (row & CHUNK_MASK) * this.stride
    const high = (((-1 - end) << 16) | chunk[i + 3]! | (chunk[i + 4]! << 8)) >>> 0
    if (this.wide) {
      unmix64(high, (chunk[i + 5]! | (chunk[i + 6]! << 8) | (chunk[i + 7]! << 16) | (chunk[i + 8]! << 24)) >>> 0)
      return
    }
    KEY_OUT[0] = 0
    KEY_OUT[1] = unmix32(high)
  }

  /** Bytes held (heads and row slots; the overflow Map's few entries are not counted). */
  byteLength(): number {
    let total = this.heads.byteLength
    for (const c of this.chunks) if (c !== undefined) total += c.byteLength
    return total
  }

  /** The mixed key's high word (returned) and low word (KEY_OUT[1], 64-bit keys). */
  private mixed(hi: number, lo: number): number {
    if (this.wide) {
      mix64(hi, lo)
      return KEY_OUT[0]
    }
    return mix32(lo)
  }

  /** Links `row` to `next` (an older row), or ends its chain with `top` when `next` < 0. */
  private setLink(row: number, next: number, top: number): void {
    let w = next < 0 ? row + 1 + top : row - next
    if (w >= FAR) {
      this.far.set(row, next < 0 ? -1 - top : next)
      w = FAR
    } else if (this.far.size > 0) {
      this.far.delete(row)
    }
    const chunk = this.chunks[row >>> CHUNK_BITS]!
    const i = (row & CHUNK_MASK) * this.stride
    chunk[i] = w
    chunk[i + 1] = w >>> 8
    chunk[i + 2] = w >>> 16
  }


  /**
   * The top 16 bits of every linked row's mixed key, by row (as `-1 - tops[row]`, they are the
   * `end` that `keyAt` takes), in one sequential pass: a row's are its chain end's, or those of
   * the older row it links to, found earlier in the pass. Whole-table passes (scan, compaction)
   * use this instead of walking each row's chains. Values of unlinked rows are meaningless.
   */
  tops(): Uint16Array {
    const stride = this.stride
    const end = this.chunks.length * CHUNK_ROWS
    const tops = new Uint16Array(end)
    for (let row = 0; row < end; row++) {
      const chunk = this.chunks[row >>> CHUNK_BITS]
      if (chunk === undefined) {
        row |= CHUNK_MASK
        continue
      }
      const i = (row & CHUNK_MASK) * stride
      const w = chunk[i]! | (chunk[i + 1]! << 8) | (chunk[i + 2]! << 16)
      if (w === 0) continue
      const next = w === FAR ? this.far.get(row)! : row - w
      tops[row] = next < 0 ? -1 - next : tops[next]!
    }
    return tops
  }

  /**
   * Doubles the buckets, dropping dead rows, in two sequential passes over the rows (walking the
   * chains instead would cost a cache miss per row): `tops`, then every live row is relinked,
   * oldest first, into the bucket its top bits and remainder give.
   * A row's link word is 0 exactly when it is not linked (never, or dropped here).
   */
  private grow(alive: BitColumn): void {
    const stride = this.stride
    const tops = this.tops()
    const end = tops.length
    this.bits++
    const shift = 32 - this.bits
    const heads = new Int32Array(1 << this.bits).fill(-1)
    let linked = 0
    for (let row = 0; row < end; row++) {
      const chunk = this.chunks[row >>> CHUNK_BITS]
      if (chunk === undefined) {
        row |= CHUNK_MASK
        continue
      }
      const i = (row & CHUNK_MASK) * stride
      if ((chunk[i]! | chunk[i + 1]! | chunk[i + 2]!) === 0) continue
      if (!alive.has(row)) {
        chunk[i] = chunk[i + 1] = chunk[i + 2] = 0
        this.far.delete(row)
        continue
      }
      const top = tops[row]!
      const low = this.tagOnly ? chunk[i + 3]! << 8 : chunk[i + 3]! | (chunk[i + 4]! << 8)
      const bucket = (((top << 16) | low) >>> 0) >>> shift
      this.setLink(row, heads[bucket]!, top)
      heads[bucket] = row
      linked++
    }
    this.heads = heads
    this.linked = linked
  }
}

/**
 * For linked `row` in each of `indexes[0, count)`, what `next` returns at the end of its chain,
 * into `ends` (for `keyAt`). Walks the chains in lockstep: the walks are independent, so their
 * cache misses overlap instead of queueing one after another.
 */
export function chainEnds(indexes: readonly KeyIndex[], count: number, row: number, ends: Int32Array): void {
  for (let k = 0; k < count; k++) ends[k] = indexes[k]!.next(row)
  let walking = true
  while (walking) {
    walking = false
    for (let k = 0; k < count; k++) {
      const at = ends[k]!
      if (at < 0) continue
      const next = indexes[k]!.next(at)
      ends[k] = next
      if (next >= 0) walking = true
    }
  }
}
