import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, type Decision, type FingerprintStore, type InputDocument } from '../../src/index.js'
import { createElasticsearchStore } from '../../src/elasticsearch/index.js'
import { acquireElasticsearch, testIndexOptions } from '../helpers/es-node.js'
import { mulberry32 } from '../helpers/random.js'
import { runInBatches } from '../helpers/rerun.js'
import { expectOnlyNamedMemberDiffers, hotStream } from '../helpers/hot-clusters.js'

/**
 * The bounds on the real Elasticsearch node against brute force (the embedded store with no
 * bound): the same hot-cluster streams as test/unit/engine/bounds-oracle.test.ts, decided with
 * tiny band bounds (by cluster, or the newest records per term) in random batches. The team's
 * rule: only which earlier member of the same cluster a duplicate names may differ.
 */

type Node = Awaited<ReturnType<typeof acquireElasticsearch>>
let es: Node
const analyzer = createAnalyzer()

beforeAll(async () => {
  es = await acquireElasticsearch()
})
afterAll(async () => {
  await es?.stop()
})

async function decide(store: FingerprintStore, docs: readonly InputDocument[], seed: number, maxBatch: number): Promise<Decision[]> {
  const out = await runInBatches(createDeduplicator({ store, analyzer }), docs, seed, maxBatch)
  await store.close()
  return out
}

const SEEDS = Array.from({ length: Number(process.env.SIMDUP_BOUNDS_SEEDS ?? 50) }, (_, i) => i + 1)

describe('bounds on Elasticsearch against brute force', () => {
  test.each(SEEDS)('seed %i: tiny bounds change only which earlier member of the same cluster is named', async (seed) => {
    const rnd = mulberry32(seed * 104729)
    const docs = hotStream(seed, 120)
    const brute = await decide(await openMemoryStore({ maxPerKey: 1e9, maxPerBand: 1e9, maxPerCluster: 0, maxBlockCandidates: 1e9 }), docs, seed, 1)
    const index = `simdup-bounds-${process.pid}-${seed}`
    const store = await createElasticsearchStore({
      node: es.url, index, maxPerBand: 1 + Math.floor(rnd() * 2), maxPerCluster: Math.floor(rnd() * 3), ...testIndexOptions(),
    })
    try {
      expectOnlyNamedMemberDiffers(await decide(store, docs, seed, 40), brute)
    } finally {
      await fetch(new URL(`/${index}`, es.url), { method: 'DELETE' })
    }
    expect(brute.filter((d) => d.status === 'duplicate').length).toBeGreaterThan(70)
  }, 240_000)
})
