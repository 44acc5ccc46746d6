/**
 * The store's write lock is the operating system's (flock(2) on the store directory, src/store/lock.ts):
 * it excludes a writer in another PID namespace (a container on the same volume), cannot be
 * dodged by deleting `LOCK`, ends with its process (kill -9), and a copy of a store opens. A writer
 * checks before each commit that the log is still the one it owns.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { appendFile, cp, mkdtemp, readFile, rename, rm, copyFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, describe, expect, test } from 'vitest'
import { openMemoryStore } from '../../src/store/embedded/store.js'
import { LOCK_FILE } from '../../src/store/lock.js'
import { LOG_FILE } from '../../src/store/embedded/_log-format.js'
import { crashRecord } from './_crash-plan.js'

const HOLDER = new URL('./_lock-holder.ts', import.meta.url).pathname
const children: ChildProcessWithoutNullStreams[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

/** A child process (optionally in a new PID namespace) that opens `dir`; resolves its first line: `open` or an error code. */
function holder(dir: string, inNewPidNamespace = false): { child: ChildProcessWithoutNullStreams; first: Promise<string> } {
  const node = [process.execPath, '--import', 'tsx', HOLDER, dir]
  const [cmd, ...args] = inNewPidNamespace ? ['unshare', '--pid', '--fork', '--mount-proc', ...node] : node
  const child = spawn(cmd!, args, { stdio: ['pipe', 'pipe', 'pipe'] })
  children.push(child)
  const lines = createInterface({ input: child.stdout })
  const first = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`holder exited ${code} before a line`)))
  })
  return { child, first }
}

const canUnshare = process.getuid?.() === 0 && spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0

async function storeDir(): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'simdup-lock-')), 'store')
  const store = await openMemoryStore({ dir })
  await store.put([crashRecord('a', 0), crashRecord('b', 0)])
  await store.close()
  return dir
}

describe('store write lock (OS lock on the directory)', () => {
  test.skipIf(!canUnshare)('a writer in another PID namespace is refused while one holds the store', async () => {
    const dir = await storeDir()
    const a = holder(dir)
    expect(await a.first).toBe('open')
    // The holder's pid means nothing in the new namespace (--mount-proc): a pid check lets it in.
    const b = holder(dir, true)
    expect(await b.first).toBe('CONFLICT')
  })

  test('deleting LOCK does not let a second writer in', async () => {
    const dir = await storeDir()
    const a = holder(dir)
    expect(await a.first).toBe('open')
    await rm(join(dir, LOCK_FILE))
    const b = holder(dir)
    expect(await b.first).toBe('CONFLICT')
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/another process holds its lock/) })
  })

  test('the lock ends with its process (kill -9); a second open in one process is refused', async () => {
    const dir = await storeDir()
    const a = holder(dir)
    expect(await a.first).toBe('open')
    const exited = new Promise((resolve) => a.child.once('exit', resolve))
    a.child.kill('SIGKILL')
    await exited
    const store = await openMemoryStore({ dir })
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`this process (pid ${process.pid})`) })
    expect(await store.count()).toBe(2)
    await store.close()
  })

  test('a copied store (its LOCK naming a live writer) opens while the original is held', async () => {
    const dir = await storeDir()
    const a = holder(dir)
    expect(await a.first).toBe('open')
    const copy = `${dir}-copy`
    await cp(dir, copy, { recursive: true })
    expect(Number(await readFile(join(copy, LOCK_FILE), 'utf8'))).toBe(a.child.pid)
    const store = await openMemoryStore({ dir: copy })
    expect(await store.count()).toBe(2)
    await store.close()
  })

  test('a writer whose log grew or was replaced under it stops with CONFLICT and overwrites nothing', async () => {
    const dir = await storeDir()
    const log = join(dir, LOG_FILE)
    const store = await openMemoryStore({ dir })
    await store.put([crashRecord('c', 0)])
    // Another writer appended (a lock that failed, a second host on a network volume).
    await appendFile(log, Buffer.from('x'.repeat(40)))
    const before = await readFile(log)
    await expect(store.put([crashRecord('d', 0)])).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/changed under this writer.*bytes where this process wrote/) })
    expect(await readFile(log)).toEqual(before)
    await store.close()

  })

  test('a writer whose log file was replaced (same size) stops with CONFLICT', async () => {
    const dir = await storeDir()
    const log = join(dir, LOG_FILE)
    const store = await openMemoryStore({ dir })
    await copyFile(log, `${log}.restored`)
    await rename(`${log}.restored`, log)
    const before = await readFile(log)
    await expect(store.put([crashRecord('d', 0)])).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/replaced by another file/) })
    expect(await readFile(log)).toEqual(before)
    await store.close()
  })
})
