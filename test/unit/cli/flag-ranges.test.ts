/** CLI flags take their defaults and ranges from the library's constants, so the two cannot disagree. */
import { describe, expect, test } from 'vitest'
import { run } from '../../../src/cli/main.js'
import { INDEX_HELP } from '../../../src/cli/commands/index-jsonl.js'
import { DEFAULT_BATCH_LIMITS, MAX_BATCH_SIZE, createDeduplicator, openMemoryStore, runIndexJob } from '../../../src/index.js'
import { fakeIO } from '../../helpers/cli.js'

describe('flag ranges follow the library', () => {
  test('index --batch: the library\'s default and maximum, in the help and in the refusal; the library refuses the same values', async () => {
    expect(INDEX_HELP).toContain(`--batch N          documents per store round trip: 1 to ${MAX_BATCH_SIZE} (default ${DEFAULT_BATCH_LIMITS.batchSize})`)
    const f = fakeIO(process.cwd(), '')
    expect(await run(['index', '-', '--batch', String(MAX_BATCH_SIZE + 1)], f.io)).toBe(2)
    expect(f.stderr()).toContain(`Expected --batch to be an integer from 1 to ${MAX_BATCH_SIZE}`)
    const store = await openMemoryStore()
    const job = runIndexJob({ dedup: createDeduplicator({ store }), input: (async function* () { yield '{"id":"a","content":"x"}\n' })(), batchSize: MAX_BATCH_SIZE + 1, onDecisions: () => undefined })
    await expect(job).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining(`from 1 to ${MAX_BATCH_SIZE}`) })
    await store.close()
  })
})
