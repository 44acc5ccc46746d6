/**
 * Plain-text normalisation: one char-code pass does the cheap work (removal, full-width folding,
 * ASCII lower-casing, whitespace) and records which costlier stages the kept characters need
 * (NFKC, Traditional → Simplified, non-ASCII lower-casing); only those then run.
 */
import * as classes from './_char-class.js'
import { resolveNormalizeOptions, type NormalizeOptions, type ResolvedNormalizeOptions } from './options.js'
import { convertTraditional } from './_opencc.js'
import { KEEP_UNITS } from './_dict-converter.js'

// Local copies of the class constants: under vite-node (tests, benches) each use of an imported
// binding is a getter call, which made the hot loop several times slower than the built code.
const {
  ACTION_MASK, astralClass, BACKSPACE, BMP_CLASSES, classifyBmp, CASED, CR, DROP, EMOJI, ESC,
  FULLWIDTH, HIGH_SURROGATE, KEEP, NEEDS_NFKC, NEWLINE, SPACE, TRADITIONAL, UNKNOWN, UPPER_ASCII,
} = classes

// Output never outgrows the input (mappings are 1:1, everything else removes), so one buffer of
// the input's length suffices; it is reused for texts up to 1 M units to spare the allocation.
let shared = new Uint16Array(4096)
const decoder = new TextDecoder('utf-16le')

// Side results of the last scan(), kept in module state to avoid allocating a result object.
let scanFlags = 0
let scanTraditional = 0

function skipControlSequence(text: string, k: number): number {
  // ECMA-48 CSI: parameter and intermediate bytes 0x20–0x3F, then one final byte 0x40–0x7E.
  const n = text.length
  while (k < n) {
    const c = text.charCodeAt(k)
    if (c < 0x20 || c > 0x3f) break
    k++
  }
  if (k < n) {
    const c = text.charCodeAt(k)
    if (c >= 0x40 && c <= 0x7e) k++
  }
  return k
}

function skipControlString(text: string, k: number): number {
  // OSC/DCS/SOS/PM/APC run to BEL or ST (ESC \ or U+009C). An unterminated one stops at the end
  // of its line rather than swallowing the rest of the document. (C1 controls on their own are
  // only dropped, never parsed as introducers: in real text they are mis-decoded bytes.)
  const n = text.length
  while (k < n) {
    const c = text.charCodeAt(k)
    if (c === 0x07 || c === 0x9c) return k + 1
    if (c === 0x1b) return text.charCodeAt(k + 1) === 0x5c ? k + 2 : k
    if (c === 0x0a || c === 0x0d) return k
    k++
  }
  return k
}

function skipEscape(text: string, i: number): number {
  // Returns the index of the last unit of the sequence that starts with ESC at i.
  const next = text.charCodeAt(i + 1)
  if (next === 0x5b) return skipControlSequence(text, i + 2) - 1 // ESC [
  if (next === 0x5d || next === 0x50 || next === 0x58 || next === 0x5e || next === 0x5f) {
    return skipControlString(text, i + 2) - 1 // ESC ] (OSC), P (DCS), X, ^, _
  }
  // nF sequences (ESC ( B designates ASCII). A space after ESC is not taken as an intermediate
  // byte: ESC SP F is all but unused, and "\x1b Word" should keep its word.
  if (next >= 0x21 && next <= 0x2f) {
    let k = i + 1
    while (k < text.length && text.charCodeAt(k) >= 0x21 && text.charCodeAt(k) <= 0x2f) k++
    const c = text.charCodeAt(k)
    return c >= 0x30 && c <= 0x7e ? k : k - 1
  }
  if (next >= 0x30 && next <= 0x7e) return i + 1 // two-character escape (ESC 7, ESC c, …)
  return i // a lone ESC
}

/**
 * The text without its terminal escape sequences (ANSI/ECMA-48: CSI such as SGR colours
 * `\x1b[33m`, OSC/DCS strings, nF and two-character escapes), parsed exactly as normalisation
 * parses them; everything else is kept as it was. Used to judge "binary" on what a document says,
 * not on its colour codes.
 * @example stripTerminalEscapes('\x1b[33m李白\x1b[m') // '李白'
 */
