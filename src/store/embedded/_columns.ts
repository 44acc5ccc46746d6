/**
 * Columns of numbers indexed by row, stored as fixed-size typed-array chunks.
 *
 * Why chunks: a flat typed array that doubles copies the whole column each time and leaves up to
 * half of it unused; at 10 M rows that is tens of MB per column, held twice during the copy.
 * A chunk is allocated the first time a row in it is written, so a column that is only ever
 * written for some rows (explicit block terms, say) costs nothing where it is not used.
 * One small class per element type instead of one generic one keeps every element access monomorphic.
 */

/** log2 of rows per chunk (65,536 rows: 256 KiB for a 32-bit column). */
export const CHUNK_BITS = 16
const CHUNK_ROWS = 1 << CHUNK_BITS
const CHUNK_MASK = CHUNK_ROWS - 1

/** Unsigned 32-bit column; unwritten rows read as 0. */
export class U32Column {
  private readonly chunks: (Uint32Array | undefined)[] = []

  get(row: number): number {
    const chunk = this.chunks[row >>> CHUNK_BITS]
    return chunk === undefined ? 0 : chunk[row & CHUNK_MASK]!
  }

  set(row: number, value: number): void {
    const k = row >>> CHUNK_BITS
    let chunk = this.chunks[k]
    if (chunk === undefined) this.chunks[k] = chunk = new Uint32Array(CHUNK_ROWS)
    chunk[row & CHUNK_MASK] = value
  }

  /** Bytes held by the chunks. */
  byteLength(): number {
    return sumBytes(this.chunks)
  }
}

/** Signed 32-bit column (row links; -1 ends a chain); unwritten rows read as 0. */
export class I32Column {
  private readonly chunks: (Int32Array | undefined)[] = []

  get(row: number): number {
    const chunk = this.chunks[row >>> CHUNK_BITS]
    return chunk === undefined ? 0 : chunk[row & CHUNK_MASK]!
  }

  set(row: number, value: number): void {
    const k = row >>> CHUNK_BITS
    let chunk = this.chunks[k]
    if (chunk === undefined) this.chunks[k] = chunk = new Int32Array(CHUNK_ROWS)
    chunk[row & CHUNK_MASK] = value
  }

  /** Bytes held by the chunks. */
  byteLength(): number {
    return sumBytes(this.chunks)
  }
}

/** Unsigned 8-bit column (per-row hash tags); unwritten rows read as 0. */
export class U8Column {
  private readonly chunks: (Uint8Array | undefined)[] = []

  get(row: number): number {
    const chunk = this.chunks[row >>> CHUNK_BITS]
    return chunk === undefined ? 0 : chunk[row & CHUNK_MASK]!
  }

  set(row: number, value: number): void {
    const k = row >>> CHUNK_BITS
    let chunk = this.chunks[k]
    if (chunk === undefined) this.chunks[k] = chunk = new Uint8Array(CHUNK_ROWS)
    chunk[row & CHUNK_MASK] = value
  }

  byteLength(): number {
    return sumBytes(this.chunks)
  }
}

/** Unsigned 16-bit column (per-row fingerprint folds); unwritten rows read as 0. */
export class U16Column {
  private readonly chunks: (Uint16Array | undefined)[] = []

  get(row: number): number {
    const chunk = this.chunks[row >>> CHUNK_BITS]
    return chunk === undefined ? 0 : chunk[row & CHUNK_MASK]!
  }

  set(row: number, value: number): void {
    const k = row >>> CHUNK_BITS
    let chunk = this.chunks[k]
    if (chunk === undefined) this.chunks[k] = chunk = new Uint16Array(CHUNK_ROWS)
    chunk[row & CHUNK_MASK] = value
  }

  byteLength(): number {
    return sumBytes(this.chunks)
  }
}

/** One bit per row (row liveness); unwritten rows read as 0. */
export class BitColumn {
  private readonly chunks: (Uint32Array | undefined)[] = []

  has(row: number): boolean {
    const chunk = this.chunks[row >>> CHUNK_BITS]
    return chunk !== undefined && ((chunk[(row & CHUNK_MASK) >>> 5]! >>> (row & 31)) & 1) === 1
  }

