import type { CandidateQuery, Fingerprint, FingerprintRecord, Layer, Rule } from '../types.js'
import { hamming } from '../fingerprint/hamming.js'
import { sketchJaccard } from '../fingerprint/short-text.js'
import { minhashPart, minhashSimilarity, resemblanceBound, sparseSketchMargin } from '../fingerprint/minhash.js'
import { MIN_GRAMS, SHORT_GRAM_FLOOR, gramBound, gramJaccardThreshold, gramPart, gramVerdict, isGramSketch, isGramTerm, sketchGrams } from '../fingerprint/short-grams.js'
import { figuresChanged } from '../fingerprint/figure-veto.js'
import type { ResolvedDeduplicatorOptions } from './options.js'

/** What matching needs of the document being decided (a prepared document or a stored record). */
export interface MatchSubject {
  id: string
  fingerprint: Fingerprint
  contentHash: string
  urlHash: string | null
  titleHash: string | null
  short: boolean
  sketch?: string | null | undefined
  /** Candidate terms: the prefix-filter terms of a gram set (the positional filter reads them). */
  bands?: readonly string[] | undefined
  version?: string
  /** First-insertion sequence number: when set, only records first indexed earlier can match (see `isEarlier`). */
  seq?: number | undefined
}

/** A verified match: which record, how far, by which layer and rule. */
export interface Match {
  record: FingerprintRecord
  distance: number
  layer: Layer
  rule: Rule | null
  /** The rule's similarity evidence: term-set Jaccard (short-text), estimated shingle resemblance (minhash); else null. */
  resemblance: number | null
}

export type MatchOptions = Pick<ResolvedDeduplicatorOptions, 'layers' | 'maxDistance' | 'minhash' | 'minResemblance' | 'analyzer'> &
  Partial<Pick<ResolvedDeduplicatorOptions, 'urlMinResemblance'>>

/**
 * The store lookup for a document (prepared or stored): its keys for the enabled layers, its
 * blocks with the scheme's must-match count, its MinHash bands; never itself.
 * @example store.candidates(docs.map((d) => candidateQuery(d, dedup.options)))
 */
export function candidateQuery(
  d: MatchSubject & { blocks: readonly string[]; bands?: readonly string[] | undefined },
  o: Pick<ResolvedDeduplicatorOptions, 'layers' | 'maxDistance' | 'minhash' | 'blockScheme'>,
  since?: number,
): CandidateQuery {
  const q: CandidateQuery = {
    fingerprint: d.fingerprint,
    blocks: d.blocks,
    minMatch: o.blockScheme.minMatch,
    maxDistance: o.maxDistance,
    contentHash: o.layers.exact ? d.contentHash : null,
    urlHash: o.layers.url ? d.urlHash : null,
    titleHash: o.layers.title ? d.titleHash : null,
    excludeId: d.id,
  }
  // Band terms: MinHash bands (when that route is on) and prefix-filter terms of a gram set (always).
  if (d.bands !== undefined && d.bands.length > 0) {
    const bands = o.minhash ? d.bands : d.bands.filter(isGramTerm)
    if (bands.length > 0) q.bands = bands
  }
  if (since !== undefined) q.since = since
  return q
}

/**
 * Verifies one candidate against a document, layer by layer (url → exact → simhash → title);
 * null when no enabled layer accepts it. The url layer is a duplicate only when the content
 * agrees too (see {@link contentAgreement}): the same URL with other content is a new version
 * ({@link previousVersion}), and sections keyed `page#s5`, `page#s6` are separate documents.
 * Records of another fingerprint version are never matched (their content cannot be compared).
 * @example matchCandidate(doc, record, dedup.options)?.layer // 'simhash'
 */
export function matchCandidate(d: MatchSubject, c: FingerprintRecord, o: MatchOptions): Match | null {
  const distance = hamming(d.fingerprint, c.fingerprint)
  const version = d.version ?? o.analyzer.version
  if (c.version !== version) return null
  if (o.layers.url && d.urlHash !== null && c.urlHash === d.urlHash) {
    const agreed = contentAgreement(d, c, distance, o)
    if (agreed !== null) return { record: c, distance, layer: 'url', rule: agreed.rule, resemblance: agreed.resemblance }
  }
  if (o.layers.exact && c.contentHash === d.contentHash) return { record: c, distance, layer: 'exact', rule: null, resemblance: null }
  if (o.layers.simhash) {
    const near = nearRule(d, c, distance, o)
    if (near !== null) return { record: c, distance, layer: 'simhash', rule: near.rule, resemblance: near.resemblance }
  }
  if (o.layers.title && d.titleHash !== null && c.titleHash === d.titleHash) return { record: c, distance, layer: 'title', rule: null, resemblance: null }
  return null
}

