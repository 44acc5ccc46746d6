import type { CandidateQuery, FingerprintRecord } from '../types.js'
import { ByteArena } from './_arena.js'
import { BandStore } from './_bands.js'
import { EXPLICIT_LAYOUT, blockValue, type LayoutRegistry } from './_block-layout.js'
import { bucketOf32, bytesEqual, hashBytes, hexHi, hexLo, isHex16, popcount32, toHex16, VARINT_OUT } from './_bytes.js'
import { ChainIndex } from './_chain-index.js'
import { KEY_OUT, KeyIndex, chainEnds } from './_key-index.js'
import type { LogReader } from './_log-reader.js'
import {
  ByteWriter, ENTRY_DELETE, ENTRY_LAYOUT, ENTRY_PUT, F_DISTANCE, F_DUP, F_SELF, F_SHORT, F_SKETCH, F_SKETCH_HEX, F_TITLE, F_URL,
  LAYERS, LOG_EXPLICIT_LAYOUT, PutView, RegionView, decodeDelete, decodePut, entryBands, readRegion,
} from './_codec.js'
import { BitColumn, DictColumn, I32Column, OffsetColumn, SparseI32Column, U32Column } from './_columns.js'
import { Postings } from './_postings.js'
import type { VersionRegistry } from './_versions.js'

/**
 * Row meta (one write-once uint32 per row): record flags in bits 0–7, layer code in 9–11,
 * distance in 12–18, layout id in 19–24, version id in 25–31. Liveness is a separate bit
 * column, so meta never changes after the put and dictionary-codes to about a byte a row.
 */
const FLAG_MASK = 255
const LAYER_SHIFT = 9
const DISTANCE_SHIFT = 12
const LAYOUT_SHIFT = 19
const VERSION_SHIFT = 25
/** Rows per arena group: one stored position per group, rows found by skipping regions. */
const GROUP_BITS = 3
const GROUP_MASK = (1 << GROUP_BITS) - 1

/** Key top bits of every row at one time (`Tables.keyTops`). */
export interface KeyTops {
  readonly rows: number
  /** Content, URL, title. */
  readonly keys: readonly Uint16Array[]
  /** One per band position. */
  readonly bands: readonly Uint16Array[]
}

/** Table bytes by part (`Tables.byteParts`). */
export interface TableBytes {
  /** The fingerprint columns (hi, lo). */
  fingerprints: number
  /** Time, meta, liveness and explicit block terms. */
  rowColumns: number
  /** Record payloads: the string arena and its positions (in memory) or entry offsets (with a log). */
  payloads: number
  /** The id and cluster id indexes. */
  ids: number
  /** The content, URL and title hash indexes. */
  exactKeys: number
  /** The block postings and their term dictionary's typed arrays. */
  blocks: number
  /** The band indexes. */
  bands: number
}

/** Bounds on what one query may return. */
export interface CandidateLimits {
  /** Records one exact key (content, URL or title hash) may contribute. */
  readonly maxPerKey: number
  /** Records the block route (and, separately, the band route) may contribute. */
  readonly maxBlockCandidates: number
  /** Records one band term may contribute: its newest. */
  readonly maxPerBand: number
  /** Drop block-route rows farther than the query's maxDistance. */
  readonly filterBlockDistance: boolean
}

/** A malformed entry found while applying bytes: `at` is its offset in the payload. */
export class EntryError extends Error {
  constructor(readonly at: number, message: string) {
    super(message)
  }
}

/** What applying a payload did, for the log's live/dead accounting. */
export interface ApplyCounts {
  puts: number
  deletes: number
}

/**
 * The in-memory columnar table of fingerprint records and its indexes.
 *
 * One row per put; a replaced or deleted record's row is only marked dead, and the owner
 * rebuilds (`MemoryStore.compact`) when dead rows pile up. No JS object exists per row: numbers
 * live in chunked typed-array columns, strings in a UTF-8 arena, and records are materialised
 * only for the rows a call returns.
 */
