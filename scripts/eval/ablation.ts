/**
 * Ablation: simdup with and without its MinHash second route, on the same labelled stream.
 *   npx tsx scripts/eval/ablation.ts [--seed 1]
 */
import { parseArgs } from 'node:util'
import { loadCorpus } from '../corpus/load.js'
import { buildDataset, toEvalDocs } from './dataset.js'
import { computeMetrics } from './metrics.js'
import { createSimdupSystem } from './simdup-system.js'

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' } } })
const ds = buildDataset(await loadCorpus(), { seed: Number(values.seed) })
for (const [name, options] of [['simdup (SimHash + MinHash route)', {}], ['simdup --no-minhash (SimHash only)', { minhash: false }]] as const) {
  const system = await createSimdupSystem(options, name)
  const m = computeMetrics(ds.docs, await system.run(toEvalDocs(ds.docs)))
  console.log(`${name}: P ${(100 * m.precision).toFixed(1)}%  R ${(100 * m.recall).toFixed(1)}%  F1 ${(100 * m.f1).toFixed(1)}%`)
}
