import { CHUNK_BITS } from './_columns.js'

const CHUNK_ROWS = 1 << CHUNK_BITS
const CHUNK_MASK = CHUNK_ROWS - 1
/** Stored delta meaning "see the overflow map". */
const FAR = 0xffffff

/**
 * Chain links ("the next row after this one"), 3 bytes a row instead of 4.
 *
 * Every chain in the store runs from newer rows to older ones, so a link always points to a
 * smaller row and is stored as the distance back (1 to 2^24 − 2; 0 ends the chain). Distances
 * in a chain average rows / chains (65,536 for one 16-bit block position), so at any realistic
 * size almost all fit; the rare longer one is kept in a Map. Saves 1 byte per row per chain:
 * 8 MB per chain at 10 M rows.
 */
export class LinkColumn {
  private readonly chunks: (Uint8Array | undefined)[] = []
  private readonly far = new Map<number, number>()

  /** The row after `row`, or -1. */
  get(row: number): number {
    const chunk = this.chunks[row >>> CHUNK_BITS]
    if (chunk === undefined) return -1
    const i = (row & CHUNK_MASK) * 3
    const d = chunk[i]! | (chunk[i + 1]! << 8) | (chunk[i + 2]! << 16)
    if (d === 0) return -1
    return d === FAR ? this.far.get(row)! : row - d
  }

  /** Links `row` to `next` (an older row, or -1). */
  set(row: number, next: number): void {
    if (next >= row) throw new Error(`link from row ${row} to row ${next}: links must point to older rows`)
    const k = row >>> CHUNK_BITS
    let chunk = this.chunks[k]
    if (chunk === undefined) this.chunks[k] = chunk = new Uint8Array(CHUNK_ROWS * 3)
    let d = next < 0 ? 0 : row - next
    if (d >= FAR) {
      this.far.set(row, next)
      d = FAR
    } else if (this.far.size > 0) {
      this.far.delete(row)
    }
    const i = (row & CHUNK_MASK) * 3
    chunk[i] = d
    chunk[i + 1] = d >>> 8
    chunk[i + 2] = d >>> 16
  }

  /** Bytes held (the overflow Map's few entries are not counted). */
  byteLength(): number {
    let total = 0
    for (const c of this.chunks) if (c !== undefined) total += c.byteLength
    return total
  }
}
