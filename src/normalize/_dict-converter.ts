/**
 * A faster stand-in for opencc-js's `Trie` with the same results: greedy longest-match
 * replacement, left to right, an unmatched ideographic description sequence (⿰車巠) copied
 * whole. The tests hold it to opencc-js's own converters as the oracle.
 *
 * Why not the Trie: it walks a `Map` per code point and allocates per match. Here everything
 * works on UTF-16 units in typed arrays: per first unit, a bit set says which key lengths exist
 * (most units: none, so one read and the unit is copied); one-unit → one-unit mappings (most of
 * TSCharacters) are a second read; longer keys are found in an open-addressing table over the
 * units, never by slicing a string. Stages write into {@link UnitBuffer}s and only the last one
 * becomes a string, so a chain of conversions allocates nothing per match.
 */

const MAX_KEY_UNITS = 31
const decoder = new TextDecoder('utf-16le')
/**
 * Scratch buffers of the normaliser kept between calls stay at most this long (UTF-16 units); a
 * longer one, grown for one long text, is let go after use so it does not pin that size.
 */
export const KEEP_UNITS = 1 << 20

/** A growable run of UTF-16 units: the input and output of conversion stages. */
export class UnitBuffer {
  units = new Uint16Array(1024)
  length = 0

  /** Empties the buffer, and lets go of its memory if one long text made it large. */
  release(): void {
    this.length = 0
    if (this.units.length > KEEP_UNITS) this.units = new Uint16Array(1024)
  }

  /** Makes room for `extra` more units. */
  reserve(extra: number): void {
    if (this.length + extra <= this.units.length) return
    const units = new Uint16Array(Math.max(this.units.length * 2, this.length + extra))
    units.set(this.units.subarray(0, this.length))
    this.units = units
  }

  /** Replaces the content with the units of `text`. */
  setText(text: string): void {
    this.length = 0
    this.reserve(text.length)
    const units = this.units
    for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i)
    this.length = text.length
  }

  /** The units `[from, to)` as a string (lone surrogates kept as they are). */
  toString(from = 0, to = this.length): string {
    const units = this.units
    let surrogates = false
    for (let i = from; i < to; i++) {
      if ((units[i]! & 0xf800) === 0xd800) {
        surrogates = true
        break
      }
    }
    // The decoder is the fast way, but it replaces a lone surrogate with U+FFFD.
    if (!surrogates) return decoder.decode(units.subarray(from, to))
    let s = ''
    for (let i = from; i < to; i += 4096) s += String.fromCharCode(...units.subarray(i, Math.min(to, i + 4096)))
    return s
  }
}

/** One dictionary group, earlier dictionaries winning over later ones (as `Trie#loadDictGroup`). */
export class DictConverter {
  // Bit (len − 1) set: some key of `len` UTF-16 units starts with this unit.
  private readonly lengths = new Uint32Array(0x10000)
  // One-unit key → one-unit value; 0 when the key is longer, the value is, or there is none.
  private readonly single = new Uint16Array(0x10000)
  // Open-addressing table: first two units of the keys longer than one unit → their length bits.
  // Many units start some phrase (half the positions in Taiwan text), but few unit pairs do, and
  // an integer probe is far cheaper than looking a candidate key up.
  private readonly pairKeys: Int32Array
  private readonly pairMasks: Uint32Array
  private readonly pairShift: number
  // One bit per hashed unit pair (2^20 bits, 128 KB, so it stays in cache): most pairs that reach
  // the table start no key (a third of the positions in Taiwan text), and a clear bit says so
  // without probing.
  private readonly pairBits = new Int32Array(1 << 15)
  // Every key: open addressing over keyHash() → entry + 1; keys and values end to end in `text`.
  private readonly slots: Int32Array
  private readonly keyStart: Int32Array
  private readonly keyLength: Int32Array
  private readonly valueStart: Int32Array
  private readonly valueLength: Int32Array
  private readonly text: Uint16Array

