import type { CandidateQuery, FingerprintRecord } from '../types.js'
import { DedupError, describeValue } from '../errors.js'
import { hexDigit, isHex16 } from '../bits.js'
import { loneSurrogateAt } from '../unicode.js'

const LAYERS = new Set(['url', 'exact', 'simhash', 'title'])
/** Limits of the log encoding (one length byte). */
const MAX_SHORT_BYTES = 255
const MAX_BLOCKS = 255
const MAX_BANDS = 254

/** Largest sequence number (the embedded store keeps one 32-bit number a row). */
export const MAX_SEQ = 0xffffffff

/** A valid `seq`: an integer from 1 to MAX_SEQ. */
export function isSeq(v: unknown): v is number {
  return Number.isInteger(v) && (v as number) >= 1 && (v as number) <= MAX_SEQ
}

function isU32(v: unknown): boolean {
  return Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0xffffffff
}

function fieldProblem(id: string, name: string, rule: string, value: unknown): string {
  return `Record ${describeValue(id)}: expected \`${name}\` to be ${rule}, got ${describeValue(value)}.`
}

/** No lone UTF-16 surrogate (stored as UTF-8 it would become U+FFFD). */
function wellFormed(s: string): boolean {
  return loneSurrogateAt(s) < 0
}

/** Characters of a string that surely fit in MAX_SHORT_BYTES of UTF-8 (3 bytes per UTF-16 unit at most). */
const SURELY_SHORT = Math.floor(MAX_SHORT_BYTES / 3)

function tooLong(s: string): boolean {
  return s.length > SURELY_SHORT && Buffer.byteLength(s) > MAX_SHORT_BYTES
}

/**
 * Why `record` cannot be stored, or null when it can. The message names the record, the field,
 * the rule and the value, so a caller can fix the producer.
 */
