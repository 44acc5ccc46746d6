import { GrowableI32 } from './_columns.js'
import { LinkColumn } from './_links.js'
import { termString, type BlockLayout } from './_block-layout.js'

/** Widest block whose value → term-id table is cached (2^20 entries, 4 MiB). */
const MAX_CACHED_WIDTH = 20

/**
 * The block route's inverted index: a dictionary of (position, term) pairs, and for each term a
 * chain of the rows that have it at that position, newest first.
 *
 * Chains are threaded through one link column per block position (3 bytes per row per block)
 * rather than held in a growable array per term: no per-term objects, no slack, no copying as
 * postings grow. Dead rows stay linked until the owner rebuilds, and walkers skip them.
 * Rows of a recognised layout find their term ids from the block value through a per-position
 * cache, so neither a put nor a replay builds term strings for terms already seen.
 */
export class Postings {
  /** Term string of each id. */
  readonly strings: string[] = []
  private readonly ids = new Map<string, number>()
  private readonly positions = new GrowableI32(1024, 0)
  private readonly heads = new GrowableI32(1024, -1)
  private readonly links: LinkColumn[] = []
  private readonly valueCache: (Int32Array | undefined)[][] = []
  /** Whether some term string occurs at two positions (then the second gets a tagged key). */
  private tagged = false

  /** Id of `term` at `position`, created if new. */
  termId(position: number, term: string): number {
    const id = this.ids.get(term)
    if (id === undefined) return this.add(term, term, position)
    if (this.positions.data[id] === position) return id
    // The same string at another position (not position-tagged terms): keep them apart.
    const key = `${position}\u0001${term}`
    this.tagged = true
    return this.ids.get(key) ?? this.add(key, term, position)
  }

  /** Id of `term` at `position`, or -1 if no row has it. */
  findTerm(position: number, term: string): number {
    const id = this.ids.get(term)
    if (id !== undefined && this.positions.data[id] === position) return id
    if (!this.tagged) return -1
    return this.ids.get(`${position}\u0001${term}`) ?? -1
  }

  /**
   * The value → term-id caches of layout `layoutId`, one per position (undefined where the block
   * is too wide to cache); -1 marks a value not seen yet (ask `termForValue`).
   */
  layoutCaches(layoutId: number, layout: BlockLayout): readonly (Int32Array | undefined)[] {
    let perLayout = this.valueCache[layoutId]
    if (perLayout === undefined) {
      this.valueCache[layoutId] = perLayout = layout.widths.map((w) => (w <= MAX_CACHED_WIDTH ? new Int32Array(1 << w).fill(-1) : undefined))
    }
    return perLayout
  }

  /** Id of the term that layout `layoutId` gives block `position` holding `value`, created if new. */
  termForValue(layoutId: number, layout: BlockLayout, position: number, value: number): number {
    const cache = this.layoutCaches(layoutId, layout)[position]
    if (cache !== undefined) {
      const hit = cache[value]!
      if (hit >= 0) return hit
    }
    const id = this.termId(position, termString(position, value, layout.digits[position]!))
    if (cache !== undefined) cache[value] = id
    return id
  }

  /** Puts `row` at the head of term `termId`'s chain (the term sits at `position` in the row). */
  link(row: number, position: number, termId: number): void {
    let column = this.links[position]
    if (column === undefined) this.links[position] = column = new LinkColumn()
    column.set(row, this.heads.data[termId]!)
    this.heads.data[termId] = row
  }

  /** Newest row of term `termId`'s chain, or -1. */
  first(termId: number): number {
    return this.heads.data[termId]!
  }

  /** The row after `row` in the chain of its term at `position`, or -1. */
  next(position: number, row: number): number {
    return this.links[position]!.get(row)
  }

  /** Bytes held by typed arrays (the Map and strings are on the JS heap and not counted). */
  byteLength(): number {
    let total = this.positions.data.byteLength + this.heads.data.byteLength
    for (const c of this.links) total += c.byteLength()
    for (const perLayout of this.valueCache) for (const c of perLayout ?? []) total += c?.byteLength ?? 0
    return total
  }

  private add(key: string, term: string, position: number): number {
    const id = this.strings.length
    this.strings.push(term)
    this.ids.set(key, id)
    this.positions.push(position)
    this.heads.push(-1)
    return id
  }
}
