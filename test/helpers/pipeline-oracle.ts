/**
 * The analysis pipeline written stage by stage with the public per-stage functions: the oracle
 * that the analyzer's fast path (term table, run memo) is checked against, in test/unit and on the
 * Debian corpus in test/corpus.
 */
import { fingerprintToHex, type Analysis } from '../../src/index.js'
import { contentTokens, defaultIdf, defaultSegmenter, defaultStopWords, isShortText, minhashSketch, simhash, termSetSketch, weightContentTokens } from '../../src/fingerprint/index.js'
import { normalizeContent, stripAttribution } from '../../src/normalize/index.js'
import { contentKey } from '../../src/fingerprint/hash.js'
import { TermTable } from '../../src/fingerprint/_term-table.js'
import { SHORT_GRAM_MAX_CHARS, gramSet } from '../../src/fingerprint/short-grams.js'
import { FIGURE_VETO_MAX_CHARS, withFigures } from '../../src/fingerprint/figure-veto.js'

export const seg = defaultSegmenter()
export const idf = defaultIdf()
export const stop = defaultStopWords().words

/** What the analyzer should return for `content`, stage by stage. */
export function reference(content: string) {
  const normalized = stripAttribution(normalizeContent(content))
  const tokens = contentTokens(seg.cut(normalized), stop)
  const terms = weightContentTokens(tokens, idf)
  // Texts of few content characters (UTF-16 units of letters and digits, a point between digits) take the gram-set route.
  const chars = (normalized.match(/(?<=[0-9])\.(?=[0-9])|[\p{L}\p{N}]/gu) ?? []).join('').length
  const grams = chars <= SHORT_GRAM_MAX_CHARS ? gramSet(normalized) : null
  const short = isShortText(terms)
  const minhash = short || grams !== null ? null : minhashSketch(normalized)
  return {
    normalized,
    terms,
    simhash: fingerprintToHex(simhash(terms)),
    short,
    contentHash: contentKey(normalized),
    // A long-route text of few content characters carries its figures after the MinHash bits (the figure veto).
    sketch: grams !== null ? grams.sketch : short ? termSetSketch(terms) : minhash === null ? null : chars <= FIGURE_VETO_MAX_CHARS ? withFigures(minhash.sketch, normalized) : minhash.sketch,
    bands: grams !== null ? grams.terms : (minhash?.bands ?? []),
  }
}

/** An analysis in the shape of `reference()`, for `toEqual`. */
export function view(a: Analysis) {
  return { normalized: a.normalized, terms: a.terms, simhash: fingerprintToHex(a.fingerprint), short: a.short, contentHash: a.contentHash, sketch: a.sketch, bands: a.bands }
}

/** A term table over the default IDF and stop words; `limit` makes it clear itself sooner. */
export function tableOf(limit?: number): TermTable {
  return new TermTable(idf, stop, 0.3, 0.3, limit)
}

/** The table's last document as term strings in token order, then its distinct terms and weights. */
export function snapshot(t: TermTable) {
  const seq = Array.from(t.sequence.subarray(0, t.sequenceLength), (id) => t.term(id))
  const distinct = Array.from(t.distinct.subarray(0, t.distinctLength), (id) => t.term(id))
  return { seq, distinct, weights: Array.from(t.weights.subarray(0, t.distinctLength)) }
}
