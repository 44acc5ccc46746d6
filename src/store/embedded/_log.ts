import { fstatSync, statSync, writeSync } from 'node:fs'
import { copyFile, open, readFile, readdir, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { DedupError } from '../../errors.js'

/**
 * The embedded store's append-only log: a 16-byte header, then frames.
 *
 *   header: "SIMDUPLG" · formatVersion u32 · reserved u32
 *   frame:  payload length u32 · its bitwise NOT u32 · CRC-32 of the payload u32 · payload
 *
 * A payload is one batch of entries (see `_codec.ts`); a put resolves once its frame is written
 * and (unless fsync is off) fdatasync'd (see `LogFile` for the pipelined group commit). On open, frames are replayed in order. A bad frame at the
 * end of the file (cut short, checksum wrong on the last frame, or a zero-filled tail) is what a
 * crash mid-write leaves: no put was acknowledged for it. A writable open cuts it off, after
 * copying its bytes to `store.log.cut-<offset>`, and reports it (`ReplayResult.damage`); a
 * read-only open leaves the file alone and reports it too. A bad frame followed by more data is
 * corruption and fails with STORE_CORRUPT naming its offset; `checkLog` finds the valid prefix
 * and `truncateLog` keeps only it (`simdup store repair`).
 *
 * The header's last u32 is the log's id (random, non-zero; 0 in a log from before commit points).
 * Beside the log, `store.log.commit` holds the commit point: what the writer acknowledged (log id,
 * bytes, entries), in two checksummed 32-byte slots written alternately (at 0 and 512; a torn
 * write spoils one, the other is the one before). It is written after each fdatasync, naming the
 * bytes written before that fdatasync began, and before the puts it covers resolve, so it never
 * claims more than is on disk, and fsync'd on close. Damage
 * before the commit point (a flipped byte, a cut at a frame boundary) is not a torn write: it is
 * STORE_CORRUPT naming the acknowledged bytes and entries lost, and only `simdup store repair`
 * cuts it. A commit point whose id is not the log's (a log written by an older simdup since) is
 * ignored. The frames are unchanged (format 3): an older simdup reads and writes the log as before.
 * All integers little-endian.
 */

/**
 * Log format version; bump on any incompatible change to the header, frames or entries (2: records
 * carry `seq`; 3: a record may carry `supersedes`). Format 2 logs are read as they are (no record
 * of theirs supersedes another) and a writable open turns their header to 3 before it appends, so
 * an older simdup refuses the log by its version instead of misreading a record.
 */
export const LOG_FORMAT_VERSION = 3
/** Older formats this simdup reads as they are. */
const READABLE_FORMATS: ReadonlySet<number> = new Set([2, LOG_FORMAT_VERSION])
/** File name of the log inside the store directory. */
export const LOG_FILE = 'store.log'
const COMPACT_FILE = 'store.log.compact'
const MAGIC = Buffer.from('SIMDUPLG', 'latin1')
/** Bytes of the file header: the first frame starts here. */
export const HEADER_BYTES = 16
/** Bytes of a frame header: a frame's payload starts this far after the frame. */
export const FRAME_HEADER_BYTES = 12
const MAX_FRAME_BYTES = 1 << 30
const READ_BYTES = 8 << 20

/**
 * Called with each replayed payload `buf[start, end)`; `fileOffset` is where buf[0] sits in the
 * file. Returns the entries (records and deletes) it held, which commit points count.
 */
export type PayloadSink = (buf: Buffer, start: number, end: number, fileOffset: number) => number

/** File beside the log holding its commit point (see above). */
export const COMMIT_SUFFIX = '.commit'
const COMMIT_MAGIC = 0x50434453 // "SDCP"
const COMMIT_SLOT_BYTES = 32
const COMMIT_SLOT_STRIDE = 512

/** What a writer acknowledged of a log: its id, bytes and entries. */
export interface CommitPoint {
  logId: number
  seq: number
  bytes: number
  entries: number
}

function encodeCommit(c: CommitPoint): Buffer {
  const b = Buffer.alloc(COMMIT_SLOT_BYTES)
  b.writeUInt32LE(COMMIT_MAGIC, 0)
  b.writeUInt32LE(c.seq >>> 0, 4)
  b.writeUInt32LE(c.logId >>> 0, 8)
  b.writeUInt32LE(c.bytes % 0x100000000, 12)
  b.writeUInt32LE(Math.floor(c.bytes / 0x100000000), 16)
  b.writeUInt32LE(c.entries % 0x100000000, 20)
  b.writeUInt32LE(Math.floor(c.entries / 0x100000000), 24)
  b.writeUInt32LE(crc32(b.subarray(0, 28)), 28)
  return b
}

function decodeCommit(b: Buffer, at: number): CommitPoint | null {
  if (b.length < at + COMMIT_SLOT_BYTES || b.readUInt32LE(at) !== COMMIT_MAGIC) return null
  if (crc32(b.subarray(at, at + 28)) !== b.readUInt32LE(at + 28)) return null
  return {
    seq: b.readUInt32LE(at + 4),
    logId: b.readUInt32LE(at + 8),
    bytes: b.readUInt32LE(at + 12) + b.readUInt32LE(at + 16) * 0x100000000,
    entries: b.readUInt32LE(at + 20) + b.readUInt32LE(at + 24) * 0x100000000,
  }
}

/** The newest sound slot of `logPath`'s commit file that belongs to log `logId`, and the slot to write next. */
async function readCommit(logPath: string, logId: number): Promise<{ point: CommitPoint | null; next: number; seq: number }> {
  const buf = await readFile(logPath + COMMIT_SUFFIX).catch(() => Buffer.alloc(0))
  const slots = [decodeCommit(buf, 0), decodeCommit(buf, COMMIT_SLOT_STRIDE)]
  // Sequence numbers only grow (wrapping after 2^32 commits: compare by difference).
  const newer = (a: CommitPoint, b: CommitPoint): boolean => ((a.seq - b.seq) | 0) > 0
  let point: CommitPoint | null = null
  let newest = -1
  slots.forEach((slot, i) => {
    if (slot === null) return
    if (newest < 0 || newer(slot, slots[newest]!)) newest = i
    if (slot.logId === logId && logId !== 0 && (point === null || newer(slot, point))) point = slot
  })
  return { point, next: newest < 0 ? 0 : 1 - newest, seq: newest < 0 ? 0 : slots[newest]!.seq }
}

function newLogId(): number {
  return (crc32(Buffer.from(`${process.pid}.${Date.now()}.${Math.random()}`)) || 1) >>> 0
}

/**
 * How replay treats the log: `write` cuts a torn tail off (saving its bytes aside); `read` changes
 * nothing; `salvage` changes nothing and, instead of failing on corruption, stops at the first bad
 * frame and reports everything from there on as damage (check and repair).
 */
export type ReplayMode = 'write' | 'read' | 'salvage'

/** Bytes of the log that replay did not read: a torn tail, or (salvage) everything from a bad frame on. */
export interface LogDamage {
  /** Byte offset of the first frame not read. */
  offset: number
  /** Bytes from `offset` to the end of the file. */
  bytes: number
  /** What is wrong there. */
  reason: string
  /** true: a bad last frame (what a crash mid-write leaves); false: a bad frame with more data after it. */
  tail: boolean
  /** The bytes of the bad frame's payload that are present, when its header is sound (to count its entries); else null. */
  payload: Buffer | null
  /** Where a writable open saved the bytes it cut off (null: not cut, or nothing but zeros). */
  savedTo: string | null
  /**
   * What of it a writer acknowledged (the commit point lies past `offset`): bytes and entries
   * (records and deletes) lost; null when none was (a torn write, or a log without a commit point).
   */
  acknowledged: { bytes: number; entries: number } | null
}

/** What replay found. */
export interface ReplayResult {
  /** Valid bytes (header + whole frames). */
  size: number
  /** Bytes of a torn tail that were cut off (0 if none; only a `write` replay cuts). */
  truncated: number
  /** What was not read, or null when every byte was. */
  damage: LogDamage | null
  /** The format version in the file's header (an older readable one, or LOG_FORMAT_VERSION). */
  formatVersion: number
  /** The log's id (header), 0 in a log from before commit points. */
  logId: number
  /** Entries (records and deletes) replayed. */
  entries: number
  /** Device and inode of the file replayed (`dev:ino`): a reader of the same log must read this file. */
  inode: string
}

function corrupt(path: string, offset: number, what: string, cause?: unknown): DedupError {
  if (offset === 0) {
    // No frame can be found without the header: a repair would have nothing to keep.
    return new DedupError('STORE_CORRUPT', `${path} is corrupt: ${what}. Its file header is damaged, so no frame of it can be read; \`simdup store repair\` cannot fix that: restore a backup, or re-index into a new directory.`, cause === undefined ? {} : { cause })
  }
  return new DedupError(
    'STORE_CORRUPT',
    `${path} is corrupt at byte offset ${offset}: ${what}. Entries after it cannot be trusted; \`simdup store repair\` keeps the ${offset} bytes before it (and a copy of the whole log), or restore a backup.`,
    cause === undefined ? {} : { cause },
  )
}

function headerBytes(logId: number): Buffer {
  const b = Buffer.alloc(HEADER_BYTES)
  MAGIC.copy(b, 0)
  b.writeUInt32LE(LOG_FORMAT_VERSION, 8)
  b.writeUInt32LE(logId, 12)
  return b
}

/** Acknowledged data is damaged or gone: an error naming what is lost (only `simdup store repair` cuts it). */
function lostError(path: string, damage: LogDamage): DedupError {
  const lost = damage.acknowledged!
  return new DedupError(
    'STORE_CORRUPT',
    `${path} has lost acknowledged data: ${damage.reason} at byte offset ${damage.offset}, before its commit point; ${lost.bytes} acknowledged byte(s) holding ${lost.entries} acknowledged entr${lost.entries === 1 ? 'y' : 'ies'} (records or deletes) cannot be read. ` +
      `This is not a torn write (a crash never damages what was acknowledged): the file was damaged or cut. Nothing was changed; restore a backup, or run \`simdup store repair\` to keep the ${damage.offset} bytes before it (a copy of the whole log is kept).`,
  )
}

/** The frame header for `payload`. */
export function frameHeader(payload: Uint8Array): Buffer {
  const h = Buffer.allocUnsafe(FRAME_HEADER_BYTES)
  h.writeUInt32LE(payload.length, 0)
  h.writeUInt32LE(~payload.length >>> 0, 4)
  h.writeUInt32LE(crc32(payload), 8)
  return h
}

async function writeAll(fh: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done, position + done)
    done += bytesWritten
  }
}

