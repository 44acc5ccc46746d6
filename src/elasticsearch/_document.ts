import type { FingerprintRecord, Layer, Rule } from '../types.js'
import { DedupError, describeValue } from '../errors.js'
import { fingerprintFromHex, fingerprintToHex, popcount64 } from '../fingerprint/hamming.js'
import { isSeq } from '../store/validate.js'
import { BLOCK_SET_FIELDS, NEWEST_BLOCK_SET_FORMAT, blockSets, type BlockSetFormat } from './_query.js'
import { compactSketch, compactTerms, fromCompact } from './_compact.js'

/** The `dedup` object as stored in Elasticsearch (snake_case, fingerprint as 16 hex). */
export interface DedupSource {
  id: string
  simhash: string
  blocks: string[]
  popcount: number
  content_hash: string
  url_hash: string | null
  title_hash: string | null
  short: boolean
  cluster_id: string
  duplicate_of: string | null
  distance: number | null
  layer: Layer | null
  /** The rule of a simhash-layer duplicate (FingerprintRecord.rule), for Kibana to split by; null otherwise; absent in older documents. */
  rule?: Rule | null
  version: string
  indexed_at: number
  /** First-insertion sequence number (see FingerprintRecord.seq); absent only in documents written before simdup numbered records (refused on open). */
  seq?: number
  /** Explicit null rather than absent, so a partial update into a shared index clears an old sketch. */
  sketch: string | null
  /** LSH band terms; null when the record has none (same reason as `sketch`). */
  bands: string[] | null
  /** Id of the record this one is a new version of (FingerprintRecord.supersedes); null when none; absent in older documents. */
  supersedes?: string | null
  /**
   * The block sets the block route looks up (`blockSets`: derived from `blocks`, never read back),
   * in one format's field: `block_sets` (format 1) or `block_sets_v2` (2); absent in older documents.
   */
  block_sets?: string[]
  block_sets_v2?: string[]
  /**
   * Record format 2 (`compact` layouts): the band terms as `_source` keeps them (`compactTerms`);
   * `bands` and the block sets are then indexed but left out of `_source` by the mapping.
   */
  terms?: string | string[] | null
}

/** The fields a lookup needs back: everything under `dedup` (a shared index's other fields stay on the server). */
export const DEDUP_SOURCE_FIELDS = ['dedup']

/**
 * The document body for one record, with its block sets in format `sets` (null: none, for an
 * index whose records disagree on the format; see `blockSetFormats`); with `compact` (an index of
 * record format 2, see `compactSourceOf`), the sketch and band terms also in their compact forms.
 * @example recordToSource(record).popcount
 */
export function recordToSource(r: FingerprintRecord, sets: BlockSetFormat | null = NEWEST_BLOCK_SET_FORMAT, compact = false): DedupSource {
  const source: DedupSource = {
    id: r.id,
    simhash: fingerprintToHex(r.fingerprint),
    blocks: [...r.blocks],
    // Stored so a lookup can skip records whose bit count alone rules them out.
    popcount: popcount64(r.fingerprint),
    content_hash: r.contentHash,
    url_hash: r.urlHash,
    title_hash: r.titleHash,
    short: r.short,
    cluster_id: r.clusterId,
    duplicate_of: r.duplicateOf,
    distance: r.distance,
    layer: r.layer,
    rule: r.rule ?? null,
    version: r.version,
    indexed_at: r.indexedAt,
    seq: r.seq!,
    sketch: r.sketch ?? null,
    bands: r.bands === undefined ? null : [...r.bands],
    supersedes: r.supersedes ?? null,
  }
  if (sets !== null) source[BLOCK_SET_FIELDS[sets]] = blockSets(r.blocks, sets)
  if (compact) {
    // `bands` stays in the body: the index holds its terms; the mapping keeps it out of `_source`.
    source.terms = r.bands === undefined ? null : compactTerms(r.bands, r.sketch)
    if (r.sketch !== undefined) source.sketch = compactSketch(r.sketch)
  }
  return source
}

const LAYERS: ReadonlySet<string> = new Set<Layer>(['url', 'exact', 'simhash', 'title'])
// Every rule, by a record keyed by the type: a new rule fails the typecheck here until it is listed.
const RULE_NAMES: Record<Rule, true> = { simhash: true, 'short-text': true, containment: true, minhash: true }
const RULES: ReadonlySet<string> = new Set(Object.keys(RULE_NAMES))

function corrupt(docId: string, field: string, value: unknown): DedupError {
  return new DedupError(
    'STORE_CORRUPT',
    `Elasticsearch document \`${docId}\` has an invalid \`dedup.${field}\`: ${describeValue(value)}. Re-index it or delete it.`,
  )
}

function str(v: unknown): v is string {
  return typeof v === 'string'
}

function nullableStr(v: unknown): v is string | null {
  return v === null || v === undefined || typeof v === 'string'
}

