import { describeValue } from '../errors.js'
import type { InputDocument } from '../types.js'
import { stripTerminalEscapes } from '../normalize/text.js'
import { loneSurrogateAt } from '../unicode.js'

/** A document that passed validation, or the reason it did not. */
export type Validated = { ok: true; doc: InputDocument } | { ok: false; id: string | null; reason: string }

/** Longest accepted id, in UTF-16 code units. */
export const MAX_ID_LENGTH = 512

/** Share of control characters (other than \t \n \r) above which content is called binary. */
const BINARY_CONTROL_SHARE = 0.1

/**
 * Checks a parsed JSONL value against the input shape `{id, content, url?, title?}`. Reasons name
 * the field and what was wrong; the caller adds the line.
 * @example validateDocument({ id: 'a', content: '你好' }, 1e7) // { ok: true, doc: … }
 */
export function validateDocument(value: unknown, maxContentLength: number): Validated {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, id: null, reason: `expected a JSON object with fields \`id\` and \`content\`, got ${describeValue(value)}` }
  }
  const v = value as Record<string, unknown>
  const rawId = v.id
  // Numeric ids are common in exports; accept integers and keep them as their decimal string.
  const id = typeof rawId === 'string' ? rawId : typeof rawId === 'number' && Number.isSafeInteger(rawId) ? String(rawId) : null
  if (id === null || id.length === 0) {
    const unsafe = typeof rawId === 'number' && Number.isInteger(rawId) ? ' (an integer beyond 2^53 loses digits in JSON: quote it)' : ''
    return { ok: false, id: null, reason: `expected field \`id\` to be a non-empty string or an integer, got ${describeValue(rawId)}${unsafe}` }
  }
  if (id.length > MAX_ID_LENGTH) return { ok: false, id: null, reason: `expected field \`id\` of at most ${MAX_ID_LENGTH} characters, got ${id.length}` }
  const lone = loneSurrogateAt(id)
  if (lone >= 0) {
    // UTF-8 (the log, Elasticsearch's JSON) turns every lone surrogate into U+FFFD: two such ids
    // would become one stored record.
    const unit = id.charCodeAt(lone).toString(16).toUpperCase()
    return { ok: false, id, reason: `field \`id\` is not valid Unicode: a lone surrogate \\u${unit} at character ${lone + 1} (ids must be well-formed UTF-16: stored as UTF-8, it would become U+FFFD)` }
  }
  const content = v.content
  if (typeof content !== 'string') {
    return { ok: false, id, reason: `expected a string field \`content\`, got ${describeValue(content)}` }
  }
  if (content.trim().length === 0) return { ok: false, id, reason: 'field `content` is empty' }
  if (content.length > maxContentLength) {
    return { ok: false, id, reason: `field \`content\` has ${content.length} characters, more than the limit of ${maxContentLength} (maxContentLength)` }
  }
  const binary = binaryReason(content)
  if (binary !== null) return { ok: false, id, reason: binary }
  for (const field of ['url', 'title'] as const) {
    const f = v[field]
    if (f !== undefined && f !== null && typeof f !== 'string') {
      return { ok: false, id, reason: `expected field \`${field}\` to be a string or null, got ${describeValue(f)}` }
    }
  }
  const doc: InputDocument = { id, content }
  if (typeof v.url === 'string') doc.url = v.url
  if (typeof v.title === 'string') doc.title = v.title
  return { ok: true, doc }
}

/**
 * Binary junk is judged on what the text says: terminal escape sequences (colours in quote files
 * and logs) are markup that normalisation strips, so they are removed before counting controls;
 * so is overstrike (`X\bX` bold, `_\bX` underline, as man pages come from groff for a tty): a
 * backspace between two printable characters, which normalisation resolves to the second one.
 */
function binaryReason(raw: string): string | null {
  const nul = raw.indexOf('\0')
  if (nul !== -1) return `field \`content\` contains a NUL character at offset ${nul}: binary data, not text`
  const content = stripTerminalEscapes(raw)
  if (content.trim().length === 0) return 'field `content` holds only terminal escape sequences, no text'
  let controls = 0
  let replacement = 0
  let n = content.length
  const printable = (c: number): boolean => c >= 0x20 && c !== 0x7f // NaN (out of range) is not
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i)
    if (c === 8 && printable(content.charCodeAt(i - 1)) && printable(content.charCodeAt(i + 1))) {
      // Overstrike: the backspace and the struck character (one or two UTF-16 units) go.
      const struck = content.charCodeAt(i - 1)
      n -= struck >= 0xdc00 && struck <= 0xdfff && i >= 2 ? 3 : 2
    } else if ((c < 0x20 && c !== 9 && c !== 10 && c !== 13) || c === 0x7f) controls++
    else if (c === 0xfffd) replacement++
  }
  if (controls > n * BINARY_CONTROL_SHARE) {
    return `field \`content\` is ${Math.round((controls / n) * 100)}% control characters: binary data, not text`
  }
  if (replacement > n * BINARY_CONTROL_SHARE) {
    return `field \`content\` is ${Math.round((replacement / n) * 100)}% U+FFFD replacement characters: mis-decoded binary data`
  }
  return null
}
