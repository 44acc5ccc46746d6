import { describe, expect, test as plainTest } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { contentKey, hash64Hex, hashToken, hex8, hex32, HASH_OUT } from '../../../src/fingerprint/hash.js'

/** FNV-1a 64 by the book, with BigInt over TextEncoder bytes: the oracle. */
function fnvOracle(text: string): bigint {
  let h = 0xcbf29ce484222325n
  for (const b of new TextEncoder().encode(text)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn
  return h
}

function fmix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** The documented token hash: FNV-1a 64, then the finaliser, written independently. */
function tokenOracle(text: string): [number, number] {
  const h = fnvOracle(text)
  const hi = Number(h >> 32n)
  const lo = Number(h & 0xffffffffn)
  const mixedLo = fmix32((lo ^ Math.imul(hi, 0x9e3779b1)) >>> 0)
  return [fmix32((hi ^ mixedLo) >>> 0), mixedLo]
}

describe('hash64Hex (FNV-1a 64)', () => {
  plainTest('matches published FNV-1a 64 test vectors', () => {
    expect(hash64Hex('')).toBe('cbf29ce484222325')
    expect(hash64Hex('a')).toBe('af63dc4c8601ec8c')
    expect(hash64Hex('foobar')).toBe('85944171f73967e8')
  })
  test.prop([fc.string({ unit: 'binary' })])('equals the BigInt oracle on any string', (s) => {
    expect(hash64Hex(s)).toBe(fnvOracle(s).toString(16).padStart(16, '0'))
  })
})

describe('hashToken', () => {
  // Includes lone surrogates: both sides encode them as U+FFFD, like TextEncoder.
  test.prop([fc.string({ unit: 'binary' })])('equals FNV-1a 64 + finaliser over UTF-8 bytes', (s) => {
    hashToken(s)
    expect([HASH_OUT[0], HASH_OUT[1]]).toEqual(tokenOracle(s))
  })
  plainTest('spreads one-character Han tokens over all 64 bits', () => {
    const ones = new Array<number>(64).fill(0)
    const n = 20_000
    for (let i = 0; i < n; i++) {
      hashToken(String.fromCharCode(0x4e00 + i))
      for (let b = 0; b < 32; b++) {
        ones[b]! += (HASH_OUT[1]! >>> b) & 1
        ones[32 + b]! += (HASH_OUT[0]! >>> b) & 1
      }
    }
    for (const c of ones) expect(Math.abs(c / n - 0.5)).toBeLessThan(0.02)
  })
})

describe('hex32 / hex8', () => {
  test.prop([fc.integer({ min: -(2 ** 31), max: 2 ** 32 - 1 })])('match toString(16) of the unsigned value', (x) => {
    expect(hex32(x)).toBe((x >>> 0).toString(16).padStart(8, '0'))
    expect(hex8(x)).toBe((x & 0xff).toString(16).padStart(2, '0'))
  })
})

describe('contentKey', () => {
  // Every code unit JavaScript's \s matches, plus neighbours that it does not.
  const spaces = [' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff']
  const arbText = fc.array(fc.oneof(fc.constantFrom(...spaces, '\u200b', '\u0085', 'a', '中', 'b'), fc.string({ maxLength: 3 }), fc.string({ unit: 'grapheme', maxLength: 2 })), { maxLength: 30 }).map((parts) => parts.join(''))

  test.prop([arbText])('folds whitespace runs exactly as /\\s+/g → " " does', (text) => {
    expect(contentKey(text)).toBe(contentKey(text.replace(/\s+/g, ' ')))
    expect(contentKey(text)).toMatch(/^[0-9a-f]{16}$/)
  })

  test.prop([arbText, arbText])('different folded texts get different keys', (a, b) => {
    fc.pre(a.replace(/\s+/g, ' ') !== b.replace(/\s+/g, ' '))
    expect(contentKey(a)).not.toBe(contentKey(b))
  })

  plainTest('no collision among 200 k near-identical texts (one unit changed, one appended)', () => {
    const base = '北京大学的学生在图书馆读书' // "Peking University students read in the library"
    const keys = new Set<string>()
    let n = 0
    for (let i = 0; i < 100_000; i++) {
      keys.add(contentKey(base + String.fromCharCode(0x4e00 + (i % 20_000)) + String(i)))
      keys.add(contentKey(String(i) + base))
      n += 2
    }
    expect(keys.size).toBe(n)
  })
})
