import type { Fingerprint } from '../types.js'
import { DedupError, describeValue } from '../errors.js'
import { hex64, popcount32 } from '../bits.js'

export { popcount32 }

/** Bit count of a 64-bit fingerprint. @example popcount64({ hi: 1, lo: 3 }) // 3 */
export function popcount64(fp: Fingerprint): number {
  return popcount32(fp.hi) + popcount32(fp.lo)
}

/**
 * Hamming distance of two fingerprints: XOR + popcount on the 32-bit halves.
 * @example hamming({ hi: 0, lo: 0 }, { hi: 0, lo: 7 }) // 3
 */
export function hamming(a: Fingerprint, b: Fingerprint): number {
  return popcount32((a.hi ^ b.hi) >>> 0) + popcount32((a.lo ^ b.lo) >>> 0)
}

const HEX = /^[0-9a-f]{16}$/

/** Fingerprint as 16 lower-case hex digits (the serialised form everywhere). @example fingerprintToHex({ hi: 1, lo: 255 }) // '00000001000000ff' */
export function fingerprintToHex(fp: Fingerprint): string {
  return hex64(fp.hi, fp.lo)
}

/** Parses 16 hex digits into a fingerprint; throws INVALID_DOCUMENT on anything else. @example fingerprintFromHex('00000001000000ff') */
export function fingerprintFromHex(hex: string): Fingerprint {
  const h = typeof hex === 'string' ? hex.toLowerCase() : ''
  if (!HEX.test(h)) {
    throw new DedupError('INVALID_DOCUMENT', `Expected a fingerprint of 16 hex digits, got ${describeValue(hex)}.`)
  }
  return { hi: parseInt(h.slice(0, 8), 16) >>> 0, lo: parseInt(h.slice(8), 16) >>> 0 }
}

/** The fingerprint with bit `bit` (0 = least significant, 63 = most) flipped. @example flipBit({ hi: 0, lo: 0 }, 63) // { hi: 0x80000000, lo: 0 } */
export function flipBit(fp: Fingerprint, bit: number): Fingerprint {
  return bit >= 32
    ? { hi: (fp.hi ^ (1 << (bit - 32))) >>> 0, lo: fp.lo }
    : { hi: fp.hi, lo: (fp.lo ^ (1 << bit)) >>> 0 }
}
