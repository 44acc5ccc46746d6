/**
 * Prints labelled pairs of each short kind for reading by eye: per kind, `--pairs` pairs (default
 * 30), two thirds labelled duplicates (a true duplicate and an earlier member of its group) and
 * one third labelled different texts that come close (hard negatives with their source, flagged
 * pairs, and pairs just under the thresholds), each with the oracle's Jaccard, containment and flags.
 *
 *   npx tsx scripts/eval/short-pairs.ts [--seed N] [--only short-reviews,…] [--pairs 30]
 */
import { parseArgs } from 'node:util'
import { Rng } from './prng.js'
import { foldShort, judgeShort, variantFold } from './short-oracle.js'
import { buildShortKinds } from './short-build.js'
import type { ShortDoc } from './short-kinds.js'
import { loadUnihanVariants } from './short-sources.js'

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, only: { type: 'string' }, pairs: { type: 'string', default: '30' } } })
const log = (s: string): void => console.error(s)
const only = values.only === undefined ? undefined : new Set(values.only.split(',').map((x) => x.trim()))
const n = Number(values.pairs)
const fold = variantFold(loadUnihanVariants(log))
const show = (s: string): string => JSON.stringify(s.length > 160 ? `${s.slice(0, 160)}…` : s)
for (const k of buildShortKinds(Number(values.seed), log, only)) {
  const rng = new Rng(Number(values.seed)).fork(`pairs-${k.name}`)
  // What the oracle compared: the text without known chrome (heading, promo line, page).
  const text = (d: ShortDoc): string => d.oracle ?? d.content
  // A true duplicate with the earlier member of its group the oracle finds most alike.
  const members = new Map<string, number[]>()
  const dupPairs: [number, number][] = []
  k.docs.forEach((d, i) => {
    const earlier = members.get(d.group) ?? []
    if (earlier.length > 0) {
      let best = earlier[0]!
      let score = -1
      for (const j of earlier) {
        const r = judgeShort(text(k.docs[j]!), text(d), fold)
        if (r.jaccard > score) [best, score] = [j, r.jaccard]
      }
      dupPairs.push([best, i])
    }
    members.set(d.group, [...earlier, i])
  })
  // Near misses: each document against the earlier documents of other groups, closest by the oracle.
  const negPairs: [number, number, number][] = []
  const negLabelled = k.docs.map((d, i) => [d, i] as const).filter(([d]) => d.perturbation.startsWith('neg-'))
  const probe = [...rng.sample(negLabelled.map(([, i]) => i), Math.ceil(n / 6)), ...rng.sample(k.docs.map((_, i) => i), 300)]
  // Folded bigram sets once per document; the closest candidate by Jaccard or containment.
  const sets = k.docs.map((d) => {
    const f = Array.from(foldShort(text(d), fold))
    return new Set(f.length < 2 ? [f.join('')] : f.slice(1).map((c, i) => f[i]! + c))
  })
  for (const i of probe) {
    let best: [number, number] | null = null
    for (let j = 0; j < i; j++) {
      if (k.docs[j]!.group === k.docs[i]!.group) continue
      let o = 0
      for (const b of sets[i]!) if (sets[j]!.has(b)) o++
      const score = Math.max(o / (sets[i]!.size + sets[j]!.size - o), (0.8 * o) / Math.max(1, Math.min(sets[i]!.size, sets[j]!.size)))
      if (best === null || score > best[1]) best = [j, score]
    }
    if (best !== null && best[1] >= 0.3) negPairs.push([best[0], i, best[1]])
  }
  const pos = rng.sample(dupPairs, Math.round((2 * n) / 3))
  const neg = [...new Map(negPairs.map((p) => [`${p[0]}-${p[1]}`, p])).values()].slice(0, n - pos.length)
  console.log(`\n######## ${k.name}: ${pos.length} pairs labelled duplicates, ${neg.length} labelled different (closest other-group text)`)
  for (const [label, list] of [['SAME', pos], ['DIFF', neg]] as const) {
    for (const p of list) {
      const a: ShortDoc = k.docs[p[0]]!
      const b: ShortDoc = k.docs[p[1]]!
      const r = judgeShort(text(a), text(b), fold)
      console.log(`${label} J ${r.jaccard.toFixed(2)} C ${r.containment.toFixed(2)}${r.flags.length > 0 ? ` flags ${r.flags.join(',')}` : ''}  [${a.perturbation} → ${b.perturbation}${b.note === undefined ? '' : `: ${b.note}`}]`)
      console.log(`   ${show(a.content)}\n   ${show(b.content)}`)
      if (a.oracle !== undefined || b.oracle !== undefined) console.log(`   (oracle compared: ${show(text(a))} / ${show(text(b))})`)
    }
  }
}