export function recordProblem(record: FingerprintRecord): string | null {
  if (record === null || typeof record !== 'object') return `Expected a record object, got ${describeValue(record)}.`
  const r = record as unknown as Record<string, unknown>
  const id = r.id
  if (typeof id !== 'string' || id.length === 0) return `Expected \`id\` to be a non-empty string, got ${describeValue(id)}.`
  // Stored as UTF-8, a lone surrogate becomes U+FFFD: two ids would become one record.
  if (!wellFormed(id)) return `Record ${describeValue(id)}: expected \`id\` to be well-formed Unicode, got a lone UTF-16 surrogate (it would be stored as U+FFFD and could merge with another id).`
  const fp = r.fingerprint as { hi?: unknown; lo?: unknown } | null
  if (fp === null || typeof fp !== 'object' || !isU32(fp.hi) || !isU32(fp.lo)) {
    return `Record ${describeValue(id)}: expected \`fingerprint\` to be { hi, lo } with two unsigned 32-bit integers, got ${describeValue(fp)}${fp !== null && typeof fp === 'object' ? ` with hi ${describeValue(fp.hi)}, lo ${describeValue(fp.lo)}` : ''}.`
  }
  const blocks = r.blocks
  if (!Array.isArray(blocks) || blocks.length > MAX_BLOCKS) return fieldProblem(id, 'blocks', `an array of at most ${MAX_BLOCKS} strings`, blocks)
  for (const term of blocks) {
    if (typeof term !== 'string' || term.length === 0 || tooLong(term)) {
      return `Record ${describeValue(id)}: expected every block to be a non-empty string of at most ${MAX_SHORT_BYTES} bytes, got ${describeValue(term)}.`
    }
  }
  if (!isHex16(r.contentHash)) return fieldProblem(id, 'contentHash', '16 lower-case hex digits', r.contentHash)
  if (r.urlHash !== null && !isHex16(r.urlHash)) return fieldProblem(id, 'urlHash', 'null or 16 lower-case hex digits', r.urlHash)
  if (r.titleHash !== null && !isHex16(r.titleHash)) return fieldProblem(id, 'titleHash', 'null or 16 lower-case hex digits', r.titleHash)
  if (typeof r.short !== 'boolean') return fieldProblem(id, 'short', 'a boolean', r.short)
  if (typeof r.clusterId !== 'string' || r.clusterId.length === 0) return fieldProblem(id, 'clusterId', 'a non-empty string', r.clusterId)
  if (r.duplicateOf !== null && typeof r.duplicateOf !== 'string') return fieldProblem(id, 'duplicateOf', 'null or a string', r.duplicateOf)
  if (!wellFormed(r.clusterId) || (r.duplicateOf !== null && !wellFormed(r.duplicateOf))) {
    return `Record ${describeValue(id)}: expected \`clusterId\` and \`duplicateOf\` to be well-formed Unicode, got a lone UTF-16 surrogate.`
  }
  if (r.distance !== null && (!Number.isInteger(r.distance) || (r.distance as number) < 0 || (r.distance as number) > 64)) {
    return fieldProblem(id, 'distance', 'null or an integer from 0 to 64', r.distance)
  }
  if (r.layer !== null && !LAYERS.has(r.layer as string)) return fieldProblem(id, 'layer', 'null or one of "url", "exact", "simhash", "title"', r.layer)
  if (typeof r.version !== 'string' || tooLong(r.version)) return fieldProblem(id, 'version', `a string of at most ${MAX_SHORT_BYTES} bytes`, r.version)
  if (typeof r.indexedAt !== 'number' || !Number.isFinite(r.indexedAt)) return fieldProblem(id, 'indexedAt', 'a finite number (ms since the epoch)', r.indexedAt)
  if (r.seq !== undefined && !isSeq(r.seq)) return fieldProblem(id, 'seq', `absent or an integer from 1 to ${MAX_SEQ}`, r.seq)
  if (r.supersedes !== undefined && (typeof r.supersedes !== 'string' || r.supersedes.length === 0 || !wellFormed(r.supersedes))) {
    return fieldProblem(id, 'supersedes', 'absent or a non-empty, well-formed string', r.supersedes)
  }
  if (r.sketch !== undefined && typeof r.sketch !== 'string') return fieldProblem(id, 'sketch', 'a string or absent', r.sketch)
  const bands = r.bands
  if (bands !== undefined) {
    if (!Array.isArray(bands) || bands.length > MAX_BANDS) return fieldProblem(id, 'bands', `absent or an array of at most ${MAX_BANDS} strings`, bands)
    for (const term of bands) {
      if (typeof term !== 'string' || term.length === 0 || tooLong(term)) {
        return `Record ${describeValue(id)}: expected every band to be a non-empty string of at most ${MAX_SHORT_BYTES} bytes, got ${describeValue(term)}.`
      }
    }
  }
  return null
}

