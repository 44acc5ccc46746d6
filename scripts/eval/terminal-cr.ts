/**
 * What-if for the `terminal` stream (kinds.ts, terminal.ts; docs/EVAL.md): simdup on the stream as
 * is, and on the same documents with carriage returns rendered as a terminal does before simdup
 * sees them (in a text with line feeds, a line keeps what follows its last bare `\r`). Measures
 * what a normaliser that overwrites lines at `\r` would change (the `progress` shape).
 *
 *   npx tsx scripts/eval/terminal-cr.ts [--seed N]
 */
import { parseArgs } from 'node:util'
import { loadCorpus } from '../corpus/load.js'
import { buildKinds } from './kinds.js'
import { computeMetrics } from './metrics.js'
import { createSimdupSystem } from './simdup-system.js'

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' } } })
const corpus = await loadCorpus({ log: (s) => console.error(s) })
const stream = buildKinds(corpus, Number(values.seed), (s) => console.error(s)).find((k) => k.name === 'terminal')
if (stream === undefined) throw new Error('terminal stream not built (fortunes-zh missing?)')
const overwrite = (s: string): string => (s.includes('\n') ? s.replace(/\r\n/g, '\n').split('\n').map((l) => l.slice(l.lastIndexOf('\r') + 1)).join('\n') : s)
for (const [name, f] of [['as is', (s: string) => s], ['\\r overwrites the line', overwrite]] as const) {
  const system = await createSimdupSystem()
  const decisions = await system.run(stream.docs.map((d) => ({ id: d.id, content: f(d.content) })))
  const m = computeMetrics(stream.docs, decisions)
  const progress = m.recallByPerturbation.find((r) => r.label === 'progress')
  const fp = m.falsePositives.find((r) => r.label === 'progress')?.fp ?? 0
  console.log(`${name.padEnd(24)} P ${(100 * m.precision).toFixed(1)}  R ${(100 * m.recall).toFixed(1)}  FP ${m.fp}; progress: recall ${progress?.tp}/${progress?.count}, FP ${fp}`)
}