  /** `lowercase`: lower-case keys and values, for text lower-cased before conversion. */
  constructor(dicts: readonly string[], lowercase = false) {
    const map = new Map<string, string>()
    for (let d = dicts.length - 1; d >= 0; d--) {
      for (const entry of dicts[d]!.split('|')) {
        const space = entry.indexOf(' ')
        if (space <= 0) continue
        let key = entry.slice(0, space)
        const rest = entry.slice(space + 1)
        const next = rest.indexOf(' ') // a few entries list alternatives: the first one is used
        let value = next === -1 ? rest : rest.slice(0, next)
        if (lowercase) {
          key = key.toLowerCase()
          value = value.toLowerCase()
        }
        if (key.length > MAX_KEY_UNITS) throw new RangeError(`Dictionary key longer than ${MAX_KEY_UNITS} units: ${key}`)
        map.set(key, value)
      }
    }
    const pairs = new Map<number, number>()
    const n = map.size
    this.keyStart = new Int32Array(n)
    this.keyLength = new Int32Array(n)
    this.valueStart = new Int32Array(n)
    this.valueLength = new Int32Array(n)
    let units = 0
    for (const [key, value] of map) units += key.length + value.length
    this.text = new Uint16Array(units)
    this.slots = new Int32Array(1 << Math.max(4, 32 - Math.clz32(n * 2)))
    let at = 0
    let e = 0
    for (const [key, value] of map) {
      const first = key.charCodeAt(0)
      this.lengths[first]! |= 1 << (key.length - 1)
      if (key.length === 1) this.single[first] = value.length === 1 ? value.charCodeAt(0) : 0
      else {
        const pair = (first << 16) | key.charCodeAt(1)
        pairs.set(pair, (pairs.get(pair) ?? 0) | (1 << (key.length - 1)))
      }
      this.keyStart[e] = at
      this.keyLength[e] = key.length
      for (let i = 0; i < key.length; i++) this.text[at++] = key.charCodeAt(i)
      this.valueStart[e] = at
      this.valueLength[e] = value.length
      for (let i = 0; i < value.length; i++) this.text[at++] = value.charCodeAt(i)
      const mask = this.slots.length - 1
      let s = keyHash(this.text, this.keyStart[e]!, key.length) & mask
      while (this.slots[s] !== 0) s = (s + 1) & mask
      this.slots[s] = ++e
    }
    const bits = Math.max(4, 32 - Math.clz32(pairs.size * 4))
    this.pairShift = 32 - bits
    this.pairKeys = new Int32Array(1 << bits)
    this.pairMasks = new Uint32Array(1 << bits)
    const slots = (1 << bits) - 1
    for (const [pair, mask] of pairs) {
      let h = Math.imul(pair, 0x9e3779b1) >>> this.pairShift
      while (this.pairMasks[h] !== 0) h = (h + 1) & slots
      this.pairKeys[h] = pair
      this.pairMasks[h] = mask
      const bit = Math.imul(pair, 0x9e3779b1) >>> 12
      this.pairBits[bit >>> 5]! |= 1 << (bit & 31)
    }
  }

  /** Length bits of the keys (two units or longer) starting with units `a`, `b`; 0 if none. */
  private pairMask(a: number, b: number): number {
    const pair = (a << 16) | b
    const bit = Math.imul(pair, 0x9e3779b1) >>> 12
    if ((this.pairBits[bit >>> 5]! & (1 << (bit & 31))) === 0) return 0
    const slots = this.pairKeys.length - 1
    for (let h = Math.imul(pair, 0x9e3779b1) >>> this.pairShift; ; h = (h + 1) & slots) {
      const mask = this.pairMasks[h]!
      if (mask === 0 || this.pairKeys[h] === pair) return mask
    }
  }

  /** Length bits of the keys that could match at `i` (one-unit keys by first unit, longer by pair). */
  private candidates(src: Uint16Array, i: number, end: number): number {
    const mask = this.lengths[src[i]!]!
    if (mask <= 1 || i + 1 >= end) return mask & 1
    return (mask & 1) | this.pairMask(src[i]!, src[i + 1]!)
  }

  /** Entry of the key `src[i, i + len)`, or -1. */
  private find(src: Uint16Array, i: number, len: number): number {
    const slots = this.slots
    const mask = slots.length - 1
    const text = this.text
    for (let s = keyHash(src, i, len) & mask; ; s = (s + 1) & mask) {
      const e = slots[s]! - 1
      if (e < 0) return -1
      if (this.keyLength[e] !== len) continue
      let k = this.keyStart[e]!
      let j = i
      const end = i + len
      while (j < end && text[k] === src[j]) {
        j++
        k++
      }
      if (j === end) return e
    }
  }

  /** Entry of the longest key matching at `i` among the lengths in `mask`, or -1. */
  private longest(src: Uint16Array, i: number, end: number, mask: number): number {
    while (mask !== 0) {
      const len = 32 - Math.clz32(mask)
      mask &= ~(1 << (len - 1))
      if (i + len > end) continue
      const e = this.find(src, i, len)
      if (e >= 0) return e
    }
    return -1
  }

  /** Converts `src[from, to)` onto the end of `out`. */
  convertInto(src: Uint16Array, from: number, to: number, out: UnitBuffer): void {
    const { lengths, single } = this
    out.reserve(to - from)
    let dst = out.units
    let j = out.length
    for (let i = from; i < to;) {
      const c = src[i]!
      let mask = lengths[c]!
      if (mask > 1) mask = this.candidates(src, i, to)
      if (mask === 0 && plainUnit(c)) {
        // Most units start no key and are no description character: copied as they are.
        dst[j++] = c
        i++
        continue
      }
      if (mask === 1 && single[c] !== 0) {
        dst[j++] = single[c]!
        i++
        continue
      }
      const e = mask === 0 ? -1 : this.longest(src, i, to, mask)
      if (e < 0) {
        const n = unmatchedLength(src, i, to)
        for (let k = 0; k < n; k++) dst[j++] = src[i + k]!
        i += n
        continue
      }
      const len = this.valueLength[e]!
      const keyLen = this.keyLength[e]!
      if (len > keyLen) {
        // Values may be longer than their keys: keep room for the rest of the input after it.
        out.length = j
        out.reserve(len + (to - i))
        dst = out.units
      }
      const v = this.valueStart[e]!
      for (let k = 0; k < len; k++) dst[j++] = this.text[v + k]!
      i += keyLen
    }
    out.length = j
  }

