import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { openMemoryStore } from '../../src/store/embedded/store.js'
import { mulberry32 } from '../helpers/random.js'
import { expectConsistent, storedDecisions } from '../helpers/rerun.js'
import { cleanIndexRun, indexChild } from './_index-child.js'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const index = indexChild

describe('simdup index killed with SIGKILL and run again to the end decides as one clean run', () => {
  test('random kill points, one or two kills per trial (embedded store)', { timeout: 120_000 }, async () => {
    const { dir, input, cleanDecisions, fullLog } = await cleanIndexRun(dirs, 'simdup-rerun-crash-', 7)
    const cleanStore = await openMemoryStore({ dir: join(dir, 'clean') })
    const cleanStored = await storedDecisions(cleanStore)
    await cleanStore.close()

    const rnd = mulberry32(Number(process.env.SIMDUP_CRASH_SEED ?? Date.now() % 100_000))
    let killed = 0
    for (let trial = 0; trial < 3; trial++) {
      const store = join(dir, `trial-${trial}`)
      const kills = 1 + (trial % 2)
      for (let k = 0; k < kills; k++) {
        // Later kills land later: each run gets further before it dies.
        const at = Math.floor(fullLog * ((k + rnd()) / kills) * 0.95)
        const run = await index(input, store, join(dir, `trial-${trial}-${k}.jsonl`), at)
        if (run.signal === 'SIGKILL') killed++
        else expect(run, run.stderr).toMatchObject({ code: 0 })
      }
      const final = await index(input, store, join(dir, `trial-${trial}-final.jsonl`))
      expect(final, final.stderr).toMatchObject({ code: 0, signal: null })
      expect(await readFile(join(dir, `trial-${trial}-final.jsonl`), 'utf8')).toBe(cleanDecisions)
      const s = await openMemoryStore({ dir: store })
      expect(await storedDecisions(s)).toEqual(cleanStored)
      await expectConsistent(s, false)
      await s.close()
    }
    // The kills did land mid-run (a run may rarely finish before its kill point is reached).
    expect(killed).toBeGreaterThan(0)
  })
})
