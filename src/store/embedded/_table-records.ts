import type { FingerprintRecord } from '../../types.js'
import { EXPLICIT_LAYOUT, blockValue } from './_block-layout.js'
import { toHex16 } from './_bytes.js'
import { KEY_OUT, chainEnds } from './_key-index.js'
import {
  ByteWriter, ENTRY_PUT, F_DISTANCE, F_DUP, F_SELF, F_SHORT, F_SKETCH, F_SKETCH_HEX, F_SUPERSEDES, F_TITLE, F_URL, LAYERS, LAYER_SUPERSEDES, LOG_EXPLICIT_LAYOUT, entryBands,
} from './_codec.js'
import type { RowCheck } from './_band-check.js'
import { DISTANCE_SHIFT, FLAG_MASK, LAYER_SHIFT, LAYOUT_SHIFT, TableRows, VERSION_SHIFT } from './_table-rows.js'

/** Key top bits of every row at one time (`Tables.keyTops`). */
export interface KeyTops {
  readonly rows: number
  /** Content, URL, title. */
  readonly keys: readonly Uint16Array[]
  /** One per band position. */
  readonly bands: readonly Uint16Array[]
}

/**
 * The embedded store's rows read back: a row as a `FingerprintRecord` (materialised only for the
 * rows a call returns) or as the PUT entry compaction writes, straight from the columns.
 */
export class TableRecords extends TableRows {
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

  /**
   * Positions into `rows`, in the order their entries sit in the log (as given without a log):
   * reading them in that order moves forward through the file once, as `records` does.
   */
  logOrder(rows: readonly number[]): number[] {
    const order = rows.map((_, i) => i)
    if (this.reader === null || rows.length < 2) return order
    const keys = Float64Array.from(rows, (row) => this.offsets.get(row))
    return order.sort((a, b) => keys[a]! - keys[b]!)
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
    if ((flags & F_SUPERSEDES) !== 0) record.supersedes = a.toString('utf8', r.supersedesStart, r.supersedesStart + r.supersedesLen)
    if ((flags & F_SKETCH) !== 0) record.sketch = (flags & F_SKETCH_HEX) !== 0 ? hexSketch(a, r.sketchStart, r.sketchLen) : a.toString('utf8', r.sketchStart, r.sketchStart + r.sketchLen)
    const bands = log ? entryBands(a, v) : this.bands.terms(row, this.walked, 3)
    if (bands !== undefined) record.bands = bands
    return record
  }

  /**
   * A stand-in for `row` (`FingerprintRecord.partial`) when `check` rules it out: its fingerprint
   * farther than the query's distance, none of the query's keys, and a sketch farther than the
   * check allows; else null (the row is returned whole). Reads the row's entry back, but builds
   * only its id: the strings of a whole record (keys, sketch, band terms, cluster) and their
   * garbage are most of what a band-route row that verification rejects costs.
   */
  standIn(row: number, check: RowCheck): FingerprintRecord | null {
    const hi = this.hi.get(row)
    const lo = this.lo.get(row)
    if (!check.far(hi, lo)) return null
    const m = this.meta.get(row)
    const flags = m & FLAG_MASK
    if ((flags & F_SKETCH_HEX) === 0) return null
    const log = this.reader !== null
    if (!log) this.walkKeys(row, flags, undefined)
    const a = this.locate(row)
    const r = this.cur
    if (!check.sketchFar(a, r.sketchStart, r.sketchLen)) return null
    const v = this.entry
    for (let k = 0; k < 3; k++) {
      if (k > 0 && (flags & (k === 1 ? F_URL : F_TITLE)) === 0) continue
      if (log) {
        if (check.keyIs(k, k === 0 ? v.contentHi : k === 1 ? v.urlHi : v.titleHi, k === 0 ? v.contentLo : k === 1 ? v.urlLo : v.titleLo)) return null
      } else {
        this.keyIndexes[k]!.keyAt(row, this.keyEnds[k]!)
        if (check.keyIs(k, KEY_OUT[0], KEY_OUT[1])) return null
      }
    }
    const bands = log ? check.sharedBands(a, v) : check.sharedTerms(this.bands.terms(row, this.walked, 3))
    if (bands === null) return null
    const id = a.toString('utf8', r.idStart, r.idStart + r.idLen)
    return {
      id,
      fingerprint: { hi, lo },
      blocks: NO_BLOCKS,
      contentHash: '',
      urlHash: null,
      titleHash: null,
      short: false,
      // Its cluster as stored: the per-cluster bounds count a stand-in in its own cluster.
      clusterId: r.clusterStart === r.idStart ? id : a.toString('utf8', r.clusterStart, r.clusterStart + r.clusterLen),
      duplicateOf: null,
      distance: null,
      layer: null,
      version: this.versions.strings[m >>> VERSION_SHIFT]!,
      indexedAt: this.time.get(row),
      seq: this.seqs.get(row),
      bands,
      partial: true,
    }
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
    w.u8(flags & 255)
    w.u8(((m >>> LAYER_SHIFT) & 7) | ((flags & F_SUPERSEDES) !== 0 ? LAYER_SUPERSEDES : 0))
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
}

/** The blocks of a stand-in (`standIn`): none. */
const NO_BLOCKS: readonly string[] = Object.freeze([])

/** A stored hex sketch back as text: its prefix letter and ':' (if any), then the hex digits. */
function hexSketch(buf: Buffer, start: number, len: number): string {
  const prefix = buf[start]!
  const hex = buf.toString('hex', start + 1, start + len)
  return prefix === 0 ? hex : `${String.fromCharCode(prefix)}:${hex}`
}