/**
 * `writeAll`, synchronous: for the writes of a commit (a frame, a commit point), which go to the
 * page cache and take microseconds; each asynchronous write is a round trip through libuv's thread
 * pool (a worker woken, the loop woken back), which on a busy machine waits for a core each way.
 * Only the fdatasync, which waits for the disk, stays asynchronous.
 */
function writeAllSync(fh: FileHandle, buf: Buffer, position: number): void {
  let done = 0
  while (done < buf.length) done += writeSync(fh.fd, buf, done, buf.length - done, position + done)
}

/** fsync a directory so a rename or create in it is durable. */
async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/** Creates an empty log atomically (header written to a temp file, fsync'd, renamed in). */
async function createLog(dir: string): Promise<void> {
  const tmp = join(dir, `${LOG_FILE}.new`)
  const fh = await open(tmp, 'w')
  try {
    await writeAll(fh, headerBytes(newLogId()), 0)
    await fh.sync()
  } finally {
    await fh.close()
  }
  await rename(tmp, join(dir, LOG_FILE))
  await syncDir(dir)
}

/** A file in every store directory, so that a deleted log is not mistaken for a new, empty store. */
export const MARKER_FILE = 'SIMDUP_STORE'
const MARKER_TEXT = `This directory is a simdup embedded store: ${LOG_FILE} holds its records (the other files are its lock and repair copies).\n`

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false)
}

