import { toHex8 } from './_bytes.js'

/**
 * Block layouts: how a record's block terms follow from its fingerprint.
 *
 * Records made by `fingerprintBlocks` carry terms like "0_3fa2" that are a pure function of the
 * fingerprint and the scheme. Storing them per record would cost 16+ bytes a row at 10 M rows;
 * instead the store recognises the layout (bit widths, high bits first, hex padded or not), keeps
 * a one-byte layout id per row and rebuilds the terms on read. Records whose terms do not follow
 * any recognised layout are stored with explicit terms, so any block scheme still works.
 */

/** Layout id stored for rows whose terms are kept explicitly. */
export const EXPLICIT_LAYOUT = 63
/** At most this many layouts per store (ids 0..62; the id lives in 6 bits of the row's meta). */
export const MAX_LAYOUTS = 63
/** Widest block a layout can describe (values are read from one 32-bit window). */
const MAX_WIDTH = 32

/** One recognised layout. */
export interface BlockLayout {
  /** Bits per block, high bits first; they sum to 64. */
  readonly widths: readonly number[]
  /** Shift of each block's lowest bit above bit 0. */
  readonly shifts: readonly number[]
  /** Hex digits of each term (0 = not padded). */
  readonly digits: readonly number[]
  readonly padded: boolean
}

/** The `width` bits of a 64-bit value (hi, lo) whose lowest bit is `shift` above bit 0. */
export function blockValue(hi: number, lo: number, shift: number, width: number): number {
  let v: number
  if (shift >= 32) v = hi >>> (shift - 32)
  else if (shift === 0) v = lo
  else v = (lo >>> shift) | (hi << (32 - shift))
  return width >= 32 ? v >>> 0 : (v & ((1 << width) - 1)) >>> 0
}

/** Hex digits `value` needs without padding (at least 1). */
function hexLength(value: number): number {
  let n = 1
  while (n < 8 && value >>> (4 * n) !== 0) n++
  return n
}

/** The term of block `position` holding `value`: "position_hex", padded to `digits` (0 = unpadded). */
export function termString(position: number, value: number, digits: number): string {
  const n = Math.max(digits, hexLength(value))
  return `${position}_${toHex8(value).slice(8 - n)}`
}

/**
 * Whether `term` is exactly `termString(position, value, digits)`, without building it: put
 * checks every record's terms against its layout, so this runs 4 times per record.
 */
function termIs(term: string, position: number, value: number, digits: number): boolean {
  const prefix = position < 10 ? 1 : position < 100 ? 2 : 3
  const n = Math.max(digits, hexLength(value))
  if (term.length !== prefix + 1 + n || term.charCodeAt(prefix) !== 95) return false
  let p = 0
  for (let i = 0; i < prefix; i++) p = p * 10 + term.charCodeAt(i) - 48
  if (p !== position || (prefix > 1 && term.charCodeAt(0) === 48)) return false
  let v = 0
  for (let i = prefix + 1; i < term.length; i++) {
    const c = term.charCodeAt(i)
    if (c >= 48 && c <= 57) v = v * 16 + c - 48
    else if (c >= 97 && c <= 102) v = v * 16 + c - 87
    else return false
  }
  return v === value
}

function makeLayout(widths: readonly number[], padded: boolean): BlockLayout {
  const shifts: number[] = []
  let top = 64
  for (const w of widths) {
    top -= w
    shifts.push(top)
  }
  return { widths, shifts, digits: widths.map((w) => (padded ? Math.ceil(w / 4) : 0)), padded }
}

function layoutKey(widths: readonly number[], padded: boolean): string {
  return `${widths.join(',')}${padded ? 'p' : 'u'}`
}

/** Even splits of 64 bits into m blocks: extra bits on the first blocks, or on the last. */
function candidateWidths(m: number): number[][] {
  const base = Math.floor(64 / m)
  const extra = 64 % m
  if (base > MAX_WIDTH || base < 1) return []
  const first = Array.from({ length: m }, (_, i) => base + (i < extra ? 1 : 0))
  if (extra === 0) return [first]
  const last = Array.from({ length: m }, (_, i) => base + (i >= m - extra ? 1 : 0))
  return [first, last]
}

/** Layouts seen in this store; ids are stable for the store's life and written to its log. */
export class LayoutRegistry {
  readonly layouts: BlockLayout[] = []
  /** Whether the current log file already holds layout i's definition. */
  readonly inLog: boolean[] = []
  private readonly byKey = new Map<string, number>()
  private last = -1

  /** The id of the layout that produces exactly `blocks` from (hi, lo), registering it if new; -1 if none. */
  match(hi: number, lo: number, blocks: readonly string[]): number {
    const m = blocks.length
    if (this.last >= 0 && this.fits(this.layouts[this.last]!, hi, lo, blocks)) return this.last
    for (let id = 0; id < this.layouts.length; id++) {
      const layout = this.layouts[id]!
      if (layout.widths.length === m && this.fits(layout, hi, lo, blocks)) return (this.last = id)
    }
    if (m < 2 || this.layouts.length >= MAX_LAYOUTS) return -1
    for (const widths of candidateWidths(m)) {
      for (const padded of [true, false]) {
        const layout = makeLayout(widths, padded)
        if (this.fits(layout, hi, lo, blocks)) return (this.last = this.add(layout))
      }
    }
    return -1
  }

  /** The id of a known layout that produces exactly `blocks` from (hi, lo), or -1 (registers nothing). */
  find(hi: number, lo: number, blocks: readonly string[]): number {
    if (this.last >= 0 && this.fits(this.layouts[this.last]!, hi, lo, blocks)) return this.last
    for (let id = 0; id < this.layouts.length; id++) {
      if (this.fits(this.layouts[id]!, hi, lo, blocks)) return (this.last = id)
    }
    return -1
  }

  /** Registers layout `id` read from a log; false when it conflicts with what is known. */
  define(id: number, widths: readonly number[], padded: boolean): boolean {
    if (widths.reduce((a, b) => a + b, 0) !== 64 || widths.some((w) => w < 1 || w > MAX_WIDTH)) return false
    const key = layoutKey(widths, padded)
    if (id < this.layouts.length) return this.byKey.get(key) === id
    if (id !== this.layouts.length || this.byKey.has(key)) return false
    this.add(makeLayout(widths, padded))
    return true
  }

  /** The terms of layout `id` for fingerprint (hi, lo). */
  terms(id: number, hi: number, lo: number): string[] {
    const layout = this.layouts[id]!
    const out = new Array<string>(layout.widths.length)
    for (let p = 0; p < out.length; p++) {
      out[p] = termString(p, blockValue(hi, lo, layout.shifts[p]!, layout.widths[p]!), layout.digits[p]!)
    }
    return out
  }

  private fits(layout: BlockLayout, hi: number, lo: number, blocks: readonly string[]): boolean {
    if (layout.widths.length !== blocks.length) return false
    for (let p = 0; p < blocks.length; p++) {
      const term = blocks[p]
      if (typeof term !== 'string' || !termIs(term, p, blockValue(hi, lo, layout.shifts[p]!, layout.widths[p]!), layout.digits[p]!)) return false
    }
    return true
  }

  private add(layout: BlockLayout): number {
    const id = this.layouts.length
    this.layouts.push(layout)
    this.inLog.push(false)
    this.byKey.set(layoutKey(layout.widths, layout.padded), id)
    return id
  }
}
