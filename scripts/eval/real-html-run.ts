/**
 * Runs eval kind (a) (real-html.ts) for each system and prints P and R, with recall and false
 * positives per label. Called by run.ts after the main stream; also runnable alone:
 *
 *   npx tsx scripts/eval/real-html-run.ts [--seed N] [--system simdup|baseline]
 */
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createBaselineSystem } from './baseline.js'
import { computeMetrics, type EvalMetrics } from './metrics.js'
import { buildRealHtmlDataset, toRealHtmlEvalDocs } from './real-html.js'
import { createSimdupSystem } from './simdup-system.js'
import type { EvalSystem } from './systems.js'

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`

/** Result of one system on kind (a). */
export interface RealHtmlResult {
  name: string
  docsPerSec: number
  metrics: EvalMetrics
}

/**
 * Builds the kind-(a) stream and scores each system on it; prints as it goes.
 * @example await evalRealHtml([() => createSimdupSystem()], { seed: 1 })
 */
export async function evalRealHtml(factories: readonly (() => Promise<EvalSystem | null>)[], options: { seed: number }): Promise<RealHtmlResult[]> {
  const ds = buildRealHtmlDataset({ seed: options.seed })
  const dups = ds.docs.length - new Set(ds.docs.map((d) => d.group)).size
  console.log(`\n=== kind (a) real-html: ${ds.docs.length} raw HTML pages with their real chrome (${dups} true duplicates by the main-text oracle)`)
  console.log(Object.entries(ds.composition).map(([k, v]) => `  ${k.padEnd(22)} ${String(v).padStart(5)}`).join('\n'))
  const docs = toRealHtmlEvalDocs(ds.docs)
  const out: RealHtmlResult[] = []
  for (const factory of factories) {
    const system = await factory()
    if (system === null) continue
    const t0 = performance.now()
    const decisions = await system.run(docs.map((d) => ({ ...d })))
    const ms = performance.now() - t0
    await system.close?.()
    const m = computeMetrics(ds.docs, decisions, { examples: 3 })
    const r = { name: system.name, docsPerSec: docs.length / (ms / 1000), metrics: m }
    out.push(r)
    console.log(`--- ${r.name} on kind (a): P ${pct(m.precision)}  R ${pct(m.recall)}  (TP ${m.tp}, FP ${m.fp}, FN ${m.fn}; flagged ${m.flagged}; ${r.docsPerSec.toFixed(0)} docs/s)`)
    for (const row of m.recallByPerturbation) console.log(`  R ${row.label.padEnd(22)} ${pct(row.recall).padStart(6)}  (${row.tp}/${row.count})`)
    for (const row of m.falsePositives) {
      console.log(`  FP ${row.label.padEnd(21)} ${String(row.fp).padStart(5)} of ${row.docs} (distinct ${row.distinct}, wrong-group ${row.wrongGroup})`)
      for (const e of row.examples) console.log(`      ${e.id} ${JSON.stringify(e.text)}\n        → ${e.duplicateOf} ${JSON.stringify(e.otherText)}`)
    }
  }
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, system: { type: 'string' } } })
  const factories: (() => Promise<EvalSystem | null>)[] = []
  if (values.system !== 'baseline') factories.push(() => createSimdupSystem())
  if (values.system !== 'simdup') factories.push(async () => createBaselineSystem())
  await evalRealHtml(factories, { seed: Number(values.seed) })
}
