import { createDeduplicator, openMemoryStore, type Analyzer, type FingerprintRecord } from '../../src/index.js'
import { ARTICLE_A } from '../fixtures/articles.js'

/**
 * Three copies of one article as writers that ran at once leave them: `a` (seq 1), then `r` and
 * `x` that share seq 2 (order is then by id: a, r, x), all unique in their own clusters. They
 * share only their band terms (own block terms, own content hashes), so with a bound of one
 * record per band term one sequential run gives r → a and x → r, all in cluster a.
 */
export async function tiedSeqCopies(analyzer: Analyzer): Promise<FingerprintRecord[]> {
  const scratch = createDeduplicator({ store: await openMemoryStore(), analyzer })
  await scratch.add([{ id: 'model', content: ARTICLE_A }])
  const model = (await scratch.options.store.get(['model'])).get('model')!
  if ((model.bands?.length ?? 0) === 0) throw new Error('the model record has no band terms')
  const copy = (id: string, seq: number, n: number): FingerprintRecord => ({
    ...model, id, seq, clusterId: id, duplicateOf: null, distance: null, layer: null,
    contentHash: String(n).repeat(16), blocks: model.blocks.map((_, i) => `${i}_${String(n).repeat(4)}`),
  })
  return [copy('a', 1, 1), copy('r', 2, 2), copy('x', 2, 3)]
}

/** What one sequential run decides for `tiedSeqCopies`: id → [duplicateOf, clusterId]. */
export const TIED_SEQ_SEQUENTIAL = { a: [null, 'a'], r: ['a', 'a'], x: ['r', 'a'] }
