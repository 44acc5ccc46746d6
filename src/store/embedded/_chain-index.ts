import { SparseI32Column } from './_columns.js'
import { LinkColumn } from './_links.js'

/**
 * A hash index of rows by some key, as bucket heads plus a per-row link to the next row in the
 * same bucket (separate chaining through a row column, newest first).
 *
 * It stores no keys: walkers compare the row's own key columns (or arena bytes), so an index
 * costs 3 bytes of link per row plus 4 / load bytes of heads. Several rows may share a key
 * (copies of one document); walkers stop after enough matches, so a key held by 100 k rows
 * costs a lookup only what it returns. Dead rows stay linked until the owner relinks (on growth
 * or rebuild); walkers skip them. The owner computes buckets and drives growth, because only it
 * knows how to find a row's key.
 */
export class ChainIndex {
  heads: Int32Array
  bits: number
  /** Rows linked since the last reset (dead ones included). */
  linked = 0
  readonly next: LinkColumn | SparseI32Column

  /**
   * `maxLoad`: average rows per bucket before the heads double (higher: less memory, longer
   * walks). `sparse`: only some rows are ever linked (and they are linked in row order).
   */
  constructor(private readonly maxLoad: number, sparse = false, bits = 10) {
    this.next = sparse ? new SparseI32Column() : new LinkColumn()
    this.bits = bits
    this.heads = new Int32Array(1 << bits).fill(-1)
  }

  /** Puts `row` at the head of `bucket`. */
  link(row: number, bucket: number): void {
    this.next.set(row, this.heads[bucket]!)
    this.heads[bucket] = row
    this.linked++
  }

  /** Sizes an empty index for about `rows` rows, so filling it (replay, rebuild) never relinks. */
  reserve(rows: number): void {
    if (this.linked > 0) return
    let bits = this.bits
    while (bits < 30 && rows > this.maxLoad * (1 << bits)) bits++
    if (bits !== this.bits) this.reset(bits)
  }

  /** Whether the owner should `reset(bits + 1)` and relink its live rows. */
  full(): boolean {
    return this.linked > this.maxLoad * this.heads.length
  }

  /** Empties the index with 2^bits buckets. */
  reset(bits: number): void {
    this.bits = bits
    this.heads = new Int32Array(1 << bits).fill(-1)
    this.linked = 0
  }

  /** Bytes held (heads and links). */
  byteLength(): number {
    return this.heads.byteLength + this.next.byteLength()
  }
}