export class Tables {
  rows = 0
  live = 0
  dead = 0
  private readonly hi = new U32Column()
  private readonly lo = new U32Column()
  private readonly time = new DictColumn('float64')
  /** First-insertion sequence number of each row's record (kept when an id is put again). */
  private readonly seqs = new U32Column()
  /** Largest `seq` any row has held (fresh numbers start above it). */
  maxSeq = 0
  /**
   * Whether every row was written with a larger `seq` than all before it (no id written twice), so
   * that row order is `seq` order and a newest-first walk may stop early (see `bandRoute`).
   */
  private seqOrdered = true
  private readonly meta = new DictColumn('uint32')
  private readonly alive = new BitColumn()
  /** Arena position of each group of 2^GROUP_BITS rows' string regions (in-memory store). */
  private readonly groupPos = new U32Column()
  /** Log offset of each row's PUT entry (store with a log: payloads are read back from it). */
  private readonly offsets = new OffsetColumn()
  private readonly explicitPos = new U32Column()
  private readonly explicitPool = new I32Column()
  private explicitFill = 0
  private readonly arena = new ByteArena()
  // Loads trade memory (heads cost 4 / load bytes a row) against chain walks per lookup.
  /** Rows by the 32-bit hash of their id; a hash match is confirmed on the id's bytes. */
  private readonly ids = new KeyIndex(false, 8)
  private readonly clusters = new ChainIndex(4, true)
  /** The cluster id hash of each row linked in `clusters` (relinking reads these, not the ids). */
  private readonly clusterHash = new SparseI32Column()
  /**
   * Exact-layer keys. In memory they live only in their indexes (6 bytes of remainder a key, not
   * 8). With a log, the key is read back from the entry, so the index holds a 32-bit fold of it
   * in a tag-only index (1 byte of remainder: a match means 24 bits agree) and a match is
   * confirmed on the entry's key.
   */
  private readonly content: KeyIndex
  private readonly urls: KeyIndex
  private readonly titles: KeyIndex
  private readonly keyIndexes: readonly KeyIndex[]
  private readonly keyOrder: KeyIndex[]
  private walked = new Int32Array(11)
  private readonly keyEnds = new Int32Array(3)
  private readonly postings = new Postings()
  private readonly bands: BandStore
  private readonly view = new PutView()
  private readonly region = new RegionView()
  /** A row's entry read back from the log (log mode); `entryStart` is where it starts in the buffer. */
  private readonly entry = new PutView()
  private entryStart = 0
  /** What the last `locate` found: `region` (in memory) or `entry` (read from the log). */
  private cur: RegionView = this.region

  /**
   * `reader`: the log to read payloads back from (a store with a directory); null keeps them in an
   * in-RAM arena.
   */
  constructor(private readonly layouts: LayoutRegistry, private readonly versions: VersionRegistry, readonly reader: LogReader | null = null) {
    const wide = reader === null
    this.bands = new BandStore(this.alive, !wide)
    // Tag-only indexes take load 16: a longer walk costs no extra false matches, the heads half.
    const load = wide ? 8 : 16
    this.content = new KeyIndex(wide, load, !wide)
    this.urls = new KeyIndex(wide, load, !wide)
    this.titles = new KeyIndex(wide, load, !wide)
    this.keyIndexes = [this.content, this.urls, this.titles]
    this.keyOrder = [this.content, this.urls, this.titles]
  }

  /**
   * Applies the entries in `buf[start, end)` (PUT, DELETE, LAYOUT) in order; `fileOffset` is
   * where `buf[0]` sits in the log (ignored in memory). `unique`: the entries come from live rows
   * (compaction), so no id is looked up to replace. Throws EntryError for a malformed entry.
   */
  applyEntries(buf: Buffer, start: number, end: number, fileOffset = 0, unique = false): ApplyCounts {
    const counts: ApplyCounts = { puts: 0, deletes: 0 }
    let pos = start
    while (pos < end) {
      const kind = buf[pos]
      let next: number
      if (kind === ENTRY_PUT) {
        next = decodePut(buf, pos, end, this.view)
        if (next < 0) throw new EntryError(pos, 'malformed record entry')
        this.applyPut(buf, this.view, pos, fileOffset + pos, unique)
        counts.puts++
      } else if (kind === ENTRY_DELETE) {
        next = decodeDelete(buf, pos, end)
        if (next < 0) throw new EntryError(pos, 'malformed delete entry')
        const [idStart, idLen] = VARINT_OUT
        const row = this.findId(buf, idStart, idLen, hashBytes(buf, idStart, idLen))
        if (row >= 0) this.kill(row)
        counts.deletes++
      } else if (kind === ENTRY_LAYOUT) {
        next = pos + 4 + (buf[pos + 3] ?? 0)
        if (next > end) throw new EntryError(pos, 'malformed layout entry')
        const widths = Array.from(buf.subarray(pos + 4, next))
        if (!this.layouts.define(buf[pos + 1]!, widths, buf[pos + 2] === 1)) throw new EntryError(pos, 'conflicting layout entry')
        this.layouts.inLog[buf[pos + 1]!] = true
      } else {
        throw new EntryError(pos, `unknown entry kind ${String(kind)}`)
      }
      pos = next
    }
    return counts
  }

