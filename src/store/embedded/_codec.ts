import type { FingerprintRecord, Layer } from '../../types.js'
import { hexDigit, hex32At } from '../../bits.js'
import { hexHi, hexLo, readVarint, toHex8, VARINT_OUT, varintSize, writeVarint } from './_bytes.js'

/**
 * Binary encoding of log entries. The same bytes are written to the log and applied to memory,
 * so replay and live puts share one code path (and every put exercises the replay decoder).
 *
 * PUT (little-endian; flags: F_* below):
 *   0 kind=1 · 1 flags · 2 layer (bits 0–6; bit 7: F_SUPERSEDES) · 3 distance · 4 fpHi u32 · 8 fpLo u32 · 12 indexedAt f64
 *   20 contentHash (hi, lo) · 28 urlHash · 36 titleHash · 44 seq u32 (first-insertion sequence)
 *   48 layout id (255 = explicit) · 49 version length u8 + bytes · [explicit: count u8, then per term length u8 + bytes]
 *   bands: count u8 (0 none; 255 explicit: count u8, then per term length u8 + bytes; otherwise
 *   that many canonical terms "m<i>_<8 hex>" as u32 values)
 *   region: varint length + bytes for id, then cluster id (unless it is the id), duplicate-of,
 *   sketch (when present; "x:" + hex sketches as a prefix byte + bytes), supersedes (when
 *   present; format 3 on). The region is copied
 *   into the arena as is.
 * DELETE: kind=2 · varint length + id bytes.
 * LAYOUT: kind=3 · id u8 · padded u8 · count u8 · widths u8…
 */

/** Entry kinds (first byte of an entry). */
export const ENTRY_PUT = 1
/** A tombstone: the id's record is gone. */
export const ENTRY_DELETE = 2
/** A block layout definition, written before the first PUT that uses it. */
export const ENTRY_LAYOUT = 3

/** Record flags, shared by entries and the row meta column (bits 0–7; F_SUPERSEDES is bit 8). */
export const F_SHORT = 1
export const F_URL = 2
export const F_TITLE = 4
/** The cluster id equals the id (a representative): not stored twice. */
export const F_SELF = 8
export const F_DUP = 16
export const F_SKETCH = 32
export const F_DISTANCE = 64
/** The sketch is lower-case hex of even length, optionally after a one-letter prefix ("m:", "t:"), stored as bytes. */
export const F_SKETCH_HEX = 128
/**
 * The record supersedes another (its id ends the region). Bit 8 of the row meta's flags; in a PUT
 * entry it is bit 7 of the layer byte (the flags byte is full), never set in a format-2 log.
 */
export const F_SUPERSEDES = 256
/** The layer byte's bit that carries F_SUPERSEDES. */
export const LAYER_SUPERSEDES = 128
/** Band-count byte of a PUT whose band terms follow explicitly. */
export const EXPLICIT_BANDS = 255
/** Most canonical band terms one record may have. */
export const MAX_CANONICAL_BANDS = 254

/** Layout byte of a PUT whose terms follow explicitly. */
export const LOG_EXPLICIT_LAYOUT = 255
const PUT_FIXED = 50

/** Layer codes: index = code, 0 = null. */
export const LAYERS: readonly (Layer | null)[] = [null, 'url', 'exact', 'simhash', 'title']
const LAYER_CODE: Readonly<Record<Layer, number>> = { url: 1, exact: 2, simhash: 3, title: 4 }

/** A growable little-endian byte writer. */
export class ByteWriter {
  buf: Buffer
  pos = 0

  constructor(capacity = 1 << 16) {
    this.buf = Buffer.allocUnsafe(capacity)
  }

