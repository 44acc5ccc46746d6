import { bucketOf32 } from './_bytes.js'
import { ChainIndex } from './_chain-index.js'
import { EXPLICIT_BANDS, bandPosition, bandTerm, canonicalBand, type ByteWriter, type PutView } from './_codec.js'
import { U32Column, U8Column, type BitColumn } from './_columns.js'
import { Postings } from './_postings.js'

/** Rows per group sharing one stored pool position (as for the string arena). */
const GROUP_BITS = 3
const GROUP_MASK = (1 << GROUP_BITS) - 1
/** Average rows per bucket of a band position's index. */
const BAND_LOAD = 8

/**
 * LSH band terms of each row and their index (the second candidate route).
 *
 * Band terms are near-unique 32-bit hashes ("m3_1a2b3c4d"): ~80 M distinct terms at 10 M rows,
 * far too many for a term dictionary. Canonical terms ("m<i>_" + 8 hex digits, i = position)
 * are therefore kept as their u32 values in a pool, and each position has a hash index of rows
 * by value (bucket chains through a 3-byte link per row). A record whose terms are not all
 * canonical (in order) keeps them as strings in a small term dictionary.
 *
 * Per row: a count byte (0 none, 255 explicit), the pool position of each group of 8 rows, and
 * in the pool either the values or [n, term ids…].
 */
export class BandStore {
  private readonly counts = new U8Column()
  private readonly groupPos = new U32Column()
  private readonly pool = new U32Column()
  private fill = 0
  /** Rows seen (every row passes through `insert`, with bands or not). */
  private rows = 0
  private readonly indexes: ChainIndex[] = []
  private explicit: Postings | undefined
  private longestExplicit = 0
  private reserved = 0

  constructor(private readonly alive: BitColumn) {}

  /** Stores and indexes the bands of the PUT entry `v` (in `buf`) as row `row`. */
  insert(row: number, buf: Buffer, v: PutView): void {
    this.rows = row + 1
    if ((row & GROUP_MASK) === 0) this.groupPos.set(row >>> GROUP_BITS, this.fill)
    const count = v.bandCount
    if (count === 0) return
    this.counts.set(row, count)
    let p = v.bandStart
    if (count !== EXPLICIT_BANDS) {
      for (let i = 0; i < count; i++, p += 4) {
        const value = (buf[p]! | (buf[p + 1]! << 8) | (buf[p + 2]! << 16) | (buf[p + 3]! << 24)) >>> 0
        this.pool.set(this.fill++, value)
        const index = this.index(i)
        index.link(row, bucketOf32(value, index.bits))
        if (index.full()) this.relink(i)
      }
      return
    }
    const terms = (this.explicit ??= new Postings())
    const n = buf[p++]!
    if (n > this.longestExplicit) this.longestExplicit = n
    this.pool.set(this.fill++, n)
    for (let i = 0; i < n; i++) {
      const len = buf[p]!
      const term = terms.termId(i, buf.toString('utf8', p + 1, p + 1 + len))
      p += 1 + len
      this.pool.set(this.fill++, term)
      terms.link(row, i, term)
    }
  }

  /** Sizes the band indexes for about `rows` rows (each with bands) before a replay or rebuild. */
  reserve(rows: number): void {
    this.reserved = rows
    for (const index of this.indexes) index.reserve(rows)
  }

  /** `row`'s band terms, or undefined when it has none. */
  terms(row: number): string[] | undefined {
    const count = this.counts.get(row)
    if (count === 0) return undefined
    let at = this.offset(row)
    if (count !== EXPLICIT_BANDS) {
      const out = new Array<string>(count)
      for (let i = 0; i < count; i++) out[i] = bandTerm(i, this.pool.get(at++))
      return out
    }
    const n = this.pool.get(at++)
    const out = new Array<string>(n)
    for (let i = 0; i < n; i++) out[i] = this.explicit!.strings[this.pool.get(at++)]!
    return out
  }

  /** Appends `row`'s band section of a PUT entry (for compaction). */
  encode(row: number, w: ByteWriter): void {
    const count = this.counts.get(row)
    w.u8(count)
    if (count === 0) return
    let at = this.offset(row)
    if (count !== EXPLICIT_BANDS) {
      for (let i = 0; i < count; i++) w.u32(this.pool.get(at++))
      return
    }
    const n = this.pool.get(at++)
    w.u8(n)
    for (let i = 0; i < n; i++) w.shortString(this.explicit!.strings[this.pool.get(at++)]!)
  }

  /**
   * Calls `visit` with every row (live or dead: the caller filters) that has band `term`: as a
   * canonical term at the position its tag names, or anywhere in an explicitly stored list.
   */
  forEachRow(term: string, visit: (row: number) => void): void {
    const position = bandPosition(term)
    const value = position < 0 ? -1 : canonicalBand(term, position)
    const chains = value < 0 ? undefined : this.indexes[position]
    if (chains !== undefined) {
      for (let row = chains.heads[bucketOf32(value, chains.bits)]!; row >= 0; row = chains.next.get(row)) {
        if (this.valueAt(row, position) === value) visit(row)
      }
    }
    const explicit = this.explicit
    if (explicit === undefined) return
    // Explicit lists are indexed by slot; a term may sit in any slot (lists are short and rare).
    for (let slot = 0; slot < this.longestExplicit; slot++) {
      const id = explicit.findTerm(slot, term)
      if (id >= 0) for (let row = explicit.first(id); row >= 0; row = explicit.next(slot, row)) visit(row)
    }
  }

  /** Bytes held. */
  byteLength(): number {
    let total = this.counts.byteLength() + this.groupPos.byteLength() + this.pool.byteLength() + (this.explicit?.byteLength() ?? 0)
    for (const index of this.indexes) total += index.byteLength()
    return total
  }

  /** The canonical value of `row`'s band `position`, or -1. */
  private valueAt(row: number, position: number): number {
    const count = this.counts.get(row)
    if (count === EXPLICIT_BANDS || position >= count) return -1
    return this.pool.get(this.offset(row) + position)
  }

  /** Pool position of `row`'s bands: its group's position plus what the rows before it use. */
  private offset(row: number): number {
    let at = this.groupPos.get(row >>> GROUP_BITS)
    for (let k = row & ~GROUP_MASK; k < row; k++) {
      const c = this.counts.get(k)
      at += c === EXPLICIT_BANDS ? 1 + this.pool.get(at) : c
    }
    return at
  }

  private index(position: number): ChainIndex {
    let index = this.indexes[position]
    if (index === undefined) {
      this.indexes[position] = index = new ChainIndex(BAND_LOAD)
      index.reserve(this.reserved)
    }
    return index
  }

  private relink(position: number): void {
    const index = this.indexes[position]!
    index.reset(index.bits + 1)
    for (let row = 0; row < this.rows; row++) {
      if (!this.alive.has(row)) continue
      const value = this.valueAt(row, position)
      if (value >= 0) index.link(row, bucketOf32(value, index.bits))
    }
  }
}
