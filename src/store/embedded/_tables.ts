import type { CandidateQuery } from '../../types.js'
import { bucketOf32, bytesEqual, fold16, hashBytes, hexHi, hexLo, isHex16, popcount32 } from './_bytes.js'
import { F_SELF, F_TITLE, F_URL } from './_codec.js'
import { blockValue } from './_block-layout.js'
import { TableRecords } from './_table-records.js'
import { foldKey } from './_table-rows.js'

export type { ApplyCounts, TableBytes } from './_table-rows.js'
export type { KeyTops } from './_table-records.js'

/** Bounds on what one query may return. */
export interface CandidateLimits {
  /** Records one exact key (content, URL or title hash) may contribute. */
  readonly maxPerKey: number
  /** Records the block route (and, separately, the band route) may contribute. */
  readonly maxBlockCandidates: number
  /** Records one band term may contribute: its newest; with `maxPerCluster`, the clusters it may contribute (see `CandidateBounds`). */
  readonly maxPerBand: number
  /** Records of one cluster the block route, and one band term, may contribute (see `CandidateBounds.perCluster`); unset: no such bound. */
  readonly maxPerCluster?: number | undefined
  /** Drop block-route rows farther than the query's maxDistance. */
  readonly filterBlockDistance: boolean
}

/** The limits of an exhaustive query: none. */
const UNBOUNDED = { maxPerKey: Number.POSITIVE_INFINITY, maxBlockCandidates: Number.POSITIVE_INFINITY, maxPerBand: Number.POSITIVE_INFINITY, maxPerCluster: undefined }

/**
 * The in-memory columnar table of fingerprint records and its indexes.
 *
 * One row per put; a replaced or deleted record's row is only marked dead, and the owner
 * rebuilds (`MemoryStore.compact`) when dead rows pile up. No JS object exists per row: numbers
 * live in chunked typed-array columns, strings in a UTF-8 arena, and records are materialised
 * only for the rows a call returns.
 *
 * Layered by responsibility: `TableRows` (_table-rows.ts) stores rows and applies log entries,
 * `TableRecords` (_table-records.ts) reads rows back as records or entries, and `Tables` answers
 * lookups: the candidates of a query (exact keys, blocks, bands), a cluster's members and the
 * largest clusters.
 */
export class Tables extends TableRecords {
  /**
   * Appends to `out` the rows answering `q` (each once), honouring `limits`; returns where in
   * `out` the rows only the band route found start.
   */
  collect(q: CandidateQuery, bounded: CandidateLimits, out: number[]): number {
    // An exhaustive query (`CandidateQuery.exhaustive`) is answered without any bound.
    const limits = q.exhaustive === true ? { ...UNBOUNDED, filterBlockDistance: bounded.filterBlockDistance } : bounded
    const seen = new Set<number>()
    const since = q.since ?? -Infinity
    this.seqBound = q.maxSeq ?? Infinity
    const exclude = q.excludeId === undefined ? -1 : this.rowOf(q.excludeId)
    // Rows the caller holds count as met already: each route then behaves as when they were
    // found by an earlier route of the same query (counted by the bounds, not returned again).
    if (q.known !== undefined) {
      for (const id of q.known) {
        const row = this.rowOf(id)
        if (row >= 0) seen.add(row)
      }
    }
    if (isHex16(q.contentHash)) {
      this.keyRoute(0, 0, hexHi(q.contentHash), hexLo(q.contentHash), since, exclude, limits.maxPerKey, seen, out)
    }
    if (isHex16(q.urlHash)) {
      this.keyRoute(1, F_URL, hexHi(q.urlHash), hexLo(q.urlHash), since, exclude, limits.maxPerKey, seen, out)
    }
    if (isHex16(q.titleHash)) {
      this.keyRoute(2, F_TITLE, hexHi(q.titleHash), hexLo(q.titleHash), since, exclude, limits.maxPerKey, seen, out)
    }
    this.blockRoute(q, since, exclude, limits, seen, out)
    const banded = out.length
    if (q.bands !== undefined) {
      if (limits.maxPerCluster !== undefined) this.bandRouteByCluster(q.bands, since, exclude, limits.maxBlockCandidates, q.allBands === true ? Number.POSITIVE_INFINITY : limits.maxPerBand, q.allBands === true ? Number.POSITIVE_INFINITY : limits.maxPerCluster, seen, out)
      else this.bandRoute(q.bands, since, exclude, limits.maxBlockCandidates, q.allBands === true ? Number.POSITIVE_INFINITY : limits.maxPerBand, seen, out)
    }
    return banded
  }