/** A rule's verdict: which rule, and its similarity evidence (see `Match.resemblance`). */
interface RuleVerdict {
  rule: Rule | null
  resemblance: number | null
}

/**
 * Whether two documents of one URL say the same thing: equal normalised content (rule null) or a
 * near-duplicate by the content rules (with `urlMinResemblance` for the resemblance tests);
 * null when they disagree.
 */
function contentAgreement(d: MatchSubject, c: FingerprintRecord, distance: number, o: MatchOptions): RuleVerdict | null {
  if (c.contentHash === d.contentHash) return { rule: null, resemblance: null }
  const url = o.urlMinResemblance ?? o.minResemblance
  return nearRule(d, c, distance, url === o.minResemblance ? o : { ...o, minResemblance: url }, true)
}

/** The near-duplicate rule that accepts the pair, or null; `url`: the url layer's content check (no figure veto). */
function nearRule(d: MatchSubject, c: FingerprintRecord, distance: number, o: MatchOptions, url?: boolean): RuleVerdict | null {
  const dSketch = d.sketch ?? null
  // Texts of few content characters: exact bigram-set resemblance, whatever the distance; never
  // against a text of the other routes (see short-grams.ts).
  // A long text of up to 300 content characters carries its gram set too (`gramPart`).
  if (isGramSketch(dSketch) || isGramSketch(c.sketch)) {
    const a = gramPart(dSketch)
    const b = gramPart(c.sketch)
    if (a === null || b === null) return null
    const exact = gramRule(a, d.bands, b, c.bands, o)
    if (exact !== null || d.short || c.short || distance > o.maxDistance) return exact
    // Two texts of enough terms within k (SimHash, as for long texts), unless a number or a
    // negation differs or their bigram sets' sizes alone rule out a resemblance of `minResemblance`.
    const na = sketchGrams(a)
    const nb = sketchGrams(b)
    if (Math.min(na, nb) < o.minResemblance * Math.max(na, nb)) return null
    const v = gramVerdict(a, b, o.analyzer.shortText)
    if (v.veto || v.replaced) return null
    return { rule: 'simhash', resemblance: null }
  }
  // A short article (both sketches carry their veto facts, figure-veto.ts) with a figure changed
  // or a negation inserted is another article, however alike the rest; not for two versions of one URL.
  const veto = url !== true
  const dm = dSketch === null ? null : minhashPart(dSketch)
  const cm = c.sketch === undefined ? undefined : minhashPart(c.sketch)
  if (distance <= o.maxDistance) {
    // SimHash is blind to length: a section and the whole page it sits in can be within k. Two
    // texts whose 5-gram sets differ in size more than `minResemblance` allows cannot be alike
    // enough (J ≤ min/max of the sizes), whatever the distance.
    if (!d.short && !c.short && !(dm !== null && cm !== undefined && resemblanceBound(dm, cm) < o.minResemblance)) {
      return veto && figuresChanged(dSketch, c.sketch) ? null : { rule: 'simhash', resemblance: null }
    }
    const short = o.analyzer.shortText
    if (d.short && c.short && dSketch !== null && c.sketch !== undefined && distance <= short.maxDistance) {
      const jaccard = sketchJaccard(dSketch, c.sketch)
      if (jaccard >= short.minJaccard) return { rule: 'short-text', resemblance: jaccard }
    }
  }
  // Second route: edits that move SimHash past k (cuts, added paragraphs) keep shingle resemblance.
  if (o.minhash && !d.short && !c.short && dm !== null && cm !== undefined) {
    // A sketch of few shingles estimates with a larger error, and pairs of templated pages crowd
    // just below the threshold: such an estimate must clear the threshold by its extra error.
    // (NaN unless both are valid sketches; the margin is asked only of estimates that pass.)
    const resemblance = minhashSimilarity(dm, cm)
    if (resemblance >= o.minResemblance && resemblance >= o.minResemblance + sparseSketchMargin(dm, cm, resemblance, o.minResemblance)) {
      return veto && figuresChanged(dSketch, c.sketch) ? null : { rule: 'minhash', resemblance }
    }
  }
  return null
}

/**
 * The near-duplicate rule that applies to a pair and its evidence against its effective threshold
 * (for `simdup compare`): the gram-set rules for two texts of few content characters (exact
 * Jaccard and containment), the term-set rule for two longer short texts, the MinHash rule for two
 * long ones (the estimate, and the threshold with its sparse-sketch margin); null when the two
 * take different routes (only equal content can match).
 */