  ensure(extra: number): void {
    if (this.pos + extra <= this.buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + extra))
    this.buf.copy(next, 0, 0, this.pos)
    this.buf = next
  }

  u8(v: number): void {
    this.ensure(1)
    this.buf[this.pos++] = v
  }

  u32(v: number): void {
    this.ensure(4)
    const b = this.buf
    const p = this.pos
    b[p] = v
    b[p + 1] = v >>> 8
    b[p + 2] = v >>> 16
    b[p + 3] = v >>> 24
    this.pos = p + 4
  }

  f64(v: number): void {
    this.ensure(8)
    this.pos = this.buf.writeDoubleLE(v, this.pos)
  }

  varint(v: number): void {
    this.ensure(5)
    this.pos = writeVarint(this.buf, this.pos, v)
  }

  bytes(src: Uint8Array, start: number, end: number): void {
    this.ensure(end - start)
    this.buf.set(src.subarray(start, end), this.pos)
    this.pos += end - start
  }

  /** A string as varint byte length + UTF-8 (one pass for strings under 128 bytes). */
  varString(s: string): void {
    this.ensure(5 + s.length * 3)
    const start = this.pos
    const n = this.buf.write(s, start + 1, 'utf8')
    if (n < 0x80) {
      this.buf[start] = n
      this.pos = start + 1 + n
      return
    }
    const lenBytes = varintSize(n)
    this.buf.copyWithin(start + lenBytes, start + 1, start + 1 + n)
    writeVarint(this.buf, start, n)
    this.pos = start + lenBytes + n
  }

  /** A hex sketch as varint byte count + prefix letter (0 for none) + the digits' bytes. */
  hexSketch(sketch: string, digitsFrom: number): void {
    const n = (sketch.length - digitsFrom) >>> 1
    this.varint(n + 1)
    this.ensure(n + 1)
    this.buf[this.pos++] = digitsFrom === 0 ? 0 : sketch.charCodeAt(0)
    this.pos += this.buf.write(digitsFrom === 0 ? sketch : sketch.slice(digitsFrom), this.pos, n, 'hex')
  }

  /** A string of at most 255 UTF-8 bytes as u8 length + bytes (checked by validation). */
  shortString(s: string): void {
    this.ensure(1 + s.length * 3)
    const n = this.buf.write(s, this.pos + 1, 'utf8')
    this.buf[this.pos] = n
    this.pos += 1 + n
  }

  /** The bytes written so far (a view: copy it if the writer is reused). */
  view(): Buffer {
    return this.buf.subarray(0, this.pos)
  }
}

/** Appends a PUT entry for a validated record with its `seq` set; `layoutId` is a registry id or LOG_EXPLICIT_LAYOUT. */
export function encodePut(w: ByteWriter, r: FingerprintRecord, layoutId: number): void {
  const self = r.clusterId === r.id
  const flags = (r.short ? F_SHORT : 0) | (r.urlHash !== null ? F_URL : 0) | (r.titleHash !== null ? F_TITLE : 0)
    | (self ? F_SELF : 0) | (r.duplicateOf !== null ? F_DUP : 0) | (r.sketch !== undefined ? F_SKETCH : 0)
    | (r.distance !== null ? F_DISTANCE : 0) | (r.sketch !== undefined && hexSketchStart(r.sketch) >= 0 ? F_SKETCH_HEX : 0)
  w.ensure(PUT_FIXED)
  w.u8(ENTRY_PUT)
  w.u8(flags)
  w.u8((r.layer === null ? 0 : LAYER_CODE[r.layer]) | (r.supersedes !== undefined ? LAYER_SUPERSEDES : 0))
  w.u8(r.distance ?? 0)
  w.u32(r.fingerprint.hi)
  w.u32(r.fingerprint.lo)
  w.f64(r.indexedAt)
  w.u32(hexHi(r.contentHash))
  w.u32(hexLo(r.contentHash))
  w.u32(r.urlHash === null ? 0 : hexHi(r.urlHash))
  w.u32(r.urlHash === null ? 0 : hexLo(r.urlHash))
  w.u32(r.titleHash === null ? 0 : hexHi(r.titleHash))
  w.u32(r.titleHash === null ? 0 : hexLo(r.titleHash))
  w.u32(r.seq!)
  w.u8(layoutId)
  w.shortString(r.version)
  if (layoutId === LOG_EXPLICIT_LAYOUT) {
    w.u8(r.blocks.length)
    for (const term of r.blocks) w.shortString(term)
  }
  encodeBands(w, r.bands)
  w.varString(r.id)
  if (!self) w.varString(r.clusterId)
  if (r.duplicateOf !== null) w.varString(r.duplicateOf)
  if (r.sketch !== undefined) {
    if ((flags & F_SKETCH_HEX) === 0) w.varString(r.sketch)
    else w.hexSketch(r.sketch, hexSketchStart(r.sketch))
  }
  if (r.supersedes !== undefined) w.varString(r.supersedes)
}

/**
 * Where the hex digits of a sketch start (0, or 2 after a lower-case letter and ':'), or -1 when
 * it is not an even run of lower-case hex digits: such sketches are stored as bytes.
 */
export function hexSketchStart(s: string): number {
  const start = s.length >= 2 && s.charCodeAt(1) === 58 && s.charCodeAt(0) >= 97 && s.charCodeAt(0) <= 122 ? 2 : 0
  if (((s.length - start) & 1) !== 0) return -1
  for (let i = start; i < s.length; i++) if (hexDigit(s.charCodeAt(i)) < 0) return -1
  return start
}

/** Value of band term `term` if it is canonical for position `i` ("m<i>_" + 8 hex digits), else -1. */
export function canonicalBand(term: string, i: number): number {
  const digits = i < 10 ? 1 : i < 100 ? 2 : 3
  if (term.length !== digits + 10 || term.charCodeAt(0) !== 109 || term.charCodeAt(digits + 1) !== 95) return -1
  let p = 0
  for (let k = 1; k <= digits; k++) p = p * 10 + term.charCodeAt(k) - 48
  if (p !== i) return -1
  return hex32At(term, digits + 2)
}