  /** `maxSeq` of the query being collected: later rows are not candidates. */
  private seqBound = Infinity

  /**
   * Records sharing any band term (no popcount filter: bands catch what drifted past k), at most
   * `perBand` of them per term: those first indexed last (largest `seq`) among the rows that pass
   * the filters. Documents that share content share band terms, so a term's rows grow with the
   * store (a sentence or a cluster of copies seen thousands of times); the newest `perBand` keep
   * the records read back, and so the cost of a lookup, flat. Newest means by `seq`, as the engine
   * bounds its in-batch candidates (engine/_bounds.ts): while no id was written twice, row order
   * is `seq` order and the walk stops early; after that it walks the term's chain whole
   * (typed-array reads; only the rows kept are read back) and takes the rows by `seq`.
   */
  private bandRoute(terms: readonly string[], since: number, exclude: number, max: number, perBand: number, seen: Set<number>, out: number[]): void {
    let added = 0
    const rows: number[] = []
    let taken = 0
    // Adds a row of the current term; true once the term has its `perBand` rows (or `max` is met).
    const take = (row: number): boolean => {
      if (taken >= perBand || added >= max) return true
      taken++
      if (!seen.has(row)) {
        seen.add(row)
        out.push(row)
        added++
      }
      return taken >= perBand || added >= max
    }
    // Rows are chained newest row first: while row order is seq order, the walk stops at the
    // term's `perBand`-th row; otherwise it collects the term's rows and takes them by seq.
    const ordered = this.seqOrdered
    const collect = (row: number): boolean => {
      // Rows first indexed after the query's document are never its candidates, and do not count
      // towards the bound: a re-run must see the same earlier rows as the first run (see `seqBound`).
      if (row === exclude || !this.alive.has(row) || this.time.get(row) < since || this.seqs.get(row) > this.seqBound) return false
      if (ordered) return take(row)
      rows.push(row)
      return false
    }
    for (let i = 0; i < terms.length && added < max; i++) {
      const term = terms[i]
      if (typeof term !== 'string') continue
      rows.length = 0
      taken = 0
      this.bands.forEachRow(term, collect)
      if (ordered) continue
      if (rows.length > 1) rows.sort((a, b) => this.seqs.get(b) - this.seqs.get(a))
      for (const row of rows) if (take(row)) break
    }
  }

  /**
   * The band route bounded by cluster (`CandidateBounds.perCluster`): of each term, the rows of the
   * `clusters` clusters first indexed first (by their first row with the term), `per` rows of each,
   * first indexed first. A term's whole chain is walked (typed-array reads: a cluster of
   * thousands of copies costs a walk, not reads of its records), and only the rows kept are
   * read back. Rows tied in `seq` at a cut are all kept (the engine's bound then decides by id).
   */
  private bandRouteByCluster(terms: readonly string[], since: number, exclude: number, max: number, clusters: number, per: number, seen: Set<number>, out: number[]): void {
    const rows: number[] = []
    const collect = (row: number): boolean => {
      if (row === exclude || !this.alive.has(row) || this.time.get(row) < since || this.seqs.get(row) > this.seqBound) return false
      rows.push(row)
      return false
    }
    let added = 0
    for (let i = 0; i < terms.length && added < max; i++) {
      const term = terms[i]
      if (typeof term !== 'string') continue
      rows.length = 0
      this.bands.forEachRow(term, collect)
      for (const row of rows.length <= Math.min(per, clusters) ? rows : this.byCluster(rows, clusters, per)) {
        if (added >= max) break
        if (seen.has(row)) continue
        seen.add(row)
        out.push(row)
        added++
      }
    }
  }

  /** `rows` grouped by cluster, clusters in the order their first row comes. */
  private groupByCluster(rows: readonly number[]): Map<number, number[]> {
    const groups = new Map<number, number[]>()
    for (const row of rows) {
      const key = this.clusterKey.get(row)
      const g = groups.get(key)
      if (g === undefined) groups.set(key, [row])
      else g.push(row)
    }
    return groups
  }

