import type { FingerprintRecord } from '../types.js'
import type { FingerprintStore } from '../store/store.js'
import type { Analysis, Analyzer } from '../fingerprint/analyzer.js'
import { fingerprintToHex, hamming } from '../fingerprint/hamming.js'
import { minhashPart, minhashSimilarity } from '../fingerprint/minhash.js'
import { sketchJaccard } from '../fingerprint/short-text.js'
import { createDeduplicator } from './deduplicator.js'
import { compareOrder, matchCandidate, type Match, type MatchOptions } from './match.js'
import { DEFAULT_DEDUPLICATOR_OPTIONS } from './options.js'

/** What `explainDocuments` says about two stored documents (`simdup explain --json`, `GET /v1/explain`). */
export interface PairReport {
  a: string
  b: string
  distance: number
  k: number
  duplicate: boolean
  layer: string | null
  rule: string | null
  sameContent: boolean
  resemblance: number | null
  termJaccard: number | null
  sameCluster: boolean
  versions: { later: string; supersedes: string | null; newest: string | null } | null
  reasons: string[]
  /** The report as text lines (what `simdup explain` prints). */
  lines: string[]
}

/**
 * Why two stored documents are (not) duplicates: the decision indexing makes for the later one
 * (first-insertion order) against the earlier, with `matchCandidate` (the engine's one rule), its
 * evidence, and how they relate as versions of one URL. `missing`: the ids the store lacks (then no report).
 * @example const { report } = await explainDocuments(store, 'a', 'b', { maxDistance: 3 }) // report.layer === 'simhash'
 */
export async function explainDocuments(
  store: FingerprintStore, ida: string, idb: string, { maxDistance }: { maxDistance: number },
): Promise<{ report: PairReport; records: [FingerprintRecord, FingerprintRecord]; missing: [] } | { report: null; records: null; missing: string[] }> {
  const got = await store.get([ida, idb])
  const missing = [ida, idb].filter((x) => !got.has(x))
  if (missing.length > 0) return { report: null, records: null, missing }
  const a = got.get(ida)!
  const b = got.get(idb)!
  const dedup = createDeduplicator({ store, maxDistance })
  const later = compareOrder(a, b) > 0 ? a : b
  const earlier = later === a ? b : a
  const match = matchCandidate(later, earlier, dedup.options)
  const sameUrl = a.urlHash !== null && a.urlHash === b.urlHash
  const newest = sameUrl ? (await store.byUrl([a.urlHash!], 1))[0]![0]?.id ?? null : null
  const report = explainPair(a, b, maxDistance, match === null ? null : { layer: match.layer, rule: match.rule }, dedup.version, { later, earlier, newest })
  return { report, records: [a, b], missing: [] }
}

/** How two records of one URL relate as versions: which is later, whether it supersedes the other, which record of the URL is newest. */
interface VersionFacts {
  later: FingerprintRecord
  earlier: FingerprintRecord
  /** The newest record of their URL (null: not the same URL). */
  newest: string | null
}

function versionLine(f: VersionFacts): string {
  const { later, earlier, newest } = f
  const link = later.supersedes === earlier.id
    ? `${later.id} supersedes ${earlier.id} (a new version)`
    : later.supersedes !== undefined
      ? `${later.id} is a later version (it supersedes ${later.supersedes})`
      : `${later.id} is a later record of the URL with the same text`
  return `${link}; newest of the URL: ${newest ?? '?'}`
}

