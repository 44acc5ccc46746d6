/**
 * Per-code-point classes for the normaliser's single pass, held in lookup tables so the hot loop
 * does one array read per UTF-16 unit instead of a regex test per character.
 *
 * A class byte is an action (low 4 bits) plus flags (high bits). Flags say which later, costlier
 * stage a kept character needs, so those stages run only on text that needs them.
 */
import { isTraditionalOnly } from './_traditional.js'
import { UnitBuffer } from './_dict-converter.js'

/** Ordinary character: copied. */
export const KEEP = 0
/** Removed: controls, format and default-ignorable characters, private use, noncharacters, U+FFFD. */
export const DROP = 1
/** Horizontal whitespace (tab, NBSP, ideographic space, …): collapses to one ASCII space. */
export const SPACE = 2
/** Line break (LF, VT, FF, NEL, U+2028/2029). */
export const NEWLINE = 3
/** Carriage return: a line break, CR LF counts once. */
export const CR = 4
/** ESC: starts an ANSI/ECMA-48 escape sequence. */
export const ESC = 5
/** Backspace: overstrike (`X\bX` bold, `_\bX` underline in rendered man pages). */
export const BACKSPACE = 6
/** High surrogate: look at the next unit. */
export const HIGH_SURROGATE = 7
/** ASCII capital letter. */
export const UPPER_ASCII = 8
/** Full-width ASCII variant U+FF01–U+FF5E: shifts down to ASCII. */
export const FULLWIDTH = 9
/** Emoji or pictograph (Extended_Pictographic, skin-tone modifiers, regional indicators). */
export const EMOJI = 10

/** Mask of the action bits. */
export const ACTION_MASK = 0x0f
/** NFKC might change this character or compose it with its neighbour. */
export const NEEDS_NFKC = 0x10
/** In the Traditional-only set: the text needs Traditional → Simplified conversion. */
export const TRADITIONAL = 0x20
/** A non-ASCII character that `toLowerCase` changes. */
export const CASED = 0x40

// Unicode property escapes are compiled once and used only to classify a character first met.
const DROP_RE = /^[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Noncharacter_Code_Point}\u{FFFD}]$/u
const EMOJI_RE = /^[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}]$/u
const SPACE_RE = /^[\p{White_Space}]$/u
const MARK_RE = /^\p{M}$/u

function classify(cp: number): number {
  switch (cp) {
    case 0x09: case 0x20: return SPACE
    case 0x0a: case 0x0b: case 0x0c: case 0x85: case 0x2028: case 0x2029: return NEWLINE
    case 0x0d: return CR
    case 0x1b: return ESC
    case 0x08: return BACKSPACE
  }
  if (cp >= 0x41 && cp <= 0x5a) return UPPER_ASCII
  if (cp < 0x80) return cp < 0x20 || cp === 0x7f ? DROP : KEEP
  if (cp >= 0xff01 && cp <= 0xff5e) return FULLWIDTH
  const ch = String.fromCodePoint(cp)
  if (SPACE_RE.test(ch)) return SPACE
  if (DROP_RE.test(ch) || cp === 0x20e3) return DROP // U+20E3: the keycap frame; the digit stays
  if (EMOJI_RE.test(ch)) return EMOJI
  let flags = KEEP
  // Marks may compose with what precedes them; Hangul medial/final jamo compose into syllables.
  if (ch.normalize('NFKC') !== ch || MARK_RE.test(ch) || (cp >= 0x1160 && cp <= 0x11ff)) flags |= NEEDS_NFKC
  if (ch.toLowerCase() !== ch) flags |= CASED
  if (isTraditionalOnly(cp)) flags |= TRADITIONAL
  return flags
}

/** Marks a table slot not classified yet; no real class reaches it (actions < 16, three flag bits). */
export const UNKNOWN = 0xff

// Classes are filled in on first sight: classifying all 128 K code points of planes 0 and 1 up
// front costs ~160 ms, while a real corpus meets a few thousand distinct characters.
const bmp = new Uint8Array(0x10000).fill(UNKNOWN)
const smp = new Uint8Array(0x10000).fill(UNKNOWN)
for (let c = 0xd800; c <= 0xdfff; c++) bmp[c] = c <= 0xdbff ? HIGH_SURROGATE : DROP

/**
 * Class table for U+0000–U+FFFF. Slots read as {@link UNKNOWN} until {@link classifyBmp} fills
 * them; surrogates are preset (high: look at the next unit, lone low: drop).
 */
export const BMP_CLASSES: Uint8Array = bmp

/** Classifies a BMP code unit and caches the class in {@link BMP_CLASSES}. */
export function classifyBmp(c: number): number {
  const cls = classify(c)
  bmp[c] = cls
  return cls
}

/**
 * Class of a supplementary-plane code point. Plane 1 (emoji, mathematical letters, historic
 * scripts) is cached like the BMP; the CJK planes only need the Traditional and
 * compatibility-ideograph checks; planes 14–16 are tags, variation selectors and private use.
 */
export function astralClass(cp: number): number {
  if (cp < 0x20000) {
    const cls = smp[cp - 0x10000]!
    return cls !== UNKNOWN ? cls : (smp[cp - 0x10000] = classify(cp))
  }
  if (cp < 0x40000) {
    let flags = KEEP
    if (cp >= 0x2f800 && cp <= 0x2fa1f) flags |= NEEDS_NFKC
    if (isTraditionalOnly(cp)) flags |= TRADITIONAL
    return flags
  }
  return cp >= 0xe0000 ? DROP : KEEP
}

/** True when `text` holds a Traditional-only character (see `_traditional.ts`). */
export function containsTraditional(text: string): boolean {
  scratch.setText(text)
  const found = unitsContainTraditional(scratch.units, 0, scratch.length)
  scratch.release()
  return found
}

const scratch = new UnitBuffer()

/** True when `units[from, to)` hold a Traditional-only character. */
export function unitsContainTraditional(units: Uint16Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = units[i]!
    let cls = BMP_CLASSES[c]!
    if (cls === UNKNOWN) cls = classifyBmp(c)
    if ((cls & TRADITIONAL) !== 0) return true
    if (cls === HIGH_SURROGATE && i + 1 < to) {
      const d = units[i + 1]!
      if (d >= 0xdc00 && d <= 0xdfff) {
        if ((astralClass(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000) & TRADITIONAL) !== 0) return true
        i++
      }
    }
  }
  return false
}
