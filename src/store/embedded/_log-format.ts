import { crc32 } from 'node:zlib'

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
export const READABLE_FORMATS: ReadonlySet<number> = new Set([2, LOG_FORMAT_VERSION])
/** File name of the log inside the store directory. */
export const LOG_FILE = 'store.log'
/** The 8 magic bytes a log starts with. */
export const MAGIC = Buffer.from('SIMDUPLG', 'latin1')
/** Bytes of the file header: the first frame starts here. */
export const HEADER_BYTES = 16
/** Bytes of a frame header: a frame's payload starts this far after the frame. */
export const FRAME_HEADER_BYTES = 12
/** Largest payload a frame header may announce: a larger length is a bad header. */
export const MAX_FRAME_BYTES = 1 << 30

/** A new log's id: random, non-zero. */
export function newLogId(): number {
  return (crc32(Buffer.from(`${process.pid}.${Date.now()}.${Math.random()}`)) || 1) >>> 0
}

/** The file header of a new log with id `logId`. */
export function headerBytes(logId: number): Buffer {
  const b = Buffer.alloc(HEADER_BYTES)
  MAGIC.copy(b, 0)
  b.writeUInt32LE(LOG_FORMAT_VERSION, 8)
  b.writeUInt32LE(logId, 12)
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
