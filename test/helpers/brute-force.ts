import { hamming, type Analysis } from '../../src/index.js'
import { figuresChanged } from '../../src/fingerprint/figure-veto.js'
import { MINHASH_SKETCH_CHARS } from '../../src/fingerprint/minhash.js'

/**
 * The documented matching rules of the default options (k 3, resemblance 0.6, no url layer),
 * applied to one pair of analyses, with no index, no blocks and no candidate bounds: the
 * reference a linear scan over all earlier documents gives (`bruteForceDuplicates`).
 */
export function bruteForceMatch(me: Analysis, e: Analysis): boolean {
  if (e.contentHash === me.contentHash) return true
  const dist = hamming(e.fingerprint, me.fingerprint)
  // Long route: SimHash within k (the 5-gram set sizes not ruling the resemblance out) or
  // MinHash through a shared band; unless a short article's figure or negation changed (the
  // pairwise veto, figure-veto.ts): the pair alone decides it.
  if (!me.short && !e.short) {
    const near = (dist <= 3 && (me.sketch == null || e.sketch == null || sizeRatio(me.sketch, e.sketch) >= 0.6))
      || (me.sketch != null && e.sketch != null && shareBand(me.bands, e.bands) && resemblance(me.sketch, e.sketch) >= 0.6)
    return near && !figuresChanged(me.sketch, e.sketch)
  }
  return me.short && e.short && dist <= 3 && jaccard(me.sketch!, e.sketch!) >= 0.8
}

/** For each analysis, whether any earlier one matches it (`bruteForceMatch`). */
export function bruteForceDuplicates(analyses: readonly Analysis[]): boolean[] {
  return analyses.map((me, i) => analyses.slice(0, i).some((e) => bruteForceMatch(me, e)))
}

function jaccard(a: string, b: string): number {
  const x = new Set(a.slice(2).match(/.{8}/g))
  const y = new Set(b.slice(2).match(/.{8}/g))
  return [...x].filter((h) => y.has(h)).length / new Set([...x, ...y]).size
}

/**
 * Share of agreeing bits of the two 1-bit-per-bin sketches, as an estimate: 2·agree/bits − 1
 * (a short article's veto facts follow the bits: figure-veto.ts).
 */
function resemblance(a: string, b: string): number {
  const bits = (s: string) => [...s.slice(10, MINHASH_SKETCH_CHARS)].map((h) => parseInt(h, 16).toString(2).padStart(4, '0')).join('')
  const x = bits(a)
  const y = bits(b)
  let agree = 0
  for (let j = 0; j < x.length; j++) if (x[j] === y[j]) agree++
  return Math.max(0, (2 * agree) / x.length - 1)
}

/** Distinct-shingle counts (the sketch's first 8 hex digits) bound the resemblance: min/max. */
function sizeRatio(a: string, b: string): number {
  const x = parseInt(a.slice(2, 10), 16)
  const y = parseInt(b.slice(2, 10), 16)
  return Math.min(x, y) / Math.max(x, y)
}

/** The MinHash route reaches a pair through a shared LSH band term. */
function shareBand(a: readonly string[], b: readonly string[]): boolean {
  return a.some((t) => b.includes(t))
}