/** Writes the marker file (`always`: even if present); durable with the directory's next fsync. */
async function writeMarker(dir: string, always: boolean): Promise<void> {
  if (!always && (await exists(join(dir, MARKER_FILE)))) return
  await writeFile(join(dir, MARKER_FILE), MARKER_TEXT)
}

/**
 * Why a directory without a log must not be opened as a new, empty store, or null when it may be
 * (it does not exist, or holds nothing but what an unfinished create leaves). The log missing
 * beside the marker or other store files: the records are gone (STORE_CORRUPT). Files that are no
 * store's: the path is likely a mistake (INVALID_OPTION; NOT_FOUND when only reading).
 */
export async function missingLogError(dir: string, readOnly: boolean): Promise<DedupError | null> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  const others = names.filter((n) => n !== `${LOG_FILE}.new` && n !== 'LOCK' && !n.startsWith('LOCK.'))
  if (others.length === 0) return null
  const shown = others.slice(0, 3).join(', ') + (others.length > 3 ? `, … (${others.length} files)` : '')
  if (others.some((n) => n === MARKER_FILE || n.startsWith(LOG_FILE))) {
    return new DedupError(
      'STORE_CORRUPT',
      `The store in ${dir} has lost its log: ${LOG_FILE} is missing, but the directory holds ${shown}. Its records are gone; restore ${LOG_FILE} from a backup, or delete the directory to start an empty store.`,
    )
  }
  return new DedupError(
    readOnly ? 'NOT_FOUND' : 'CONFLICT',
    `There is no simdup store in ${dir}: it holds other files (${shown}) but no ${LOG_FILE}. ${readOnly ? 'Check the path' : 'Use a new or empty directory for a new store'}.`,
  )
}

/** Reads the file in large windows; a frame larger than the window gets a buffer of its own. */
class Reader {
  buf = Buffer.allocUnsafe(READ_BYTES)
  start = 0
  length = 0

  constructor(private readonly fh: FileHandle) {}

  /** Makes `[offset, offset + n)` (within the file) readable at `buf[offset - start]`. */
  async ensure(offset: number, n: number, fileSize: number): Promise<void> {
    if (offset >= this.start && offset + n <= this.start + this.length) return
    if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n)
    const want = Math.min(this.buf.length, fileSize - offset)
    let got = 0
    while (got < want) {
      const { bytesRead } = await this.fh.read(this.buf, got, want - got, offset + got)
      if (bytesRead === 0) break
      got += bytesRead
    }
    this.start = offset
    this.length = got
  }

  async allZero(from: number, to: number): Promise<boolean> {
    for (let off = from; off < to; off += READ_BYTES) {
      const n = Math.min(READ_BYTES, to - off)
      await this.ensure(off, n, to)
      for (let i = 0; i < n; i++) if (this.buf[off - this.start + i] !== 0) return false
    }
    return true
  }
}

