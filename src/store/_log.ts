import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { DedupError } from '../errors.js'

/**
 * The embedded store's append-only log: a 16-byte header, then frames.
 *
 *   header: "SIMDUPLG" · formatVersion u32 · reserved u32
 *   frame:  payload length u32 · its bitwise NOT u32 · CRC-32 of the payload u32 · payload
 *
 * A payload is one batch of entries (see `_codec.ts`); a put resolves once its frame is written
 * and (unless fsync is off) fdatasync'd. On open, frames are replayed in order. A bad frame at the
 * end of the file (cut short, checksum wrong on the last frame, or a zero-filled tail) is what a
 * crash mid-write leaves: no put was acknowledged for it, so it is truncated away. A bad frame
 * followed by more data is corruption and fails with STORE_CORRUPT naming its offset.
 * All integers little-endian.
 */

/** Log format version; bump on any incompatible change to the header, frames or entries (2: records carry `seq`). */
export const LOG_FORMAT_VERSION = 2
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

/** What replay found. */
export interface ReplayResult {
  /** Valid bytes (header + whole frames). */
  size: number
  /** Bytes of a torn tail that were cut off (0 if none). */
  truncated: number
}

function corrupt(path: string, offset: number, what: string, cause?: unknown): DedupError {
  return new DedupError(
    'STORE_CORRUPT',
    `${path} is corrupt at byte offset ${offset}: ${what}. Entries after it cannot be trusted; restore a backup or re-index into a new directory.`,
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

/** Replays `path` into `sink`, truncating a torn tail. Throws SNAPSHOT_VERSION / STORE_CORRUPT. */
async function replay(path: string, fh: FileHandle, sink: PayloadSink): Promise<ReplayResult> {
  const size = (await fh.stat()).size
  const reader = new Reader(fh)
  if (size < HEADER_BYTES) throw corrupt(path, 0, `the ${HEADER_BYTES}-byte header is cut short (${size} bytes)`)
  await reader.ensure(0, HEADER_BYTES, size)
  const header = reader.buf
  if (!header.subarray(0, 8).equals(MAGIC)) throw corrupt(path, 0, 'not a simdup store log (bad magic bytes)')
  const version = header.readUInt32LE(8)
  if (version !== LOG_FORMAT_VERSION) {
    throw new DedupError(
      'SNAPSHOT_VERSION',
      `${path} has format version ${version}, but this simdup reads format version ${LOG_FORMAT_VERSION}. Open it with the simdup release that wrote it, or re-index into a new directory.`,
    )
  }
  let pos = HEADER_BYTES
  let tornAt = -1
  while (pos < size) {
    if (size - pos < FRAME_HEADER_BYTES) {
      tornAt = pos
      break
    }
    await reader.ensure(pos, FRAME_HEADER_BYTES, size)
    let at = pos - reader.start
    const len = reader.buf.readUInt32LE(at)
    const check = reader.buf.readUInt32LE(at + 4)
    if ((~len >>> 0) !== check || len > MAX_FRAME_BYTES) {
      // A zero-filled tail is what a crash leaves after the file grew but before data landed.
      if (await reader.allZero(pos, size)) {
        tornAt = pos
        break
      }
      throw corrupt(path, pos, 'bad frame header')
    }
    const end = pos + FRAME_HEADER_BYTES + len
    if (end > size) {
      tornAt = pos
      break
    }
    await reader.ensure(pos, FRAME_HEADER_BYTES + len, size)
    at = pos - reader.start
    const crc = reader.buf.readUInt32LE(at + 8)
    const payloadStart = at + FRAME_HEADER_BYTES
    if (crc32(reader.buf.subarray(payloadStart, payloadStart + len)) !== crc) {
      if (end === size) {
        tornAt = pos
        break
      }
      throw corrupt(path, pos, 'frame checksum mismatch')
    }
    sink(reader.buf, payloadStart, payloadStart + len, reader.start)
    pos = end
  }
  if (tornAt < 0) return { size, truncated: 0 }
  await fh.truncate(tornAt)
  await fh.sync()
  return { size: tornAt, truncated: size - tornAt }
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

  private constructor(private readonly dir: string, private fh: FileHandle, size: number, private readonly fsync: boolean) {
    this.size = size
  }

  /** Opens (creating if absent) the log in `dir` and replays it into `sink`. */
  static async open(dir: string, fsync: boolean, sink: PayloadSink): Promise<{ log: LogFile; replay: ReplayResult }> {
    const path = join(dir, LOG_FILE)
    // Left by a compaction that crashed before its rename: the old log is still whole.
    await rm(join(dir, COMPACT_FILE), { force: true })
    let fh: FileHandle
    try {
      fh = await open(path, 'r+')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      await createLog(dir)
      fh = await open(path, 'r+')
    }
    try {
      const result = await replay(path, fh, sink)
      return { log: new LogFile(dir, fh, result.size, fsync), replay: result }
    } catch (err) {
      await fh.close()
      throw err
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
    this.failure = new DedupError(
      'STORE_UNAVAILABLE',
      `Writing the store log in ${this.dir} failed; no further writes are accepted. Close and reopen the store (acknowledged puts are safe).`,
      { cause },
    )
    for (const job of this.queue.splice(0)) job.reject(this.failure)
  }
}
