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

/** Bucket of a 64-bit key (two uint32 halves) in a table of 2^bits buckets (bits 1–31). */
export function bucketOf64(hi: number, lo: number, bits: number): number {
  let h = Math.imul(lo, 0x9e3779b1) ^ hi
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h ^= h >>> 13
  return h >>> (32 - bits)
}

/** Bucket of a 32-bit hash in a table of 2^bits buckets (bits 1–31). */
export function bucketOf32(hash: number, bits: number): number {
  return Math.imul(hash, 0x9e3779b1) >>> (32 - bits)
}

/** True for exactly 16 lower-case hex digits, the only hash form the store accepts. */
export function isHex16(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 16) return false
  for (let i = 0; i < 16; i++) {
    const c = value.charCodeAt(i)
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false
  }
  return true
}

/** 8 hex digits of `hex` from `at` as an unsigned integer (no slicing, no parseInt). */
function hex8At(hex: string, at: number): number {
  let v = 0
  for (let i = at; i < at + 8; i++) {
    const c = hex.charCodeAt(i)
    v = v * 16 + (c <= 57 ? c - 48 : c - 87)
  }
  return v
}

/** High 32 bits of a 16-hex string (call `isHex16` first). */
export function hexHi(hex: string): number {
  return hex8At(hex, 0)
}

/** Low 32 bits of a 16-hex string (call `isHex16` first). */
export function hexLo(hex: string): number {
  return hex8At(hex, 8)
}

/** Two-digit hex of each byte value: `Number#toString(16)` is slow for values above 2^31. */
const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/** A uint32 as 8 lower-case hex digits. */
export function toHex8(v: number): string {
  return HEX_BYTE[v >>> 24]! + HEX_BYTE[(v >>> 16) & 255]! + HEX_BYTE[(v >>> 8) & 255]! + HEX_BYTE[v & 255]!
}

/** Two uint32 halves as 16 lower-case hex digits. */
export function toHex16(hi: number, lo: number): string {
  return toHex8(hi) + toHex8(lo)
}

/** Bit count of an unsigned 32-bit integer (SWAR). */
export function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555)
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  x = (x + (x >>> 4)) & 0x0f0f0f0f
  return Math.imul(x, 0x01010101) >>> 24
}