/**
 * Replays `path` into `sink` (see `ReplayMode` for what happens to a damaged log). Throws
 * SNAPSHOT_VERSION / STORE_CORRUPT (a bad header always; a bad frame with data after it, unless
 * salvaging).
 */
async function replay(path: string, fh: FileHandle, sink: PayloadSink, mode: ReplayMode): Promise<ReplayResult> {
  const headerSize = (await fh.stat()).size
  const reader = new Reader(fh)
  if (headerSize < HEADER_BYTES) throw corrupt(path, 0, `the ${HEADER_BYTES}-byte header is cut short (${headerSize} bytes)`)
  await reader.ensure(0, HEADER_BYTES, headerSize)
  const header = Buffer.from(reader.buf.subarray(0, HEADER_BYTES))
  const logId = header.readUInt32LE(12)
  // The commit point before the size: a live writer writes its frames before the point that
  // covers them, so the size read after it is never short of it.
  const commit = (await readCommit(path, logId)).point
  const st = await fh.stat()
  const size = st.size
  reader.start = reader.length = 0
  let entries = 0
  if (!header.subarray(0, 8).equals(MAGIC)) throw corrupt(path, 0, 'not a simdup store log (bad magic bytes)')
  const version = header.readUInt32LE(8)
  if (!READABLE_FORMATS.has(version)) {
    throw new DedupError(
      'SNAPSHOT_VERSION',
      `${path} has format version ${version}, but this simdup reads format version ${LOG_FORMAT_VERSION} (and the older ${[...READABLE_FORMATS].filter((v) => v !== LOG_FORMAT_VERSION).join(', ')}). Open it with the simdup release that wrote it, or re-index into a new directory.`,
    )
  }
  let pos = HEADER_BYTES
  let damage: LogDamage | null = null
  /** The payload bytes of the frame at `pos` that are in the file (its header read sound). */
  const payloadAt = async (len: number): Promise<Buffer> => {
    const n = Math.min(len, size - pos - FRAME_HEADER_BYTES)
    await reader.ensure(pos + FRAME_HEADER_BYTES, n, size)
    const at = pos + FRAME_HEADER_BYTES - reader.start
    return Buffer.from(reader.buf.subarray(at, at + n))
  }
  const stop = (tail: boolean, reason: string, payload: Buffer | null): void => {
    damage = { offset: pos, bytes: size - pos, reason, tail, payload, savedTo: null, acknowledged: null }
  }
  while (pos < size) {
    if (size - pos < FRAME_HEADER_BYTES) {
      stop(true, `the last frame is cut short (${size - pos} bytes, less than its ${FRAME_HEADER_BYTES}-byte header)`, null)
      break
    }
    await reader.ensure(pos, FRAME_HEADER_BYTES, size)
    let at = pos - reader.start
    const len = reader.buf.readUInt32LE(at)
    const check = reader.buf.readUInt32LE(at + 4)
    if ((~len >>> 0) !== check || len > MAX_FRAME_BYTES) {
      // A zero-filled tail is what a crash leaves after the file grew but before data landed.
      if (await reader.allZero(pos, size)) {
        stop(true, 'the tail is all zero bytes (the file grew but the data never landed)', null)
        break
      }
      if (mode !== 'salvage') throw corrupt(path, pos, 'bad frame header')
      stop(false, 'bad frame header', null)
      break
    }
    const end = pos + FRAME_HEADER_BYTES + len
    if (end > size) {
      stop(true, `the last frame is cut short (${size - pos - FRAME_HEADER_BYTES} of its ${len} payload bytes are there)`, await payloadAt(len))
      break
    }
    await reader.ensure(pos, FRAME_HEADER_BYTES + len, size)
    at = pos - reader.start
    const crc = reader.buf.readUInt32LE(at + 8)
    const payloadStart = at + FRAME_HEADER_BYTES
    if (crc32(reader.buf.subarray(payloadStart, payloadStart + len)) !== crc) {
      if (end !== size && mode !== 'salvage') throw corrupt(path, pos, 'frame checksum mismatch')
      stop(end === size, end === size ? 'the last frame fails its checksum' : 'frame checksum mismatch', await payloadAt(len))
      break
    }
    try {
      entries += sink(reader.buf, payloadStart, payloadStart + len, reader.start)
    } catch (err) {
      if (mode !== 'salvage' || !(err instanceof DedupError) || err.code !== 'STORE_CORRUPT') throw err
      stop(end === size, `an entry in the frame cannot be read (${err.message.replace(/\. Restore a backup.*$/s, '')})`, await payloadAt(len))
      break
    }
    pos = end
  }
  let found = damage as LogDamage | null
  const acked = commit?.bytes ?? 0
  if (found === null && size < acked) {
    found = { offset: size, bytes: 0, reason: `the log ends at byte ${size}, but its commit point says ${acked} bytes were acknowledged`, tail: true, payload: null, savedTo: null, acknowledged: null }
  }
  if (found !== null && found.offset < acked) {
    found.acknowledged = { bytes: acked - found.offset, entries: Math.max(0, commit!.entries - entries) }
    if (mode !== 'salvage') throw lostError(path, found)
  }
  const base = { formatVersion: version, logId, entries, inode: `${st.dev}:${st.ino}` }
  if (found === null) return { size, truncated: 0, damage: null, ...base }
  if (mode !== 'write') return { size: found.offset, truncated: 0, damage: found, ...base }
  // A torn tail (salvage and read never get here with corruption: write mode threw on it).
  if (!(await reader.allZero(found.offset, size))) {
    const cut = Buffer.alloc(found.bytes)
    const { bytesRead } = await fh.read(cut, 0, cut.length, found.offset)
    found.savedTo = `${path}.cut-${found.offset}`
    await writeFile(found.savedTo, cut.subarray(0, bytesRead))
  }
  await fh.truncate(found.offset)
  await fh.sync()
  return { size: found.offset, truncated: found.bytes, damage: found, ...base }
}

