import { EXPLICIT_BANDS, bandPosition, bandTerm, canonicalBand, type ByteWriter, type PutView } from './_codec.js'
import { U8Column, type BitColumn } from './_columns.js'
import { KEY_OUT, KeyIndex } from './_key-index.js'

/**
 * Most rows per bucket of a band position's index (on average; the heads double past it). A
 * lookup walks a whole bucket for each of its band terms (8), a cache miss per row: at load 16
 * (before) the walks grew with the store up to ~120 rows a lookup at 1 M rows, at 8 half that, for
 * 4 bytes of heads per bucket (2–4 bytes a row more over the 8 bands; docs/notes/2026-11-26-growing-index-embedded.md, "Band index walks").
 */
const BAND_LOAD = 8

/**
 * LSH band terms of each row and their index (the second candidate route).
 *
 * Band terms are near-unique 32-bit hashes ("m3_1a2b3c4d"): ~80 M distinct terms at 10 M rows,
 * far too many for a term dictionary. Canonical terms ("m<i>_" + 8 hex digits, i = position)
 * are therefore kept as their u32 values, and only inside the index: one `KeyIndex` per position
 * holds each row's value in 2 bytes of remainder and 3 of link (5.5 bytes a band with the
 * heads, where a stored value and a separate chain index took 7.5). A record whose terms are not
 * all canonical (in order) keeps them as strings in a small term dictionary.
 *
 * Per row: a count byte (0 none, 255 explicit), then its entry in the first `count` indexes.
 *
 * `readBack` (a store that reads its records back from its log): no count byte (5 bytes a band
 * plus 0.5–1 of heads); terms are not rebuilt from
 * the index (the entry has them). The remainder stays 16 bits, so a match is exact and the band
 * route reads back only the rows it returns: with 8 bits (a tag, 1 byte a band less) every match
 * had to be confirmed on its entry, a log read per band row met, which made the band route's
 * reads per lookup double those of the rows it returned (docs/notes/2026-11-26-growing-index-embedded.md, "Band indexes exact with a log").
 */
export class BandStore {
  private readonly counts = new U8Column()
  private readonly indexes: KeyIndex[] = []
  private explicit: ExplicitTerms | undefined
  /** Term ids of the rows with explicit terms (the prefix-filter terms of short texts). */
  private readonly explicitRows = new Map<number, Int32Array>()
  private reserved = 0
  /** Rows per bucket of the band indexes made from now on (`BAND_LOAD`; benchmarks set others to compare). */
  static load = BAND_LOAD

  constructor(private readonly alive: BitColumn, private readonly readBack = false) {}

  /** Stores and indexes the bands of the PUT entry `v` (in `buf`) as row `row`. */
  insert(row: number, buf: Buffer, v: PutView): void {
    const count = v.bandCount
    if (count === 0) return
    if (!this.readBack) this.counts.set(row, count)
    let p = v.bandStart
    if (count !== EXPLICIT_BANDS) {
      for (let i = 0; i < count; i++, p += 4) {
        const value = (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) >>> 0
        this.index(i).link(row, 0, value, this.alive)
      }
      return
    }
    const terms = (this.explicit ??= new ExplicitTerms())
    const n = buf[p++]!
    const ids = new Int32Array(n)
    for (let i = 0; i < n; i++) {
      const len = buf[p]!
      const term = terms.termId(buf.toString('utf8', p + 1, p + 1 + len))
      p += 1 + len
      ids[i] = term
      terms.link(row, term)
    }
    this.explicitRows.set(row, ids)
  }

  /** Sizes the band indexes for about `rows` rows (each with bands) before a replay or rebuild. */
  reserve(rows: number): void {
    this.reserved = rows
    for (const index of this.indexes) index.reserve(rows)
  }

  /**
   * Appends to `out` the indexes holding `row`'s canonical bands, in band order, and returns how
   * many: the owner walks them with its own (`chainEnds`) and passes the ends to `terms`/`encode`.
   */
  indexesOf(row: number, out: KeyIndex[], at: number): number {
    const count = this.counts.get(row)
    if (count === 0 || count === EXPLICIT_BANDS) return 0
    for (let i = 0; i < count; i++) out[at + i] = this.indexes[i]!
    return count
  }

  /** `KeyIndex.tops` of each band position's index (for whole-table passes; see `Tables.keyTops`). */
  tops(): Uint16Array[] {
    return this.indexes.map((index) => index.tops())
  }

