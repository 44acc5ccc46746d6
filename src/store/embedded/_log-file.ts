import { fstatSync, statSync } from 'node:fs'
import { open, rename, rm, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { DedupError } from '../../errors.js'
import { COMMIT_SLOT_STRIDE, COMMIT_SUFFIX, encodeCommit, readCommit, writeCommitSlot, type CommitPoint } from './_commit-point.js'
import { syncDir, writeAll, writeAllSync } from './_file-io.js'
import { FRAME_HEADER_BYTES, HEADER_BYTES, LOG_FILE, LOG_FORMAT_VERSION, frameHeader, headerBytes, newLogId } from './_log-format.js'
import { replay, type PayloadSink, type ReplayResult } from './_replay.js'
import { createLog, missingLogError, openForRead, writeMarker } from './_store-dir.js'

/** Left by a compaction that has not renamed it over the log yet. */
const COMPACT_FILE = 'store.log.compact'

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