/** What `checkLog` found: the valid prefix and what follows it. */
export interface LogCheck {
  /** Bytes of the file. */
  fileBytes: number
  /** Bytes of the valid prefix (header + whole frames before any damage). */
  validBytes: number
  damage: LogDamage | null
  /** The log's id and the entries in its valid prefix (what a repair's commit point says). */
  logId: number
  entries: number
  /** Device and inode of the file read (see `ReplayResult.inode`). */
  inode: string
}

/**
 * Replays the log of `dir` read-only in salvage mode: never writes, never throws on a bad frame.
 * Throws NOT_FOUND without a log, SNAPSHOT_VERSION / STORE_CORRUPT for a bad file header.
 */
export async function checkLog(dir: string, sink: PayloadSink): Promise<LogCheck> {
  const path = join(dir, LOG_FILE)
  const fh = await openForRead(dir)
  try {
    const result = await replay(path, fh, sink, 'salvage')
    // The size replay read (a live writer may have appended since): valid + damaged = file.
    const fileBytes = result.damage === null ? result.size : result.damage.offset + result.damage.bytes
    return { fileBytes, validBytes: result.size, damage: result.damage, logId: result.logId, entries: result.entries, inode: result.inode }
  } finally {
    await fh.close()
  }
}

/**
 * Cuts the log of `dir` to its first `validBytes` (found by `checkLog`), after copying the whole
 * file to `store.log.before-repair-<time>`, which it returns. The caller holds the write lock.
 */
export async function truncateLog(dir: string, found: LogCheck): Promise<string> {
  const path = join(dir, LOG_FILE)
  const backup = `${path}.before-repair-${new Date().toISOString().replace(/[:.]/g, '-')}`
  await copyFile(path, backup)
  // The commit point first, so that it never claims more than the file holds.
  if (found.logId !== 0) {
    const { next, seq } = await readCommit(path, found.logId)
    await writeCommitSlot(path, next, { logId: found.logId, seq: seq + 1, bytes: found.validBytes, entries: found.entries }, true)
  }
  const fh = await open(path, 'r+')
  try {
    await fh.sync()
    await fh.truncate(found.validBytes)
    await fh.sync()
  } finally {
    await fh.close()
  }
  await syncDir(dir)
  return backup
}

/** Writes one slot of the commit file of `logPath` (creating it), fsync'd when `sync`. */
async function writeCommitSlot(logPath: string, slot: number, point: CommitPoint, sync: boolean): Promise<void> {
  const fh = await open(logPath + COMMIT_SUFFIX, 'a+').then(async (a) => (await a.close(), open(logPath + COMMIT_SUFFIX, 'r+')))
  try {
    await writeAll(fh, encodeCommit(point), slot * COMMIT_SLOT_STRIDE)
    if (sync) await fh.sync()
  } finally {
    await fh.close()
  }
}

/** Opens the log of `dir` for reading, or throws why there is none (NOT_FOUND, or see `missingLogError`). */
async function openForRead(dir: string): Promise<FileHandle> {
  try {
    return await open(join(dir, LOG_FILE), 'r')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    throw (await missingLogError(dir, true)) ?? new DedupError('NOT_FOUND', `There is no simdup store in ${dir}: it ${(await exists(dir)) ? 'is empty' : 'does not exist'}.`, { cause: err })
  }
}

