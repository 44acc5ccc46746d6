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

/**
 * Chain links that also close each chain with 16 bits of payload, 3 bytes a row. A `KeyIndex`
 * keeps the top 16 bits of a chain's (mixed) key there, once per chain instead of once per row.
 *
 * The stored word w is read against the row: 1 ≤ w ≤ row is the distance back to the next
 * (older) row; w > row is the chain's end, whose payload is w − row − 1 (rows under
 * 2^24 − 2^16 − 1 always fit); FAR sends the rare word that does not fit to an overflow Map.
 * `get` returns the next row (≥ 0), or −1 − payload at the end, so walkers loop while ≥ 0.
 */
export class TailLinkColumn {
  private readonly chunks: (Uint8Array | undefined)[] = []
  private readonly far = new Map<number, number>()

  /** The row after `row`, or −1 − payload when `row` ends its chain. */
  get(row: number): number {
    const chunk = this.chunks[row >>> CHUNK_BITS]
    if (chunk === undefined) return -1
    const i = (row & CHUNK_MASK) * 3
    const w = chunk[i]! | (chunk[i + 1]! << 8) | (chunk[i + 2]! << 16)
    if (w === FAR) return this.far.get(row)!
    return row - w
  }

  /** Links `row` to `next` (an older row), or ends the chain at `row` with `payload` (0–65,535) when `next` < 0. */
  set(row: number, next: number, payload: number): void {
    if (next >= row) throw new Error(`link from row ${row} to row ${next}: links must point to older rows`)
    const k = row >>> CHUNK_BITS
    let chunk = this.chunks[k]
    if (chunk === undefined) this.chunks[k] = chunk = new Uint8Array(CHUNK_ROWS * 3)
    let w = next < 0 ? row + 1 + payload : row - next
    if (w >= FAR) {
      this.far.set(row, next < 0 ? -1 - payload : next)
      w = FAR
    } else if (this.far.size > 0) {
      this.far.delete(row)
    }
    const i = (row & CHUNK_MASK) * 3
    chunk[i] = w
    chunk[i + 1] = w >>> 8
    chunk[i + 2] = w >>> 16
  }

  /** Bytes held (the overflow Map's few entries are not counted). */
  byteLength(): number {
    let total = 0
    for (const c of this.chunks) if (c !== undefined) total += c.byteLength
    return total
  }
}
