import { describe, expect, test as plain } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, type Decision, type InputDocument } from '../../../src/index.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../../fixtures/articles.js'
import { mulberry32 } from '../../helpers/random.js'
import { runInBatches } from '../../helpers/rerun.js'

/**
 * The bounds (issue 25) against brute force: a stream with hot clusters (a few texts copied many
 * times, 0–3 characters changed per copy; short texts 0–1, whose prefix terms ride in the band
 * terms), decided with small bounds and in random batches, and again with no bound at all. The
 * team's rule: a bound may change which earlier member `duplicate_of` names, never the cluster a
 * document joins nor whether it is a duplicate (docs/DESIGN.md, "Bounds").
 */

const analyzer = createAnalyzer()
const SENTENCES = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D].flatMap((a) => a.split(/(?<=。)/)).filter((s) => s.length > 0)
const SHORT = ['北京大学发布新的招生计划', '上海地铁十号线今日恢复运营', '北京地铁十号线今日恢复运营', '国家统计局公布上月物价数据']
const EDIT = '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过'

function edit(text: string, edits: number, rnd: () => number): string {
  const chars = [...text]
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rnd() * chars.length)
    const ch = EDIT[Math.floor(rnd() * EDIT.length)]!
    const kind = Math.floor(rnd() * 3)
    if (kind === 0) chars[at] = ch
    else if (kind === 1) chars.splice(at, 0, ch)
    else chars.splice(at, 1)
  }
  return chars.join('')
}

/**
 * `n` documents from `seed`: originals of 3–6 fixture sentences (so originals share sentences,
 * blocks and band terms across clusters) and short texts, then mostly copies of a few hot
 * originals, some of the others.
 */
function hotStream(seed: number, n: number): InputDocument[] {
  const rnd = mulberry32(seed)
  const originals: string[] = []
  for (let i = 0; i < 6; i++) {
    const k = 3 + Math.floor(rnd() * 4)
    originals.push(Array.from({ length: k }, () => SENTENCES[Math.floor(rnd() * SENTENCES.length)]!).join(''))
  }
  const hot = [0, 1]
  const docs: InputDocument[] = []
  for (let i = 0; i < n; i++) {
    const u = rnd()
    let content: string
    if (u < 0.12) content = SHORT[Math.floor(rnd() * SHORT.length)]!
    else if (u < 0.25) content = edit(SHORT[Math.floor(rnd() * SHORT.length)]!, Math.floor(rnd() * 2), rnd)
    else {
      const from = u < 0.8 ? hot[Math.floor(rnd() * hot.length)]! : Math.floor(rnd() * originals.length)
      content = edit(originals[from]!, Math.floor(rnd() * 4), rnd)
    }
    docs.push({ id: `d${i}`, content })
  }
  return docs
}

const BRUTE = { maxPerKey: 1e9, maxPerBand: 1e9, maxPerCluster: 0, maxBlockCandidates: 1e9 } as const

async function decide(docs: readonly InputDocument[], store: Parameters<typeof openMemoryStore>[0], seed: number, maxBatch: number): Promise<Decision[]> {
  const s = await openMemoryStore(store)
  const out = await runInBatches(createDeduplicator({ store: s, analyzer }), docs, seed, maxBatch)
  await s.close()
  return out
}

/** What a bound may not change: each document's status and cluster. */
const verdicts = (ds: readonly Decision[]): string[] => ds.map((d) => `${d.id} ${d.status} ${d.clusterId}`)

describe('bounds by cluster against brute force', () => {
  test.prop([fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 2 }), fc.integer({ min: 1, max: 2 })], { numRuns: 6 })(
    'with tiny bounds, only the named earlier member of the same cluster differs',
    async (seed, perCluster, perBand) => {
      const docs = hotStream(seed, 160)
      const brute = await decide(docs, BRUTE, seed, 1)
      const bounded = await decide(docs, { maxPerKey: 1, maxPerBand: perBand, maxPerCluster: perCluster, maxBlockCandidates: 64 }, seed, 40)
      expect(verdicts(bounded)).toEqual(verdicts(brute))
      // The stream is hot (it tests something): most documents are duplicates, some name another member.
      expect(brute.filter((d) => d.status === 'duplicate').length).toBeGreaterThan(100)
    },
    120_000,
  )

  plain('the same comparison catches a bound that crowds clusters out (newest records per term, as before)', async () => {
    // The old band bound (the newest `maxPerBand` records of a term, whatever their cluster) on
    // the same streams: a hot cluster fills a shared term and a document joins another cluster.
    let caught = 0
    for (let seed = 1; seed <= 6 && caught === 0; seed++) {
      const docs = hotStream(seed, 160)
      const brute = await decide(docs, BRUTE, seed, 1)
      const old = await decide(docs, { maxPerKey: 1, maxPerBand: 1, maxPerCluster: 0, maxBlockCandidates: 64 }, seed, 40)
      if (verdicts(old).join('\n') !== verdicts(brute).join('\n')) caught++
    }
    expect(caught).toBeGreaterThan(0)
  }, 120_000)
})