type FrameJob = { kind: 'frame'; payload: Buffer; apply: (offset: number) => number; written: () => void; resolve: () => void; reject: (e: unknown) => void }
type Job = FrameJob | { kind: 'task'; run: () => Promise<void>; resolve: () => void; reject: (e: unknown) => void }

/** What `LogFile.append` returns. */
export interface Appended {
  /** Resolves once the frame is written (to the OS, not yet synced) and applied. */
  written: Promise<void>
  /** Resolves once an fdatasync that began after the frame was written has completed and the commit point names it. */
  durable: Promise<void>
}

const ignore = (): void => {}

/**
 * An open log: replay on open, then pipelined group commits. Frames are written (one write for
 * all those queued at once) and applied as they come; one fdatasync at a time covers every frame
 * written before it began, and while it runs the next frames are written (not synced): a frame's
 * `durable` resolves only after an fdatasync that began after its write, and the commit point
 * written then names only the bytes written before that fdatasync began. Tasks (compaction,
 * close) run alone, once every frame before them is durable.
 * A failed write or fsync fails the log for good (the file cut back, best effort, to what was
 * synced): after an fsync error the kernel may have dropped the data, so carrying on could lose
 * puts that were acknowledged.
 */
export class LogFile {
  /** Bytes written (synced or not). */
  private size: number
  /** Bytes an fdatasync covered. */
  private synced: number
  private readonly queue: Job[] = []
  private running = false
  private failure: DedupError | null = null
  /** Frames written, waiting for an fdatasync to begin; the one running, if any. */
  private unsynced: FrameJob[] = []
  private syncing: Promise<void> | null = null
  /** Identity (device, inode) of the file this log writes: checked before every write. */
  private dev = 0
  private ino = 0
  /** The commit file, its next slot and sequence number; the log's id; entries written. */
  private commitFh: FileHandle | null = null
  private slot = 0
  private seq = 0
  private logId = 0
  private entries = 0

  private constructor(private readonly dir: string, private fh: FileHandle, size: number, private readonly fsync: boolean) {
    this.size = size
    this.synced = size
  }

  private get path(): string {
    return join(this.dir, LOG_FILE)
  }

  /** Opens the commit file and records the state replay left (the log's id given one if it had none). */
  private async startCommits(replayed: ReplayResult): Promise<void> {
    if (replayed.logId === 0) {
      const id = Buffer.alloc(4)
      this.logId = newLogId()
      id.writeUInt32LE(this.logId, 0)
      await writeAll(this.fh, id, 12)
      await this.fh.sync()
    } else this.logId = replayed.logId
    this.entries = replayed.entries
    const { next, seq } = await readCommit(this.path, this.logId)
    this.slot = next
    this.seq = seq
    await writeCommitSlot(this.path, this.slot, this.point(), true)
    this.commitFh = await open(this.path + COMMIT_SUFFIX, 'r+')
  }

  /** The next commit point (advancing the slot and sequence number). */
  private point(bytes = this.size, logId = this.logId, entries = this.entries): CommitPoint {
    const point = { logId, seq: (this.seq + 1) >>> 0, bytes, entries }
    return point
  }

  /** Writes a commit point (durable with `sync`, else with the next fsync of the commit file or close). */
  private async writeCommit(point: CommitPoint, sync: boolean): Promise<void> {
    writeAllSync(this.commitFh!, encodeCommit(point), this.slot * COMMIT_SLOT_STRIDE)
    if (sync) await this.commitFh!.sync()
    this.seq = point.seq
    this.slot = 1 - this.slot
  }

  private async remember(): Promise<void> {
    const st = await this.fh.stat()
    this.dev = st.dev
    this.ino = st.ino
  }

  /**
   * Throws CONFLICT unless the log is still the file this process opened, at the size it left it:
   * another writer (a lock that failed, a copy put in place, a restore) must make this one stop
   * loudly, not overwrite what the other wrote. One fstat of the open file and one stat of the
   * path, synchronous: a few microseconds, where two promise round trips through the thread pool
   * cost 6% of a service's CPU at one commit per few documents.
   */
  private checkOwned(): void {
    const path = join(this.dir, LOG_FILE)
    const mine = fstatSync(this.fh.fd)
    const now = statSync(path, { throwIfNoEntry: false }) ?? null
    let what: string | null = null
    if (now === null) what = `${path} is gone`
    else if (now.dev !== this.dev || now.ino !== this.ino || mine.dev !== this.dev || mine.ino !== this.ino) what = `${path} was replaced by another file`
    else if (mine.size !== this.size) what = `${path} is ${mine.size} bytes where this process wrote ${this.size}`
    if (what === null) return
    throw new DedupError(
      'CONFLICT',
      `The store log changed under this writer: ${what}. Another process has written to the store (or the file was replaced); this process writes nothing more. Its acknowledged writes are in the log it wrote; run \`simdup store check\` on ${this.dir}.`,
    )
  }

