import { U16Column, U32Column, type BitColumn } from './_columns.js'
import { TailLinkColumn } from './_links.js'

/** Fewest bucket bits: the bucket must pin down the top 16 bits of the mixed key. */
const MIN_BITS = 16
const MAX_BITS = 30

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

/** A bijective mix of a 32-bit key: a 4-round Feistel network over its 16-bit halves. */
function mix32(v: number): number {
  let l = v >>> 16
  let r = v & 0xffff
  for (const k of ROUND_KEYS_32) {
    const t = l ^ (round(r, k) >>> 16)
    l = r
    r = t
  }
  return ((l << 16) | r) >>> 0
}

function unmix32(v: number): number {
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
 * rest (16 bits of a 32-bit key, 48 of a 64-bit one), and the 16 shared bits once per chain, in
 * its oldest row's link (`TailLinkColumn`). A lookup compares remainders within one bucket,
 * which is exact; rebuilding a row's key walks its chain to the end (a few rows). A 64-bit key
 * costs 6 bytes of remainder + 3 of link + 4 / load of heads (11.7 as two uint32 columns beside
 * a chain index), a 32-bit one 5 + 4 / load (7.5).
 *
 * Chains run newest to oldest; dead rows stay linked until `grow` (or the owner's rebuild) drops
 * them, and walkers skip them.
 */
export class KeyIndex {
  heads: Int32Array
  bits = MIN_BITS
  /** Rows linked since the last reset (dead ones included). */
  linked = 0
  private readonly links = new TailLinkColumn()
  /** Bits 15..0 of the mixed key's high word. */
  private readonly rem16 = new U16Column()
  /** The mixed key's low word (64-bit keys only). */
  private readonly rem32: U32Column | undefined
  private qRem16 = 0
  private qRem32 = 0

  /** `wide`: 64-bit keys (else 32-bit). `maxLoad`: average rows per bucket before the heads double. */
  constructor(readonly wide: boolean, private readonly maxLoad: number) {
    this.rem32 = wide ? new U32Column() : undefined
    this.heads = new Int32Array(1 << MIN_BITS).fill(-1)
  }

  /** Sizes an empty index for about `rows` rows, so filling it (replay, rebuild) never grows it. */
  reserve(rows: number): void {
    if (this.linked > 0) return
    let bits = MIN_BITS
    while (bits < MAX_BITS && rows > this.maxLoad * (1 << bits)) bits++
    if (bits !== this.bits) {
      this.bits = bits
      this.heads = new Int32Array(1 << bits).fill(-1)
    }
  }

  /** Links `row` (newer than every linked row) under key (hi, lo); `hi` is ignored for 32-bit keys. */
  link(row: number, hi: number, lo: number, alive: BitColumn): void {
    const m = this.mixed(hi, lo)
    const bucket = m >>> (32 - this.bits)
    this.rem16.set(row, m & 0xffff)
    if (this.rem32 !== undefined) this.rem32.set(row, KEY_OUT[1])
    this.links.set(row, this.heads[bucket]!, m >>> 16)
    this.heads[bucket] = row
    if (++this.linked > this.maxLoad * this.heads.length && this.bits < MAX_BITS) this.grow(alive)
  }

  /**
   * Starts a lookup of key (hi, lo): returns the newest row of its bucket (or a negative number);
   * walk on with `next` while ≥ 0 and keep the rows for which `matches` holds.
   */
  seek(hi: number, lo: number): number {
    const m = this.mixed(hi, lo)
    this.qRem16 = m & 0xffff
    this.qRem32 = KEY_OUT[1]
    return this.heads[m >>> (32 - this.bits)]!
  }

  /** Whether `row` (met while walking the sought bucket) has the key passed to `seek`. */
  matches(row: number): boolean {
    return this.rem16.get(row) === this.qRem16 && (this.rem32 === undefined || this.rem32.get(row) === this.qRem32)
  }

  /** The row after `row` in its bucket, or a negative number at the end. */
  next(row: number): number {
    return this.links.get(row)
  }

  /**
   * The key of linked `row`, into KEY_OUT ([hi, lo]; a 32-bit key in lo, hi = 0). Walks to the
   * end of the row's chain for the top 16 bits.
   */
  keyOf(row: number): void {
    let next = this.links.get(row)
    while (next >= 0) next = this.links.get(next)
    const top = -1 - next
    const high = ((top << 16) | this.rem16.get(row)) >>> 0
    if (this.rem32 !== undefined) {
      unmix64(high, this.rem32.get(row))
      return
    }
    KEY_OUT[0] = 0
    KEY_OUT[1] = unmix32(high)
  }

  /** Bytes held (heads, links, remainders). */
  byteLength(): number {
    return this.heads.byteLength + this.links.byteLength() + this.rem16.byteLength() + (this.rem32?.byteLength() ?? 0)
  }

  /** The mixed key's high word (returned) and low word (KEY_OUT[1], 64-bit keys). */
  private mixed(hi: number, lo: number): number {
    if (this.rem32 !== undefined) {
      mix64(hi, lo)
      return KEY_OUT[0]
    }
    return mix32(lo)
  }

  /**
   * Doubles the buckets, dropping dead rows. Bucket b splits into 2b and 2b + 1 by the next bit of
   * the mixed key, which the remainder holds (bits ≥ 16), and each half keeps its newest-first
   * order; the chain ends keep their top 16 bits. No key is rebuilt.
   */
  private grow(alive: BitColumn): void {
    const old = this.heads
    const shift = 31 - this.bits
    this.bits++
    const heads = new Int32Array(1 << this.bits).fill(-1)
    const chain: number[] = []
    let linked = 0
    for (let b = 0; b < old.length; b++) {
      chain.length = 0
      for (let row = old[b]!; row >= 0; row = this.links.get(row)) chain.push(row)
      const top = (b >>> (this.bits - 1 - MIN_BITS)) & 0xffff
      let prev0 = -1
      let prev1 = -1
      for (let i = chain.length - 1; i >= 0; i--) {
        const row = chain[i]!
        if (!alive.has(row)) continue
        if (((this.rem16.get(row) >>> shift) & 1) === 0) {
          this.links.set(row, prev0, top)
          prev0 = row
        } else {
          this.links.set(row, prev1, top)
          prev1 = row
        }
        linked++
      }
      heads[2 * b] = prev0
      heads[2 * b + 1] = prev1
    }
    this.heads = heads
    this.linked = linked
  }
}