  set(row: number, on: boolean): void {
    const k = row >>> CHUNK_BITS
    let chunk = this.chunks[k]
    if (chunk === undefined) this.chunks[k] = chunk = new Uint32Array(CHUNK_ROWS >>> 5)
    const i = (row & CHUNK_MASK) >>> 5
    chunk[i] = on ? chunk[i]! | (1 << (row & 31)) : chunk[i]! & ~(1 << (row & 31))
  }

  byteLength(): number {
    return sumBytes(this.chunks)
  }
}

type DictArray = Float64Array | Uint32Array

/**
 * Write-once numbers, dictionary-coded per chunk. Used where rows repeat a few values: row meta
 * (flags, layer, distance, layout, version: a few hundred distinct words at most) and
 * `indexedAt` (the deduplicator stamps a whole batch with one time). A row then costs one byte;
 * a chunk widens its codes to 16 bits past 255 distinct values and stores raw values past
 * 65,535. Rows must be written once, in order (a chunk is finished before the next starts).
 */
export class DictColumn {
  private readonly codes: (Uint8Array | Uint16Array | undefined)[] = []
  private readonly dicts: DictArray[] = []
  private readonly raw: (DictArray | undefined)[] = []
  private writeChunk = -1
  private writeCodes = new Map<number, number>()

  /** `float64`: any number (times); `uint32`: unsigned 32-bit integers (meta words). */
  constructor(private readonly kind: 'float64' | 'uint32') {}

  get(row: number): number {
    const k = row >>> CHUNK_BITS
    const codes = this.codes[k]
    if (codes !== undefined) return this.dicts[k]![codes[row & CHUNK_MASK]!]!
    const raw = this.raw[k]
    return raw === undefined ? 0 : raw[row & CHUNK_MASK]!
  }

  set(row: number, value: number): void {
    const k = row >>> CHUNK_BITS
    const raw = this.raw[k]
    if (raw !== undefined) {
      raw[row & CHUNK_MASK] = value
      return
    }
    if (k !== this.writeChunk) {
      if (k < this.writeChunk) throw new Error(`dictionary column: row ${row} written after a later chunk`)
      this.writeChunk = k
      this.writeCodes = new Map()
      this.codes[k] = new Uint8Array(CHUNK_ROWS)
      this.dicts[k] = this.array(16)
    }
    let code = this.writeCodes.get(value)
    // Object.is: the Map treats 0 and -0 as one key; a float column must keep them apart.
    if (code === undefined || !Object.is(this.dicts[k]![code], value)) {
      code = this.writeCodes.size
      if (code === 0xffff) {
        this.toRaw(k)
        this.raw[k]![row & CHUNK_MASK] = value
        return
      }
      if (code === 0x100) this.codes[k] = Uint16Array.from(this.codes[k]!)
      let dict = this.dicts[k]!
      if (code === dict.length) {
        const bigger = this.array(dict.length * 2)
        bigger.set(dict)
        this.dicts[k] = dict = bigger
      }
      dict[code] = value
      this.writeCodes.set(value, code)
    }
    this.codes[k]![row & CHUNK_MASK] = code
  }

  /** Bytes held by codes, dictionaries and raw chunks. */
  byteLength(): number {
    return sumBytes(this.codes) + sumBytes(this.dicts) + sumBytes(this.raw)
  }

  private array(n: number): DictArray {
    return this.kind === 'float64' ? new Float64Array(n) : new Uint32Array(n)
  }

  private toRaw(k: number): void {
    const codes = this.codes[k]!
    const dict = this.dicts[k]!
    const raw = this.array(CHUNK_ROWS)
    for (let i = 0; i < CHUNK_ROWS; i++) raw[i] = dict[codes[i]!]!
    this.raw[k] = raw
    this.codes[k] = undefined
    this.dicts[k] = this.array(0)
  }
}

/**
 * A sparse int32 column for links that only some rows have (cluster links: duplicates only):
 * (row, value) pairs appended in row order, found by binary search. 8 bytes per row that has a
 * value, nothing for the others.
 */
