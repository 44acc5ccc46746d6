import { copyFile, open } from 'node:fs/promises'
import { join } from 'node:path'
import { readCommit, writeCommitSlot } from './_commit-point.js'
import { syncDir } from './_file-io.js'
import { LOG_FILE } from './_log-format.js'
import { replay, type LogDamage, type PayloadSink } from './_replay.js'
import { openForRead } from './_store-dir.js'

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
