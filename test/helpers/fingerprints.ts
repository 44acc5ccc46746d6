import fc from 'fast-check'
import type { Fingerprint } from '../../src/types.js'

/** A random 64-bit fingerprint as two uint32 halves. */
export const arbFingerprint: fc.Arbitrary<Fingerprint> = fc
  .tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }))
  .map(([hi, lo]) => ({ hi, lo }))

/** The oracle: distance by BigInt and string bit counting, deliberately unlike the code under test. */
export function slowHamming(a: Fingerprint, b: Fingerprint): number {
  const x = ((BigInt(a.hi) << 32n) | BigInt(a.lo)) ^ ((BigInt(b.hi) << 32n) | BigInt(b.lo))
  return [...x.toString(2)].filter((c) => c === '1').length
}

export function toBig(fp: Fingerprint): bigint {
  return (BigInt(fp.hi) << 32n) | BigInt(fp.lo)
}
