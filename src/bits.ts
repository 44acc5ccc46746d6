/**
 * Bit counts and hex digits, written once for the fingerprint code, the stores and the search
 * hook: fingerprints, hashes and sketches are serialised as lower-case hex, and parsed back
 * without slicing or parseInt on hot paths.
 */

/**
 * Bit count of an unsigned 32-bit integer (SWAR, no loop, no BigInt).
 * @example popcount32(0b1011) // 3
 */
export function popcount32(x: number): number {
  x = x - ((x >>> 1) & 0x55555555)
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  x = (x + (x >>> 4)) & 0x0f0f0f0f
  return Math.imul(x, 0x01010101) >>> 24
}

/** Two lower-case hex digits of each byte value: `Number#toString(16)` takes a slow path for values ≥ 2^31. */
const HEX_BYTE = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

/** Two lower-case hex digits of a byte. @example hex8(10) // '0a' */
export function hex8(byte: number): string {
  return HEX_BYTE[byte & 0xff]!
}

/** Eight lower-case hex digits of a 32-bit value (signed or unsigned). @example hex32(-1) // 'ffffffff' */
export function hex32(x: number): string {
  return HEX_BYTE[(x >>> 24) & 0xff]! + HEX_BYTE[(x >>> 16) & 0xff]! + HEX_BYTE[(x >>> 8) & 0xff]! + HEX_BYTE[x & 0xff]!
}

/** Two uint32 halves as 16 lower-case hex digits. @example hex64(1, 255) // '00000001000000ff' */
export function hex64(hi: number, lo: number): string {
  return hex32(hi) + hex32(lo)
}

/**
 * Value of the hex digit with char code `c`: lower-case only (the form simdup writes), or either
 * case with `anyCase`; -1 for anything else.
 * @example hexDigit(0x61) // 10 ('a')
 */
export function hexDigit(c: number, anyCase = false): number {
  if (c >= 48 && c <= 57) return c - 48
  if (c >= 97 && c <= 102) return c - 87
  if (anyCase && c >= 65 && c <= 70) return c - 55
  return -1
}

/**
 * The 8 hex digits of `text` from `at` as an unsigned 32-bit integer, or -1 if one of them is not
 * a hex digit (see `hexDigit`).
 * @example hex32At('00000001000000ff', 8) // 255
 */
export function hex32At(text: string, at: number, anyCase = false): number {
  let v = 0
  for (let i = at; i < at + 8; i++) {
    const d = hexDigit(text.charCodeAt(i), anyCase)
    if (d < 0) return -1
    v = v * 16 + d
  }
  return v
}

/** True for exactly 16 lower-case hex digits (a fingerprint, a content hash). */
export function isHex16(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 16) return false
  for (let i = 0; i < 16; i++) if (hexDigit(value.charCodeAt(i)) < 0) return false
  return true
}