  /** Of `rows`, those of the `clusters` clusters first indexed first, `per` of each first indexed first (ties at a cut kept). */
  private byCluster(rows: readonly number[], clusters: number, per: number): number[] {
    const groups = this.groupByCluster(rows)
    const seqs = this.seqs
    const bySeq = (a: number, b: number): number => seqs.get(a) - seqs.get(b)
    const ordered = [...groups.values()]
    for (const g of ordered) if (g.length > 1) g.sort(bySeq)
    let n = ordered.length
    if (n > clusters) {
      ordered.sort((a, b) => bySeq(a[0]!, b[0]!))
      const cut = seqs.get(ordered[clusters - 1]![0]!)
      n = clusters
      while (n < ordered.length && seqs.get(ordered[n]![0]!) === cut) n++
    }
    const out: number[] = []
    for (let i = 0; i < n; i++) {
      const g = ordered[i]!
      let m = Math.min(per, g.length)
      if (m < g.length) {
        const cut = seqs.get(g[m - 1]!)
        while (m < g.length && seqs.get(g[m]!) === cut) m++
      }
      for (let j = 0; j < m; j++) out.push(g[j]!)
    }
    return out
  }

  /**
   * Rows whose exact-layer key `k` (0 content, 1 URL, 2 title; `flag` marks rows having it) is
   * (kHi, kLo): the newest `max` of them by `seq` (first-insertion order, as the engine bounds its
   * in-batch candidates: engine/_bounds.ts), rows tied with the last kept all kept. The chain runs
   * newest row first; while no id was written twice row order is `seq` order and the walk stops at
   * the `max`-th row. After an update or a re-pointing (the record written again, with its old
   * `seq`, as the chain's newest row) it walks on until no row left can have a larger `seq` than
   * the `max`-th kept (`seqCeiling`): taking the rows written last instead would let a re-run,
   * whose write history differs, see other candidates than the first run.
   */
  private keyRoute(
    k: number, flag: number, kHi: number, kLo: number,
    since: number, exclude: number, max: number, seen: Set<number>, out: number[],
  ): void {
    const index = this.keyIndexes[k]!
    let row = index.wide ? index.seek(kHi, kLo) : index.seek(0, foldKey(kHi, kLo))
    const ordered = this.seqOrdered
    // Rows kept so far, newest `seq` first (unordered walks only).
    const top: number[] = []
    let found = 0
    while (row >= 0 && found < max) {
      if (!ordered && top.length >= max && this.seqs.get(top[max - 1]!) > this.seqCeiling(row)) break
      if (this.alive.has(row) && (this.meta.get(row) & flag) === flag && index.matches(row)
        && row !== exclude && this.time.get(row) >= since && this.seqs.get(row) <= this.seqBound && (index.wide || this.entryKeyIs(row, k, kHi, kLo))) {
        if (ordered) {
          found++
          if (!seen.has(row)) {
            seen.add(row)
            out.push(row)
          }
        } else {
          this.keepNewest(top, row, max)
        }
      }
      row = index.next(row)
    }
    for (const r of top) {
      if (!seen.has(r)) {
        seen.add(r)
        out.push(r)
      }
    }
  }

  /** Inserts `row` into `top` (newest `seq` first), then drops the rows past the `max`-th that are older than it. */
  private keepNewest(top: number[], row: number, max: number): void {
    const seqs = this.seqs
    const seq = seqs.get(row)
    let i = top.length
    while (i > 0 && seqs.get(top[i - 1]!) < seq) i--
    top.splice(i, 0, row)
    if (top.length <= max) return
    const cut = seqs.get(top[max - 1]!)
    let n = max
    while (n < top.length && seqs.get(top[n]!) === cut) n++
    top.length = n
  }

  /** Every live row whose URL hash is (hi, lo), in no particular order (the whole chain is walked). */
  urlRows(hi: number, lo: number, out: number[]): void {
    const index = this.urls
    for (let row = index.wide ? index.seek(hi, lo) : index.seek(0, foldKey(hi, lo)); row >= 0; row = index.next(row)) {
      if (this.alive.has(row) && (this.meta.get(row) & F_URL) !== 0 && index.matches(row) && (index.wide || this.entryKeyIs(row, 1, hi, lo))) out.push(row)
    }
  }

  /** Whether `row`'s entry (read back from the log) has key `k` equal to (hi, lo): a fold match is not enough. */
  private entryKeyIs(row: number, k: number, hi: number, lo: number): boolean {
    this.locate(row)
    const v = this.entry
    return k === 0 ? v.contentHi === hi && v.contentLo === lo : k === 1 ? v.urlHi === hi && v.urlLo === lo : v.titleHi === hi && v.titleLo === lo
  }

