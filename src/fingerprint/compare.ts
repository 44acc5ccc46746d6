import type { Analysis, Analyzer } from './analyzer.js'
import { hamming, fingerprintToHex } from './hamming.js'
import { sketchJaccard, termSetSketch } from './short-text.js'

/** Why two texts are, or are not, near-duplicates. */
export interface Comparison {
  distance: number
  a: { simhash: string; length: number; terms: number; short: boolean }
  b: { simhash: string; length: number; terms: number; short: boolean }
  sameContent: boolean
  /** Jaccard similarity of the two term sets. */
  termJaccard: number
  /** Top-weighted terms (of either side) present in both / only in a / only in b. */
  shared: string[]
  onlyA: string[]
  onlyB: string[]
}

function top(a: Analysis, n: number): string[] {
  return [...a.terms].sort((x, y) => y.weight - x.weight || (x.term < y.term ? -1 : 1)).slice(0, n).map((t) => t.term)
}

/**
 * Compares two texts with one analyzer: distance, term overlap, top terms on each side.
 * @example compareTexts(createAnalyzer(), '北京大学', '北京大學').distance // 0
 */
export function compareTexts(analyzer: Analyzer, textA: string, textB: string, topN = 12): Comparison {
  const a = analyzer.analyze(textA)
  const b = analyzer.analyze(textB)
  const inA = new Set(a.terms.map((t) => t.term))
  const inB = new Set(b.terms.map((t) => t.term))
  const candidates = [...new Set([...top(a, topN), ...top(b, topN)])]
  const side = (x: Analysis) => ({ simhash: fingerprintToHex(x.fingerprint), length: x.normalized.length, terms: x.terms.length, short: x.short })
  return {
    distance: hamming(a.fingerprint, b.fingerprint),
    a: side(a),
    b: side(b),
    sameContent: a.contentHash === b.contentHash,
    termJaccard: sketchJaccard(termSetSketch(a.terms), termSetSketch(b.terms)),
    shared: candidates.filter((t) => inA.has(t) && inB.has(t)),
    onlyA: candidates.filter((t) => inA.has(t) && !inB.has(t)),
    onlyB: candidates.filter((t) => !inA.has(t) && inB.has(t)),
  }
}
