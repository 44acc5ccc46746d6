import { writeFile, type FileHandle } from 'node:fs/promises'
import { crc32 } from 'node:zlib'
import { DedupError } from '../../errors.js'
import { readCommit } from './_commit-point.js'
import { FRAME_HEADER_BYTES, HEADER_BYTES, LOG_FORMAT_VERSION, MAGIC, MAX_FRAME_BYTES, READABLE_FORMATS } from './_log-format.js'
import { Reader } from './_read-window.js'

/**
 * Called with each replayed payload `buf[start, end)`; `fileOffset` is where buf[0] sits in the
 * file. Returns the entries (records and deletes) it held, which commit points count.
 */
export type PayloadSink = (buf: Buffer, start: number, end: number, fileOffset: number) => number

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

/** Acknowledged data is damaged or gone: an error naming what is lost (only `simdup store repair` cuts it). */
function lostError(path: string, damage: LogDamage): DedupError {
  const lost = damage.acknowledged!
  return new DedupError(
    'STORE_CORRUPT',
    `${path} has lost acknowledged data: ${damage.reason} at byte offset ${damage.offset}, before its commit point; ${lost.bytes} acknowledged byte(s) holding ${lost.entries} acknowledged entr${lost.entries === 1 ? 'y' : 'ies'} (records or deletes) cannot be read. ` +
      `This is not a torn write (a crash never damages what was acknowledged): the file was damaged or cut. Nothing was changed; restore a backup, or run \`simdup store repair\` to keep the ${damage.offset} bytes before it (a copy of the whole log is kept).`,
  )
}

/**
 * Replays `path` into `sink` (see `ReplayMode` for what happens to a damaged log). Throws
 * SNAPSHOT_VERSION / STORE_CORRUPT (a bad header always; a bad frame with data after it, unless
 * salvaging).
 */
export async function replay(path: string, fh: FileHandle, sink: PayloadSink, mode: ReplayMode): Promise<ReplayResult> {
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
