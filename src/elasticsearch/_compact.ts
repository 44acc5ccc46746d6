import { hex32, hex32At } from '../bits.js'
import { GRAM_FIGURES_MARK, GRAM_SET_PREFIX, GRAM_TERM_PREFIX } from '../fingerprint/short-grams.js'

/*
 * The compact `_source` forms of record format 2 (see `RECORD_FORMAT` in _document.ts): a short
 * text's gram set and its prefix-filter terms are most of a record's `_source` in the hex forms
 * the engine uses (`s:` + 8 hex digits a gram, `s_` + 8 hex digits a term: ~820 + ~830 bytes for a
 * text of ~100 grams). A gram is two UTF-16 units of the text, exact; so the set is written as the
 * runs of text that walk its grams (one unit a gram, plus one a run), and the terms as the places
 * of their grams in the sorted set. Both decode to exactly the strings the engine made.
 */

/** Prefix of a gram set written as runs of text (the hex form starts with `s:`). */
export const GRAM_RUNS_PREFIX = 'r:'
/** Separates two runs: a unit no run holds (see `plainUnit`). */
const RUN_SEPARATOR = ' '
/** Prefix of prefix-filter terms written as places in the record's gram set. */
export const TERM_PLACES_PREFIX = '@'
/** URL-safe base64 digits: two a place (a set has at most 2^12 grams here). */
const DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const DIGIT_VALUE = new Int8Array(128).fill(-1)
for (let i = 0; i < DIGITS.length; i++) DIGIT_VALUE[DIGITS.charCodeAt(i)] = i
const MAX_PLACES = 64 * 64

/** The sorted distinct gram keys of an `s:` sketch, or null when it is not one (hex digits, ascending, distinct). */
function sketchKeys(whole: string): number[] | null {
  // The figures after the mark (simdup-fp/15) are no grams: hex digits, 8 a figure.
  const mark = whole.indexOf(GRAM_FIGURES_MARK)
  if (mark >= 0 && !/^(?:[0-9a-f]{8})+$/u.test(whole.slice(mark + 1))) return null
  const sketch = mark < 0 ? whole : whole.slice(0, mark)
  const p = GRAM_SET_PREFIX.length
  if (!sketch.startsWith(GRAM_SET_PREFIX) || (sketch.length - p) % 8 !== 0) return null
  const keys: number[] = []
  for (let at = p; at < sketch.length; at += 8) {
    const k = hex32At(sketch, at)
    if (k < 0 || (keys.length > 0 && k <= keys[keys.length - 1]!)) return null
    keys.push(k)
  }
  return keys
}

/** A UTF-16 unit a run may hold: none that JSON escapes or that could be half of a broken pair. */
function plainUnit(u: number): boolean {
  return u > 0x20 && u !== 0x22 && u !== 0x5c && u !== 0x7f && (u < 0xd800 || u > 0xdfff)
}

/**
 * An `s:` gram set as runs of text (`r:` then runs separated by spaces), or null when the set is
 * not one (empty, unsorted, upper-case hex) or holds a unit a run cannot carry (a surrogate, a
 * space, a control or JSON-escaped character): such a sketch is stored as it is.
 * Each run walks unused grams, the next starting with the last unit of the one before, so the
 * grams of the runs are the set, each once.
 * @example gramRuns('s:00610062') // 'r:ab'
 */
export function gramRuns(sketch: string): string | null {
  const keys = sketchKeys(sketch)
  if (keys === null || keys.length === 0) return null
  // Unused grams by their first unit, each list ascending (the sketch is sorted).
  const from = new Map<number, number[]>()
  for (const k of keys) {
    const a = k >>> 16
    const b = k & 0xffff
    if (!plainUnit(a) || !plainUnit(b)) return null
    const list = from.get(a)
    if (list === undefined) from.set(a, [k])
    else list.push(k)
  }
  const used = new Set<number>()
  const runs: string[] = []
  for (const start of keys) {
    if (used.has(start)) continue
    used.add(start)
    const units = [start >>> 16, start & 0xffff]
    for (;;) {
      const list = from.get(units[units.length - 1]!)
      let next = -1
      while (list !== undefined && list.length > 0) {
        const k = list.shift()!
        if (!used.has(k)) {
          next = k
          break
        }
      }
      if (next < 0) break
      used.add(next)
      units.push(next & 0xffff)
    }
    runs.push(String.fromCharCode(...units))
  }
  // A text's figures (after the mark; no run holds it: runs are content units) as they are.
  const mark = sketch.indexOf(GRAM_FIGURES_MARK)
  return GRAM_RUNS_PREFIX + runs.join(RUN_SEPARATOR) + (mark < 0 ? '' : sketch.slice(mark))
}

