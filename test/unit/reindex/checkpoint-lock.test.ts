/**
 * The reindex checkpoint's lock (src/store/lock.ts): an OS lock (flock(2)) on `<file>.lock` that a
 * live holder keeps and a dead one drops; without flock(1), the pid-file lock: a dead holder's lock
 * is taken over, a live one is refused with CONFLICT, and release never removes a lock that another
 * process has taken over since (the checkpoint's own copy did).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, onTestFinished, test } from 'vitest'
import { lockCheckpoint } from '../../../src/elasticsearch/reindex/checkpoint.js'
import { usePidFileLock } from '../../../src/store/lock.js'

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill()
})

/** A live process that is not this one (its pid holds a lock as another reindex would). */
function otherProcess(): number {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' })
  children.push(child)
  return child.pid!
}

/** A pid no process has: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid!
}

/** A process holding flock(1) on `path` until killed; resolves once it holds it. */
async function flockHolder(path: string): Promise<ChildProcess> {
  const child = spawn('flock', ['--exclusive', '--close', path, 'sh', '-c', 'echo held; sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] })
  children.push(child)
  await new Promise((resolve) => child.stdout!.once('data', resolve))
  return child
}

describe('reindex checkpoint lock (OS lock)', () => {
  test('a live holder is refused with CONFLICT whatever the file says; a killed one frees it; release removes the file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'simdup-cp-')), 'job.json')
    const holder = await flockHolder(`${file}.lock`)
    writeFileSync(`${file}.lock`, `${await deadPid()}\n`) // a stale-looking pid changes nothing
    await expect(lockCheckpoint(file)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('in use by process') })
    const exited = new Promise((resolve) => holder.once('exit', resolve))
    holder.kill('SIGKILL')
    await exited
    const lock = await lockCheckpoint(file)
    expect(readFileSync(`${file}.lock`, 'utf8').trim()).toBe(String(process.pid))
    await expect(lockCheckpoint(file)).rejects.toMatchObject({ code: 'CONFLICT' })
    await lock.release()
    expect(existsSync(`${file}.lock`)).toBe(false)
  })
})

describe('reindex checkpoint lock (pid file, without flock(1))', () => {
  test('a lock left by a dead process is taken over; a live holder is refused with CONFLICT naming it', async () => {
    usePidFileLock(true)
    onTestFinished(() => usePidFileLock(false))
    const file = join(mkdtempSync(join(tmpdir(), 'simdup-cp-')), 'job.json')
    writeFileSync(`${file}.lock`, `${await deadPid()}\n`)
    const lock = await lockCheckpoint(file)
    expect(readFileSync(`${file}.lock`, 'utf8').trim()).toBe(String(process.pid))
    await lock.release()
    expect(existsSync(`${file}.lock`)).toBe(false)

    const holder = otherProcess()
    writeFileSync(`${file}.lock`, `${holder}\n`)
    await expect(lockCheckpoint(file)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`in use by process ${holder}`) })
  })

  test('release leaves alone a lock that is no longer this process\'s (taken over by another after ours was judged stale)', async () => {
    usePidFileLock(true)
    onTestFinished(() => usePidFileLock(false))
    const file = join(mkdtempSync(join(tmpdir(), 'simdup-cp-')), 'job.json')
    const lock = await lockCheckpoint(file)
    // Another process took the lock over (as after this one was suspended and judged dead).
    const other = otherProcess()
    writeFileSync(`${file}.lock`, `${other}\n`)
    await lock.release()
    expect(readFileSync(`${file}.lock`, 'utf8').trim()).toBe(String(other))
  })
})
