import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { DedupError } from '../errors.js'

/** Name of the lock file in a store directory; it holds the owner's pid. */
export const LOCK_FILE = 'LOCK'
const MAX_ATTEMPTS = 5

/** Lock paths this process holds (a pid match alone cannot tell us from a stale lock of a reused pid). */
const held = new Set<string>()

/** A held lock. */
export interface DirLock {
  release(): Promise<void>
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function readPid(path: string): Promise<number | null | undefined> {
  try {
    const pid = Number.parseInt(await readFile(path, 'utf8'), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}

/** What a lock's refusals say: the holder's pid, or a lock that keeps changing hands. */
export interface LockMessages {
  /** The lock is held by live process `pid` (`self`: by this process). */
  held(pid: number, self: boolean): string
  /** The lock file was taken and dropped by others on every attempt. */
  unstable: string
}

/**
 * Takes the lock file `path` (holding the owner's pid), or throws CONFLICT with `messages.held`
 * naming the pid that holds it. A lock whose process is gone (crash, kill -9) is taken over.
 * Used for a store directory's write lock and a reindex checkpoint's.
 *
 * The lock is created whole with link(2) from a temp file, so it never exists without a pid.
 * A stale lock is first renamed aside (only one taker can win the rename) and checked to be the
 * one judged stale before it is removed. Release removes the file only while it still holds
 * this process's pid (never a lock another process has taken over since).
 */
export async function acquireLockFile(path: string, messages: LockMessages): Promise<DirLock> {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`
  await writeFile(tmp, `${process.pid}\n`)
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        await link(tmp, path)
        held.add(path)
        return { release: () => releaseLock(path) }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      }
      const owner = await readPid(path)
      if (owner === undefined) continue
      if (owner !== null && isAlive(owner) && (owner !== process.pid || held.has(path))) {
        throw new DedupError('CONFLICT', messages.held(owner, owner === process.pid))
      }
      const aside = `${path}.stale.${process.pid}`
      try {
        await rename(path, aside)
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
        throw err
      }
      if ((await readPid(aside)) !== owner) {
        // Someone took the lock over between our read and our rename: give theirs back.
        await link(aside, path).catch(() => {})
      }
      await unlink(aside).catch(() => {})
    }
    throw new DedupError('CONFLICT', messages.unstable)
  } finally {
    await unlink(tmp).catch(() => {})
  }
}

/** Takes the write lock of store directory `dir` (see `acquireLockFile`). */
export function acquireLock(dir: string): Promise<DirLock> {
  const path = join(dir, LOCK_FILE)
  return acquireLockFile(path, {
    held: (pid, self) =>
      `Cannot open the store in ${dir} for writing: ${self ? `this process (pid ${pid}) already has it open` : `it is locked by process ${pid}`}. ` +
      `Close that store first; if no simdup process ${pid} is running, delete ${path}.`,
    unstable: `Cannot open the store in ${dir}: its lock file ${path} keeps changing hands.`,
  })
}

async function releaseLock(path: string): Promise<void> {
  if (!held.delete(path)) return
  if ((await readPid(path)) === process.pid) await unlink(path).catch(() => {})
}
