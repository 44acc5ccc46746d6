/**
 * One input line: its 1-based number and text, or why it could not be read as text. An over-long
 * line keeps its start (`head`, up to `HEAD_BYTES`) and, when that start names it, its `id`.
 */
export type JsonlLine = { line: number; text: string } | { line: number; error: string; head?: string; id?: string; bytes?: number }

/** Bytes of an over-long line kept as its `head`: enough for the id and the start of the text. */
export const HEAD_BYTES = 4096

/** Options of `readLines`. */
export interface ReadLinesOptions {
  /** Longer lines are rejected (and skipped without buffering them whole). @default 8 MiB */
  maxLineBytes?: number
}

export const DEFAULT_MAX_LINE_BYTES = 8 * 1024 * 1024

/**
 * Splits a byte stream into lines (LF or CRLF), decoding each as strict UTF-8. Blank lines are
 * skipped (they get no decision) but still counted, so line numbers match the file.
 * @example for await (const l of readLines(createReadStream('docs.jsonl'))) …
 */
export async function* readLines(source: AsyncIterable<Uint8Array | string>, options: ReadLinesOptions = {}): AsyncGenerator<JsonlLine> {
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
  const decoder = new TextDecoder('utf-8', { fatal: true })
  let parts: Buffer[] = []
  let size = 0
  let skipping = false // inside an over-long line
  let head: Buffer | null = null // its first HEAD_BYTES
  let skipped = 0 // its bytes
  let lineNo = 0
  const finish = (): JsonlLine | null => {
    lineNo++
    if (skipping) {
      skipping = false
      const start = new TextDecoder('utf-8').decode(head ?? Buffer.alloc(0)).replace(/\uFFFD$/, '')
      head = null
      const id = leadingId(start)
      return { line: lineNo, error: `line is longer than the limit of ${max} bytes (maxLineBytes)`, head: start, bytes: skipped, ...(id === null ? {} : { id }) }
    }
    let buf = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)
    parts = []
    size = 0
    if (buf.length > 0 && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1)
    if (isBlank(buf)) return null
    let start = 0
    if (lineNo === 1 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) start = 3 // BOM
    try {
      return { line: lineNo, text: decoder.decode(buf.subarray(start)) }
    } catch {
      return { line: lineNo, error: `line is not valid UTF-8 (first bad byte near offset ${firstInvalidUtf8(buf)})`, bytes: buf.length }
    }
  }
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    let pos = 0
    while (pos < bytes.length) {
      const nl = bytes.indexOf(0x0a, pos)
      const end = nl < 0 ? bytes.length : nl
      if (skipping) skipped += end - pos
      else {
        if (size + (end - pos) > max) {
          skipping = true
          const all = Buffer.concat([...parts, bytes.subarray(pos, end)])
          head = Buffer.from(all.subarray(0, Math.min(HEAD_BYTES, all.length)))
          skipped = all.length
          parts = []
          size = 0
        } else if (end > pos) {
          parts.push(bytes.subarray(pos, end))
          size += end - pos
        }
      }
      if (nl < 0) break
      const out = finish()
      if (out !== null) yield out
      pos = nl + 1
    }
  }
  if (size > 0 || skipping) {
    const out = finish()
    if (out !== null) yield out
  }
}

/**
 * The id of a JSON object line from its start alone, when `id` is its first key (as simdup's
 * own examples write it): `{"id": "a1", "content": …` → `a1`; an integer id as its decimal string.
 */
export function leadingId(start: string): string | null {
  // eslint-disable-next-line no-control-regex -- a JSON string holds no raw control characters
  const m = /^\s*\{\s*"id"\s*:\s*("(?:[^"\\\u0000-\u001f]|\\.)*"|-?\d+)\s*[,}]/.exec(start)
  if (m === null) return null
  try {
    const v = JSON.parse(m[1]!) as unknown
    return typeof v === 'string' ? v : Number.isSafeInteger(v) ? String(v) : null
  } catch {
    return null
  }
}

function isBlank(buf: Buffer): boolean {
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]!
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false
  }
  return true
}

function firstInvalidUtf8(buf: Buffer): number {
  // Walk the bytes with the UTF-8 state machine just far enough to name the offset.
  let i = 0
  while (i < buf.length) {
    const b = buf[i]!
    const n = b < 0x80 ? 1 : b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0
    if (n === 0 || i + n > buf.length) return i
    for (let k = 1; k < n; k++) if ((buf[i + k]! & 0xc0) !== 0x80) return i
    i += n
  }
  return i
}

/**
 * Parses one line's JSON; a syntax error becomes a reason naming the line.
 * @example parseJsonLine({ line: 3, text: '{"id":"a"}' })
 */
export function parseJsonLine(l: JsonlLine): { value: unknown; line: number } | { rejected: string; line: number; id: string | null } {
  if ('error' in l) return { rejected: l.error, line: l.line, id: l.id ?? null }
  try {
    return { value: JSON.parse(l.text) as unknown, line: l.line }
  } catch (err) {
    return { rejected: `invalid JSON: ${(err as Error).message}`, line: l.line, id: null }
  }
}
