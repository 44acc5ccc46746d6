/**
 * Lists pairs of one labelled group (each document against its group's earlier members) whose gram
 * sets the short-text rules veto, for reading by eye: which meaning vetoes cost recall.
 *
 *   npx tsx scripts/eval/veto-pairs.ts [--seed N] [--only short-reviews,…]
 */
import { parseArgs } from 'node:util'
import { buildShortKinds } from './short-build.js'
import { createAnalyzer } from '../../src/index.js'
import { gramPart, gramVerdict } from '../../src/fingerprint/short-grams.js'

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, only: { type: 'string' } } })
const only = values.only === undefined ? undefined : new Set(values.only.split(',').map((x) => x.trim()))
const analyzer = createAnalyzer()
const t = { minGramJaccard: 0.5, minContainment: 0.75, minContainedGrams: 2 }
for (const k of buildShortKinds(Number(values.seed), () => {}, only)) {
  const members = new Map<string, { text: string; sketch: string | null; label: string }[]>()
  let n = 0
  for (const d of k.docs) {
    const a = analyzer.analyze(d.content)
    const sketch = gramPart(a.sketch)
    const earlier = members.get(d.group) ?? []
    for (const e of earlier) {
      if (sketch === null || e.sketch === null) continue
      const v = gramVerdict(sketch, e.sketch, t)
      if (!v.veto) continue
      n++
      console.log(`${k.name} ${d.perturbation} / ${e.label}: ${JSON.stringify(a.normalized)}\n    ${JSON.stringify(e.text)}`)
    }
    earlier.push({ text: a.normalized, sketch, label: d.perturbation })
    members.set(d.group, earlier)
  }
  console.log(`${k.name}: ${n} vetoed pairs within groups`)
}
