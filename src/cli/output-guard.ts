import { fstat as fstatCb, type Stats } from 'node:fs'
import { readdir, realpath, stat, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join, relative, isAbsolute } from 'node:path'
import { promisify } from 'node:util'
import { UsageError } from './io.js'

const fstat = promisify(fstatCb)

/** What an output must not be: the input (an open file or a standard-input descriptor) or a file of the store. */
export interface OutputGuard {
  /** The input file, or null for standard input. */
  input: FileHandle | null
  /** Standard input's descriptor when it is the process's (0), to compare what it is redirected from. */
  stdinFd?: number | undefined
  /** The embedded store's directory (null: the store is Elasticsearch). */
  storeDir: string | null
}

/** Where `path` would land: its real path, or its real directory's path and its name when it does not exist yet. */
async function landing(path: string): Promise<string> {
  const real = await realpath(path).catch(() => null)
  if (real !== null) return real
  const dir = await realpath(dirname(path)).catch(() => dirname(path))
  return join(dir, basename(path))
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/**
 * Refuses outputs (`[flag, absolute path or null]`) that would replace the input or a store file:
 * the same file as the input by device and inode (standard input too, when redirected from a file:
 * `simdup index - --out in.jsonl < in.jsonl`), any path inside the store directory, any file that
 * is a store file by device and inode (a hard link), and two outputs naming one file.
 */
export async function refuseUnsafeOutputs(guard: OutputGuard, outputs: [string, string | null][]): Promise<void> {
  let input: Stats | null = null
  if (guard.input !== null) input = await guard.input.stat()
  else if (guard.stdinFd !== undefined) input = await fstat(guard.stdinFd).catch(() => null)
  if (input !== null && !input.isFile()) input = null
  const store = guard.storeDir === null ? null : await landing(guard.storeDir)
  let storeFiles: Stats[] | null = null
  const seen = new Map<string, string>()
  for (const [flag, path] of outputs) {
    if (path === null) continue
    const st = await stat(path).catch(() => null)
    const where = await landing(path)
    const earlier = seen.get(where) ?? [...seen].find(([p]) => st !== null && p === `${st.dev}:${st.ino}`)?.[1]
    if (earlier !== undefined) throw new UsageError(`${earlier} and ${flag} name the same file.`)
    seen.set(where, flag)
    if (st !== null) seen.set(`${st.dev}:${st.ino}`, flag)
    if (st !== null && input !== null && st.dev === input.dev && st.ino === input.ino) {
      throw new UsageError(`${flag} is the input file${guard.input === null ? ' (standard input is read from it)' : ''}: it would be replaced; choose another file.`)
    }
    if (store === null) continue
    if (inside(store, where)) {
      throw new UsageError(`${flag} ${path} is inside the store directory ${guard.storeDir}: it would replace the store's files; choose a file outside it.`)
    }
    if (st !== null && st.isFile()) {
      storeFiles ??= await storeFileStats(store)
      if (storeFiles.some((f) => f.dev === st.dev && f.ino === st.ino)) {
        throw new UsageError(`${flag} ${path} is a file of the store in ${guard.storeDir} (a link to it): it would replace the store's files; choose another file.`)
      }
    }
  }
}

async function storeFileStats(dir: string): Promise<Stats[]> {
  const names = await readdir(dir).catch(() => [] as string[])
  const stats = await Promise.all(names.map((n) => stat(join(dir, n)).catch(() => null)))
  return stats.filter((s): s is Stats => s !== null && s.isFile())
}

/** Whether `path` may get the default rejects file beside it: a regular file, or none yet (not /dev/null, a FIFO, a device). */
export async function isRegularOrNew(path: string): Promise<boolean> {
  const st = await stat(path).catch(() => null)
  return st === null || st.isFile()
}
