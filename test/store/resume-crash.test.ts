import { readFile, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { openMemoryStore } from '../../src/store/embedded/store.js'
import { LOG_FILE } from '../../src/store/embedded/_log-format.js'
import { mulberry32 } from '../helpers/random.js'
import { expectConsistent, storedDecisions } from '../helpers/rerun.js'
import { cleanIndexRun, indexChild } from './_index-child.js'

// `simdup index --resume` (issue 29.2): a run killed midway and resumed costs what is left (the
// lines already stored are not decided nor written again) and writes what one clean run writes.

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

describe('simdup index --resume after SIGKILL', () => {
  test('decisions equal a clean run\'s; the resumed run writes only the lines that were left', { timeout: 180_000 }, async () => {
    // With URLs and version chains (copyStream), exact and near copies: every rule and `supersedes`.
    const { dir, input, cleanDecisions, fullLog } = await cleanIndexRun(dirs, 'simdup-resume-', 11)
    expect(cleanDecisions).toMatch(/"rule":"minhash"/)

    // On a finished store, a resumed run decides nothing again and writes nothing.
    const again = await indexChild(input, join(dir, 'clean'), join(dir, 'again.jsonl'), undefined, ['--resume'])
    expect(again, again.stderr).toMatchObject({ code: 0, signal: null })
    expect(await readFile(join(dir, 'again.jsonl'), 'utf8')).toBe(cleanDecisions)
    expect((await stat(join(dir, 'clean', LOG_FILE))).size).toBe(fullLog)

    const rnd = mulberry32(Number(process.env.SIMDUP_CRASH_SEED ?? Date.now() % 100_000))
    let killed = 0
    for (let trial = 0; trial < 2; trial++) {
      const store = join(dir, `trial-${trial}`)
      const at = Math.floor(fullLog * (0.3 + 0.4 * rnd()))
      const run = await indexChild(input, store, join(dir, `trial-${trial}-killed.jsonl`), at)
      if (run.signal !== 'SIGKILL') continue // finished before its kill point: nothing to resume
      killed++
      const before = (await stat(join(store, LOG_FILE))).size
      const resumed = await indexChild(input, store, join(dir, `trial-${trial}-resumed.jsonl`), undefined, ['--resume'])
      expect(resumed, resumed.stderr).toMatchObject({ code: 0, signal: null })
      expect(await readFile(join(dir, `trial-${trial}-resumed.jsonl`), 'utf8')).toBe(cleanDecisions)
      // The log grew by what was left, not by the whole input again (a plain re-run writes it all).
      const after = (await stat(join(store, LOG_FILE))).size
      expect(after - before).toBeLessThan(fullLog - before * 0.8)
      const s = await openMemoryStore({ dir: store })
      const c = await openMemoryStore({ dir: join(dir, 'clean'), readOnly: true })
      expect(await storedDecisions(s)).toEqual(await storedDecisions(c))
      await expectConsistent(s, false)
      await s.close()
      await c.close()
    }
    expect(killed).toBeGreaterThan(0)
  })
})
