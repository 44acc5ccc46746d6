/**
 * Cost of taking and releasing the embedded store's write lock: the OS lock (flock(1) on the
 * directory's descriptor) against the pid-file fallback, interleaved rounds.
 * Run: npx tsx scripts/bench-lock.ts [--n 200]
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { acquireLock, usePidFileLock } from '../src/store/lock.js'

const n = Number(process.argv[process.argv.indexOf('--n') + 1] || 200)
const dir = await mkdtemp(join(tmpdir(), 'simdup-bench-lock-'))
const times: Record<string, number[]> = { flock: [], pidfile: [] }
for (let round = 0; round < 5; round++) {
  for (const mode of ['flock', 'pidfile'] as const) {
    usePidFileLock(mode === 'pidfile')
    const t0 = performance.now()
    for (let i = 0; i < n; i++) await (await acquireLock(dir)).release()
    times[mode]!.push((performance.now() - t0) / n)
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
for (const [mode, xs] of Object.entries(times)) console.log(`${mode.padEnd(8)} ${median(xs).toFixed(3)} ms per acquire + release (median of 5 rounds of ${n})`)
