import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, describe, expect, test } from 'vitest'
import type { FingerprintRecord } from '../../src/types.js'
import { openMemoryStore, type MemoryStore } from '../../src/store/embedded/store.js'
import { batchPlan, crashRecord } from './_crash-plan.js'

const WRITER = join(import.meta.dirname, '_crash-writer.ts')
const T0 = Date.UTC(2024, 4, 1)
const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})


/**
 * Runs the writer from batch `first` in `dir`, SIGKILLs it `delayMs` after its `acks`-th
 * acknowledged batch, and returns the batch numbers it acknowledged. `node --import tsx` rather than `npx tsx`: SIGKILL must hit the
 * writer itself, not a wrapper whose child would live on.
 */
async function runAndKill(dir: string, first: number, acks: number, delayMs: number): Promise<number[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, dir, String(first)], { stdio: ['ignore', 'pipe', 'pipe'] })
  const acked: number[] = []
  let stderr = ''
  let pending = ''
  let armed = false
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)))
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  child.stdout.on('data', (d: Buffer) => {
    pending += d.toString()
    const lines = pending.split('\n')
    pending = lines.pop()!
    for (const line of lines) acked.push(Number(line))
    if (armed || acked.length < acks) return
    armed = true
    setTimeout(kill, delayMs)
  })
  const signal = await exited
  expect(signal, `writer died on its own: ${stderr}`).toBe('SIGKILL')
  return acked
}

/**
 * Checks the reopened store against the acknowledged batches: every acknowledged id is there
 * once with its latest acknowledged content, or with the content of the one batch that was in
 * flight at the kill (it may have reached the disk before its acknowledgement did).
 */
async function checkAgainst(store: MemoryStore, ackedGen: Map<string, number>, inFlight: number | null): Promise<void> {
  const maybe = new Map(inFlight === null ? [] : batchPlan(inFlight))
  const seen = new Map<string, FingerprintRecord>()
  for await (const batch of store.scan(1000)) {
    for (const r of batch) {
      if (seen.has(r.id)) expect.fail(`${r.id} is in the store twice`)
      seen.set(r.id, r)
    }
  }
  // toEqual only on a mismatch: it is slow, and there are tens of thousands of records.
  // The writer leaves numbering to the store: `seq` is compared apart (every id its own number).
  const seqs = new Set<number>()
  const same = (found: FingerprintRecord | undefined, id: string, gen: number): void => {
    const want = crashRecord(id, gen)
    const { seq, ...r } = found ?? ({} as FingerprintRecord)
    if (seq === undefined || seqs.has(seq)) expect.fail(`${id} has no number of its own (seq ${seq})`)
    seqs.add(seq)
    if (!isDeepStrictEqual(r, want)) expect(r).toEqual(want)
  }
  for (const [id, gen] of ackedGen) {
    const r = seen.get(id)
    if (r === undefined) expect.fail(`acknowledged ${id} is missing`)
    const inFlightGen = maybe.get(id)
    same(r, id, inFlightGen !== undefined && r.indexedAt === T0 + inFlightGen ? inFlightGen : gen)
  }
  for (const [id, r] of seen) {
    if (ackedGen.has(id)) continue
    if (!maybe.has(id)) expect.fail(`${id} was never put`)
    same(r, id, maybe.get(id)!)
  }
  expect(await store.count()).toBe(seen.size)
}

describe('memory store crash safety', () => {
  test('after SIGKILL mid-run, every acknowledged put is there exactly once with its content', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simdup-crash-'))
    dirs.push(dir)
    const ackedGen = new Map<string, number>()
    // Three writer lives in one directory, each reopening what the previous one left; kill
    // delays vary so the kill lands in different phases of a put (encode, write, fsync, apply).
    for (const [first, acks, delayMs] of [[0, 3, 0], [1000, 7, 2 + Math.random() * 20], [2000, 5, Math.random() * 5]] as const) {
      const acked = await runAndKill(dir, first, acks, delayMs)
      expect(acked.length).toBeGreaterThanOrEqual(acks)
      expect(acked).toEqual(acked.map((_, i) => first + i))
      for (const b of acked) for (const [id, gen] of batchPlan(b)) ackedGen.set(id, gen)
      const store = await openMemoryStore({ dir })
      try {
        await checkAgainst(store, ackedGen, first + acked.length)
        // Whatever the in-flight batch left is settled now: it is the truth for later rounds.
        for await (const batch of store.scan(1000)) for (const r of batch) ackedGen.set(r.id, r.indexedAt - T0)
      } finally {
        await store.close()
      }
    }

    // Re-put ids that exist (new generation) alongside new ones: none may appear twice.
    const store = await openMemoryStore({ dir })
    try {
      const before = await store.count()
      const existing = [...ackedGen.keys()].filter((_, i) => i % 97 === 0)
      const fresh = Array.from({ length: 50 }, (_, i) => `fresh-${i}`)
      const result = await store.put([...existing, ...fresh, ...existing.slice(0, 10)].map((id) => crashRecord(id, 50_000)))
      expect(result.failed).toEqual([])
      for (const id of [...existing, ...fresh]) ackedGen.set(id, 50_000)
      expect(await store.count()).toBe(before + fresh.length)
      await checkAgainst(store, ackedGen, null)
    } finally {
      await store.close()
    }
    const reopened = await openMemoryStore({ dir })
    try {
      await checkAgainst(reopened, ackedGen, null)
    } finally {
      await reopened.close()
    }
  }, 120_000)
})