/** The position tag of a band term shaped "m<i>_…" (i below MAX_CANONICAL_BANDS), or -1. */
export function bandPosition(term: string): number {
  if (term.charCodeAt(0) !== 109) return -1
  let i = 0
  for (let k = 1; k < 4 && k < term.length; k++) {
    const c = term.charCodeAt(k)
    if (c === 95) return k > 1 && (k === 2 || term.charCodeAt(1) !== 48) && i < MAX_CANONICAL_BANDS ? i : -1
    if (c < 48 || c > 57) return -1
    i = i * 10 + c - 48
  }
  return -1
}

/** Prefixes "m0_", "m1_", … of canonical band terms. */
const BAND_PREFIX = Array.from({ length: MAX_CANONICAL_BANDS }, (_, i) => `m${i}_`)

/** The canonical band term of position `i` holding `value`. */
export function bandTerm(i: number, value: number): string {
  return BAND_PREFIX[i]! + toHex8(value)
}

function encodeBands(w: ByteWriter, bands: readonly string[] | undefined): void {
  if (bands === undefined) return w.u8(0)
  let canonical = bands.length > 0 && bands.length <= MAX_CANONICAL_BANDS
  for (let i = 0; canonical && i < bands.length; i++) canonical = canonicalBand(bands[i]!, i) >= 0
  if (!canonical) {
    // Odd terms (or an empty list, which must come back as []) are kept as strings.
    w.u8(EXPLICIT_BANDS)
    w.u8(bands.length)
    for (const term of bands) w.shortString(term)
    return
  }
  w.u8(bands.length)
  for (let i = 0; i < bands.length; i++) w.u32(canonicalBand(bands[i]!, i))
}

/** One decoder for every record's explicit band terms (making one costs more than decoding a term). */
const TERM_DECODER = new TextDecoder()

/** The band terms of a decoded PUT entry `v` in `buf`, or undefined when it has none. */
export function entryBands(buf: Uint8Array, v: PutView): string[] | undefined {
  const count = v.bandCount
  if (count === 0) return undefined
  let p = v.bandStart
  if (count !== EXPLICIT_BANDS) {
    const out = new Array<string>(count)
    for (let i = 0; i < count; i++, p += 4) out[i] = bandTerm(i, u32At(buf, p))
    return out
  }
  const n = buf[p++]!
  const out = new Array<string>(n)
  for (let i = 0; i < n; i++) {
    const len = buf[p]!
    out[i] = TERM_DECODER.decode(buf.subarray(p + 1, p + 1 + len))
    p += 1 + len
  }
  return out
}

/** Appends a DELETE entry. */
export function encodeDelete(w: ByteWriter, id: string): void {
  w.u8(ENTRY_DELETE)
  w.varString(id)
}

/** Appends a LAYOUT entry (defines layout `id` for the PUT entries after it). */
export function encodeLayout(w: ByteWriter, id: number, widths: readonly number[], padded: boolean): void {
  w.u8(ENTRY_LAYOUT)
  w.u8(id)
  w.u8(padded ? 1 : 0)
  w.u8(widths.length)
  for (const width of widths) w.u8(width)
}

/** Where a row's strings sit in a region (filled by `readRegion`). */
export class RegionView {
  /** Where the region starts (set by callers that need it). */
  start = 0
  idStart = 0
  idLen = 0
  clusterStart = 0
  clusterLen = 0
  dupStart = 0
  dupLen = 0
  sketchStart = 0
  sketchLen = 0
  supersedesStart = 0
  supersedesLen = 0
  end = 0
}

/** Parses the string region at `pos` for a record with `flags`; false when malformed. */
export function readRegion(buf: Uint8Array, pos: number, end: number, flags: number, out: RegionView): boolean {
  if (!readVarint(buf, pos, end)) return false
  out.idLen = VARINT_OUT[0]
  out.idStart = VARINT_OUT[1]
  pos = out.idStart + out.idLen
  if (out.idLen === 0) return false
  if ((flags & F_SELF) === 0) {
    if (!readVarint(buf, pos, end)) return false
    out.clusterLen = VARINT_OUT[0]
    out.clusterStart = VARINT_OUT[1]
    pos = out.clusterStart + out.clusterLen
  } else {
    out.clusterStart = out.idStart
    out.clusterLen = out.idLen
  }
  if ((flags & F_DUP) !== 0) {
    if (!readVarint(buf, pos, end)) return false
    out.dupLen = VARINT_OUT[0]
    out.dupStart = VARINT_OUT[1]
    pos = out.dupStart + out.dupLen
  }
  if ((flags & F_SKETCH) !== 0) {
    if (!readVarint(buf, pos, end)) return false
    out.sketchLen = VARINT_OUT[0]
    out.sketchStart = VARINT_OUT[1]
    pos = out.sketchStart + out.sketchLen
  }
  if ((flags & F_SUPERSEDES) !== 0) {
    if (!readVarint(buf, pos, end)) return false
    out.supersedesLen = VARINT_OUT[0]
    out.supersedesStart = VARINT_OUT[1]
    pos = out.supersedesStart + out.supersedesLen
    if (out.supersedesLen === 0) return false
  }
  out.end = pos
  return pos <= end
}