export function stripTerminalEscapes(text: string): string {
  let i = text.indexOf('\x1b')
  if (i === -1) return text
  let out = ''
  let from = 0
  while (i !== -1) {
    out += text.slice(from, i)
    from = skipEscape(text, i) + 1
    i = text.indexOf('\x1b', from)
  }
  return out + text.slice(from)
}

function classAt(buf: Uint16Array, end: number): number {
  const c = buf[end - 1]!
  if (c >= 0xdc00 && c <= 0xdfff && end >= 2) return astralClass(((buf[end - 2]! - 0xd800) << 10) + (c - 0xdc00) + 0x10000)
  return BMP_CLASSES[c]! // every unit in the output has been classified on its way in
}

/**
 * The single pass. Removes what must go, folds full-width ASCII, lower-cases ASCII (when asked),
 * collapses horizontal whitespace to one space and line breaks to one `\n`, trims lines. Sets
 * scanFlags (OR of the kept characters' flags) and scanTraditional (how many are Traditional-only).
 */
function scan(text: string, o: ResolvedNormalizeOptions): string {
  const n = text.length
  const table = BMP_CLASSES
  let buf = shared
  if (buf.length < n) {
    buf = new Uint16Array(Math.max(n, buf.length * 2))
    if (n <= KEEP_UNITS) shared = buf
  }
  const { lowercase, removeEmoji, keepLineBreaks } = o
  let j = 0
  let mutated = false
  let pending = 0 // whitespace owed before the next kept character: 0 none, 32 space, 10 newline
  let flags = 0
  let traditional = 0
  for (let i = 0; i < n; i++) {
    let c = text.charCodeAt(i)
    let cls = table[c]!
    if (cls === UNKNOWN) cls = classifyBmp(c)
    const action = cls & ACTION_MASK
    if (action === KEEP) {
      flags |= cls
      if ((cls & TRADITIONAL) !== 0) traditional++
    } else if (action === UPPER_ASCII) {
      if (lowercase) {
        c += 32
        mutated = true
      }
    } else if (action === SPACE) {
      if (c !== 32) mutated = true
      if (j > 0 && pending === 0) pending = 32
      continue
    } else if (action === NEWLINE || action === CR) {
      if (action === CR && text.charCodeAt(i + 1) === 10) i++
      if (c !== 10 || !keepLineBreaks) mutated = true
      if (j > 0) pending = keepLineBreaks ? 10 : pending === 0 ? 32 : pending
      continue
    } else if (action === FULLWIDTH) {
      c -= 0xfee0
      if (lowercase && c >= 0x41 && c <= 0x5a) c += 32
      mutated = true
    } else if (action === HIGH_SURROGATE) {
      const d = text.charCodeAt(i + 1)
      if (!(d >= 0xdc00 && d <= 0xdfff)) continue // lone high surrogate (d is NaN at the end)
      i++
      const acls = astralClass(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000)
      const a = acls & ACTION_MASK
      if (a === DROP || (a === EMOJI && removeEmoji)) continue
      flags |= acls
      if ((acls & TRADITIONAL) !== 0) traditional++
      if (pending !== 0) {
        buf[j++] = pending
        pending = 0
      }
      buf[j++] = c
      buf[j++] = d
      continue
    } else if (action === EMOJI) {
      if (removeEmoji) continue
    } else if (action === ESC) {
      i = skipEscape(text, i)
      continue
    } else if (action === BACKSPACE) {
      // Overstrike: the backspace and the character it strikes count once ("X\bX", "_\bX"). As
      // on a terminal, a backspace at the start of a line stays there: it never joins two lines.
      if (pending === 10) continue
      if (pending !== 0) pending = 0
      else if (j > 0) {
        if ((classAt(buf, j) & TRADITIONAL) !== 0) traditional--
        const last = buf[j - 1]!
        j -= last >= 0xdc00 && last <= 0xdfff && j >= 2 ? 2 : 1
        // Keep the invariant that the output never ends in whitespace: turn it back into debt.
        const prev = buf[j - 1]
        if (prev === 32 || prev === 10) {
          pending = prev
          j--
        }
      }
      continue
    } else {
      continue // DROP, lone low surrogate
    }
    if (pending !== 0) {
      buf[j++] = pending
      pending = 0
    }
    buf[j++] = c
  }
  scanFlags = flags
  scanTraditional = traditional
  if (!mutated && j === n) return text
  return decoder.decode(buf.subarray(0, j))
}

