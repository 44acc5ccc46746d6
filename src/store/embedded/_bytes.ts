import { hex32At } from '../../bits.js'
/**
 * Byte-level helpers shared by the arena, the log codec and the indexes: LEB128 varints,
 * FNV-1a over UTF-8 bytes, 16-hex ↔ two uint32, popcount. Kept here (not imported from
 * `fingerprint/`) because `store/*` depends only on `types.ts` and `errors.ts`.
 */

/** Bytes a varint of `value` (a non-negative integer below 2^31) takes. */
export function varintSize(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : value < 0x10000000 ? 4 : 5
}

/** Writes `value` as an unsigned LEB128 varint at `pos`; returns the position after it. */
export function writeVarint(buf: Uint8Array, pos: number, value: number): number {
  while (value >= 0x80) {
    buf[pos++] = (value & 0x7f) | 0x80
    value >>>= 7
  }
  buf[pos++] = value
  return pos
}

/** Scratch out-parameter of `readVarint`: [value, position after]. Avoids an object per call. */
export const VARINT_OUT: [number, number] = [0, 0]

/**
 * Reads an unsigned LEB128 varint at `pos` (at most 5 bytes, before `end`) into `VARINT_OUT`.
 * Returns false when it is truncated or too long, so callers can report corruption.
 */
export function readVarint(buf: Uint8Array, pos: number, end: number): boolean {
  let value = 0
  let shift = 0
  while (pos < end && shift < 35) {
    const b = buf[pos++]!
    value += (b & 0x7f) * 2 ** shift
    if (b < 0x80) {
      VARINT_OUT[0] = value
      VARINT_OUT[1] = pos
      return value <= 0x7fffffff
    }
    shift += 7
  }
  return false
}

/** 32-bit FNV-1a of `len` bytes at `start`, finished with a multiply so low and high bits mix. */
export function hashBytes(buf: Uint8Array, start: number, len: number): number {
  let h = 0x811c9dc5
  const end = start + len
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193)
  h ^= h >>> 15
  return Math.imul(h, 0x85ebca6b) >>> 0
}

/** True when `len` bytes at `a[aStart]` equal those at `b[bStart]`. */
export function bytesEqual(a: Uint8Array, aStart: number, b: Uint8Array, bStart: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (a[aStart + i] !== b[bStart + i]) return false
  return true
}

/** Bucket of a 32-bit hash in a table of 2^bits buckets (bits 1–31). */
export function bucketOf32(hash: number, bits: number): number {
  return Math.imul(hash, 0x9e3779b1) >>> (32 - bits)
}

export { isHex16, popcount32, hex32 as toHex8, hex64 as toHex16 } from '../../bits.js'

/** High 32 bits of a 16-hex string (call `isHex16` first). */
export function hexHi(hex: string): number {
  return hex32At(hex, 0)
}

/** Low 32 bits of a 16-hex string (call `isHex16` first). */
export function hexLo(hex: string): number {
  return hex32At(hex, 8)
}

/**
 * A 64-bit fingerprint folded to 16 bits (the XOR of its four 16-bit quarters). Folding is linear
 * and each bit of the fold is the parity of four bits, so `popcount(fold(a) ^ fold(b))` never
 * exceeds the Hamming distance of a and b: a fold farther than k rules a pair out without its
 * fingerprints (the block route's filter; an unrelated pair passes for k = 3 about 1 % of the time).
 */
export function fold16(hi: number, lo: number): number {
  const x = hi ^ lo
  return (x ^ (x >>> 16)) & 0xffff
}
