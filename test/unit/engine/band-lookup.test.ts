import { describe, expect, test as plain } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, type CandidateQuery, type FingerprintStore } from '../../../src/index.js'
import { ARTICLE_A, ARTICLE_B } from '../../fixtures/articles.js'
import { copyStream, runInBatches } from '../../helpers/rerun.js'
import { expectOnlyNamedMemberDiffers } from '../../helpers/hot-clusters.js'

const analyzer = createAnalyzer()

/** `store` with every query it answers recorded, and (`whole`) without `blockRoute`: one lookup with every route, as before it. */
function watched(store: FingerprintStore, whole: boolean): { store: FingerprintStore; queries: CandidateQuery[] } {
  const queries: CandidateQuery[] = []
  const proxy = new Proxy(store, {
    get(target, p) {
      if (p === 'candidateBounds' && whole) {
        const { blockRoute: _cut, ...bounds } = target.candidateBounds
        return bounds
      }
      if (p === 'candidates') {
        return (qs: readonly CandidateQuery[]) => {
          queries.push(...qs)
          return target.candidates(qs)
        }
      }
      const v = Reflect.get(target, p, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
  return { store: proxy, queries }
}

describe('band terms looked up apart (CandidateBounds.blockRoute)', () => {
  // Small bounds, so the key routes fill up, the block route is cut and hot band terms hold more
  // records than they return: the cases where the band route's records could matter.
  test.prop([fc.integer(), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 2, max: 12 })], { numRuns: 10 })(
    'decides every document as one lookup with every route does',
    async (seed, maxPerKey, maxPerBand, maxBlockCandidates) => {
      const docs = copyStream(seed, 140)
      const options = { maxPerKey, maxPerBand, maxBlockCandidates }
      const split = watched(await openMemoryStore(options), false)
      // Without `blockRoute` the engine cannot tell the block route's cap from the store's answer
      // (`exactUnderCuts`): the one-lookup store is given none to meet.
      const whole = watched(await openMemoryStore({ ...options, maxBlockCandidates: 1e9 }), true)
      const a = await runInBatches(createDeduplicator({ store: split.store, analyzer }), docs, seed)
      const b = await runInBatches(createDeduplicator({ store: whole.store, analyzer }), docs, seed)
      // Bounds may change which earlier member of the cluster is named, nothing else (docs/DESIGN.md, "Bounds").
      expectOnlyNamedMemberDiffers(a, b, false)
      // The split store was asked fewer band terms: not every document needed them (exhaustive
      // lookups, `exactUnderCuts`, aside: the split store meets its block cap, the other does not).
      const bandQueries = (qs: CandidateQuery[]) => qs.filter((q) => q.bands !== undefined && q.exhaustive !== true).length
      expect(bandQueries(split.queries)).toBeLessThan(bandQueries(whole.queries))
    },
    120_000,
  )

  plain('an exact copy is decided without its band terms; an edited copy beyond k asks for them and is found', async () => {
    const { store, queries } = watched(await openMemoryStore(), false)
    const dedup = createDeduplicator({ store, analyzer })
    const original = ARTICLE_A + ARTICLE_B
    await dedup.add([{ id: 'a', content: original }])
    queries.length = 0
    const [copy] = await dedup.add([{ id: 'copy', content: original }])
    expect(copy).toMatchObject({ status: 'duplicate', duplicateOf: 'a', layer: 'exact' })
    expect(queries.filter((q) => q.bands !== undefined)).toEqual([])
    queries.length = 0
    // A third of the text cut: SimHash moves past k, the MinHash route still finds it.
    const cut = original.slice(0, Math.floor(original.length * 0.75))
    const [edited] = await dedup.add([{ id: 'edited', content: cut }])
    expect(edited).toMatchObject({ status: 'duplicate', rule: 'minhash' })
    expect(queries.filter((q) => q.bands !== undefined).map((q) => [q.excludeId, q.blocks.length, q.contentHash])).toEqual([['edited', 0, null]])
  })
})