/** A letter of any script: a frame without one (escapes out) is a bar, a percentage, a counter or a spinner. */
const WORD_RE = /\p{L}/u

/**
 * A bare carriage return (not right before a line feed) moves back to the start of its line, as
 * on a terminal: what follows overwrites the line, so a progress bar or spinner captured from a
 * terminal ("10%\r50%\r100%\n") leaves its last frame, not every frame. Only in text that has
 * line feeds: with none at all it is an old Mac file, whose carriage returns end lines. A line so
 * redrawn whose last frame has no word in it (no letter of any script once escapes are out: a bar
 * of `#` and a percentage, a spinner, a counter) is a progress display, not text: it goes. So does
 * a line drawn three times or more, whatever its last frame says ("Receiving objects: 100% (402/402),
 * done." after `git clone`'s frames): a line redrawn in a loop is a status display, and written
 * text is never drawn over twice.
 */
function overwriteCarriageReturns(text: string): string {
  if (!text.includes('\r') || !text.includes('\n')) return text
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!
    let end = line.length
    while (end > 0 && line.charCodeAt(end - 1) === 0x0d) end--
    const at = line.lastIndexOf('\r', end - 1)
    // Drawn three times or more (two carriage returns inside it): a live status line.
    const redrawn = at > 0 && line.lastIndexOf('\r', at - 1) >= 0
    if (at >= 0 || end < line.length) line = line.slice(at + 1, end)
    if (redrawn || (at >= 0 && !WORD_RE.test(stripTerminalEscapes(line)))) line = ''
    lines[i] = line
  }
  return lines.join('\n')
}

/**
 * Normalises plain text for fingerprinting:
 * - removes ANSI escape sequences (CSI, OSC, …) and overstrike (`X\bX`), control, format,
 *   zero-width and bidi characters, private-use characters, lone surrogates, U+FFFD;
 * - removes emoji and pictographs with their skin tones, flags, keycaps and ZWJ sequences (a
 *   keycap keeps its digit);
 * - folds full-width ASCII and the ideographic space to ASCII, then NFKC;
 * - lower-cases (locale-independent);
 * - converts Traditional Chinese (Taiwan and Hong Kong usage, regional vocabulary) to Simplified,
 *   only when the text holds a Traditional-only character;
 * - collapses horizontal whitespace to one space, keeps line breaks as single `\n` between
 *   non-empty lines, trims every line.
 * Latin words and numbers are content and are kept. Each step can be turned off ({@link NormalizeOptions}).
 *
 * Idempotent (`normalizeText(normalizeText(x)) === normalizeText(x)`) and total: any string,
 * including lone surrogates and binary junk, gives a string. Throws only for invalid options.
 *
 * @example normalizeText('  這是ＴＥＳＴ軟體 🎉\r\n\r\n第二行 ') // '这是test软件\n第二行' ("this is TEST software / line two")
 */
export function normalizeText(text: string, options?: NormalizeOptions): string {
  const o = resolveNormalizeOptions(options)
  if (typeof text !== 'string') text = String(text ?? '')
  let s = scan(overwriteCarriageReturns(text), o)
  let flags = scanFlags
  if (o.foldCompatibility && (flags & NEEDS_NFKC) !== 0) {
    const folded = s.normalize('NFKC')
    if (folded !== s) {
      // NFKC can introduce spaces (U+00A8 → space + U+0308) and capitals (ℌ → H): scan again.
      s = scan(folded, o)
      flags = scanFlags
    }
  }
  // Lower-case before converting (the dictionaries are lower-cased to match, so no capital comes
  // out of them either): then the whole text is lower-cased in one place.
  if (o.lowercase && (flags & CASED) !== 0) {
    const lowered = s.toLowerCase()
    // Lower-casing can leave text un-normalised (İ → i + U+0307 lands after a lower-class mark,
    // ΐ comes out decomposed), so compose once more.
    if (lowered !== s) s = o.foldCompatibility && (flags & NEEDS_NFKC) !== 0 ? lowered.normalize('NFKC') : lowered
  }
  if (o.simplify && scanTraditional > 0) s = convertTraditional(s, o.regionalPhrases, o.lowercase)
  return s
}