  /** `row`'s band terms, or undefined when it has none; `ends[at…]` from walking `indexesOf(row)`. */
  terms(row: number, ends: Int32Array, at: number): string[] | undefined {
    const count = this.counts.get(row)
    if (count === 0) return undefined
    if (count !== EXPLICIT_BANDS) {
      const out = new Array<string>(count)
      for (let i = 0; i < count; i++) {
        this.indexes[i]!.keyAt(row, ends[at + i]!)
        out[i] = bandTerm(i, KEY_OUT[1])
      }
      return out
    }
    return Array.from(this.explicitRows.get(row)!, (id) => this.explicit!.strings[id]!)
  }

  /** Appends `row`'s band section of a PUT entry (for compaction); `ends` as for `terms`. */
  encode(row: number, w: ByteWriter, ends: Int32Array, at: number): void {
    const count = this.counts.get(row)
    w.u8(count)
    if (count === 0) return
    if (count !== EXPLICIT_BANDS) {
      for (let i = 0; i < count; i++) {
        this.indexes[i]!.keyAt(row, ends[at + i]!)
        w.u32(KEY_OUT[1])
      }
      return
    }
    const ids = this.explicitRows.get(row)!
    w.u8(ids.length)
    for (const id of ids) w.shortString(this.explicit!.strings[id]!)
  }

  /**
   * Calls `visit` with every row (live or dead: the caller filters) that has band `term`: as a
   * canonical term at the position its prefix names, or anywhere in an explicitly stored list.
   * Rows come newest first (highest row first) within the canonical index and within the explicit
   * terms; the walk stops as soon as `visit` returns true.
   */
  forEachRow(term: string, visit: (row: number) => boolean): void {
    const position = bandPosition(term)
    const value = position < 0 ? -1 : canonicalBand(term, position)
    const index = value < 0 ? undefined : this.indexes[position]
    if (index !== undefined) {
      for (let row = index.seek(0, value); row >= 0; row = index.next(row)) {
        if (index.matches(row) && visit(row)) return
      }
    }
    this.explicit?.forEachRow(term, visit)
  }

  /** Bytes held (the explicit rows' Map is not counted). */
  byteLength(): number {
    let total = this.counts.byteLength() + (this.explicit?.byteLength() ?? 0)
    for (const index of this.indexes) total += index.byteLength()
    return total
  }

  private index(position: number): KeyIndex {
    let index = this.indexes[position]
    if (index === undefined) {
      this.indexes[position] = index = new KeyIndex(false, BandStore.load)
      index.reserve(this.reserved)
    }
    return index
  }
}

/**
 * The index of explicitly stored band terms, whatever their place in a row's list: the
 * prefix-filter terms of short texts (`s_…`, up to ~90 a row, none positional). A dictionary of
 * terms and, per term, its rows in ascending order (rows are added in order), walked from the end:
 * newest first across every row that has it, so a per-term bound keeps the newest rows.
 */
class ExplicitTerms {
  readonly strings: string[] = []
  private readonly ids = new Map<string, number>()
  private lists: Int32Array[] = []
  private lengths: number[] = []

  termId(term: string): number {
    let id = this.ids.get(term)
    if (id === undefined) {
      id = this.strings.length
      this.ids.set(term, id)
      this.strings.push(term)
      this.lists.push(new Int32Array(4))
      this.lengths.push(0)
    }
    return id
  }

  /** Adds `row` to term `id`'s rows (once; kept ascending). */
  link(row: number, id: number): void {
    let list = this.lists[id]!
    let n = this.lengths[id]!
    if (n > 0 && list[n - 1]! >= row) {
      if (list.subarray(0, n).includes(row)) return
    }
    if (n === list.length) {
      const grown = new Int32Array(n * 2)
      grown.set(list)
      this.lists[id] = list = grown
    }
    let at = n
    while (at > 0 && list[at - 1]! > row) {
      list[at] = list[at - 1]!
      at--
    }
    list[at] = row
    this.lengths[id] = ++n
  }

  forEachRow(term: string, visit: (row: number) => boolean): void {
    const id = this.ids.get(term)
    if (id === undefined) return
    const list = this.lists[id]!
    for (let i = this.lengths[id]! - 1; i >= 0; i--) if (visit(list[i]!)) return
  }

  byteLength(): number {
    let total = 0
    for (const list of this.lists) total += list.byteLength + 16
    return total + this.strings.length * 24
  }
}
