import { expect, test } from 'vitest'
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// A test process that dies (killed by a runner's timeout) or ends without stopping its servers
// must not leave `simdup serve` children behind: they hold the store's lock and a port, and pile
// up over runs (test/helpers/serve.ts, `spawnOwned`).

const OWNER = new URL('./_serve-owner.ts', import.meta.url).pathname

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Starts the owner; resolves with the owner and the pid of the server it started. */
async function owner(how: 'kill' | 'exit') {
  const dir = mkdtempSync(join(tmpdir(), 'simdup-serve-owner-'))
  const p = spawn(process.execPath, ['--import', 'tsx', OWNER, dir, how], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  const pid = await new Promise<number>((resolve, reject) => {
    p.stdout.on('data', (c: Buffer) => {
      out += c.toString()
      if (out.includes('\n')) resolve(Number(out.trim()))
    })
    p.on('exit', (code) => (out.includes('\n') ? undefined : reject(new Error(`the owner exited (${code}) before starting a server`))))
  })
  return { p, pid }
}

async function gone(pid: number): Promise<boolean> {
  for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100))
  return !alive(pid)
}

test('a test process killed with SIGKILL takes its `simdup serve` child with it', async () => {
  const { p, pid } = await owner('kill')
  expect(alive(pid)).toBe(true)
  p.kill('SIGKILL')
  const ok = await gone(pid)
  if (!ok) process.kill(pid, 'SIGKILL')
  expect(ok).toBe(true)
}, 120_000)

test('a test process that exits without stopping its server stops it', async () => {
  const { p, pid } = await owner('exit')
  await new Promise((r) => p.once('exit', r))
  const ok = await gone(pid)
  if (!ok) process.kill(pid, 'SIGKILL')
  expect(ok).toBe(true)
}, 120_000)