  private applyPut(buf: Buffer, v: PutView, at: number, offset: number, unique: boolean): void {
    const version = this.versions.internBytes(buf, v.versionStart, v.versionLen)
    if (version < 0) throw new EntryError(at, 'more distinct versions than the store supports')
    const layout = v.layout === LOG_EXPLICIT_LAYOUT ? EXPLICIT_LAYOUT : v.layout
    if (layout !== EXPLICIT_LAYOUT && layout >= this.layouts.layouts.length) throw new EntryError(at, `record uses undefined layout ${layout}`)
    const idHash = hashBytes(buf, v.idStart, v.idLen)
    const old = unique ? -1 : this.findId(buf, v.idStart, v.idLen, idHash)
    if (old >= 0) this.kill(old)

    const row = this.rows
    const flags = v.flags
    this.hi.set(row, v.hi)
    this.lo.set(row, v.lo)
    this.time.set(row, v.indexedAt)
    this.seqs.set(row, v.seq)
    if (v.seq > this.maxSeq) this.maxSeq = v.seq
    else this.seqOrdered = false
    this.alive.set(row, true)
    this.meta.set(row, (flags | (v.layer << LAYER_SHIFT) | (v.distance << DISTANCE_SHIFT) | (layout << LAYOUT_SHIFT) | (version << VERSION_SHIFT)) >>> 0)
    if (this.reader === null) this.groupPos.set(row >>> GROUP_BITS, this.arena.append(buf, v.regionStart, v.end, (row & GROUP_MASK) === 0))
    else this.offsets.set(row, offset)
    this.rows++
    this.live++

    this.ids.link(row, 0, idHash, this.alive)
    this.linkKey(this.content, row, v.contentHi, v.contentLo)
    if ((flags & F_URL) !== 0) this.linkKey(this.urls, row, v.urlHi, v.urlLo)
    if ((flags & F_TITLE) !== 0) this.linkKey(this.titles, row, v.titleHi, v.titleLo)
    if ((flags & F_SELF) === 0) {
      const hash = hashBytes(buf, v.clusterStart, v.clusterLen)
      this.clusterHash.set(row, hash | 0)
      this.clusters.link(row, bucketOf32(hash, this.clusters.bits))
      if (this.clusters.full()) this.relinkClusters()
    }

    this.bands.insert(row, buf, v)
    if (layout !== EXPLICIT_LAYOUT) {
      const l = this.layouts.layouts[layout]!
      const caches = this.postings.layoutCaches(layout, l)
      for (let p = 0; p < l.widths.length; p++) {
        const value = blockValue(v.hi, v.lo, l.shifts[p]!, l.widths[p]!)
        const cache = caches[p]
        let term = cache === undefined ? -1 : cache[value]!
        if (term < 0) term = this.postings.termForValue(layout, l, p, value)
        this.postings.link(row, p, term)
      }
    } else {
      let p = v.explicitStart
      const count = buf[p++]!
      let slot = this.explicitFill
      this.explicitPos.set(row, slot)
      this.explicitPool.set(slot++, count)
      for (let i = 0; i < count; i++) {
        const len = buf[p]!
        const term = this.postings.termId(i, buf.toString('utf8', p + 1, p + 1 + len))
        p += 1 + len
        this.explicitPool.set(slot++, term)
        this.postings.link(row, i, term)
      }
      this.explicitFill = slot
    }
  }

  /** Links `row` under an exact-layer key: the key itself in memory, its 32-bit fold with a log. */
  private linkKey(index: KeyIndex, row: number, hi: number, lo: number): void {
    if (index.wide) index.link(row, hi, lo, this.alive)
    else index.link(row, 0, foldKey(hi, lo), this.alive)
  }

