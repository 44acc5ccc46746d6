import { spawn } from 'node:child_process'
import { fstatSync } from 'node:fs'
import { link, open, readFile, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { DedupError } from '../errors.js'

/**
 * Name of the file in a store directory that names the writer's pid. With an OS lock (below) it
 * is only a note for messages: a copied store's LOCK, a deleted one or one naming a live process
 * of another PID namespace changes nothing.
 */
export const LOCK_FILE = 'LOCK'
const MAX_ATTEMPTS = 5
/** flock(1)'s exit code when the lock is held elsewhere (its `--conflict-exit-code`). */
const BUSY_EXIT = 75

/** Lock paths this process holds (for messages: "this process already has it open"). */
const held = new Set<string>()

/** A held lock. */
export interface DirLock {
  release(): Promise<void>
}

/** What a lock's refusals say: the holder's pid, or a lock that keeps changing hands. */
export interface LockMessages {
  /** The lock is held by process `pid` (null: unknown, its note is gone; `self`: by this process). */
  held(pid: number | null, self: boolean): string
  /** The lock file was taken and dropped by others on every attempt. */
  unstable: string
}

/** `flock(1)` is not on this system (macOS, Windows): the pid-file lock is used instead. */
let noFlock = false

/** Tests: use the pid-file lock (as where flock(1) is missing), or (false) go back to trying flock(1). */
export function usePidFileLock(on: boolean): void {
  noFlock = on
}

/**
 * Takes an exclusive flock(2) on the open file description of `fd`, without waiting: flock(1)
 * gets a copy of the descriptor as its fd 3, locks it and exits; the lock belongs to the open file
 * description, which this process keeps open, so the kernel holds it until the descriptor is
 * closed or the process ends however it ends (kill -9 included). flock(2) locks are per open file
 * description, so they exclude processes in other PID namespaces (containers) sharing the
 * filesystem, and a second open in this process too.
 */
function flockFd(fd: number): Promise<'locked' | 'busy' | 'unsupported'> {
  return new Promise((resolve, reject) => {
    let stderr = ''
    const child = spawn('flock', ['--exclusive', '--nonblock', '--conflict-exit-code', String(BUSY_EXIT), '3'], {
      stdio: ['ignore', 'ignore', 'pipe', fd],
    })
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()))
    child.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? resolve('unsupported') : reject(err)))
    child.once('close', (code) => {
      if (code === 0) resolve('locked')
      else if (code === BUSY_EXIT) resolve('busy')
      else reject(new Error(`flock(1) failed (exit ${code}): ${stderr.trim() || 'no message'}`))
    })
  })
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

/**
 * Takes the lock file `path` (it names the owner's pid), or throws CONFLICT with `messages.held`.
 * Used for a reindex checkpoint's lock. An OS lock (flock(2), see `flockFd`) on the file itself:
 * opened without truncating, locked, then checked to still be the file at `path` (a holder's
 * release unlinks it, so a lock on an unlinked file is dropped and taken again). Without flock(1),
 * the pid-file lock (`acquirePidLock`).
 */
export async function acquireLockFile(path: string, messages: LockMessages): Promise<DirLock> {
  if (noFlock) return acquirePidLock(path, messages)
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const fh = await open(path, 'a+')
    let kept = false
    try {
      const got = await flockFd(fh.fd)
      if (got === 'unsupported') {
        noFlock = true
        return acquirePidLock(path, messages)
      }
      if (got === 'busy') {
        const pid = (await readPid(path)) ?? null
        throw new DedupError('CONFLICT', messages.held(pid, held.has(path)))
      }
      const now = await stat(path).catch(() => null)
      const mine = fstatSync(fh.fd)
      if (now === null || now.ino !== mine.ino || now.dev !== mine.dev) continue
      await fh.truncate(0)
      await fh.write(`${process.pid}\n`, 0)
      kept = true
      held.add(path)
      return { release: () => releaseFileLock(path, fh) }
    } finally {
      if (!kept) await fh.close()
    }
  }
  throw new DedupError('CONFLICT', messages.unstable)
}