  /**
   * Opens the log in `dir` for writing and replays it into `sink`; creates it in a new or empty
   * directory. Throws when the log is missing from a directory that holds other files (see
   * `missingLogError`).
   */
  static async open(dir: string, fsync: boolean, sink: PayloadSink): Promise<{ log: LogFile; replay: ReplayResult }> {
    const path = join(dir, LOG_FILE)
    // Left by a compaction that crashed before its rename: the old log is still whole.
    await rm(join(dir, COMPACT_FILE), { force: true })
    let fh: FileHandle
    try {
      fh = await open(path, 'r+')
      // A store made before the marker existed, or a crash between creating the log and the marker.
      await writeMarker(dir, false)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      const refused = await missingLogError(dir, false)
      if (refused !== null) throw refused
      await createLog(dir)
      await writeMarker(dir, true)
      fh = await open(path, 'r+')
    }
    try {
      const result = await replay(path, fh, sink, 'write')
      if (result.formatVersion !== LOG_FORMAT_VERSION) {
        // An older format read as is: mark the file with this format before anything is appended.
        const version = Buffer.alloc(4)
        version.writeUInt32LE(LOG_FORMAT_VERSION, 0)
        await writeAll(fh, version, 8)
        await fh.sync()
      }
      const log = new LogFile(dir, fh, result.size, fsync)
      await log.remember()
      try {
        await log.startCommits(result)
      } catch (err) {
        await log.commitFh?.close()
        throw err
      }
      return { log, replay: result }
    } catch (err) {
      await fh.close()
      throw err
    }
  }

  /**
   * Replays the log in `dir` into `sink` without writing anything (no truncation, no lock, no
   * marker): for read-only opens, which work on a read-only filesystem. A torn tail is reported in
   * `damage` and left in the file. Throws NOT_FOUND when there is no log.
   */
  static async read(dir: string, sink: PayloadSink): Promise<ReplayResult> {
    const fh = await openForRead(dir)
    try {
      return await replay(join(dir, LOG_FILE), fh, sink, 'read')
    } finally {
      await fh.close()
    }
  }

  /** Bytes in the log (written, synced or not). */
  get bytes(): number {
    return this.size
  }

  /**
   * Writes `payload` as a frame, after every frame appended before it; calls `apply` with its file
   * offset once it is written (it returns the entries the payload held), then resolves `written`;
   * resolves `durable` once an fdatasync covering it has completed and the commit point says so.
   * Both reject if the log fails first.
   */
  append(payload: Buffer, apply: (offset: number) => number): Appended {
    let written: () => void = ignore
    let notWritten: (e: unknown) => void = ignore
    const wrote = new Promise<void>((resolve, reject) => {
      written = resolve
      notWritten = reject
    })
    const durable = new Promise<void>((resolve, reject) => {
      const fail = (e: unknown): void => {
        notWritten(e)
        reject(e)
      }
      if (this.failure !== null) return fail(this.failure)
      this.queue.push({ kind: 'frame', payload, apply, written, resolve, reject: fail })
      this.kick()
    })
    // A caller may wait for one of the two only: the other's rejection is not left unhandled.
    wrote.catch(ignore)
    durable.catch(ignore)
    return { written: wrote, durable }
  }

