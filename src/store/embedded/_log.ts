import { copyFile, open, readdir, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises'
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
 * and (unless fsync is off) fdatasync'd. On open, frames are replayed in order. A bad frame at the
 * end of the file (cut short, checksum wrong on the last frame, or a zero-filled tail) is what a
 * crash mid-write leaves: no put was acknowledged for it. A writable open cuts it off, after
 * copying its bytes to `store.log.cut-<offset>`, and reports it (`ReplayResult.damage`); a
 * read-only open leaves the file alone and reports it too. A bad frame followed by more data is
 * corruption and fails with STORE_CORRUPT naming its offset; `checkLog` finds the valid prefix
 * and `truncateLog` keeps only it (`simdup store repair`).
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

/** Called with each replayed payload `buf[start, end)`; `fileOffset` is where buf[0] sits in the file. */
export type PayloadSink = (buf: Buffer, start: number, end: number, fileOffset: number) => void

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
}

function corrupt(path: string, offset: number, what: string, cause?: unknown): DedupError {
  return new DedupError(
    'STORE_CORRUPT',
    `${path} is corrupt at byte offset ${offset}: ${what}. Entries after it cannot be trusted; \`simdup store repair\` keeps the ${offset} bytes before it (and a copy of the whole log), or restore a backup.`,
    cause === undefined ? {} : { cause },
  )
}

function headerBytes(): Buffer {
  const b = Buffer.alloc(HEADER_BYTES)
  MAGIC.copy(b, 0)
  b.writeUInt32LE(LOG_FORMAT_VERSION, 8)
  return b
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
    await writeAll(fh, headerBytes(), 0)
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
  const size = (await fh.stat()).size
  const reader = new Reader(fh)
  if (size < HEADER_BYTES) throw corrupt(path, 0, `the ${HEADER_BYTES}-byte header is cut short (${size} bytes)`)
  await reader.ensure(0, HEADER_BYTES, size)
  const header = reader.buf
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
    damage = { offset: pos, bytes: size - pos, reason, tail, payload, savedTo: null }
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
      sink(reader.buf, payloadStart, payloadStart + len, reader.start)
    } catch (err) {
      if (mode !== 'salvage' || !(err instanceof DedupError) || err.code !== 'STORE_CORRUPT') throw err
      stop(end === size, `an entry in the frame cannot be read (${err.message.replace(/\. Restore a backup.*$/s, '')})`, await payloadAt(len))
      break
    }
    pos = end
  }
  const found = damage as LogDamage | null
  if (found === null) return { size, truncated: 0, damage: null, formatVersion: version }
  if (mode !== 'write') return { size: found.offset, truncated: 0, damage: found, formatVersion: version }
  // A torn tail (salvage and read never get here with corruption: write mode threw on it).
  if (!(await reader.allZero(found.offset, size))) {
    const cut = Buffer.alloc(found.bytes)
    const { bytesRead } = await fh.read(cut, 0, cut.length, found.offset)
    found.savedTo = `${path}.cut-${found.offset}`
    await writeFile(found.savedTo, cut.subarray(0, bytesRead))
  }
  await fh.truncate(found.offset)
  await fh.sync()
  return { size: found.offset, truncated: found.bytes, damage: found, formatVersion: version }
}

/** What `checkLog` found: the valid prefix and what follows it. */
export interface LogCheck {
  /** Bytes of the file. */
  fileBytes: number
  /** Bytes of the valid prefix (header + whole frames before any damage). */
  validBytes: number
  damage: LogDamage | null
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
    return { fileBytes: (await fh.stat()).size, validBytes: result.size, damage: result.damage }
  } finally {
    await fh.close()
  }
}

/**
 * Cuts the log of `dir` to its first `validBytes` (found by `checkLog`), after copying the whole
 * file to `store.log.before-repair-<time>`, which it returns. The caller holds the write lock.
 */