async function releaseFileLock(path: string, fh: FileHandle): Promise<void> {
  if (!held.delete(path)) return
  try {
    // Unlinked while still locked, so nobody can lock this file after us and believe it current.
    const now = await stat(path).catch(() => null)
    const mine = await fh.stat()
    if (now !== null && now.ino === mine.ino && now.dev === mine.dev) await unlink(path).catch(() => {})
  } finally {
    await fh.close()
  }
}

/**
 * Takes the write lock of store directory `dir`: an OS lock (flock(2), see `flockFd`) on the
 * directory itself, held until `release` or the end of the process. Locking the directory, not a
 * file in it, means no file can be deleted or replaced to let a second writer in, and a copy of the
 * store (a new directory) is free. Its `LOCK` file only names the holder's pid for messages.
 * Without flock(1) on the system, a pid-file lock on `LOCK` (`acquirePidLock`).
 */
export async function acquireLock(dir: string): Promise<DirLock> {
  const path = join(dir, LOCK_FILE)
  const messages: LockMessages = {
    held: (pid, self) =>
      `Cannot open the store in ${dir} for writing: ${self ? `this process (pid ${process.pid}) already has it open` : `another process holds its lock${pid === null ? '' : ` (process ${pid}, as its ${LOCK_FILE} file says; in another container the number may differ)`}`}. ` +
      'Close that store first. The lock is the operating system\'s: it ends with the process that holds it, so there is nothing to delete.',
    unstable: `Cannot open the store in ${dir}: its lock file ${path} keeps changing hands.`,
  }
  if (noFlock) return acquirePidLock(path, { ...messages, held: pidFileMessage(dir, path) })
  const fh = await open(dir, 'r')
  let kept = false
  try {
    const got = await flockFd(fh.fd)
    if (got === 'unsupported') {
      noFlock = true
      return acquirePidLock(path, { ...messages, held: pidFileMessage(dir, path) })
    }
    if (got === 'busy') throw new DedupError('CONFLICT', messages.held((await readPid(path)) ?? null, held.has(dir)))
    await writeFile(path, `${process.pid}\n`)
    kept = true
    held.add(dir)
    return {
      release: async () => {
        if (!held.delete(dir)) return
        try {
          if ((await readPid(path)) === process.pid) await unlink(path).catch(() => {})
        } finally {
          await fh.close()
        }
      },
    }
  } finally {
    if (!kept) await fh.close()
  }
}

function pidFileMessage(dir: string, path: string): LockMessages['held'] {
  return (pid, self) =>
    `Cannot open the store in ${dir} for writing: ${self ? `this process (pid ${pid}) already has it open` : `it is locked by process ${pid}`}. ` +
    `Close that store first; if no simdup process ${pid} is running, delete ${path}.`
}

/** Lock paths this process holds under the pid-file lock. */
const heldPid = new Set<string>()

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The fallback lock where flock(1) is missing: the file `path` holds the owner's pid, and a lock
 * whose process is gone (crash, kill -9) is taken over. It cannot see processes of another PID
 * namespace, nor survive the file's deletion (docs/GUARANTEES.md).
 *
 * The lock is created whole with link(2) from a temp file, so it never exists without a pid.
 * A stale lock is first renamed aside (only one taker can win the rename) and checked to be the
 * one judged stale before it is removed. Release removes the file only while it still holds
 * this process's pid (never a lock another process has taken over since).
 */
async function acquirePidLock(path: string, messages: LockMessages): Promise<DirLock> {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`
  await writeFile(tmp, `${process.pid}\n`)
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        await link(tmp, path)
        heldPid.add(path)
        return { release: () => releasePidLock(path) }
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      }
      const owner = await readPid(path)
      if (owner === undefined) continue
      if (owner !== null && isAlive(owner) && (owner !== process.pid || heldPid.has(path))) {
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

async function releasePidLock(path: string): Promise<void> {
  if (!heldPid.delete(path)) return
  if ((await readPid(path)) === process.pid) await unlink(path).catch(() => {})
}
