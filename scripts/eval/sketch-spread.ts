/**
 * How far the MinHash estimate strays from the exact resemblance on real pages, by shingle count:
 * the evidence behind `sparseSketchMargin` (docs/EVAL.md, "Issue 15: sparse sketches …").
 * Pairs are the real-html stream's pages (eval kind (a), all sites) that share a band term, as the
 * MinHash route finds them, with exact character 5-gram Jaccard (the sketch's own shingling) from
 * 0.35 to 0.8. Prints, per bucket of the smaller page's shingle count: pairs, mean and standard
 * deviation of estimate − exact, and the margin model's standard error there; then how many pairs
 * fall in each 0.05 of exact Jaccard around the threshold.
 *
 *   npx tsx scripts/eval/sketch-spread.ts [--seed N]
 */
import { parseArgs } from 'node:util'
import { createAnalyzer } from '../../src/index.js'
import { minhashPart, minhashSimilarity, SKETCH_BINS } from '../../src/fingerprint/minhash.js'
import { buildRealHtmlDatasets, toRealHtmlEvalDocs } from './real-html.js'

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' } } })
const ds = buildRealHtmlDatasets({ seed: Number(values.seed), log: () => {} }).all!
const analyzer = await createAnalyzer()
const pages = toRealHtmlEvalDocs(ds.docs)
  .map((d) => analyzer.analyze(d.content))
  .filter((a) => a.sketch?.startsWith('m:') === true)

/** The sketch's shingles: character 5-grams, white space out, lower-cased. */
function shingles(text: string): Set<string> {
  const s = text.replace(/\s/gu, '').toLowerCase()
  const out = new Set<string>()
  for (let i = 0; i + 5 <= s.length; i++) out.add(s.slice(i, i + 5))
  return out
}
const sets = pages.map((a) => shingles(a.normalized))

// Candidate pairs: pages sharing a band term (terms on 200 pages or more are left out, as the
// store's band bound keeps only their newest records).
const byBand = new Map<string, number[]>()
pages.forEach((a, i) => {
  for (const b of a.bands) byBand.set(b, [...(byBand.get(b) ?? []), i])
})
const pairs = new Set<number>()
for (const list of byBand.values()) {
  if (list.length >= 200) continue
  for (let x = 0; x < list.length; x++) for (let y = x + 1; y < list.length; y++) pairs.add(list[x]! * pages.length + list[y]!)
}

const BUCKETS = [[0, 100], [100, 200], [200, 400], [400, 1000], [1000, Infinity]] as const
const errors = BUCKETS.map(() => [] as number[])
const model = BUCKETS.map(() => [] as number[])
const histogram = new Map<number, number>()
for (const key of pairs) {
  const i = Math.floor(key / pages.length)
  const j = key % pages.length
  const a = sets[i]!
  const b = sets[j]!
  let both = 0
  for (const s of a) if (b.has(s)) both++
  const exact = both / (a.size + b.size - both)
  if (exact < 0.35 || exact > 0.8) continue
  const step = Math.floor(exact * 20) / 20
  histogram.set(step, (histogram.get(step) ?? 0) + 1)
  const estimate = minhashSimilarity(minhashPart(pages[i]!.sketch!), minhashPart(pages[j]!.sketch!))
  const n = Math.min(a.size, b.size)
  const k = BUCKETS.findIndex(([lo, hi]) => n >= lo && n < hi)
  errors[k]!.push(estimate - exact)
  // The margin model's standard error at 0.6 over the bins the union fills.
  const filled = SKETCH_BINS * -Math.expm1(-(a.size + b.size) / 1.6 / SKETCH_BINS)
  model[k]!.push(Math.sqrt((4 * 0.8 * 0.2) / filled))
}
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length
console.log('smaller page, shingles | pairs | mean error | sd of error | model standard error')
BUCKETS.forEach(([lo, hi], k) => {
  const e = errors[k]!
  if (e.length === 0) return
  const m = mean(e)
  const sd = Math.sqrt(mean(e.map((x) => (x - m) ** 2)))
  console.log(`${lo}–${hi === Infinity ? '' : hi} | ${e.length} | ${m.toFixed(4)} | ${sd.toFixed(4)} | ${mean(model[k]!).toFixed(4)}`)
})
console.log('exact Jaccard from | pairs')
for (const [step, n] of [...histogram].sort((x, y) => x[0] - y[0])) console.log(`${step.toFixed(2)} | ${n}`)
