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
    vote(acc, HASH_OUT[0]!, HASH_OUT[1]!, weight)
  }
  return result(acc)
}

/**
 * `simhash` over precomputed token hashes: term `ids[t]` (t < n) has hash halves
 * (`hi[id]`, `lo[id]`) and weight `weights[t]`. Same votes in the same order ⇒ the same bits.
 */
export function simhashOfHashes(hi: Int32Array, lo: Int32Array, ids: Int32Array, weights: Float64Array, n: number): Fingerprint {
  const acc = ACC
  acc.fill(0)
  for (let t = 0; t < n; t++) {
    const id = ids[t]!
    vote(acc, hi[id]!, lo[id]!, weights[t]!)
  }
  return result(acc)
}

function vote(acc: Float64Array, hi: number, lo: number, weight: number): void {
  // Branch-free: the bits are random, so `bit ? w : -w` mispredicts half the time. w · ±1 is exact.
  for (let b = 0; b < 32; b++) {
    acc[b]! += weight * ((((lo >>> b) & 1) << 1) - 1)
    acc[32 + b]! += weight * ((((hi >>> b) & 1) << 1) - 1)
  }
}

function result(acc: Float64Array): Fingerprint {
  let hi = 0
  let lo = 0
  for (let b = 0; b < 32; b++) {
    if (acc[b]! > 0) lo |= 1 << b
    if (acc[32 + b]! > 0) hi |= 1 << b
  }
  return { hi: hi >>> 0, lo: lo >>> 0 }
}
