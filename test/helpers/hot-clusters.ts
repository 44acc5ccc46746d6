import { expect } from 'vitest'
import type { Decision, InputDocument } from '../../src/index.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../fixtures/articles.js'
import { editChars } from '../../scripts/hot-stream.js'
import { mulberry32 } from './random.js'

/**
 * Streams with hot clusters for the bounds' property tests against brute force (issue 25), and
 * what a bound may change: only which earlier member of the same cluster a duplicate names.
 */

const SENTENCES = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D].flatMap((a) => a.split(/(?<=。)/)).filter((s) => s.length > 0)
const SHORT = ['北京大学发布新的招生计划', '上海地铁十号线今日恢复运营', '北京地铁十号线今日恢复运营', '国家统计局公布上月物价数据']
const EDIT = '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过'

const edit = (text: string, edits: number, rnd: () => number): string => editChars(text, edits, rnd, EDIT)

/**
 * `n` documents from `seed`: originals of 3–6 fixture sentences (so originals share sentences,
 * blocks and band terms across clusters) and short texts, then mostly copies of a few hot
 * originals, some of the others.
 */
export function hotStream(seed: number, n: number): InputDocument[] {
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

/** What a bound may not change: each document's status and cluster. */
const verdicts = (ds: readonly Decision[]): string[] => ds.map((d) => `${d.id} ${d.status} ${d.clusterId}`)

/**
 * What a bound may change (docs/DESIGN.md, "Bounds"): each document has brute force's status and
 * cluster; a duplicate may name another record, but one of the same cluster first indexed before it
 * (`namedCluster` false: a stream with updates, whose re-elections move records between clusters
 * without a decision, so a record's cluster is not read off the decisions).
 */
export function expectOnlyNamedMemberDiffers(bounded: readonly Decision[], brute: readonly Decision[], namedCluster = true): void {
  expect(verdicts(bounded)).toEqual(verdicts(brute))
  // An id given twice (an update) is first indexed at its first position; its cluster is its latest decision's so far.
  const first = new Map<string | null, number>()
  brute.forEach((d, i) => {
    if (!first.has(d.id)) first.set(d.id, i)
  })
  const cluster = new Map<string | null, string | null>()
  bounded.forEach((d, i) => {
    if (d.duplicateOf !== null) {
      if (namedCluster) expect(cluster.get(d.duplicateOf), `${d.id} names ${d.duplicateOf}`).toBe(d.clusterId)
      expect(first.get(d.duplicateOf)!, `${d.id} names ${d.duplicateOf}`).toBeLessThan(i)
    }
    cluster.set(d.id, brute[i]!.clusterId)
  })
}

/** A few URLs shared by many documents (a key route past its bound), and titles to go with them. */
const URLS = ['https://news.example/a', 'https://news.example/b', 'https://portal.example/x']

/**
 * `hotStream` made harder for the stores' bounds: about a quarter of the documents carry one of
 * three URLs (so a URL key holds far more records than any bound keeps, and versions of a URL
 * supersede each other), one in ten re-uses an earlier id (an update: other content, or the same
 * document sent again), and the ids to delete halfway are drawn too.
 */
export function hotStreamWithUpdates(seed: number, n: number): { docs: InputDocument[]; deletes: string[] } {
  const rnd = mulberry32(seed * 31 + 7)
  const docs: InputDocument[] = hotStream(seed, n).map((d) => (rnd() < 0.25 ? { ...d, url: URLS[Math.floor(rnd() * URLS.length)]! } : d))
  for (let i = 10; i < docs.length; i++) {
    if (rnd() >= 0.1) continue
    const earlier = docs[Math.floor(rnd() * i)]!
    docs[i] = rnd() < 0.3 ? { ...earlier } : { ...docs[i]!, id: earlier.id }
  }
  const ids = [...new Set(docs.slice(0, n >> 1).map((d) => d.id))]
  const deletes = ids.filter(() => rnd() < 0.06)
  return { docs, deletes }
}
