import { GrowableI32 } from './_columns.js'
import { LinkColumn } from './_links.js'
import { termString, type BlockLayout } from './_block-layout.js'

/** Widest block whose value → term-id table is cached (2^20 entries, 4 MiB). */
const MAX_CACHED_WIDTH = 20
/** Fewest rows in the chains before `settle` folds them into the base. */
const MIN_CHAIN_ROWS = 4096
/** `settle` folds the chains into the base once they hold more than base rows / CHAIN_SHARE. */
const CHAIN_SHARE = 8

/**
 * The block route's inverted index: a dictionary of (position, term) pairs, and for each term the
 * rows that have it at that position, newest first: first the term's chain (recent rows), then
 * its run of the base (older rows).
 *
 * Chains are threaded through one link column per block position (3 bytes per row per block)
 * rather than held in a growable array per term: no per-term objects, no slack, no copying as
 * postings grow. But walking a chain costs a cache miss per row, and a 16-bit block's rows grow
 * with the store (~N / 65,536 each, more with biased bits): so `settle` folds the chains into the
 * base, one Int32Array of rows sorted by term (each term's rows contiguous, newest first; a
 * lookup scans a run instead of chasing links), once they hold more than an eighth of the base
 * rows. Folding copies every entry (linear, typed arrays), so a row is copied ~8 times on
 * average over the store's growth; the links of folded rows are dropped (4 bytes a row per block
 * in the base against 3 in a chain).
 *
 * Dead rows stay in chains and base until the owner rebuilds, and walkers skip them.
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
  /** Base rows, grouped by term id: term t's rows are `base[baseStart[t], baseStart[t + 1])`, newest first. */
  base = new Int32Array(0)
  private baseStart = new Uint32Array(1)
  /** Terms that existed at the last fold (later ones have no base run). */
  private baseTerms = 0
  /** Rows linked since the last fold, and the last of them (a row links once per position). */
  private chainRows = 0
  private lastRow = -1
  private baseRows = 0

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

  /** The position term `termId` is at. */
  positionOf(termId: number): number {
    return this.positions.data[termId]!
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
    if (row !== this.lastRow) {
      this.lastRow = row
      this.chainRows++
    }
    let column = this.links[position]
    if (column === undefined) this.links[position] = column = new LinkColumn()
    column.set(row, this.heads.data[termId]!)
    this.heads.data[termId] = row
  }

  /** Where term `termId`'s run of `base` starts (rows older than all of its chain's). */
  baseFrom(termId: number): number {
    return termId < this.baseTerms ? this.baseStart[termId]! : 0
  }

  /** Where term `termId`'s run of `base` ends. */
  baseTo(termId: number): number {
    return termId < this.baseTerms ? this.baseStart[termId + 1]! : 0
  }

  /** Calls `visit` with every row of term `termId` (at `position`), newest first, until it returns true. */
  forEachRow(position: number, termId: number, visit: (row: number) => boolean): void {
    for (let row = this.first(termId); row >= 0; row = this.next(position, row)) if (visit(row)) return
    const base = this.base
    for (let i = this.baseFrom(termId), end = this.baseTo(termId); i < end; i++) if (visit(base[i]!)) return
  }

  /** Folds the chains into the base when they have grown past their share (see the class comment). */
  settle(): void {
    if (this.chainRows >= MIN_CHAIN_ROWS && this.chainRows * CHAIN_SHARE >= this.baseRows) this.fold()
  }

  /** Moves every chain's rows to the front of its term's base run; the chains are left empty. */
  fold(): void {
    const terms = this.strings.length
    const heads = this.heads.data
    const positions = this.positions.data
    const oldStart = this.baseStart
    const oldBase = this.base
    const oldTerms = this.baseTerms
    const start = new Uint32Array(terms + 1)
    let total = 0
    for (let t = 0; t < terms; t++) {
      start[t] = total
      let n = t < oldTerms ? oldStart[t + 1]! - oldStart[t]! : 0
      const column = this.links[positions[t]!]
      for (let row = heads[t]!; row >= 0; row = column!.get(row)) n++
      total += n
    }
    start[terms] = total
    const base = new Int32Array(total)
    for (let t = 0; t < terms; t++) {
      let at = start[t]!
      const column = this.links[positions[t]!]
      for (let row = heads[t]!; row >= 0; row = column!.get(row)) base[at++] = row
      if (t < oldTerms) {
        base.set(oldBase.subarray(oldStart[t]!, oldStart[t + 1]!), at)
      }
    }
    heads.fill(-1, 0, terms)
    this.links.length = 0
    this.base = base
    this.baseStart = start
    this.baseTerms = terms
    this.baseRows += this.chainRows
    this.chainRows = 0
  }

  /** Newest row of term `termId`'s chain, or -1. */
  first(termId: number): number {
    return this.heads.data[termId]!
  }

  /** The row after `row` in the chain of its term at `position`, or -1 (then its base run follows). */
  next(position: number, row: number): number {
    return this.links[position]!.get(row)
  }

  /** Bytes held by typed arrays (the Map and strings are on the JS heap and not counted). */
  byteLength(): number {
    let total = this.positions.data.byteLength + this.heads.data.byteLength + this.base.byteLength + this.baseStart.byteLength
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
