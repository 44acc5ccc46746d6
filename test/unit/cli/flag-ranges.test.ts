/**
 * CLI flags take their defaults and ranges from the library's option definitions (`OPTION_LIMITS`,
 * `REINDEX_LIMITS`), so the help, the CLI's refusal and the library's own check cannot disagree,
 * and every command that takes a flag gives it the same range.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { run } from '../../../src/cli/main.js'
import { INDEX_HELP } from '../../../src/cli/commands/index-jsonl.js'
import { REINDEX_HELP } from '../../../src/cli/commands/reindex.js'
import { INSPECT_HELP } from '../../../src/cli/commands/inspect.js'
import { COMPARE_HELP } from '../../../src/cli/commands/fingerprint.js'
import { OPTION_LIMITS, createDeduplicator, openMemoryStore, reconcile, runIndexJob } from '../../../src/index.js'
import { guaranteedDistance } from '../../../src/internal.js'
import { REINDEX_LIMITS } from '../../../src/elasticsearch/index.js'
import { fakeIO } from '../../helpers/cli.js'

const one = () => (async function* () { yield '{"id":"a","content":"一段文字"}\n' })()
const MiB = 2 ** 20
const L = OPTION_LIMITS

async function refused(argv: string[], env: Record<string, string> = {}): Promise<string> {
  const f = fakeIO(mkdtempSync(join(tmpdir(), 'simdup-ranges-')), '')
  Object.assign(f.io.env, env)
  expect(await run(argv, f.io)).toBe(2)
  return f.stderr()
}

describe('flag ranges follow the library', () => {
  test.each([
    ['index --batch', ['index', '-', '--batch'], 'batch', L.batchSize, `documents per store round trip: ${L.batchSize.min} to ${L.batchSize.max} (default ${L.batchSize.default})`],
    ['index --batch-mb', ['index', '-', '--batch-mb'], 'batch-mb', { min: 1, max: L.batchBytes.max / MiB, default: L.batchBytes.default / MiB }, `input MiB per batch: 1 to ${L.batchBytes.max / MiB} (default ${L.batchBytes.default / MiB})`],
    ['index --blocks', ['index', '-', '--blocks'], 'blocks', L.blocks, `fingerprint blocks in the index: ${L.blocks.min} to ${L.blocks.max}`],
    ['index --workers', ['index', '-', '--workers'], 'workers', L.workers, `parsing + fingerprinting: ${L.workers.min} to ${L.workers.max}, or auto`],
    ['reindex --workers', ['reindex', '--source', 's', '--dest', 'd', '--workers'], 'workers', REINDEX_LIMITS.workers, `fingerprinting: ${L.workers.min} to ${L.workers.max} (default ${L.workers.default}: in-process)`],
    ['reindex --batch', ['reindex', '--source', 's', '--dest', 'd', '--batch'], 'batch', REINDEX_LIMITS.batchSize, `checkpoint: ${L.pageSize.min} to ${L.pageSize.max} (${L.pageSize.default})`],
    ['index --shards', ['index', '-', '--shards'], 'shards', L.shards, `primary shards of an index simdup creates: ${L.shards.min} to ${L.shards.max} (default ${L.shards.default})`],
    ['index --replicas', ['index', '-', '--replicas'], 'replicas', L.replicas, `replicas of each shard: ${L.replicas.min} to ${L.replicas.max} (default ${L.replicas.default};`],
    ['reindex --shards', ['reindex', '--source', 's', '--dest', 'd', '--shards'], 'shards', L.shards, `--dest this job creates: ${L.shards.min} to ${L.shards.max} (default: the source's)`],
    ['reindex --replicas', ['reindex', '--source', 's', '--dest', 'd', '--replicas'], 'replicas', L.replicas, `of that --dest: ${L.replicas.min} to ${L.replicas.max} (default: the source's)`],
    ['reconcile --batch', ['reconcile', '--batch'], 'batch', L.pageSize, `records per lookup: ${L.pageSize.min} to ${L.pageSize.max} (default ${L.pageSize.default})`],
  ])('%s: the help states the library\'s range and default; one past either end is a usage error', async (_, argv, flag, limit, help) => {
    const helpText = { index: INDEX_HELP, reindex: REINDEX_HELP, reconcile: INSPECT_HELP.reconcile }[argv[0] as 'index']
    expect(helpText).toContain(help)
    for (const bad of [limit.min - 1, limit.max + 1]) {
      // reindex needs a node URL before it reads its numbers; nothing is contacted (usage errors come first).
      expect(await refused([...argv, String(bad)], { ES_URL: 'http://127.0.0.1:9' })).toContain(`Expected --${flag} to be `)
    }
  })

  test('the reindex limits are the library\'s: workers and one page of an Elasticsearch walk', () => {
    expect(REINDEX_LIMITS.workers).toEqual(L.workers)
    expect(REINDEX_LIMITS.batchSize).toEqual(L.pageSize)
  })

  test('--k: every command gives the same range and default, from the library', async () => {
    const range = `${L.maxDistance.min} to ${guaranteedDistance({ blocks: L.blocks.default, minMatch: L.minMatch.default })} (default ${L.maxDistance.default}`
    for (const help of [INDEX_HELP, REINDEX_HELP.replace(/\n +\(/, ' ('), INSPECT_HELP.explain, INSPECT_HELP.reconcile, COMPARE_HELP]) expect(help).toContain(range)
    const over = String(guaranteedDistance({ blocks: L.blocks.default, minMatch: L.minMatch.default }) + 1)
    for (const argv of [['index', '-'], ['reindex', '--source', 's', '--dest', 'd'], ['explain', 'a', 'b'], ['reconcile'], ['compare', 'a', 'b']]) {
      expect(await refused([...argv, '--k', over], { ES_URL: 'http://127.0.0.1:9' })).toContain(`Expected --k to be an integer from 0 to ${Number(over) - 1}`)
    }
  })

  test('the library refuses what the CLI refuses: batchSize, batchBytes, workers, reconcile\'s batchSize', async () => {
    const store = await openMemoryStore()
    const dedup = createDeduplicator({ store })
    const job = (o: object) => runIndexJob({ dedup, input: one(), onDecisions: () => undefined, ...o })
    await expect(job({ batchSize: L.batchSize.max + 1 })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining(`from 1 to ${L.batchSize.max}`) })
    await expect(job({ batchBytes: L.batchBytes.max + 1 })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('`batchBytes`') })
    await expect(job({ workers: L.workers.max + 1 })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining(`from 1 to ${L.workers.max}`) })
    await expect(reconcile(dedup, { batchSize: L.pageSize.max + 1 })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining(`\`batchSize\` to be an integer from 1 to ${L.pageSize.max}`) })
    await expect(reconcile(dedup, { batchSize: 0 })).rejects.toMatchObject({ code: 'INVALID_OPTION' })
    expect(() => createDeduplicator({ store, blockScheme: { blocks: L.blocks.max + 1, minMatch: 1 } })).toThrow(`from ${L.blocks.min} to ${L.blocks.max}`)
    await store.close()
  })
})
