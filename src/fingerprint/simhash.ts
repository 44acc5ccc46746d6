import type { Fingerprint } from '../types.js'
import type { WeightedTerm } from './tfidf.js'
import { HASH_OUT, hashToken } from './hash.js'

// Votes are summed per nibble value: NIBBLES[16 · p + v] is the weight of terms whose hash has
// value v in nibble p (p = 0..15, low nibble of `lo` first). A term then costs 16 additions instead
// of 64, and a fingerprint bit follows from 16 sums at the end (see result()).
const NIBBLES = new Float64Array(256)

/**
 * 64-bit weighted SimHash (Charikar): each term's 64-bit hash votes +weight on its set bits and
 * −weight on its clear bits; a fingerprint bit is 1 where the vote is positive. Ties → 0.
 * @example simhash([{ term: '北京', weight: 8.1 }, { term: '大学', weight: 6.2 }])
 */
export function simhash(terms: readonly WeightedTerm[]): Fingerprint {
  const acc = NIBBLES
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
  const acc = NIBBLES
  acc.fill(0)
  for (let t = 0; t < n; t++) {
    const id = ids[t]!
    vote(acc, hi[id]!, lo[id]!, weights[t]!)
  }
  return result(acc)
}

function vote(acc: Float64Array, hi: number, lo: number, weight: number): void {
  for (let p = 0; p < 8; p++) {
    acc[(p << 4) | ((lo >>> (p << 2)) & 15)]! += weight
    acc[((p + 8) << 4) | ((hi >>> (p << 2)) & 15)]! += weight
  }
}

function result(acc: Float64Array): Fingerprint {
  // Bit j of nibble p: the vote is (weight with the bit set) − (weight without) = 2·set − total,
  // positive iff set > total − set.
  let hi = 0
  let lo = 0
  for (let p = 0; p < 16; p++) {
    const base = p << 4
    for (let j = 0; j < 4; j++) {
      let set = 0
      let clear = 0
      for (let v = 0; v < 16; v++) {
        if ((v >>> j) & 1) set += acc[base + v]!
        else clear += acc[base + v]!
      }
      if (set > clear) {
        const bit = ((p & 7) << 2) + j
        if (p < 8) lo |= 1 << bit
        else hi |= 1 << bit
      }
    }
  }
  return { hi: hi >>> 0, lo: lo >>> 0 }
}
