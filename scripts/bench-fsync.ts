/**
 * What one durable commit costs on this disk, apart from simdup: append a small frame to a file
 * (`writeSync`) and fdatasync it, as the embedded store's log does for every group commit. Two
 * ways, interleaved in blocks of 20 so the machine's load falls on both alike:
 * - `async`: `await fh.datasync()` (a round trip through libuv's thread pool: what the log does);
 * - `sync`: `fdatasyncSync` on the calling thread (no thread hop; blocks the event loop meanwhile).
 * Prints p50 / p90 / p99 of each in milliseconds and the load average.
 *
 *   npx tsx scripts/bench-fsync.ts [--count 300] [--bytes 300] [--dir DIR]
 */
import { fdatasyncSync, mkdtempSync, rmSync, writeSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({ options: { count: { type: 'string', default: '300' }, bytes: { type: 'string', default: '300' }, dir: { type: 'string' } } })
const count = Number(values.count)
const frame = Buffer.alloc(Number(values.bytes), 7)
// On the disk the store would use (the repo's .cache by default), not a tmpfs.
const base = values.dir ?? new URL('../.cache/', import.meta.url).pathname
const dir = mkdtempSync(join(base ?? tmpdir(), 'bench-fsync-'))
const fh = await open(join(dir, 'log'), 'w+')
let size = 0
const times = { async: [] as number[], sync: [] as number[] }
const load0 = loadavg()[0]!
for (let i = 0; i < count; i++) {
  const way = Math.floor(i / 20) % 2 === 0 ? 'async' : 'sync'
  const t = performance.now()
  writeSync(fh.fd, frame, 0, frame.length, size)
  size += frame.length
  if (way === 'async') await fh.datasync()
  else fdatasyncSync(fh.fd)
  times[way].push(performance.now() - t)
}
await fh.close()
rmSync(dir, { recursive: true, force: true })
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!
console.log(`${count} appends of ${frame.length} B + fdatasync in ${base}, load ${load0.toFixed(1)}–${loadavg()[0]!.toFixed(1)}`)
for (const [way, xs] of Object.entries(times)) console.log(`${way.padEnd(5)} n=${xs.length} p50 ${q(xs, 0.5).toFixed(2)} ms  p90 ${q(xs, 0.9).toFixed(2)} ms  p99 ${q(xs, 0.99).toFixed(2)} ms`)