export interface RuleEvidence {
  rule: 'short-text' | 'minhash'
  /** What `resemblance` measures. */
  measure: 'bigram-jaccard' | 'term-jaccard' | 'estimated-5gram-jaccard'
  resemblance: number
  /** The threshold `resemblance` must reach, margin included. */
  threshold: number
  /** Bigram sets only: the shorter text's share of the shared bigrams, and its threshold. */
  containment?: number
  containmentThreshold?: number
  /** Bigram sets: they differ in a bigram with a digit or a negation, or a word was replaced in a text of title length; MinHash sketches of short articles: a figure of their prose changed or a negation was inserted (figure-veto.ts). No match, whatever the resemblance. */
  veto?: boolean
}

/** @see RuleEvidence */
export function ruleEvidence(a: string | null, b: string | null, o: Pick<MatchOptions, 'analyzer' | 'minResemblance'>): RuleEvidence | null {
  if (a === null || b === null) return null
  const t = o.analyzer.shortText
  if (isGramSketch(a) || isGramSketch(b)) {
    const ga = gramPart(a)
    const gb = gramPart(b)
    if (ga === null || gb === null) return null
    const v = gramVerdict(ga, gb, t)
    return { rule: 'short-text', measure: 'bigram-jaccard', resemblance: v.jaccard, threshold: gramJaccardThreshold(t, Math.max(sketchGrams(ga), sketchGrams(gb))), containment: v.containment, containmentThreshold: t.minContainment, veto: v.veto || v.replaced }
  }
  if (a.slice(0, 2) !== b.slice(0, 2)) return null
  if (a.startsWith('t:')) return { rule: 'short-text', measure: 'term-jaccard', resemblance: sketchJaccard(a, b), threshold: t.minJaccard }
  const ma = minhashPart(a)
  const mb = minhashPart(b)
  const resemblance = minhashSimilarity(ma, mb)
  if (Number.isNaN(resemblance)) return null
  const veto = figuresChanged(a, b)
  return { rule: 'minhash', measure: 'estimated-5gram-jaccard', resemblance, threshold: o.minResemblance + sparseSketchMargin(ma, mb, resemblance, o.minResemblance), ...(veto ? { veto } : {}) }
}

/**
 * The short-text rules on two gram sets (`gramVerdict`), after the length filter (J ≤ small/large;
 * containment needs large ≤ ratio·small) and, when both prefixes are known, the positional filter
 * (`gramBound`): two sets whose prefixes share no gram cannot reach the floor thresholds.
 */
function gramRule(a: string, aTerms: readonly string[] | undefined, b: string, bTerms: readonly string[] | undefined, o: MatchOptions): RuleVerdict | null {
  const t = o.analyzer.shortText
  const na = sketchGrams(a)
  const nb = sketchGrams(b)
  const small = Math.min(na, nb)
  const large = Math.max(na, nb)
  // Below MIN_GRAMS only an equal set matches (漂亮 / 漂亮！): the same size first.
  if (small === 0 || (small < MIN_GRAMS && large !== small)) return null
  const contain = large <= SHORT_GRAM_FLOOR.ratio * small && small >= t.minContainedGrams
  const minJaccard = gramJaccardThreshold(t, large)
  if (small / large < minJaccard && !contain) return null
  // Prefix terms come first in a record's band terms (a long text's MinHash bands after them).
  if (aTerms !== undefined && aTerms.length > 0 && bTerms !== undefined && bTerms.length > 0) {
    let i = 0
    let j = -1
    for (; i < aTerms.length && j < 0; i++) j = bTerms.indexOf(aTerms[i]!)
    if (j < 0) return null
    const bound = gramBound(na, nb, i - 1, j)
    if (bound.jaccard < minJaccard && !(contain && bound.containment >= t.minContainment)) return null
  }
  const v = gramVerdict(a, b, t)
  return v.rule === null ? null : { rule: v.rule, resemblance: v.resemblance }
}

/**
 * The record a document is a new version of: the record with the same URL key (fragment
 * included) first indexed last before it (`compareOrder`), when their contents do not agree (a
 * url-layer match); null when there is none or it says the same. When `d.seq` is set only records
 * first indexed before it count, so re-indexing an older version never makes it supersede a later
 * one. A page that goes back to an older text is a new version of the text before (and a
 * duplicate of the older one). Only the last earlier record of the URL is needed, so the store's
 * per-key bound (the newest first) never hides it.
 * @example previousVersion(doc, candidates, dedup.options)?.id // 'page-v1'
 */
export function previousVersion(d: MatchSubject, candidates: Iterable<FingerprintRecord>, o: MatchOptions): FingerprintRecord | null {
  if (!o.layers.url || d.urlHash === null) return null
  const ordered = d.seq !== undefined
  let last: FingerprintRecord | null = null
  for (const c of candidates) {
    if (c.id === d.id || c.urlHash !== d.urlHash || (ordered && !isEarlier(c, d))) continue
    if (last === null || compareOrder(c, last) > 0) last = c
  }
  if (last === null || matchCandidate(d, last, o)?.layer === 'url') return null
  return last
}