  /** Sizes the indexes for about `rows` rows before a replay or rebuild fills them. */
  reserve(rows: number): void {
    for (const index of [this.ids, this.content, this.urls, this.titles]) index.reserve(rows)
    this.bands.reserve(rows)
  }

  private kill(row: number): void {
    this.alive.set(row, false)
    this.live--
    this.dead++
  }

  /** Live row whose id is `buf[start, start + len)` (with hash `hash`), or -1. */
  private findId(buf: Uint8Array, start: number, len: number, hash: number): number {
    const ids = this.ids
    for (let row = ids.seek(0, hash); row >= 0; row = ids.next(row)) {
      if (!ids.matches(row) || !this.alive.has(row)) continue
      const a = this.locate(row)
      const r = this.cur
      if (r.idLen === len && bytesEqual(a, r.idStart, buf, start, len)) return row
    }
    return -1
  }

  /**
   * Finds `row`'s strings: sets `this.cur` to where they sit in the returned buffer (valid until
   * the next `locate`). In memory, from its group's arena position, skipping the regions of the
   * rows before it in the group; with a log, by reading its entry back (`cur` is then the whole
   * decoded entry). `ahead`: the caller walks rows in order (read a large window).
   */
  private locate(row: number, ahead = false): Buffer {
    if (this.reader !== null) {
      const offset = this.offsets.get(row)
      const buf = this.reader.entry(offset, this.entry, ahead)
      this.entryStart = this.reader.at
      this.cur = this.entry
      return buf
    }
    this.cur = this.region
    const pos = this.groupPos.get(row >>> GROUP_BITS)
    const a = this.arena.buffer(pos)
    let off = this.arena.offset(pos)
    const r = this.region
    for (let k = row & ~GROUP_MASK; k < row; k++) {
      readRegion(a, off, a.length, this.meta.get(k) & FLAG_MASK, r)
      off = r.end
    }
    readRegion(a, off, a.length, this.meta.get(row) & FLAG_MASK, r)
    r.start = off
    return a
  }

  /** Live row of `id`, or -1. */
  rowOf(id: string): number {
    const bytes = Buffer.from(id, 'utf8')
    return this.findId(bytes, 0, bytes.length, hashBytes(bytes, 0, bytes.length))
  }

  private relinkClusters(): void {
    const index = this.clusters
    index.reset(index.bits + 1)
    for (let row = 0; row < this.rows; row++) {
      if (!this.alive.has(row) || (this.meta.get(row) & F_SELF) !== 0) continue
      index.link(row, bucketOf32(this.clusterHash.get(row) >>> 0, index.bits))
    }
  }

  /** The distinct fingerprint versions of the live rows, sorted (one pass over the row meta). */
  liveVersions(): string[] {
    const seen = new Set<number>()
    for (let row = 0; row < this.rows; row++) {
      if (this.alive.has(row)) seen.add(this.meta.get(row) >>> VERSION_SHIFT)
    }
    return [...seen].map((id) => this.versions.strings[id]!).sort()
  }

  /** The `seq` of a live row. */
  seqOf(row: number): number {
    return this.seqs.get(row)
  }

  /** Whether a row is live. */
  isLive(row: number): boolean {
    return row >= 0 && row < this.rows && this.alive.has(row)
  }