/** A decoded PUT entry: positions into the entry's buffer (filled by `decodePut`, reused). */
export class PutView extends RegionView {
  flags = 0
  layer = 0
  distance = 0
  hi = 0
  lo = 0
  indexedAt = 0
  contentHi = 0
  contentLo = 0
  urlHi = 0
  urlLo = 0
  titleHi = 0
  titleLo = 0
  seq = 0
  layout = 0
  versionStart = 0
  versionLen = 0
  /** Position of the explicit-term count byte (explicit layout only). */
  explicitStart = 0
  /** Band-count byte (0, a canonical count, or EXPLICIT_BANDS) and where the bands start after it. */
  bandCount = 0
  bandStart = 0
  regionStart = 0
}

function u32At(b: Uint8Array, p: number): number {
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0
}

/** Decodes the PUT entry at `pos` (its kind byte) into `v`; returns the position after it, or -1 if malformed. */
export function decodePut(buf: Buffer, pos: number, end: number, v: PutView): number {
  if (pos + PUT_FIXED > end) return -1
  const layerByte = buf[pos + 2]!
  v.flags = buf[pos + 1]! | ((layerByte & LAYER_SUPERSEDES) !== 0 ? F_SUPERSEDES : 0)
  v.layer = layerByte & ~LAYER_SUPERSEDES
  v.distance = buf[pos + 3]!
  v.hi = u32At(buf, pos + 4)
  v.lo = u32At(buf, pos + 8)
  v.indexedAt = buf.readDoubleLE(pos + 12)
  v.contentHi = u32At(buf, pos + 20)
  v.contentLo = u32At(buf, pos + 24)
  v.urlHi = u32At(buf, pos + 28)
  v.urlLo = u32At(buf, pos + 32)
  v.titleHi = u32At(buf, pos + 36)
  v.titleLo = u32At(buf, pos + 40)
  v.seq = u32At(buf, pos + 44)
  v.layout = buf[pos + 48]!
  v.versionLen = buf[pos + 49]!
  v.versionStart = pos + PUT_FIXED
  let p = v.versionStart + v.versionLen
  if (v.layer >= LAYERS.length || v.distance > 64 || v.seq === 0) return -1
  if (v.layout === LOG_EXPLICIT_LAYOUT) {
    if (p >= end) return -1
    v.explicitStart = p
    const count = buf[p++]!
    for (let i = 0; i < count; i++) {
      if (p >= end) return -1
      p += 1 + buf[p]!
    }
  }
  if (p >= end) return -1
  v.bandCount = buf[p++]!
  v.bandStart = p
  if (v.bandCount === EXPLICIT_BANDS) {
    if (p >= end) return -1
    const count = buf[p++]!
    for (let i = 0; i < count; i++) {
      if (p >= end) return -1
      p += 1 + buf[p]!
    }
  } else {
    p += 4 * v.bandCount
  }
  v.regionStart = p
  if (p > end || !readRegion(buf, p, end, v.flags, v)) return -1
  return v.end
}

/** Decodes the DELETE entry at `pos` into `[idStart, idLen]` of `VARINT_OUT`; returns the position after it, or -1. */
export function decodeDelete(buf: Uint8Array, pos: number, end: number): number {
  if (!readVarint(buf, pos + 1, end)) return -1
  const [len, start] = VARINT_OUT
  if (len === 0 || start + len > end) return -1
  VARINT_OUT[0] = start
  VARINT_OUT[1] = len
  return start + len
}

/**
 * Record (PUT) entries that decode whole in `buf[start, end)`, from the start up to the first that
 * does not (a damaged or cut-short payload): what a damaged frame held, at least.
 */
export function countPuts(buf: Buffer, start: number, end: number): number {
  const v = new PutView()
  let puts = 0
  let pos = start
  while (pos < end) {
    const kind = buf[pos]
    let next = -1
    if (kind === ENTRY_PUT) {
      next = decodePut(buf, pos, end, v)
      if (next >= 0) puts++
    } else if (kind === ENTRY_DELETE) next = decodeDelete(buf, pos, end)
    else if (kind === ENTRY_LAYOUT) next = pos + 4 + (buf[pos + 3] ?? 0)
    if (next < 0 || next > end) break
    pos = next
  }
  return puts
}
