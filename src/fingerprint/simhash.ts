import type { Fingerprint } from '../types.js'
import type { WeightedTerm } from './tfidf.js'
import { HASH_OUT, hashToken } from './hash.js'

const ACC = new Float64Array(64)

/**
 * 64-bit weighted SimHash (Charikar): each term's 64-bit hash votes +weight on its set bits and
 * −weight on its clear bits; a fingerprint bit is 1 where the vote is positive. Ties → 0.
 * @example simhash([{ term: '北京', weight: 8.1 }, { term: '大学', weight: 6.2 }])
 */
export function simhash(terms: readonly WeightedTerm[]): Fingerprint {
  const acc = ACC
  acc.fill(0)
  for (let t = 0; t < terms.length; t++) {
    const { term, weight } = terms[t]!
    hashToken(term)
    const hi = HASH_OUT[0]!
    const lo = HASH_OUT[1]!
    for (let b = 0; b < 32; b++) {
      acc[b]! += (lo >>> b) & 1 ? weight : -weight
      acc[32 + b]! += (hi >>> b) & 1 ? weight : -weight
    }
  }
  let hi = 0
  let lo = 0
  for (let b = 0; b < 32; b++) {
    if (acc[b]! > 0) lo |= 1 << b
    if (acc[32 + b]! > 0) hi |= 1 << b
  }
  return { hi: hi >>> 0, lo: lo >>> 0 }
}