  /**
   * Rows sharing at least `minMatch` blocks (same position) whose popcount is within
   * `maxDistance`. Past `max` rows, the nearest (by Hamming distance) are kept: the cap then only
   * ever drops candidates that verification would reject first, never a close one for a far one.
   */
  private blockRoute(q: CandidateQuery, since: number, exclude: number, limits: CandidateLimits, seen: Set<number>, out: number[]): void {
    const max = limits.maxBlockCandidates
    const m = q.blocks.length
    const minMatch = q.minMatch
    if (minMatch > m) return
    const postings = this.postings
    postings.settle()
    const qHi = q.fingerprint.hi >>> 0
    const qLo = q.fingerprint.lo >>> 0
    const maxDistance = q.maxDistance
    const found: number[] = []
    // Bounded by cluster, the route counts every row of its own (a row another route found too
    // still takes its cluster's place), and adds only those not found yet.
    const perCluster = limits.maxPerCluster
    const met = perCluster === undefined ? seen : new Set<number>()
    if (minMatch === 1 && limits.filterBlockDistance) {
      // One block is enough and only rows within k count, and a block's rows grow with the store
      // (most of them beyond k at large N): each is ruled out on its 16-bit fold (a compact
      // column) where it can be, then on its distance, before any read of its other columns.
      const qFold = fold16(qHi, qLo)
      const folds = this.folds
      const near = (row: number): void => {
        if (!this.alive.has(row) || row === exclude || popcount32(folds.get(row) ^ qFold) > maxDistance) return
        if (popcount32((this.hi.get(row) ^ qHi) >>> 0) + popcount32((this.lo.get(row) ^ qLo) >>> 0) > maxDistance) return
        if (this.time.get(row) < since || this.seqs.get(row) > this.seqBound || met.has(row)) return
        met.add(row)
        found.push(row)
      }
      const base = postings.base
      // Blocks of a known layout find their term ids by value, without hashing the strings.
      const layoutId = this.layouts.find(qHi, qLo, q.blocks)
      const layout = layoutId < 0 ? undefined : this.layouts.layouts[layoutId]!
      const caches = layout === undefined ? undefined : postings.layoutCaches(layoutId, layout)
      for (let p = 0; p < m; p++) {
        const cache = caches?.[p]
        let term = cache === undefined ? -1 : cache[blockValue(qHi, qLo, layout!.shifts[p]!, layout!.widths[p]!)]!
        if (term < 0) term = postings.findTerm(p, q.blocks[p]!)
        if (term < 0) continue
        for (let row = postings.first(term); row >= 0; row = postings.next(p, row)) near(row)
        for (let i = postings.baseFrom(term), end = postings.baseTo(term); i < end; i++) near(base[i]!)
      }
    } else {
      this.blockRows(q, limits.filterBlockDistance, exclude, since, met, found)
    }
    const distance = (row: number): number => popcount32((this.hi.get(row) ^ qHi) >>> 0) + popcount32((this.lo.get(row) ^ qLo) >>> 0)
    const kept = perCluster === undefined || found.length <= perCluster ? found : this.nearestByCluster(found, perCluster, distance)
    if (kept.length > max) {
      const byDistance = kept.map((row) => [distance(row), row] as const).sort((a, b) => a[0] - b[0] || b[1] - a[1])
      kept.length = 0
      for (let i = 0; i < max; i++) kept.push(byDistance[i]![1])
    }
    if (perCluster === undefined) {
      for (const row of kept) out.push(row)
      return
    }
    for (const row of kept) {
      if (seen.has(row)) continue
      seen.add(row)
      out.push(row)
    }
  }

  /** Of `rows`, the `per` of each cluster nearest to the query (then first indexed first; ties at a cut kept). */
  private nearestByCluster(rows: readonly number[], per: number, distance: (row: number) => number): number[] {
    const groups = this.groupByCluster(rows)
    const out: number[] = []
    const seqs = this.seqs
    for (const g of groups.values()) {
      if (g.length <= per) {
        for (const row of g) out.push(row)
        continue
      }
      const keyed = g.map((row) => distance(row) * 2 ** 32 + seqs.get(row)).sort((a, b) => a - b)
      const cut = keyed[per - 1]!
      for (const row of g) if (distance(row) * 2 ** 32 + seqs.get(row) <= cut) out.push(row)
    }
    return out
  }