/**
 * Band terms as stored: a short text's prefix-filter terms (`s_` + a gram of `sketch`, each) as
 * `@` then two digits a term for the place of its gram in the sorted set, in the terms' order;
 * any other terms as they are (an array).
 * @example compactTerms(['s_00610062'], 's:00610062') // '@AA'
 */
export function compactTerms(terms: readonly string[], sketch: string | undefined): string | string[] {
  const keys = sketch === undefined ? null : sketchKeys(sketch)
  if (keys === null || terms.length === 0 || keys.length > MAX_PLACES) return [...terms]
  const place = new Map<number, number>()
  keys.forEach((k, i) => place.set(k, i))
  let out = TERM_PLACES_PREFIX
  for (const t of terms) {
    const k = t.length === GRAM_TERM_PREFIX.length + 8 && t.startsWith(GRAM_TERM_PREFIX) ? hex32At(t, GRAM_TERM_PREFIX.length) : -1
    const at = k < 0 ? undefined : place.get(k)
    // Not a term of this set: all of them are written as they are.
    if (at === undefined) return [...terms]
    out += DIGITS[at >> 6]! + DIGITS[at & 63]!
  }
  return out
}

/** Prefix of a sketch written as it is whose own text starts like a compact one. */
const VERBATIM_PREFIX = 'v:'

/**
 * A record's sketch as record format 2 stores it: an `s:` gram set as runs (`gramRuns`), any other
 * as it is (behind `v:` when it starts like a compact form, so it never decodes as one).
 */
export function compactSketch(sketch: string): string {
  const runs = gramRuns(sketch)
  if (runs !== null) return runs
  return sketch.startsWith(GRAM_RUNS_PREFIX) || sketch.startsWith(VERBATIM_PREFIX) ? VERBATIM_PREFIX + sketch : sketch
}

/** The gram keys of the runs of an `r:` sketch, ascending, distinct. */
function runKeys(stored: string): number[] {
  const keys: number[] = []
  for (let i = GRAM_RUNS_PREFIX.length; i + 1 < stored.length; i++) {
    const a = stored.charCodeAt(i)
    const b = stored.charCodeAt(i + 1)
    if (a === 0x20 || b === 0x20) continue
    keys.push(((a << 16) | b) >>> 0)
  }
  keys.sort((x, y) => x - y)
  let d = 0
  for (let i = 0; i < keys.length; i++) if (d === 0 || keys[i] !== keys[d - 1]) keys[d++] = keys[i]!
  keys.length = d
  return keys
}

/**
 * The sketch and band terms of a record format 2 `_source` (`compactSketch`, `compactTerms`), as
 * the engine made them; `bad` names the field that is malformed.
 */
export function fromCompact(sketch: unknown, terms: unknown): { sketch: string | null; bands: string[] | undefined } | { bad: 'sketch' | 'terms' } {
  if (sketch !== null && sketch !== undefined && typeof sketch !== 'string') return { bad: 'sketch' }
  let keys: number[] | null = null
  let decoded: string | null = sketch ?? null
  if (decoded !== null && decoded.startsWith(GRAM_RUNS_PREFIX)) {
    const mark = decoded.indexOf(GRAM_FIGURES_MARK)
    keys = runKeys(mark < 0 ? decoded : decoded.slice(0, mark))
    let out = GRAM_SET_PREFIX
    for (const k of keys) out += hex32(k)
    decoded = mark < 0 ? out : out + decoded.slice(mark)
  } else if (decoded !== null && decoded.startsWith(VERBATIM_PREFIX)) decoded = decoded.slice(VERBATIM_PREFIX.length)
  if (terms === null || terms === undefined) return { sketch: decoded, bands: undefined }
  if (Array.isArray(terms)) return terms.every((t) => typeof t === 'string') ? { sketch: decoded, bands: terms as string[] } : { bad: 'terms' }
  if (typeof terms !== 'string' || !terms.startsWith(TERM_PLACES_PREFIX)) return { bad: 'terms' }
  keys ??= decoded === null ? null : sketchKeys(decoded)
  const p = TERM_PLACES_PREFIX.length
  if (keys === null || (terms.length - p) % 2 !== 0) return { bad: 'terms' }
  const bands: string[] = []
  for (let i = p; i < terms.length; i += 2) {
    const hi = terms.charCodeAt(i) < 128 ? DIGIT_VALUE[terms.charCodeAt(i)]! : -1
    const lo = terms.charCodeAt(i + 1) < 128 ? DIGIT_VALUE[terms.charCodeAt(i + 1)]! : -1
    const k = hi < 0 || lo < 0 ? undefined : keys[(hi << 6) | lo]
    if (k === undefined) return { bad: 'terms' }
    bands.push(GRAM_TERM_PREFIX + hex32(k))
  }
  return { sketch: decoded, bands }
}