function explainPair(a: FingerprintRecord, b: FingerprintRecord, k: number, match: { layer: string; rule: string | null } | null, version: string, versions: VersionFacts): PairReport {
  const distance = hamming(a.fingerprint, b.fingerprint)
  const resemblance = a.sketch?.startsWith('m:') && b.sketch?.startsWith('m:') ? minhashSimilarity(minhashPart(a.sketch), minhashPart(b.sketch)) : null
  const termJaccard = a.sketch?.startsWith('t:') && b.sketch?.startsWith('t:') ? sketchJaccard(a.sketch, b.sketch) : null
  const verdict = match === null ? 'not duplicates' : `duplicates by the ${match.layer} layer${match.rule === null ? '' : ` (${match.rule} rule)`}`
  const reasons: string[] = []
  if (match === null) {
    if (a.version !== b.version || a.version !== version) reasons.push('fingerprint versions differ: only URLs compare')
    if (a.contentHash !== b.contentHash) reasons.push('normalised contents differ')
    if (distance > k) reasons.push(`distance ${distance} > k = ${k}`)
    if (a.short || b.short) reasons.push(a.short && b.short ? 'both are short: texts of ≤ 150 letters and digits need bigram Jaccard ≥ 0.85 (0.75 beyond 40 bigrams, by default) or containment ≥ 0.9 (sizes within 2×) and no differing number or negation; longer low-information texts need term Jaccard ≥ 0.8 within k' : 'one is short, the other not: they take different routes and only the same content matches')
    if (resemblance !== null) reasons.push(`estimated 5-gram resemblance ${resemblance.toFixed(2)} below the MinHash threshold`)
  }
  const lines = [
    `verdict      ${verdict}`,
    `distance     ${distance} (k = ${k})`,
    `a            ${a.id}  ${fingerprintToHex(a.fingerprint)}  cluster ${a.clusterId}${a.short ? '  short' : ''}${a.layer === null ? '' : `  (${a.layer} dup of ${a.duplicateOf})`}`,
    `b            ${b.id}  ${fingerprintToHex(b.fingerprint)}  cluster ${b.clusterId}${b.short ? '  short' : ''}${b.layer === null ? '' : `  (${b.layer} dup of ${b.duplicateOf})`}`,
    `same content ${a.contentHash === b.contentHash}   same url ${a.urlHash !== null && a.urlHash === b.urlHash}   same title ${a.titleHash !== null && a.titleHash === b.titleHash}`,
  ]
  const sameUrl = versions.newest !== null
  if (sameUrl) lines.push(`versions     ${versionLine(versions)}`)
  if (resemblance !== null) lines.push(`resemblance  ${resemblance.toFixed(2)} (MinHash estimate of character 5-gram Jaccard)`)
  if (termJaccard !== null) lines.push(`term jaccard ${termJaccard.toFixed(2)} (short-text term sets)`)
  if (reasons.length > 0) lines.push(`why not      ${reasons.join('; ')}`)
  const versionReport = sameUrl
    ? { later: versions.later.id, supersedes: versions.later.supersedes ?? null, newest: versions.newest }
    : null
  return { a: a.id, b: b.id, distance, k, duplicate: match !== null, layer: match?.layer ?? null, rule: match?.rule ?? null, sameContent: a.contentHash === b.contentHash, resemblance, termJaccard, sameCluster: a.clusterId === b.clusterId, versions: versionReport, reasons, lines }
}

/** Options of `decideTexts`. */
export interface DecideTextsOptions {
  /** SimHash bits that may differ (simhash and short-text rules). @default 3 */
  maxDistance?: number
  /** The MinHash route. @default true */
  minhash?: boolean
}

/**
 * The decision indexing makes for text `b` (the later document) against text `a`: exact content,
 * then the simhash, short-text and minhash rules (`matchCandidate`); URLs and titles are not
 * compared. Null: not duplicates. (`simdup compare`, `POST /v1/compare`.)
 * @example decideTexts(an.analyze('北京大学'), an.analyze('北京大學'), an)?.layer // 'exact'
 */
export function decideTexts(a: Analysis, b: Analysis, analyzer: Analyzer, options: DecideTextsOptions = {}): Match | null {
  const o: MatchOptions = {
    layers: { ...DEFAULT_DEDUPLICATOR_OPTIONS.layers, url: false, title: false },
    maxDistance: options.maxDistance ?? DEFAULT_DEDUPLICATOR_OPTIONS.maxDistance,
    minhash: options.minhash ?? true,
    minResemblance: DEFAULT_DEDUPLICATOR_OPTIONS.minResemblance,
    analyzer,
  }
  return matchCandidate(subject('b', b, analyzer.version), { ...subject('a', a, analyzer.version), clusterId: 'a', duplicateOf: null, distance: null, layer: null, indexedAt: 0 }, o)
}

function subject(id: string, x: Analysis, version: string) {
  return {
    id,
    fingerprint: x.fingerprint,
    blocks: [],
    contentHash: x.contentHash,
    urlHash: null,
    titleHash: null,
    short: x.short,
    version,
    bands: x.bands,
    ...(x.sketch === null ? {} : { sketch: x.sketch }),
  }
}
