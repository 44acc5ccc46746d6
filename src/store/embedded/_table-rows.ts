import { DedupError } from '../../errors.js'
import { ByteArena } from './_arena.js'
import { BandStore } from './_bands.js'
import { EXPLICIT_LAYOUT, blockValue, type LayoutRegistry } from './_block-layout.js'
import { bucketOf32, bytesEqual, fold16, hashBytes, VARINT_OUT } from './_bytes.js'
import { ChainIndex } from './_chain-index.js'
import { KeyIndex } from './_key-index.js'
import type { LogReader } from './_log-reader.js'
import { ENTRY_DELETE, ENTRY_LAYOUT, ENTRY_PUT, F_SELF, F_TITLE, F_URL, LOG_EXPLICIT_LAYOUT, PutView, RegionView, decodeDelete, decodePut, readRegion } from './_codec.js'
import { BitColumn, DictColumn, I32Column, OffsetColumn, SparseI32Column, U16Column, U32Column } from './_columns.js'
import { Postings } from './_postings.js'
import type { VersionRegistry } from './_versions.js'

/*
 * The embedded store's row storage: the columns, the string arena (or the log offsets), the
 * indexes a put links a row into, and applying log entries to them. Lookups are answered in
 * _tables.ts; rows are read back as records in _table-records.ts.
 */

/**
 * Row meta (one write-once uint32 per row): record flags in bits 0–8, layer code in 9–11,
 * distance in 12–18, layout id in 19–24, version id in 25–31. Liveness is a separate bit
 * column, so meta never changes after the put and dictionary-codes to about a byte a row.
 */
export const FLAG_MASK = 511
export const LAYER_SHIFT = 9
export const DISTANCE_SHIFT = 12
export const LAYOUT_SHIFT = 19
export const VERSION_SHIFT = 25
/** Rows per arena group: one stored position per group, rows found by skipping regions. */
export const GROUP_BITS = 3
export const GROUP_MASK = (1 << GROUP_BITS) - 1

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

/** What applying a payload did, for the log's live/dead accounting. */
export interface ApplyCounts {
  puts: number
  deletes: number
}

/** The rows and their indexes (see `Tables`, which adds reading back and lookups). */
export class TableRows {
  rows = 0
  live = 0
  dead = 0
  protected readonly hi = new U32Column()
  protected readonly lo = new U32Column()
  /** Each row's fingerprint folded to 16 bits (`fold16`): the block route rules most rows out on it. */
  protected readonly folds = new U16Column()
  protected readonly time = new DictColumn('float64')
  /** First-insertion sequence number of each row's record (kept when an id is put again). */
  protected readonly seqs = new U32Column()
  /** Largest `seq` any row has held (fresh numbers start above it). */
  maxSeq = 0
  /**
   * Whether every row was written with a larger `seq` than all before it (no id written twice), so
   * that row order is `seq` order and a newest-first walk may stop early (see `bandRoute`).
   */
  protected seqOrdered = true
  /**
   * The rows written with a `seq` no larger than an earlier row's (an id written again: an update,
   * a re-pointed record), each with the largest `seq` of the rows up to it. Every other row's
   * largest is its own `seq` (see `seqCeiling`).
   */
  private readonly seqHighs = new SparseI32Column()
  protected readonly meta = new DictColumn('uint32')
  protected readonly alive = new BitColumn()
  /** Arena position of each group of 2^GROUP_BITS rows' string regions (in-memory store). */
  protected readonly groupPos = new U32Column()
  /** Log offset of each row's PUT entry (store with a log: payloads are read back from it). */
  protected readonly offsets = new OffsetColumn()
  protected readonly explicitPos = new U32Column()
  protected readonly explicitPool = new I32Column()
  protected explicitFill = 0
  protected readonly arena = new ByteArena()
  // Loads trade memory (heads cost 4 / load bytes a row) against chain walks per lookup.
  /** Rows by the 32-bit hash of their id; a hash match is confirmed on the id's bytes. */
  protected readonly ids = new KeyIndex(false, 8)
  protected readonly clusters = new ChainIndex(4, true)
  /** The cluster id hash of each row linked in `clusters` (relinking reads these, not the ids). */
  protected readonly clusterHash = new SparseI32Column()
  /** The 32-bit hash of every row's cluster id (a representative's: its own id): the candidate bounds count by cluster. */
  protected readonly clusterKey = new I32Column()
  /**
   * Exact-layer keys. In memory they live only in their indexes (6 bytes of remainder a key, not
   * 8). With a log, the key is read back from the entry, so the index holds a 32-bit fold of it
   * in a tag-only index (1 byte of remainder: a match means 24 bits agree) and a match is
   * confirmed on the entry's key.
   */
  protected readonly content: KeyIndex
  protected readonly urls: KeyIndex
  protected readonly titles: KeyIndex
  protected readonly keyIndexes: readonly KeyIndex[]
  protected readonly keyOrder: KeyIndex[]
  protected walked = new Int32Array(11)
  protected readonly keyEnds = new Int32Array(3)
  protected readonly postings = new Postings()
  protected readonly bands: BandStore
  protected readonly view = new PutView()
  protected readonly region = new RegionView()
  /** A row's entry read back from the log (log mode); `entryStart` is where it starts in the buffer. */
  protected readonly entry = new PutView()
  protected entryStart = 0
  /** What the last `locate` found: `region` (in memory) or `entry` (read from the log). */
  protected cur: RegionView = this.region