const LAYER_RANK: Record<Layer, number> = { url: 0, exact: 1, simhash: 2, title: 3 }

/**
 * A match's rank (smaller wins): layer, then SimHash rules before MinHash and the gram-set rules,
 * then distance (≤ 64). The gram-set rules (short texts: SimHash means nothing there) rank as
 * MinHash does, without the distance: among them the earliest record wins (`compareMatches`).
 */
function rank(m: Match): number {
  if (m.rule === 'containment' || (m.rule === 'short-text' && m.record.sketch !== undefined && !m.record.sketch.startsWith('t:'))) {
    return LAYER_RANK[m.layer] * 1000 + 100
  }
  return LAYER_RANK[m.layer] * 1000 + (m.rule === 'minhash' ? 100 : 0) + m.distance
}

/** A match's rank (`compareMatches`: smaller wins; equal ranks go by first-insertion order). */
export function matchRank(m: Match): number {
  return rank(m)
}

/** The rank of an exact-layer match, and of a SimHash-rule match at distance 0 (add the distance). */
export const EXACT_RANK = LAYER_RANK.exact * 1000
export const SIMHASH_RANK = LAYER_RANK.simhash * 1000

/** The smallest rank a MinHash match of the simhash layer can have. */
const MINHASH_SIMHASH_RANK = LAYER_RANK.simhash * 1000 + 100

/**
 * Whether a match ranks above every MinHash-rule match of the simhash layer (`compareMatches`):
 * a url or exact match, or a SimHash-rule one. No candidate the MinHash route alone brings can
 * beat it but by sharing d's URL (or title) key, or by lying within the distance the block route
 * covers (`Deduplicator.decide`).
 */
export function outranksMinhash(m: Match): boolean {
  return rank(m) < MINHASH_SIMHASH_RANK
}

/** Ordering of matches: earlier layer, SimHash rules before MinHash, nearer, first indexed earlier (`seq`), smaller id. */
export function compareMatches(a: Match, b: Match): number {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra - rb
  return compareOrder(a.record, b.record)
}

/**
 * The order documents were first indexed in: by `seq` (a record without one sorts last), then by
 * id. A total order, so every decision and every cluster's representative is reproducible.
 */
export function compareOrder(a: { seq?: number | undefined; id: string }, b: { seq?: number | undefined; id: string }): number {
  const sa = a.seq ?? Number.POSITIVE_INFINITY
  const sb = b.seq ?? Number.POSITIVE_INFINITY
  if (sa !== sb) return sa < sb ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/**
 * Whether `c` was first indexed before `d` (`compareOrder`): the only records `d` may point at.
 * This rule makes re-running an input, or finishing a crashed run, decide exactly as one clean run.
 */
export function isEarlier(c: { seq?: number | undefined; id: string }, d: { seq?: number | undefined; id: string }): boolean {
  return compareOrder(c, d) < 0
}

/**
 * The best verified match among candidates, skipping the document's own cluster members
 * (a re-indexed representative is not a duplicate of its own cluster) and, when `d.seq` is set,
 * every record not first indexed before it.
 */
export function bestMatch(d: MatchSubject, candidates: readonly FingerprintRecord[], o: MatchOptions): Match | null {
  if (o.minhash && d.sketch != null && d.sketch.startsWith('m:')) {
    // The MinHash rule ranks below every other rule of the url, exact and simhash layers
    // (`compareMatches`): when one of those accepts a candidate, no MinHash estimate can change the
    // answer, so a first pass leaves the rule out, except for candidates sharing d's URL (whose
    // url-layer match may rest on it). Only when that pass finds no such match do all
    // candidates get the full rules.
    let without = WITHOUT_MINHASH.get(o)
    if (without === undefined) WITHOUT_MINHASH.set(o, (without = { ...o, minhash: false }))
    const first = bestOf(d, candidates, o, without)
    if (first !== null && rank(first) < MINHASH_SIMHASH_RANK) return first
  }
  return bestOf(d, candidates, o, o)
}

/** Each options object with the MinHash rule off (`bestMatch`'s first pass). */
const WITHOUT_MINHASH = new WeakMap<MatchOptions, MatchOptions>()

/** `bestMatch` with the options `other` for candidates that do not share d's URL key. */
function bestOf(d: MatchSubject, candidates: readonly FingerprintRecord[], o: MatchOptions, other: MatchOptions): Match | null {
  let best: Match | null = null
  const ordered = d.seq !== undefined
  const url = o.layers.url ? d.urlHash : null
  for (const c of candidates) {
    if (c.clusterId === d.id || c.id === d.id || (ordered && !isEarlier(c, d))) continue
    const m = matchCandidate(d, c, url !== null && c.urlHash === url ? o : other)
    if (m !== null && (best === null || compareMatches(m, best) < 0)) best = m
  }
  return best
}
