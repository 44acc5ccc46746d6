import type { Fingerprint, FingerprintRecord } from '../types.js'
import { contentKey } from '../fingerprint/hash.js'
import type { Analyzer } from '../fingerprint/analyzer.js'
import { fingerprintBlocks, type BlockScheme } from '../fingerprint/blocks.js'
import { hash64Hex } from '../fingerprint/hash.js'
import { canonicalUrl, normalizeText } from '../normalize/index.js'
import { TITLE_NORMALIZE_OPTIONS, isGenericNormalizedTitle } from '../normalize/title.js'
import { validateDocument } from './validate.js'
import { hostOf } from './templates.js'
import { htmlSiteKey, looksLikeHtml } from '../normalize/html.js'

/** Canonical URL options of the url layer's key. */
const URL_KEY_OPTIONS = Object.freeze({ keepFragment: true })

/**
 * The url layer's key of a URL as records store it (`FingerprintRecord.urlHash`): the hash of its
 * canonical form, fragment kept; null when it is not an http(s) URL.
 * @example urlKey('https://example.com/a?utm_source=x#s5') === urlKey('HTTPS://Example.com/a#s5') // true
 */
export function urlKey(url: string): string | null {
  const canonical = canonicalUrl(url, URL_KEY_OPTIONS)
  return canonical === null ? null : hash64Hex(canonical)
}

/** One incoming line: a parsed JSON value, or a line already rejected upstream (bad JSON, bad UTF-8). */
export type IncomingItem =
  | { value: unknown; line?: number | null }
  | { rejected: string; line?: number | null; id?: string | null }

/**
 * A validated, analysed document ready for deciding: plain data (structured-cloneable), so the
 * expensive prepare step can run in worker threads while deciding stays in input order.
 */
export interface PreparedDocument {
  id: string
  line: number | null
  fingerprint: Fingerprint
  blocks: string[]
  contentHash: string
  urlHash: string | null
  titleHash: string | null
  short: boolean
  sketch: string | null
  bands: string[]
  /**
   * Site of the document, for the template layer: its URL's host (`hostOf`), else for an HTML page
   * the signature of its head (`htmlSiteKey`); null for plain text without a URL.
   */
  host: string | null
  /** The normalised text (the template layer filters its lines). */
  normalized: string
}

/** Result of preparing one item: a prepared document or a rejection. */
export type PreparedItem = { ok: true; doc: PreparedDocument } | { ok: false; id: string | null; line: number | null; reason: string }

/** What preparing needs: no store. */
export interface PrepareOptions {
  readonly analyzer: Analyzer
  readonly blockScheme: BlockScheme
  readonly maxContentLength: number
}

/**
 * Validation + analysis of one item: pure CPU.
 * @example prepareItem({ value: { id: 'a', content: '你好' }, line: 1 }, options)
 */
export function prepareItem(item: IncomingItem, o: PrepareOptions): PreparedItem {
  const line = item.line ?? null
  if ('rejected' in item) return { ok: false, id: item.id ?? null, line, reason: item.rejected }
  const v = validateDocument(item.value, o.maxContentLength)
  if (!v.ok) return { ok: false, id: v.id, line, reason: v.reason }
  const { doc } = v
  const analysis = o.analyzer.analyze(doc.content)
  if (analysis.normalized.length === 0) {
    return { ok: false, id: doc.id, line, reason: 'field `content` is empty after normalisation (only markup, emoji or control characters)' }
  }
  // The url layer keys sections of one page (`ch06.html#s5`, `#s6`) apart: see decide's url rule.
  const url = doc.url == null ? null : canonicalUrl(doc.url, URL_KEY_OPTIONS)
  const urlHash = url === null ? null : hash64Hex(url)
  const host = hostOf(url) ?? (looksLikeHtml(doc.content) ? htmlSiteKey(doc.content) : null)
  const title = doc.title == null ? '' : normalizeText(doc.title, TITLE_NORMALIZE_OPTIONS)
  return {
    ok: true,
    doc: {
      id: doc.id,
      line,
      fingerprint: analysis.fingerprint,
      blocks: fingerprintBlocks(analysis.fingerprint, o.blockScheme),
      contentHash: analysis.contentHash,
      urlHash,
      titleHash: title === '' || isGenericNormalizedTitle(title) ? null : hash64Hex(title),
      short: analysis.short,
      sketch: analysis.sketch,
      bands: analysis.bands,
      host,
      normalized: analysis.normalized,
    },
  }
}

/**
 * `prepareItem` without the analysis, for `resume`: when the item's normalised text, URL and title
 * give the keys of `record` (its stored copy), the prepared document takes its fingerprint, blocks,
 * sketch and bands from the record (the analysis of an equal text is equal). Null when anything
 * differs, or the item is not a valid document: it is then prepared in full. Costs the
 * normalisation only (segmenting is most of `prepareItem`).
 */
export function prepareFromRecord(item: IncomingItem, o: PrepareOptions, record: FingerprintRecord): PreparedItem | null {
  if ('rejected' in item || record.partial === true || record.version !== o.analyzer.version) return null
  const v = validateDocument(item.value, o.maxContentLength)
  if (!v.ok || v.doc.id !== record.id) return null
  const { doc } = v
  const normalized = o.analyzer.normalize(doc.content)
  if (normalized.length === 0 || contentKey(normalized) !== record.contentHash) return null
  const url = doc.url == null ? null : canonicalUrl(doc.url, URL_KEY_OPTIONS)
  const urlHash = url === null ? null : hash64Hex(url)
  const title = doc.title == null ? '' : normalizeText(doc.title, TITLE_NORMALIZE_OPTIONS)
  const titleHash = title === '' || isGenericNormalizedTitle(title) ? null : hash64Hex(title)
  if (urlHash !== record.urlHash || titleHash !== record.titleHash) return null
  const blocks = fingerprintBlocks(record.fingerprint, o.blockScheme)
  if (blocks.length !== record.blocks.length || blocks.some((b, i) => b !== record.blocks[i])) return null
  return {
    ok: true,
    doc: {
      id: doc.id,
      line: item.line ?? null,
      fingerprint: record.fingerprint,
      blocks,
      contentHash: record.contentHash,
      urlHash,
      titleHash,
      short: record.short,
      sketch: record.sketch ?? null,
      bands: record.bands === undefined ? [] : [...record.bands],
      host: hostOf(url) ?? (looksLikeHtml(doc.content) ? htmlSiteKey(doc.content) : null),
      normalized,
    },
  }
}