  /**
   * `reader`: the log to read payloads back from (a store with a directory); null keeps them in an
   * in-RAM arena.
   */
  constructor(protected readonly layouts: LayoutRegistry, protected readonly versions: VersionRegistry, readonly reader: LogReader | null = null) {
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
   * (compaction), so no id is looked up to replace. Throws STORE_CORRUPT (naming the log and the offset) for a malformed entry.
   */
  applyEntries(buf: Buffer, start: number, end: number, fileOffset = 0, unique = false): ApplyCounts {
    const counts: ApplyCounts = { puts: 0, deletes: 0 }
    let pos = start
    while (pos < end) {
      const kind = buf[pos]
      let next: number
      if (kind === ENTRY_PUT) {
        next = decodePut(buf, pos, end, this.view)
        if (next < 0) throw this.corrupt(fileOffset + pos, 'malformed record entry')
        this.applyPut(buf, this.view, fileOffset + pos, unique)
        counts.puts++
      } else if (kind === ENTRY_DELETE) {
        next = decodeDelete(buf, pos, end)
        if (next < 0) throw this.corrupt(fileOffset + pos, 'malformed delete entry')
        const [idStart, idLen] = VARINT_OUT
        const row = this.findId(buf, idStart, idLen, hashBytes(buf, idStart, idLen))
        if (row >= 0) this.kill(row)
        counts.deletes++
      } else if (kind === ENTRY_LAYOUT) {
        next = pos + 4 + (buf[pos + 3] ?? 0)
        if (next > end) throw this.corrupt(fileOffset + pos, 'malformed layout entry')
        const widths = Array.from(buf.subarray(pos + 4, next))
        if (!this.layouts.define(buf[pos + 1]!, widths, buf[pos + 2] === 1)) throw this.corrupt(fileOffset + pos, 'conflicting layout entry')
        this.layouts.inLog[buf[pos + 1]!] = true
      } else {
        throw this.corrupt(fileOffset + pos, `unknown entry kind ${String(kind)}`)
      }
      pos = next
    }
    return counts
  }

  protected applyPut(buf: Buffer, v: PutView, offset: number, unique: boolean): void {
    const version = this.versions.internBytes(buf, v.versionStart, v.versionLen)
    if (version < 0) throw this.corrupt(offset, 'more distinct versions than the store supports')
    const layout = v.layout === LOG_EXPLICIT_LAYOUT ? EXPLICIT_LAYOUT : v.layout
    if (layout !== EXPLICIT_LAYOUT && layout >= this.layouts.layouts.length) throw this.corrupt(offset, `record uses undefined layout ${layout}`)
    const idHash = hashBytes(buf, v.idStart, v.idLen)
    const old = unique ? -1 : this.findId(buf, v.idStart, v.idLen, idHash)
    if (old >= 0) this.kill(old)

    const row = this.rows
    const flags = v.flags
    this.hi.set(row, v.hi)
    this.lo.set(row, v.lo)
    this.folds.set(row, fold16(v.hi, v.lo))
    this.time.set(row, v.indexedAt)
    this.seqs.set(row, v.seq)
    if (v.seq > this.maxSeq) this.maxSeq = v.seq
    else {
      this.seqOrdered = false
      this.seqHighs.set(row, this.maxSeq | 0)
    }
    this.alive.set(row, true)
    this.meta.set(row, (flags | (v.layer << LAYER_SHIFT) | (v.distance << DISTANCE_SHIFT) | (layout << LAYOUT_SHIFT) | (version << VERSION_SHIFT)) >>> 0)
    if (this.reader === null) this.groupPos.set(row >>> GROUP_BITS, this.arena.append(buf, v.regionStart, v.end, (row & GROUP_MASK) === 0))
    else this.offsets.set(row, offset)
    this.rows++
    this.live++

    this.ids.link(row, 0, idHash, this.alive)
    if ((flags & F_SELF) !== 0) this.clusterKey.set(row, idHash | 0)
    this.linkKey(this.content, row, v.contentHi, v.contentLo)
    if ((flags & F_URL) !== 0) this.linkKey(this.urls, row, v.urlHi, v.urlLo)
    if ((flags & F_TITLE) !== 0) this.linkKey(this.titles, row, v.titleHi, v.titleLo)
    if ((flags & F_SELF) === 0) {
      const hash = hashBytes(buf, v.clusterStart, v.clusterLen)
      this.clusterKey.set(row, hash | 0)
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
  protected linkKey(index: KeyIndex, row: number, hi: number, lo: number): void {
    if (index.wide) index.link(row, hi, lo, this.alive)
    else index.link(row, 0, foldKey(hi, lo), this.alive)
  }

  /** A malformed entry found while applying bytes, at byte `at` of the log (of the payload in memory). */
  private corrupt(at: number, what: string): DedupError {
    const where = this.reader === null ? 'The in-memory store' : this.reader.path
    return new DedupError('STORE_CORRUPT', `${where} is corrupt at byte offset ${at}: ${what}. Restore a backup or re-index into a new directory.`)
  }

  /** Sizes the indexes for about `rows` rows before a replay or rebuild fills them. */
  reserve(rows: number): void {
    for (const index of [this.ids, this.content, this.urls, this.titles]) index.reserve(rows)
    this.bands.reserve(rows)
  }

  protected kill(row: number): void {
    this.alive.set(row, false)
    this.live--
    this.dead++
  }

  /** Live row whose id is `buf[start, start + len)` (with hash `hash`), or -1. */
  protected findId(buf: Uint8Array, start: number, len: number, hash: number): number {
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
  protected locate(row: number, ahead = false): Buffer {
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

  protected relinkClusters(): void {
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

  /**
   * The largest `seq` of any row up to `row` (row order is write order): no row before it, and so
   * none after it in a newest-first chain walk, has a larger one.
   */
  protected seqCeiling(row: number): number {
    const seq = this.seqs.get(row)
    if (this.seqOrdered) return seq
    return Math.max(seq, this.seqHighs.get(row) >>> 0)
  }

  /** Whether a row is live. */
  isLive(row: number): boolean {
    return row >= 0 && row < this.rows && this.alive.has(row)
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
      fingerprints: sum([this.hi, this.lo, this.folds]),
      rowColumns: sum([this.time, this.seqs, this.seqHighs, this.meta, this.alive, this.explicitPos, this.explicitPool]),
      payloads: sum([this.arena, this.groupPos, this.offsets]),
      ids: sum([this.ids, this.clusters, this.clusterHash, this.clusterKey]),
      exactKeys: sum([this.content, this.urls, this.titles]),
      blocks: this.postings.byteLength(),
      bands: this.bands.byteLength(),
    }
  }
}

/** A 64-bit exact-layer key folded to the 32 bits its index holds with a log (matches are confirmed on the entry). */
export function foldKey(hi: number, lo: number): number {
  return (Math.imul(hi, 0x9e3779b1) ^ lo) >>> 0
}