  /** Runs `run` exclusively, after everything queued before it is durable. */
  task(run: () => Promise<void>): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.failure !== null) return reject(this.failure)
      this.queue.push({ kind: 'task', run, resolve, reject })
      this.kick()
    })
  }

  /**
   * Replaces the log with one holding `frames` (compaction): written to a temp file, fsync'd,
   * renamed over the log, directory fsync'd. A crash at any point leaves the old or the new log.
   * Call only from inside `task`.
   */
  async rewrite(frames: Iterable<Buffer>, entries: () => number): Promise<void> {
    this.checkOwned()
    const tmp = join(this.dir, COMPACT_FILE)
    const fh = await open(tmp, 'w')
    let size = HEADER_BYTES
    const logId = newLogId()
    try {
      await writeAll(fh, headerBytes(logId), 0)
      for (const payload of frames) {
        const header = frameHeader(payload)
        await writeAll(fh, Buffer.concat([header, payload]), size)
        size += header.length + payload.length
      }
      // Always fsync here, even with fsync off: a rename of unsynced data could lose everything.
      await fh.sync()
    } finally {
      await fh.close()
    }
    // The new log's commit point goes in the slot after the old log's newest, before the rename:
    // whichever log a crash leaves in place finds its own.
    const point = this.point(size, logId, entries())
    await this.writeCommit(point, true)
    await rename(tmp, join(this.dir, LOG_FILE))
    // From here the old handle points at an unlinked file: failing to switch must stop all writes.
    try {
      await syncDir(this.dir)
      const old = this.fh
      this.fh = await open(join(this.dir, LOG_FILE), 'r+')
      this.size = size
      this.synced = size
      this.logId = logId
      this.entries = point.entries
      await this.remember()
      await old.close()
    } catch (err) {
      this.fail(err)
      throw this.failure
    }
  }

  /** Waits for queued work, makes the commit point durable, then closes the files. */
  async close(): Promise<void> {
    await this.task(async () => {
      if (this.failure === null) await this.writeCommit(this.point(), true)
    }).catch(() => {})
    await this.settle()
    await this.commitFh?.close()
    await this.fh.close()
  }

  private kick(): void {
    if (this.running) return
    this.running = true
    void this.drain().finally(() => {
      this.running = false
      if (this.queue.length > 0) this.kick()
    })
  }

  /** Waits until no fdatasync runs and none is due (every frame written is durable, or the log failed). */
  private async settle(): Promise<void> {
    while (this.syncing !== null) await this.syncing
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const first = this.queue[0]!
      if (first.kind === 'task') {
        if (this.syncing !== null) {
          // Exclusive: the frames before it become durable first (a failure meanwhile rejects it).
          await this.settle()
          continue
        }
        this.queue.shift()
        await first.run().then(first.resolve, first.reject)
        continue
      }
      const group: FrameJob[] = []
      while (this.queue.length > 0 && this.queue[0]!.kind === 'frame') group.push(this.queue.shift() as FrameJob)
      try {
        const parts: Buffer[] = []
        for (const job of group) parts.push(frameHeader(job.payload), job.payload)
        const bytes = Buffer.concat(parts)
        this.checkOwned()
        try {
          writeAllSync(this.fh, bytes, this.size)
        } catch (err) {
          await this.fh.truncate(this.size).catch(() => {})
          throw err
        }
        // The log failed before this write (fail() rejects what is queued; a guard): not kept.
        if (this.failure !== null) throw this.failure
        let offset = this.size
        this.size += bytes.length
        for (const job of group) {
          this.entries += job.apply(offset + FRAME_HEADER_BYTES)
          offset += FRAME_HEADER_BYTES + job.payload.length
        }
      } catch (err) {
        this.fail(err)
        for (const job of group) job.reject(this.failure)
        return
      }
      for (const job of group) job.written()
      this.unsynced.push(...group)
      this.startSync()
    }
  }

  /**
   * Starts an fdatasync for every frame written so far, unless one runs (then the next starts
   * when it ends, covering what was written meanwhile). After it, the commit point of the bytes
   * and entries written before it began, then the frames resolve.
   */
  private startSync(): void {
    if (this.syncing !== null || this.unsynced.length === 0 || this.failure !== null) return
    const batch = this.unsynced
    this.unsynced = []
    const bytes = this.size
    const entries = this.entries
    this.syncing = (async () => {
      if (this.fsync) await this.fh.datasync()
      // After the fdatasync, so it never claims what is not on disk; durable with the next fsync of it.
      await this.writeCommit(this.point(bytes, this.logId, entries), false)
    })().then(
      () => {
        this.synced = bytes
        this.syncing = null
        for (const job of batch) job.resolve()
        this.startSync()
      },
      (err: unknown) => {
        this.syncing = null
        this.fail(err)
        for (const job of batch) job.reject(this.failure)
        // What was written after the last good fdatasync may be gone: cut it (best effort).
        void this.fh.truncate(this.synced).catch(() => {})
      },
    )
  }

  private fail(cause: unknown): void {
    this.failure ??= cause instanceof DedupError && cause.code === 'CONFLICT' ? cause : new DedupError(
      'STORE_UNAVAILABLE',
      `Writing the store log in ${this.dir} failed; no further writes are accepted. Close and reopen the store (acknowledged puts are safe).`,
      { cause },
    )
    for (const job of this.queue.splice(0)) job.reject(this.failure)
    for (const job of this.unsynced.splice(0)) job.reject(this.failure)
  }
}

/**
 * Sets the commit point of the log in `dir` back to the start of its last frame: what a writer
 * killed between a frame's fdatasync and its commit point leaves (its last frame a torn write, never
 * acknowledged). For tests and the fault script (scripts/faults/), which emulate such a crash.
 */
export async function forgetLastCommit(dir: string): Promise<void> {
  const path = join(dir, LOG_FILE)
  const bytes = await readFile(path)
  let pos = HEADER_BYTES
  let last = HEADER_BYTES
  while (pos + FRAME_HEADER_BYTES <= bytes.length) {
    const len = bytes.readUInt32LE(pos)
    if ((~len >>> 0) !== bytes.readUInt32LE(pos + 4) || pos + FRAME_HEADER_BYTES + len > bytes.length) break
    last = pos
    pos += FRAME_HEADER_BYTES + len
  }
  const logId = bytes.readUInt32LE(12)
  const { point, next, seq } = await readCommit(path, logId)
  await writeCommitSlot(path, next, { logId, seq: seq + 1, bytes: Math.min(last, point?.bytes ?? last), entries: 0 }, true)
}
