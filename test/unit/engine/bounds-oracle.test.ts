import { describe, expect, test } from 'vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, type Decision, type InputDocument } from '../../../src/index.js'
import { mulberry32 } from '../../helpers/random.js'
import { runInBatches } from '../../helpers/rerun.js'
import { expectOnlyNamedMemberDiffers, hotStream } from '../../helpers/hot-clusters.js'

/**
 * The bounds (issue 25) against brute force: a stream with hot clusters (a few texts copied many
 * times, 0–3 characters changed per copy; short texts 0–1, whose prefix terms ride in the band
 * terms), decided with small bounds and in random batches, and again with no bound at all. The
 * team's rule: a bound may change which earlier member `duplicate_of` names, never the cluster a
 * document joins nor whether it is a duplicate (docs/DESIGN.md, "Bounds").
 */

const analyzer = createAnalyzer()

const BRUTE = { maxPerKey: 1e9, maxPerBand: 1e9, maxPerCluster: 0, maxBlockCandidates: 1e9 } as const

async function decide(docs: readonly InputDocument[], store: Parameters<typeof openMemoryStore>[0], seed: number, maxBatch: number): Promise<{ decisions: Decision[]; exhaustive: number }> {
  const s = await openMemoryStore(store)
  const dedup = createDeduplicator({ store: s, analyzer })
  const decisions = await runInBatches(dedup, docs, seed, maxBatch)
  await s.close()
  return { decisions, exhaustive: dedup.stats.exhaustive }
}

/** The seeds of the comparison (≥ 50, as the team asked; `SIMDUP_BOUNDS_SEEDS` for more). */
const SEEDS = Array.from({ length: Number(process.env.SIMDUP_BOUNDS_SEEDS ?? 50) }, (_, i) => i + 1)

describe('bounds against brute force', () => {
  test.each(SEEDS)('seed %i: tiny bounds change only which earlier member of the same cluster is named', async (seed) => {
    const rnd = mulberry32(seed * 7919)
    const docs = hotStream(seed, 160)
    const brute = (await decide(docs, BRUTE, seed, 1)).decisions
    // By cluster (1–2 members per cluster, 1–2 clusters per band term), or the old bound (the
    // newest 1–2 records per band term, whatever their cluster): the rule holds for every bound.
    const perCluster = Math.floor(rnd() * 3)
    const bounds = { maxPerKey: 1 + Math.floor(rnd() * 2), maxPerBand: 1 + Math.floor(rnd() * 2), maxPerCluster: perCluster, maxBlockCandidates: 32 + Math.floor(rnd() * 64) }
    const bounded = await decide(docs, bounds, seed, 40)
    expectOnlyNamedMemberDiffers(bounded.decisions, brute)
    // The stream is hot (it tests something): most documents are duplicates.
    expect(brute.filter((d) => d.status === 'duplicate').length).toBeGreaterThan(100)
  }, 120_000)
})