export async function truncateLog(dir: string, validBytes: number): Promise<string> {
  const path = join(dir, LOG_FILE)
  const backup = `${path}.before-repair-${new Date().toISOString().replace(/[:.]/g, '-')}`
  await copyFile(path, backup)
  const fh = await open(path, 'r+')
  try {
    await fh.sync()
    await fh.truncate(validBytes)
    await fh.sync()
  } finally {
    await fh.close()
  }
  await syncDir(dir)
  return backup
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

type Job =
  | { kind: 'frame'; payload: Buffer; apply: (offset: number) => void; resolve: () => void; reject: (e: unknown) => void }
  | { kind: 'task'; run: () => Promise<void>; resolve: () => void; reject: (e: unknown) => void }

/**
 * An open log: replay on open, then group-committed appends. Appends and tasks (compaction,
 * close) run one at a time in call order; consecutive appends share one write and one fsync.
 * A failed write or fsync leaves the log as it was (truncated back) and fails the log for good:
 * after an fsync error the kernel may have dropped the data, so carrying on could lose puts
 * that were acknowledged.
 */
export class LogFile {
  private size: number
  private readonly queue: Job[] = []
  private running = false
  private failure: DedupError | null = null
  /** Identity (device, inode) of the file this log writes: checked before every commit. */
  private dev = 0
  private ino = 0

  private constructor(private readonly dir: string, private fh: FileHandle, size: number, private readonly fsync: boolean) {
    this.size = size
  }

  private async remember(): Promise<void> {
    const st = await this.fh.stat()
    this.dev = st.dev
    this.ino = st.ino
  }

  /**
   * Throws CONFLICT unless the log is still the file this process opened, at the size it left it:
   * another writer (a lock that failed, a copy put in place, a restore) must make this one stop
   * loudly, not overwrite what the other wrote.
   */
  private async checkOwned(): Promise<void> {
    const path = join(this.dir, LOG_FILE)
    const mine = await this.fh.stat()
    const now = await stat(path).catch(() => null)
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

  /** Bytes in the log. */
  get bytes(): number {
    return this.size
  }

  /** Writes `payload` as a frame; calls `apply` with its file offset once it is durable, then resolves. */
  append(payload: Buffer, apply: (offset: number) => void): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.failure !== null) return reject(this.failure)
      this.queue.push({ kind: 'frame', payload, apply, resolve, reject })
      this.kick()
    })
  }

  /** Runs `run` exclusively, after everything queued before it. */
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
  async rewrite(frames: Iterable<Buffer>): Promise<void> {
    await this.checkOwned()
    const tmp = join(this.dir, COMPACT_FILE)
    const fh = await open(tmp, 'w')
    let size = HEADER_BYTES
    try {
      await writeAll(fh, headerBytes(), 0)
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
    await rename(tmp, join(this.dir, LOG_FILE))
    // From here the old handle points at an unlinked file: failing to switch must stop all writes.
    try {
      await syncDir(this.dir)
      const old = this.fh
      this.fh = await open(join(this.dir, LOG_FILE), 'r+')
      this.size = size
      await this.remember()
      await old.close()
    } catch (err) {
      this.fail(err)
      throw this.failure
    }
  }

  /** Waits for queued work, then closes the file. */
  async close(): Promise<void> {
    await this.task(async () => {}).catch(() => {})
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

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const first = this.queue[0]!
      if (first.kind === 'task') {
        this.queue.shift()
        await first.run().then(first.resolve, first.reject)
        continue
      }
      const group: Extract<Job, { kind: 'frame' }>[] = []
      while (this.queue.length > 0 && this.queue[0]!.kind === 'frame') group.push(this.queue.shift() as Extract<Job, { kind: 'frame' }>)
      try {
        const parts: Buffer[] = []
        for (const job of group) parts.push(frameHeader(job.payload), job.payload)
        const bytes = Buffer.concat(parts)
        await this.checkOwned()
        try {
          await writeAll(this.fh, bytes, this.size)
          if (this.fsync) await this.fh.datasync()
        } catch (err) {
          await this.fh.truncate(this.size).catch(() => {})
          throw err
        }
        let offset = this.size
        this.size += bytes.length
        for (const job of group) {
          job.apply(offset + FRAME_HEADER_BYTES)
          offset += FRAME_HEADER_BYTES + job.payload.length
        }
      } catch (err) {
        this.fail(err)
        for (const job of group) job.reject(this.failure)
        return
      }
      for (const job of group) job.resolve()
    }
  }

  private fail(cause: unknown): void {
    this.failure = cause instanceof DedupError && cause.code === 'CONFLICT' ? cause : new DedupError(
      'STORE_UNAVAILABLE',
      `Writing the store log in ${this.dir} failed; no further writes are accepted. Close and reopen the store (acknowledged puts are safe).`,
      { cause },
    )
    for (const job of this.queue.splice(0)) job.reject(this.failure)
  }
}