/**
 * The record in a hit's `_source`, or null when the document has no `dedup` object (a shared
 * content index holds documents that were never fingerprinted). Throws STORE_CORRUPT on a
 * malformed `dedup` object rather than guessing. `compact`: the index is of record format 2 (its
 * `_source` keeps no `bands`), so a record without `terms` was written by an older simdup.
 */
export function sourceToRecord(docId: string, source: unknown, compact = false): FingerprintRecord | null {
  const d = (source as { dedup?: unknown } | null | undefined)?.dedup
  if (d === undefined || d === null) return null
  if (typeof d !== 'object') throw corrupt(docId, '', d)
  const s = d as Record<string, unknown>
  if (!str(s.id)) throw corrupt(docId, 'id', s.id)
  if (!str(s.simhash)) throw corrupt(docId, 'simhash', s.simhash)
  let fingerprint
  try {
    fingerprint = fingerprintFromHex(s.simhash)
  } catch (cause) {
    throw new DedupError('STORE_CORRUPT', `Elasticsearch document \`${docId}\` has an invalid \`dedup.simhash\`: ${describeValue(s.simhash)}.`, { cause })
  }
  const blocks = s.blocks === undefined || s.blocks === null ? [] : typeof s.blocks === 'string' ? [s.blocks] : s.blocks
  if (!Array.isArray(blocks) || !blocks.every(str)) throw corrupt(docId, 'blocks', s.blocks)
  if (!str(s.content_hash)) throw corrupt(docId, 'content_hash', s.content_hash)
  if (!nullableStr(s.url_hash)) throw corrupt(docId, 'url_hash', s.url_hash)
  if (!nullableStr(s.title_hash)) throw corrupt(docId, 'title_hash', s.title_hash)
  if (typeof s.short !== 'boolean') throw corrupt(docId, 'short', s.short)
  if (!str(s.cluster_id)) throw corrupt(docId, 'cluster_id', s.cluster_id)
  if (!nullableStr(s.duplicate_of)) throw corrupt(docId, 'duplicate_of', s.duplicate_of)
  const distance = s.distance ?? null
  if (distance !== null && !Number.isInteger(distance)) throw corrupt(docId, 'distance', s.distance)
  const layer = s.layer ?? null
  if (layer !== null && !(str(layer) && LAYERS.has(layer))) throw corrupt(docId, 'layer', s.layer)
  if (!str(s.version)) throw corrupt(docId, 'version', s.version)
  const indexedAt = typeof s.indexed_at === 'string' ? Number(s.indexed_at) : s.indexed_at
  if (typeof indexedAt !== 'number' || !Number.isFinite(indexedAt)) throw corrupt(docId, 'indexed_at', s.indexed_at)
  const seq = typeof s.seq === 'string' ? Number(s.seq) : s.seq
  if (seq !== undefined && seq !== null && !isSeq(seq)) throw corrupt(docId, 'seq', s.seq)
  if (!nullableStr(s.sketch)) throw corrupt(docId, 'sketch', s.sketch)
  let sketch = s.sketch ?? null
  let bands: string[] | undefined
  if (compact) {
    if (!('terms' in s)) {
      throw new DedupError(
        'STORE_CORRUPT',
        `Elasticsearch document \`${docId}\` has no \`dedup.terms\`: it was written by a simdup older than record format 2 into an index of that format (its band terms are not in \`_source\`). Re-index it with this version, or delete it.`,
      )
    }
    const decoded = fromCompact(s.sketch, s.terms)
    if ('bad' in decoded) throw corrupt(docId, decoded.bad, decoded.bad === 'sketch' ? s.sketch : s.terms)
    sketch = decoded.sketch
    bands = decoded.bands
  } else {
    // Elasticsearch keeps a one-element array as written, but a hand-made document may hold a bare string.
    const stored = s.bands === undefined || s.bands === null ? undefined : typeof s.bands === 'string' ? [s.bands] : s.bands
    if (stored !== undefined && !(Array.isArray(stored) && stored.every(str))) throw corrupt(docId, 'bands', s.bands)
    bands = stored as string[] | undefined
  }
  const rule = s.rule ?? null
  if (rule !== null && !(str(rule) && RULES.has(rule))) throw corrupt(docId, 'rule', s.rule)
  if (!nullableStr(s.supersedes) || s.supersedes === '') throw corrupt(docId, 'supersedes', s.supersedes)
  const record: FingerprintRecord = {
    id: s.id,
    fingerprint,
    blocks,
    contentHash: s.content_hash,
    urlHash: s.url_hash ?? null,
    titleHash: s.title_hash ?? null,
    short: s.short,
    clusterId: s.cluster_id,
    duplicateOf: s.duplicate_of ?? null,
    distance: distance as number | null,
    layer: layer as Layer | null,
    version: s.version,
    indexedAt,
  }
  if (isSeq(seq)) record.seq = seq
  if (rule !== null) record.rule = rule as Rule
  if (sketch !== null) record.sketch = sketch
  if (bands !== undefined) record.bands = bands
  if (s.supersedes !== null && s.supersedes !== undefined) record.supersedes = s.supersedes
  return record
}