/** Throws INVALID_OPTION for a query no store could answer; naming the query's index and field. */
export function checkQuery(q: CandidateQuery, index: number): void {
  const bad = (name: string, rule: string, value: unknown): DedupError =>
    new DedupError('INVALID_OPTION', `Query ${index}: expected \`${name}\` to be ${rule}, got ${describeValue(value)}.`)
  if (q === null || typeof q !== 'object') throw bad('query', 'an object', q)
  const fp = q.fingerprint as { hi?: unknown; lo?: unknown } | null
  if (fp === null || typeof fp !== 'object' || !isU32(fp.hi) || !isU32(fp.lo)) throw bad('fingerprint', '{ hi, lo } with two unsigned 32-bit integers', fp)
  if (!Array.isArray(q.blocks)) throw bad('blocks', 'an array of strings', q.blocks)
  if (!Number.isInteger(q.minMatch) || q.minMatch < 1) throw bad('minMatch', 'an integer ≥ 1', q.minMatch)
  if (!Number.isInteger(q.maxDistance) || q.maxDistance < 0) throw bad('maxDistance', 'an integer ≥ 0', q.maxDistance)
  if (q.maxSeq !== undefined && (typeof q.maxSeq !== 'number' || Number.isNaN(q.maxSeq))) throw bad('maxSeq', 'a number', q.maxSeq)
  if (q.since !== undefined && (typeof q.since !== 'number' || Number.isNaN(q.since))) throw bad('since', 'a number (ms since the epoch)', q.since)
  if (q.known !== undefined && (!Array.isArray(q.known) || !q.known.every((id) => typeof id === 'string'))) throw bad('known', 'an array of ids (strings)', q.known)
  const c = q.bandCheck
  if (c !== undefined) {
    if (c === null || typeof c !== 'object') throw bad('bandCheck', 'an object', c)
    if (!isLetterHex(c.sketch)) throw bad('bandCheck.sketch', 'a letter, `:` and an even number of lower-case hex digits', c.sketch)
    if (!Number.isInteger(c.skipDigits) || c.skipDigits < 0 || c.skipDigits % 2 !== 0 || c.skipDigits > c.sketch.length - 2) throw bad('bandCheck.skipDigits', 'an even integer ≥ 0, at most the sketch\'s digits', c.skipDigits)
    if (!Number.isInteger(c.maxDiffer)) throw bad('bandCheck.maxDiffer', 'an integer', c.maxDiffer)
    for (const key of ['contentHash', 'urlHash', 'titleHash'] as const) {
      if (c[key] !== null && typeof c[key] !== 'string') throw bad(`bandCheck.${key}`, 'a string or null', c[key])
    }
  }
}

/** Whether `s` is a lower-case letter, `:`, then an even number (≥ 2) of lower-case hex digits (a loop: it is checked on every band lookup). */
function isLetterHex(s: unknown): s is string {
  if (typeof s !== 'string' || s.length < 4 || s.length % 2 !== 0 || s.charCodeAt(1) !== 58) return false
  const c = s.charCodeAt(0)
  if (c < 97 || c > 122) return false
  for (let i = 2; i < s.length; i++) if (hexDigit(s.charCodeAt(i)) < 0) return false
  return true
}

/** Throws INVALID_OPTION unless `urlHashes` is an array of 16-hex hashes and `limit` an integer ≥ 0 (`byUrl`). */
export function checkUrlQuery(urlHashes: readonly string[], limit: number): void {
  if (!Array.isArray(urlHashes)) throw new DedupError('INVALID_OPTION', `Expected \`urlHashes\` to be an array, got ${describeValue(urlHashes)}.`)
  urlHashes.forEach((h, i) => {
    if (!isHex16(h)) throw new DedupError('INVALID_OPTION', `Expected \`urlHashes[${i}]\` to be 16 lower-case hex digits (a record's urlHash), got ${describeValue(h)}.`)
  })
  if (!Number.isInteger(limit) || limit < 0) throw new DedupError('INVALID_OPTION', `Expected \`limit\` to be an integer ≥ 0, got ${describeValue(limit)}.`)
}

/** Sort order of `byUrl`: first indexed last first (`seq` descending; a record without one first), then id descending. */
export function newestFirst(a: FingerprintRecord, b: FingerprintRecord): number {
  const sa = a.seq ?? Number.POSITIVE_INFINITY
  const sb = b.seq ?? Number.POSITIVE_INFINITY
  if (sa !== sb) return sa > sb ? -1 : 1
  return a.id > b.id ? -1 : a.id < b.id ? 1 : 0
}

/** `ids` as given, after checking that it is an array of strings (INVALID_OPTION if not). */
export function checkIds(ids: readonly string[]): readonly string[] {
  if (!Array.isArray(ids)) throw new DedupError('INVALID_OPTION', `Expected \`ids\` to be an array of strings, got ${describeValue(ids)}.`)
  for (const id of ids) {
    if (typeof id !== 'string') throw new DedupError('INVALID_OPTION', `Expected every id to be a string, got ${describeValue(id)}.`)
  }
  return ids
}
