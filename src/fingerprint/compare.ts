import type { Analysis, Analyzer } from './analyzer.js'
import { hamming, fingerprintToHex } from './hamming.js'
import { sketchJaccard, termSetSketch } from './short-text.js'

/** What two texts share and where they differ (the verdict itself is the engine's `matchCandidate`). */
export interface Comparison {
  distance: number
  a: { simhash: string; length: number; terms: number; short: boolean }
  b: { simhash: string; length: number; terms: number; short: boolean }
  sameContent: boolean
  /** Jaccard similarity of the two term sets. */
  termJaccard: number
  /**
   * Terms in both / only in a / only in b, computed on the full term sets; each list is ordered by
   * weight (the higher of the two sides) and cut to the `topN` heaviest. `counts` has the full sizes.
   */
  shared: string[]
  onlyA: string[]
  onlyB: string[]
  counts: { shared: number; onlyA: number; onlyB: number }
}

function weights(a: Analysis): Map<string, number> {
  const m = new Map<string, number>()
  for (const t of a.terms) m.set(t.term, Math.max(m.get(t.term) ?? 0, t.weight))
  return m
}

/** The heaviest `n` of `terms`, ties by term. */
function heaviest(terms: string[], weight: (t: string) => number, n: number): string[] {
  return terms.sort((x, y) => weight(y) - weight(x) || (x < y ? -1 : x > y ? 1 : 0)).slice(0, n)
}

/**
 * Compares two analysed texts: distance, term overlap, the heaviest shared and differing terms.
 * @example compareAnalyses(analyzer.analyze('北京大学'), analyzer.analyze('北京大學')).distance // 0
 */
export function compareAnalyses(a: Analysis, b: Analysis, topN = 12): Comparison {
  const inA = weights(a)
  const inB = weights(b)
  const weight = (t: string) => Math.max(inA.get(t) ?? 0, inB.get(t) ?? 0)
  const shared = [...inA.keys()].filter((t) => inB.has(t))
  const onlyA = [...inA.keys()].filter((t) => !inB.has(t))
  const onlyB = [...inB.keys()].filter((t) => !inA.has(t))
  const side = (x: Analysis) => ({ simhash: fingerprintToHex(x.fingerprint), length: x.normalized.length, terms: x.terms.length, short: x.short })
  return {
    distance: hamming(a.fingerprint, b.fingerprint),
    a: side(a),
    b: side(b),
    sameContent: a.contentHash === b.contentHash,
    termJaccard: sketchJaccard(termSetSketch(a.terms), termSetSketch(b.terms)),
    shared: heaviest(shared, weight, topN),
    onlyA: heaviest(onlyA, weight, topN),
    onlyB: heaviest(onlyB, weight, topN),
    counts: { shared: shared.length, onlyA: onlyA.length, onlyB: onlyB.length },
  }
}

/**
 * Compares two texts with one analyzer (see `compareAnalyses`).
 * @example compareTexts(createAnalyzer(), '北京大学', '北京大學').distance // 0
 */
export function compareTexts(analyzer: Analyzer, textA: string, textB: string, topN = 12): Comparison {
  return compareAnalyses(analyzer.analyze(textA), analyzer.analyze(textB), topN)
}