  /**
   * Cuts `src[0, n)` into matched keys and the stretches between them (as `Trie#segment`): the
   * end of each piece, in order, into `ends`; returns how many.
   */
  pieceEnds(src: Uint16Array, n: number, ends: Int32Array): number {
    let count = 0
    let start = 0
    const lengths = this.lengths
    for (let i = 0; i < n;) {
      const c = src[i]!
      if (lengths[c] === 0 && plainUnit(c)) {
        i++
        continue
      }
      const mask = lengths[c] === 0 ? 0 : this.candidates(src, i, n)
      const e = mask === 0 ? -1 : this.longest(src, i, n, mask)
      if (e < 0) {
        i += unmatchedLength(src, i, n)
        continue
      }
      if (start < i) ends[count++] = i
      i += this.keyLength[e]!
      ends[count++] = i
      start = i
    }
    if (start < n) ends[count++] = n
    return count
  }

  /** Replaces every match in `s`. */
  convert(s: string): string {
    const src = new UnitBuffer()
    src.setText(s)
    const out = new UnitBuffer()
    this.convertInto(src.units, 0, src.length, out)
    return out.toString()
  }

  /** Cuts `s` into matched keys and the stretches between them (as `Trie#segment`). */
  segment(s: string): string[] {
    const src = new UnitBuffer()
    src.setText(s)
    const ends = new Int32Array(s.length)
    const count = this.pieceEnds(src.units, src.length, ends)
    const pieces: string[] = []
    for (let p = 0, start = 0; p < count; start = ends[p++]!) pieces.push(s.slice(start, ends[p]))
    return pieces
  }
}

// A 32-bit hash of `len` units (the key table's own).
function keyHash(units: Uint16Array, i: number, len: number): number {
  let h = len
  for (let k = i; k < i + len; k++) h = Math.imul(h ^ units[k]!, 0x9e3779b1)
  return h ^ (h >>> 15)
}

/** A unit that is one whole character and no ideographic description character. */
function plainUnit(c: number): boolean {
  return c < 0x2ff0 || (c > 0x2fff && (c < 0xd800 || c > 0xdbff))
}

function unitsAt(s: Uint16Array, i: number, n: number): number {
  const c = s[i]!
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
    const d = s[i + 1]!
    if (d >= 0xdc00 && d <= 0xdfff) return 2
  }
  return 1
}

function arity(c: number): number {
  // Ideographic description characters, with the arities OpenCC assumes.
  if (c < 0x2ff0 || c > 0x2fff) return 0
  return c === 0x2ff2 || c === 0x2ff3 ? 3 : 2
}

// Real sequences nest a few levels; deeper ones are junk, and would make runs of ⿰ quadratic.
const MAX_DEPTH = 16
// Parallel stacks for the description-sequence parser, reused across calls.
const remaining: number[] = []
const ends: number[] = []

/**
 * How far to skip when nothing matches at `i`: one code point, or a whole ideographic description
 * sequence. Same rule as OpenCC's recursive one — a component that runs past the end makes its
 * own sequence invalid, and its parent then counts that description character as a plain
 * component — but with explicit stacks, so a long run of ⿰ cannot overflow the call stack, and
 * with a depth limit (beyond it the first character counts as plain), so such a run stays linear.
 */
function unmatchedLength(s: Uint16Array, i: number, n: number): number {
  const a = arity(s[i]!)
  if (a === 0) return unitsAt(s, i, n)
  remaining.length = 0
  ends.length = 0
  remaining.push(a)
  ends.push(i + 1)
  for (;;) {
    const top = remaining.length - 1
    if (remaining[top] === 0) {
      const end = ends.pop()!
      remaining.pop()
      if (top === 0) return end - i
      ends[top - 1] = end
      remaining[top - 1]!--
      continue
    }
    const at = ends[top]!
    if (at >= n) {
      // This sequence is invalid: to its parent, its description character is a plain component.
      remaining.pop()
      ends.pop()
      if (top === 0) return unitsAt(s, i, n)
      ends[top - 1] = ends[top - 1]! + 1
      remaining[top - 1]!--
      continue
    }
    const childArity = arity(s[at]!)
    if (childArity > 0) {
      if (remaining.length >= MAX_DEPTH) return unitsAt(s, i, n)
      remaining.push(childArity)
      ends.push(at + 1)
    } else {
      ends[top] = at + unitsAt(s, at, n)
      remaining[top]!--
    }
  }
}