  /** Appends to `out` the rows answering `q` (each once), honouring `limits`. */
  collect(q: CandidateQuery, limits: CandidateLimits, out: number[]): void {
    const seen = new Set<number>()
    const since = q.since ?? -Infinity
    this.seqBound = q.maxSeq ?? Infinity
    const exclude = q.excludeId === undefined ? -1 : this.rowOf(q.excludeId)
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
    if (q.bands !== undefined) this.bandRoute(q.bands, since, exclude, limits.maxBlockCandidates, q.allBands === true ? Number.POSITIVE_INFINITY : limits.maxPerBand, seen, out)
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

  /** Rows whose exact-layer key `k` (0 content, 1 URL, 2 title; `flag` marks rows having it) is (kHi, kLo). */
  private keyRoute(
    k: number, flag: number, kHi: number, kLo: number,
    since: number, exclude: number, max: number, seen: Set<number>, out: number[],
  ): void {
    const index = this.keyIndexes[k]!
    let row = index.wide ? index.seek(kHi, kLo) : index.seek(0, foldKey(kHi, kLo))
    let found = 0
    while (row >= 0 && found < max) {
      if (this.alive.has(row) && (this.meta.get(row) & flag) === flag && index.matches(row)
        && row !== exclude && this.time.get(row) >= since && this.seqs.get(row) <= this.seqBound && (index.wide || this.entryKeyIs(row, k, kHi, kLo))) {
        found++
        if (!seen.has(row)) {
          seen.add(row)
          out.push(row)
        }
      }
      row = index.next(row)
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
    const near = limits.filterBlockDistance
    const m = q.blocks.length
    const minMatch = q.minMatch
    if (minMatch > m) return
    const qHi = q.fingerprint.hi >>> 0
    const qLo = q.fingerprint.lo >>> 0
    const qPop = popcount32(qHi) + popcount32(qLo)
    const maxDistance = q.maxDistance
    const counts = minMatch > 1 ? new Map<number, number>() : null
    const found: number[] = []
    for (let p = 0; p < m; p++) {
      const term = this.postings.findTerm(p, q.blocks[p]!)
      if (term < 0) continue
      // After position m − minMatch a row not counted yet can no longer reach minMatch.
      const mayStart = p <= m - minMatch
      for (let row = this.postings.first(term); row >= 0; row = this.postings.next(p, row)) {
        if (!this.alive.has(row) || row === exclude) continue
        const d = popcount32(this.hi.get(row)) + popcount32(this.lo.get(row)) - qPop
        if (d > maxDistance || -d > maxDistance || this.time.get(row) < since || this.seqs.get(row) > this.seqBound) continue
        if (counts !== null) {
          const c = counts.get(row)
          if (c === undefined) {
            if (!mayStart) continue
            counts.set(row, 1)
            continue
          }
          counts.set(row, c + 1)
          if (c + 1 !== minMatch) continue
        }
        if (seen.has(row)) continue
        if (near && popcount32((this.hi.get(row) ^ qHi) >>> 0) + popcount32((this.lo.get(row) ^ qLo) >>> 0) > maxDistance) continue
        seen.add(row)
        found.push(row)
      }
    }
    if (found.length > max) {
      const distance = (row: number): number => popcount32((this.hi.get(row) ^ qHi) >>> 0) + popcount32((this.lo.get(row) ^ qLo) >>> 0)
      const byDistance = found.map((row) => [distance(row), row] as const).sort((a, b) => a[0] - b[0] || b[1] - a[1])
      found.length = 0
      for (let i = 0; i < max; i++) found.push(byDistance[i]![1])
    }
    for (const row of found) out.push(row)
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

  /**
   * Snapshot of every row's key top bits (content, URL, title, then band positions) for a pass
   * over the whole table: `record`/`encodeRow` given it look the bits up instead of walking each
   * row's chains. 2 bytes a row per index while held; valid for the rows that exist now, whatever
   * is put, deleted or regrown later (a key's top bits never change).
   */
  keyTops(): KeyTops {
    // With a log, keys are read back from the entries: nothing to snapshot.
    if (this.reader !== null) return { rows: 0, keys: [], bands: [] }
    return { rows: this.rows, keys: [this.content.tops(), this.urls.tops(), this.titles.tops()], bands: this.bands.tops() }
  }

  /**
   * The records of `rows` (repeats allowed), by row. With a log they are read in file order, so
   * a batch's reads move forward through the file once.
   */
  records(rows: readonly number[]): Map<number, FingerprintRecord> {
    const out = new Map<number, FingerprintRecord>()
    let order = [...new Set(rows)]
    if (this.reader !== null && order.length > 1) {
      const offsets = this.offsets
      order = order.map((row) => [offsets.get(row), row] as const).sort((a, b) => a[0] - b[0]).map((p) => p[1])
    }
    for (const row of order) out.set(row, this.record(row))
    return out
  }

  /** The record stored in `row` (`tops`: a `keyTops()` snapshot, for whole-table passes). */
  record(row: number, tops?: KeyTops): FingerprintRecord {
    const m = this.meta.get(row)
    const flags = m & FLAG_MASK
    const log = this.reader !== null
    if (!log) this.walkKeys(row, flags, tops)
    const a = this.locate(row, tops !== undefined)
    const r = this.cur
    const v = this.entry
    const id = a.toString('utf8', r.idStart, r.idStart + r.idLen)
    const hi = this.hi.get(row)
    const lo = this.lo.get(row)
    const layout = (m >>> LAYOUT_SHIFT) & 63
    const record: FingerprintRecord = {
      id,
      fingerprint: { hi, lo },
      blocks: layout === EXPLICIT_LAYOUT ? this.explicitTerms(row) : this.layoutTerms(layout, hi, lo),
      contentHash: log ? toHex16(v.contentHi, v.contentLo) : this.keyHex(0, row),
      urlHash: (flags & F_URL) === 0 ? null : log ? toHex16(v.urlHi, v.urlLo) : this.keyHex(1, row),
      titleHash: (flags & F_TITLE) === 0 ? null : log ? toHex16(v.titleHi, v.titleLo) : this.keyHex(2, row),
      short: (flags & F_SHORT) !== 0,
      clusterId: (flags & F_SELF) !== 0 ? id : a.toString('utf8', r.clusterStart, r.clusterStart + r.clusterLen),
      duplicateOf: (flags & F_DUP) !== 0 ? a.toString('utf8', r.dupStart, r.dupStart + r.dupLen) : null,
      distance: (flags & F_DISTANCE) !== 0 ? (m >>> DISTANCE_SHIFT) & 127 : null,
      layer: LAYERS[(m >>> LAYER_SHIFT) & 7] ?? null,
      version: this.versions.strings[m >>> VERSION_SHIFT]!,
      indexedAt: this.time.get(row),
      seq: this.seqs.get(row),
    }
    if ((flags & F_SKETCH) !== 0) record.sketch = (flags & F_SKETCH_HEX) !== 0 ? hexSketch(a, r.sketchStart, r.sketchLen) : a.toString('utf8', r.sketchStart, r.sketchStart + r.sketchLen)
    const bands = log ? entryBands(a, v) : this.bands.terms(row, this.walked, 3)
    if (bands !== undefined) record.bands = bands
    return record
  }

  /**
   * Walks all of `row`'s chains that hold its keys (content, URL and title per `flags`, then its
   * bands) together, so their memory reads overlap: `keyEnds` gets the exact-layer ends by index
   * (0 content, 1 URL, 2 title) and `walked[3…]` the band ends.
   */
  private walkKeys(row: number, flags: number, tops: KeyTops | undefined): void {
    if (tops !== undefined && row < tops.rows) return this.lookUpKeys(row, tops)
    const url = (flags & F_URL) !== 0
    const title = (flags & F_TITLE) !== 0
    // Fixed places for the three keys; an absent one walks the content chain again (same reads).
    const order = this.keyOrder
    order[0] = this.content
    order[1] = url ? this.urls : this.content
    order[2] = title ? this.titles : this.content
    const n = 3 + this.bands.indexesOf(row, order, 3)
    if (this.walked.length < n) this.walked = new Int32Array(n)
    chainEnds(order, n, row, this.walked)
    this.keyEnds[0] = this.walked[0]!
    this.keyEnds[1] = this.walked[1]!
    this.keyEnds[2] = this.walked[2]!
  }

  /** What `walkKeys` finds, from a `keyTops()` snapshot. */
  private lookUpKeys(row: number, tops: KeyTops): void {
    for (let k = 0; k < 3; k++) this.keyEnds[k] = -1 - tops.keys[k]![row]!
    const n = 3 + tops.bands.length
    if (this.walked.length < n) this.walked = new Int32Array(n)
    for (let i = 0; i < tops.bands.length; i++) this.walked[3 + i] = -1 - (tops.bands[i]![row] ?? 0)
  }

  /** Key `k` (0 content, 1 URL, 2 title) of `row` as 16 hex digits, after `walkKeys(row)`. */
  private keyHex(k: number, row: number): string {
    this.keyIndexes[k]!.keyAt(row, this.keyEnds[k]!)
    return toHex16(KEY_OUT[0], KEY_OUT[1])
  }

  /** Terms of a layout row, from the term dictionary (no string is built for a term seen before). */
  private layoutTerms(layoutId: number, hi: number, lo: number): string[] {
    const l = this.layouts.layouts[layoutId]!
    const out = new Array<string>(l.widths.length)
    for (let p = 0; p < out.length; p++) {
      out[p] = this.postings.strings[this.postings.termForValue(layoutId, l, p, blockValue(hi, lo, l.shifts[p]!, l.widths[p]!))]!
    }
    return out
  }

  private explicitTerms(row: number): string[] {
    let slot = this.explicitPos.get(row)
    const count = this.explicitPool.get(slot++)
    const out = new Array<string>(count)
    for (let i = 0; i < count; i++) out[i] = this.postings.strings[this.explicitPool.get(slot++)]!
    return out
  }

  /** Appends `row` as a PUT entry (what compaction writes), straight from the columns (`tops` as for `record`). */
  encodeRow(row: number, w: ByteWriter, tops?: KeyTops): void {
    if (this.reader !== null) {
      // The entry as it was logged: copied, not re-encoded.
      const a = this.locate(row, true)
      w.bytes(a, this.entryStart, this.entry.end)
      return
    }
    const m = this.meta.get(row)
    const flags = m & FLAG_MASK
    const layout = (m >>> LAYOUT_SHIFT) & 63
    w.u8(ENTRY_PUT)
    w.u8(flags)
    w.u8((m >>> LAYER_SHIFT) & 7)
    w.u8((m >>> DISTANCE_SHIFT) & 127)
    w.u32(this.hi.get(row))
    w.u32(this.lo.get(row))
    w.f64(this.time.get(row))
    this.walkKeys(row, flags, tops)
    for (let k = 0; k < 3; k++) {
      if (k === 0 || (flags & (k === 1 ? F_URL : F_TITLE)) !== 0) this.keyIndexes[k]!.keyAt(row, this.keyEnds[k]!)
      else KEY_OUT[0] = KEY_OUT[1] = 0
      w.u32(KEY_OUT[0])
      w.u32(KEY_OUT[1])
    }
    w.u32(this.seqs.get(row))
    w.u8(layout === EXPLICIT_LAYOUT ? LOG_EXPLICIT_LAYOUT : layout)
    w.shortString(this.versions.strings[m >>> VERSION_SHIFT]!)
    if (layout === EXPLICIT_LAYOUT) {
      const terms = this.explicitTerms(row)
      w.u8(terms.length)
      for (const t of terms) w.shortString(t)
    }
    this.bands.encode(row, w, this.walked, 3)
    const a = this.locate(row, tops !== undefined)
    w.bytes(a, this.region.start, this.region.end)
  }

  /** Bytes held by typed arrays and the arena (JS-heap Maps and strings not included). */
  byteLength(): number {
    let total = 0
    for (const bytes of Object.values(this.byteParts())) total += bytes
    return total
  }

  /** `byteLength` by part (see `TableBytes`). */
  byteParts(): TableBytes {
    const sum = (parts: readonly { byteLength(): number }[]): number => parts.reduce((t, p) => t + p.byteLength(), 0)
    return {
      fingerprints: sum([this.hi, this.lo]),
      rowColumns: sum([this.time, this.seqs, this.meta, this.alive, this.explicitPos, this.explicitPool]),
      payloads: sum([this.arena, this.groupPos, this.offsets]),
      ids: sum([this.ids, this.clusters, this.clusterHash]),
      exactKeys: sum([this.content, this.urls, this.titles]),
      blocks: this.postings.byteLength(),
      bands: this.bands.byteLength(),
    }
  }
}

/** A 64-bit exact-layer key folded to the 32 bits its index holds with a log (matches are confirmed on the entry). */
function foldKey(hi: number, lo: number): number {
  return (Math.imul(hi, 0x9e3779b1) ^ lo) >>> 0
}

function byClusterSize(a: { clusterId: string; size: number }, b: { clusterId: string; size: number }): number {
  return b.size - a.size || (a.clusterId < b.clusterId ? -1 : a.clusterId > b.clusterId ? 1 : 0)
}

/** A stored hex sketch back as text: its prefix letter and ':' (if any), then the hex digits. */
function hexSketch(buf: Buffer, start: number, len: number): string {
  const prefix = buf[start]!
  const hex = buf.toString('hex', start + 1, start + len)
  return prefix === 0 ? hex : `${String.fromCharCode(prefix)}:${hex}`
}