export class SparseI32Column {
  private readonly rows = new I32Column()
  private readonly values = new I32Column()
  private length = 0

  get(row: number): number {
    const i = this.find(row)
    return i < 0 ? 0 : this.values.get(i)
  }

  /** Sets `row`'s value: appends when `row` is past every row so far, else overwrites (it must exist). */
  set(row: number, value: number): void {
    if (this.length === 0 || row > this.rows.get(this.length - 1)) {
      this.rows.set(this.length, row)
      this.values.set(this.length++, value)
      return
    }
    const i = this.find(row)
    if (i < 0) throw new Error(`sparse column: row ${row} set out of order`)
    this.values.set(i, value)
  }

  byteLength(): number {
    return this.rows.byteLength() + this.values.byteLength()
  }

  private find(row: number): number {
    let lo = 0
    let hi = this.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1
      const r = this.rows.get(mid)
      if (r === row) return mid
      if (r < row) lo = mid + 1
      else hi = mid - 1
    }
    return -1
  }
}

function sumBytes(chunks: readonly ({ byteLength: number } | undefined)[]): number {
  let total = 0
  for (const c of chunks) if (c !== undefined) total += c.byteLength
  return total
}

/** A small growable Int32Array (doubling): per-term heads, never per-row data. */
export class GrowableI32 {
  data: Int32Array
  length = 0

  constructor(capacity = 16, private readonly fill = -1) {
    this.data = new Int32Array(capacity).fill(fill)
  }

  push(value: number): number {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2).fill(this.fill)
      next.set(this.data)
      this.data = next
    }
    this.data[this.length] = value
    return this.length++
  }
}

/** Rows per offset group: one 32-bit group offset, then 16 bits per row. */
const OFFSET_GROUP_BITS = 4
/** Stored row distance meaning "see the overflow Map". */
const FAR_ROW = 0xffff

/**
 * Write-once file offsets (any safe integer), one per row, written in row order, in about 2.3
 * bytes a row instead of 8: a float64 base per chunk, a uint32 distance from it per group of 16
 * rows (where the group's first row is), and a uint16 distance from that per row. Rows' entries
 * follow each other in the log, so a group spans a few KiB; a row farther than 64 KiB from its
 * group's first row (a huge entry, or many deletes between puts), or in a group more than 4 GiB
 * past its chunk's base, goes to an overflow Map.
 */
export class OffsetColumn {
  private readonly bases: number[] = []
  private readonly groups = new U32Column()
  private readonly chunks: (Uint16Array | undefined)[] = []
  private readonly far = new Map<number, number>()

  get(row: number): number {
    const d = this.chunks[row >>> CHUNK_BITS]![row & CHUNK_MASK]!
    if (d === FAR_ROW) return this.far.get(row)!
    return this.bases[row >>> CHUNK_BITS]! + this.groups.get(row >>> OFFSET_GROUP_BITS) + d
  }

  set(row: number, offset: number): void {
    const k = row >>> CHUNK_BITS
    let chunk = this.chunks[k]
    if (chunk === undefined) {
      this.chunks[k] = chunk = new Uint16Array(CHUNK_ROWS)
      this.bases[k] = offset
    }
    const group = row >>> OFFSET_GROUP_BITS
    if ((row & ((1 << OFFSET_GROUP_BITS) - 1)) === 0) {
      const g = offset - this.bases[k]!
      // Clamped past 4 GiB: each row's distance from the clamped value then fits or overflows.
      this.groups.set(group, g <= 0xffffffff ? g : 0xffffffff)
    }
    const d = offset - this.bases[k]! - this.groups.get(group)
    if (d >= 0 && d < FAR_ROW) {
      chunk[row & CHUNK_MASK] = d
      return
    }
    this.far.set(row, offset)
    chunk[row & CHUNK_MASK] = FAR_ROW
  }

  byteLength(): number {
    return this.groups.byteLength() + sumBytes(this.chunks) + this.bases.length * 8
  }
}
