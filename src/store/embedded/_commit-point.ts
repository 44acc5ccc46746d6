import { open, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { writeAll } from './_file-io.js'
import { FRAME_HEADER_BYTES, HEADER_BYTES, LOG_FILE } from './_log-format.js'

/**
 * The commit point of a log (see `_log-format.ts`): what its writer acknowledged, in two
 * checksummed 32-byte slots of the file beside it, written alternately.
 */

/** File beside the log holding its commit point (see above). */
export const COMMIT_SUFFIX = '.commit'
const COMMIT_MAGIC = 0x50434453 // "SDCP"
const COMMIT_SLOT_BYTES = 32
/** Byte offset of slot 1 (slot 0 is at 0). */
export const COMMIT_SLOT_STRIDE = 512

/** What a writer acknowledged of a log: its id, bytes and entries. */
export interface CommitPoint {
  logId: number
  seq: number
  bytes: number
  entries: number
}

/** The 32 bytes of a commit slot holding `c`. */
export function encodeCommit(c: CommitPoint): Buffer {
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
export async function readCommit(logPath: string, logId: number): Promise<{ point: CommitPoint | null; next: number; seq: number }> {
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

/** Writes one slot of the commit file of `logPath` (creating it), fsync'd when `sync`. */
export async function writeCommitSlot(logPath: string, slot: number, point: CommitPoint, sync: boolean): Promise<void> {
  const fh = await open(logPath + COMMIT_SUFFIX, 'a+').then(async (a) => (await a.close(), open(logPath + COMMIT_SUFFIX, 'r+')))
  try {
    await writeAll(fh, encodeCommit(point), slot * COMMIT_SLOT_STRIDE)
    if (sync) await fh.sync()
  } finally {
    await fh.close()
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
