import { describe, expect } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { hamming, popcount32, popcount64, fingerprintToHex, fingerprintFromHex, flipBit } from '../../../src/fingerprint/hamming.js'
import { arbFingerprint, slowHamming, toBig } from '../../helpers/fingerprints.js'

describe('hamming', () => {
  test.prop([arbFingerprint])('distance to itself is 0', (a) => {
    expect(hamming(a, a)).toBe(0)
  })
  test.prop([arbFingerprint, arbFingerprint])('is symmetric and equals the BigInt oracle', (a, b) => {
    expect(hamming(a, b)).toBe(hamming(b, a))
    expect(hamming(a, b)).toBe(slowHamming(a, b))
  })
  test.prop([arbFingerprint, fc.uniqueArray(fc.nat(63), { maxLength: 64 })])('n distinct flipped bits give distance n', (a, bits) => {
    const b = bits.reduce(flipBit, a)
    expect(hamming(a, b)).toBe(bits.length)
  })
  test.prop([arbFingerprint, arbFingerprint, arbFingerprint])('obeys the triangle inequality', (a, b, c) => {
    expect(hamming(a, c)).toBeLessThanOrEqual(hamming(a, b) + hamming(b, c))
  })
  test.prop([fc.integer({ min: 0, max: 0xffffffff })])('popcount32 counts bits', (x) => {
    expect(popcount32(x)).toBe([...x.toString(2)].filter((c) => c === '1').length)
  })
  test.prop([arbFingerprint])('popcount64 is the distance to zero', (a) => {
    expect(popcount64(a)).toBe(slowHamming(a, { hi: 0, lo: 0 }))
  })
  test.prop([arbFingerprint, fc.nat(63)])('flipBit flips exactly bit n of the 64-bit value', (a, n) => {
    expect(toBig(flipBit(a, n))).toBe(toBig(a) ^ (1n << BigInt(n)))
  })
})

describe('hex form', () => {
  test.prop([arbFingerprint])('round-trips through 16 hex digits', (a) => {
    const hex = fingerprintToHex(a)
    expect(hex).toMatch(/^[0-9a-f]{16}$/)
    expect(BigInt('0x' + hex)).toBe(toBig(a))
    expect(fingerprintFromHex(hex)).toEqual(a)
  })
  test('rejects anything but 16 hex digits, naming the value', () => {
    expect(() => fingerprintFromHex('123')).toThrow(/16 hex digits, got `"123"`/)
    expect(() => fingerprintFromHex('zz00000000000000')).toThrow(expect.objectContaining({ code: 'INVALID_DOCUMENT' }))
  })
})
