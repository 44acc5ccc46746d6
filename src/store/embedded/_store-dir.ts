import { open, readdir, rename, writeFile, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { DedupError } from '../../errors.js'
import { exists, syncDir, writeAll } from './_file-io.js'
import { LOG_FILE, headerBytes, newLogId } from './_log-format.js'

/**
 * What a store directory holds besides the log's frames: the log created atomically, the marker
 * file, and the refusal to take a directory that lost its log (or was never a store's) for a new,
 * empty store.
 */

/** Creates an empty log atomically (header written to a temp file, fsync'd, renamed in). */
export async function createLog(dir: string): Promise<void> {
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

/** Writes the marker file (`always`: even if present); durable with the directory's next fsync. */
export async function writeMarker(dir: string, always: boolean): Promise<void> {
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

/** Opens the log of `dir` for reading, or throws why there is none (NOT_FOUND, or see `missingLogError`). */
export async function openForRead(dir: string): Promise<FileHandle> {
  try {
    return await open(join(dir, LOG_FILE), 'r')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
    throw (await missingLogError(dir, true)) ?? new DedupError('NOT_FOUND', `There is no simdup store in ${dir}: it ${(await exists(dir)) ? 'is empty' : 'does not exist'}.`, { cause: err })
  }
}
