import { constants } from 'node:fs'
import { access, mkdir, stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import { DedupError } from '../../errors.js'
import { acquireLock, type DirLock } from '../lock.js'

/**
 * Creates the store directory `dir` (and its parents) and takes its write lock. A failure is a
 * DedupError naming the filesystem's reason in words: STORE_REQUEST_FAILED when a retry will not
 * cure it, else STORE_UNAVAILABLE.
 */
export async function createAndLock(dir: string): Promise<DirLock> {
  try {
    await mkdir(dir, { recursive: true }).catch(async (err: unknown) => {
      const why = await mkdirFailure(dir, err)
      throw new DedupError(lasting(why) ? 'STORE_REQUEST_FAILED' : 'STORE_UNAVAILABLE', `Cannot open the store in ${dir}: the directory cannot be created: ${fsReason(why)}.`, { cause: why })
    })
    return await acquireLock(dir)
  } catch (err) {
    if (err instanceof DedupError) throw err
    throw new DedupError(lasting(err) ? 'STORE_REQUEST_FAILED' : 'STORE_UNAVAILABLE', `Cannot open the store in ${dir} for writing: ${fsReason(err)}.`, { cause: err })
  }
}

/**
 * The real reason a recursive mkdir of `dir` failed: Node reports ENOENT where the nearest
 * existing ancestor is on a read-only filesystem or not writable; asking that ancestor tells.
 */
async function mkdirFailure(dir: string, err: unknown): Promise<unknown> {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return err
  let at = dirname(dir)
  for (;;) {
    const st = await stat(at).catch(() => null)
    if (st !== null) {
      if (!st.isDirectory()) return Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' })
      return access(at, constants.W_OK).then(() => err, (denied: unknown) => denied)
    }
    const up = dirname(at)
    if (up === at) return err
    at = up
  }
}

/**
 * A filesystem error that a retry will not cure (a read-only filesystem, no permission, a file
 * where the directory should be): STORE_REQUEST_FAILED (exit 1), not STORE_UNAVAILABLE (exit 4,
 * "retry later").
 */
function lasting(err: unknown): boolean {
  return ['EROFS', 'EACCES', 'EPERM', 'ENOTDIR', 'EEXIST'].includes((err as NodeJS.ErrnoException).code ?? '')
}

/** A filesystem error in words, with its code: `the filesystem is read-only (EROFS)`. */
function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code
  const words: Record<string, string> = {
    EROFS: 'the filesystem is read-only',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    ENOSPC: 'no space left on the device',
    ENOTDIR: 'a part of the path is a file, not a directory',
    ENOENT: 'a directory on the path does not exist and cannot be created',
    EEXIST: 'a file of that name is in the way',
  }
  return code !== undefined && words[code] !== undefined ? `${words[code]} (${code})` : (err as Error).message
}