  /** `blockRoute` without the distance filter, or with `minMatch` > 1: rows by popcount window and block count. */
  private blockRows(q: CandidateQuery, near: boolean, exclude: number, since: number, seen: Set<number>, found: number[]): void {
    const m = q.blocks.length
    const minMatch = q.minMatch
    const qHi = q.fingerprint.hi >>> 0
    const qLo = q.fingerprint.lo >>> 0
    const qPop = popcount32(qHi) + popcount32(qLo)
    const maxDistance = q.maxDistance
    const counts = minMatch > 1 ? new Map<number, number>() : null
    let mayStart = true
    const visit = (row: number): boolean => {
      if (!this.alive.has(row) || row === exclude) return false
      const hi = this.hi.get(row)
      const lo = this.lo.get(row)
      const d = popcount32(hi) + popcount32(lo) - qPop
      if (d > maxDistance || -d > maxDistance || this.time.get(row) < since || this.seqs.get(row) > this.seqBound) return false
      if (counts !== null) {
        const c = counts.get(row)
        if (c === undefined) {
          if (mayStart) counts.set(row, 1)
          return false
        }
        counts.set(row, c + 1)
        if (c + 1 !== minMatch) return false
      }
      if (seen.has(row)) return false
      if (near && popcount32((hi ^ qHi) >>> 0) + popcount32((lo ^ qLo) >>> 0) > maxDistance) return false
      seen.add(row)
      found.push(row)
      return false
    }
    for (let p = 0; p < m; p++) {
      const term = this.postings.findTerm(p, q.blocks[p]!)
      if (term < 0) continue
      // After position m − minMatch a row not counted yet can no longer reach minMatch.
      mayStart = p <= m - minMatch
      this.postings.forEachRow(p, term, visit)
    }
  }

  /** Rows of cluster `clusterId` (its representative first), at most `limit`. */
  members(clusterId: string, limit: number): number[] {
    const out: number[] = []
    if (limit <= 0) return out
    const bytes = Buffer.from(clusterId, 'utf8')
    const rep = this.findId(bytes, 0, bytes.length, hashBytes(bytes, 0, bytes.length))
    if (rep >= 0 && (this.meta.get(rep) & F_SELF) !== 0) out.push(rep)
    const hash = hashBytes(bytes, 0, bytes.length)
    let row = this.clusters.heads[bucketOf32(hash, this.clusters.bits)]!
    while (row >= 0 && out.length < limit) {
      if (this.alive.has(row) && (this.meta.get(row) & F_SELF) === 0 && this.clusterHash.get(row) === (hash | 0)) {
        const a = this.locate(row)
        const r = this.cur
        if (r.clusterLen === bytes.length && bytesEqual(a, r.clusterStart, bytes, 0, bytes.length)) out.push(row)
      }
      row = this.clusters.next.get(row)
    }
    return out
  }

  /**
   * The largest clusters by live member count, largest first, ties by smaller cluster id.
   * Counts non-representative rows by cluster id, then adds the representative where it is live.
   */
  topClusters(limit: number, minSize: number): { clusterId: string; size: number }[] {
    const sizes = new Map<string, number>()
    for (let row = 0; row < this.rows; row++) {
      if (!this.alive.has(row) || (this.meta.get(row) & F_SELF) !== 0) continue
      const a = this.locate(row, true)
      const r = this.cur
      const id = a.toString('utf8', r.clusterStart, r.clusterStart + r.clusterLen)
      sizes.set(id, (sizes.get(id) ?? 0) + 1)
    }
    const out: { clusterId: string; size: number }[] = []
    for (const [clusterId, n] of sizes) {
      const rep = this.rowOf(clusterId)
      const size = n + (rep >= 0 && (this.meta.get(rep) & F_SELF) !== 0 ? 1 : 0)
      if (size >= minSize) out.push({ clusterId, size })
    }
    out.sort(byClusterSize)
    if (out.length >= limit || minSize > 1) return out.slice(0, limit)
    // Singletons tie at size 1: keep the smallest ids only, without sorting every one of them.
    const want = limit - out.length
    const singles: string[] = []
    for (let row = 0; row < this.rows; row++) {
      if (!this.alive.has(row) || (this.meta.get(row) & F_SELF) === 0) continue
      const a = this.locate(row, true)
      const r = this.cur
      const id = a.toString('utf8', r.idStart, r.idStart + r.idLen)
      if (sizes.has(id) || (singles.length === want && id >= singles[want - 1]!)) continue
      let i = singles.length
      while (i > 0 && singles[i - 1]! > id) i--
      singles.splice(i, 0, id)
      if (singles.length > want) singles.pop()
    }
    for (const clusterId of singles) out.push({ clusterId, size: 1 })
    return out
  }
}

function byClusterSize(a: { clusterId: string; size: number }, b: { clusterId: string; size: number }): number {
  return b.size - a.size || (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0)
}
