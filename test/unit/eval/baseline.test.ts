import { describe, expect, test } from 'vitest'
import { baselineFingerprint, createBaselineSystem, fnv1a64, simhash } from '../../../scripts/eval/baseline.js'

const hex = (h: { hi: number; lo: number }): string => h.hi.toString(16).padStart(8, '0') + h.lo.toString(16).padStart(8, '0')

describe('seed-style baseline', () => {
  test('FNV-1a 64 matches the published test vectors and a BigInt reference on UTF-8', () => {
    expect(hex(fnv1a64(''))).toBe('cbf29ce484222325')
    expect(hex(fnv1a64('a'))).toBe('af63dc4c8601ec8c')
    expect(hex(fnv1a64('foobar'))).toBe('85944171f73967e8')
    let x = 0xcbf29ce484222325n
    for (const b of new TextEncoder().encode('北京大学')) x = ((x ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn // Peking University
    expect(hex(fnv1a64('北京大学'))).toBe(x.toString(16).padStart(16, '0'))
  })

  test('SimHash of one token is its hash; no tokens give 0', () => {
    expect(simhash(new Map([['北京', 1]]))).toEqual(fnv1a64('北京')) // Beijing
    expect(simhash(new Map())).toEqual({ hi: 0, lo: 0 })
  })

  test('only Han characters count: Latin text and punctuation do not change the fingerprint', () => {
    expect(baselineFingerprint('北京大学, Peking University!')).toEqual(baselineFingerprint('北京大学'))
    expect(baselineFingerprint('only latin')).toEqual({ hi: 0, lo: 0 })
  })

  test('first-seen representatives; Latin-only documents all collide (the seed has no rule for them)', async () => {
    const text = '北京大学是中国的一所著名大学，位于北京市海淀区。' // Peking University is a famous Chinese university in Haidian, Beijing.
    const other = '上海的天气今天很好，适合出去散步和骑自行车。' // Shanghai's weather is fine today, good for a walk or a ride.
    const decisions = await createBaselineSystem().run([
      { id: 'a', content: text },
      { id: 'b', content: other },
      { id: 'c', content: `${text} (copy)` },
      { id: 'd', content: 'The quick brown fox' },
      { id: 'e', content: 'An unrelated English sentence' },
    ])
    expect(decisions).toEqual([
      { id: 'a', duplicateOf: null, clusterId: 'a' },
      { id: 'b', duplicateOf: null, clusterId: 'b' },
      { id: 'c', duplicateOf: 'a', clusterId: 'a' },
      { id: 'd', duplicateOf: null, clusterId: 'd' },
      { id: 'e', duplicateOf: 'd', clusterId: 'd' },
    ])
  })
})
