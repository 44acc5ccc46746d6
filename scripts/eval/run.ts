/**
 * Quality evaluation: builds the labelled stream from the Debian corpus, runs simdup and the
 * seed-style baseline on it, and prints precision, recall, F1, recall per perturbation and per
 * length bucket, false positives per category (with examples) and throughput.
 *
 *   npx tsx scripts/eval/run.ts [--seed N] [--limit N] [--json out.json] [--system simdup|baseline] [--kinds all|none|only] [--only main,real-html,terminal,short-ui,…] [--peers all|none] [--url-resemblance X]
 *
 * `--only` runs only the named streams (the main stream only when `main` is named); the short-text
 * kinds (`short-kinds.ts`) are scored with the MinHash LSH peers beside simdup unless `--peers none`.
 */
import { existsSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { loadCorpus } from '../corpus/load.js'
import { createBaselineSystem } from './baseline.js'
import { buildDataset, toEvalDocs, type Dataset } from './dataset.js'
import { computeMetrics, type EvalMetrics } from './metrics.js'
import { evalRealHtml } from './real-html-run.js'
import type { EvalSystem } from './systems.js'
import { runKinds } from './run-kinds.js'
import { runShortKinds, type ShortResult } from './run-short.js'
import { SHORT_KINDS } from './short-build.js'

interface SystemResult {
  name: string
  initMs: number
  runMs: number
  docsPerSec: number
  charsPerSec: number
  metrics: EvalMetrics
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`

/** The simdup system, when the lead's `simdup-system.ts` exists; null (with a notice) otherwise. */
async function loadSimdup(log: (s: string) => void, options: Record<string, unknown> = {}): Promise<EvalSystem | null> {
  const here = dirname(fileURLToPath(import.meta.url))
  if (!existsSync(join(here, 'simdup-system.ts')) && !existsSync(join(here, 'simdup-system.js'))) {
    log('simdup system not available: scripts/eval/simdup-system.ts does not exist yet; evaluating the baseline only.')
    return null
  }
  // A variable specifier keeps tsc from requiring the file while it does not exist yet.
  const specifier = './simdup-system.js'
  const mod = (await import(specifier)) as { createSimdupSystem?: (options?: Record<string, unknown>) => Promise<EvalSystem> }
  if (typeof mod.createSimdupSystem !== 'function') {
    throw new Error('scripts/eval/simdup-system.ts must export `createSimdupSystem(): Promise<EvalSystem>`.')
  }
  return mod.createSimdupSystem(options)
}

function printDataset(ds: Dataset, buildMs: number): void {
  const total = ds.docs.length
  const dups = ds.docs.length - new Set(ds.docs.map((d) => d.group)).size
  const chars = ds.docs.reduce((a, d) => a + d.content.length, 0)
  console.log(`dataset: seed ${ds.seed}, ${total} documents (${dups} true duplicates, ${(chars / 1e6).toFixed(2)} M chars), built in ${(buildMs / 1000).toFixed(1)} s`)
  const rows = Object.entries(ds.composition).sort(([a], [b]) => a.localeCompare(b))
  console.log(rows.map(([k, v]) => `  ${k.padEnd(22)} ${String(v).padStart(5)}`).join('\n'))
  console.log(Object.entries(ds.facts).map(([k, v]) => `  · ${k}: ${v}`).join('\n'))
}

function printSystem(r: SystemResult): void {
  const m = r.metrics
  console.log(`\n=== ${r.name}`)
  console.log(`P ${pct(m.precision)}  R ${pct(m.recall)}  F1 ${pct(m.f1)}   (TP ${m.tp}, FP ${m.fp}, FN ${m.fn}; flagged ${m.flagged} of ${m.docs}; ${m.trueDuplicates} true duplicates)`)
  console.log(`throughput: ${r.docsPerSec.toFixed(0)} docs/s, ${(r.charsPerSec / 1e6).toFixed(2)} M chars/s (run ${(r.runMs / 1000).toFixed(1)} s, init ${(r.initMs / 1000).toFixed(1)} s)`)
  console.log('recall per perturbation:')
  for (const row of m.recallByPerturbation) console.log(`  ${row.label.padEnd(22)} ${pct(row.recall).padStart(6)}  (${row.tp}/${row.count})`)
  console.log('recall per length of the original:')
  for (const row of m.recallByBucket) console.log(`  ${row.label.padEnd(22)} ${pct(row.recall).padStart(6)}  (${row.tp}/${row.count})`)
  console.log('false positives per category (distinct = new content flagged; wrong-group = duplicate of something else):')
  if (m.falsePositives.length === 0) console.log('  none')
  for (const row of m.falsePositives) {
    console.log(`  ${row.label.padEnd(22)} ${String(row.fp).padStart(5)} of ${row.docs} docs (distinct ${row.distinct}, wrong-group ${row.wrongGroup})`)
    for (const e of row.examples) console.log(`      ${e.id} ${JSON.stringify(e.text)}\n        → ${e.duplicateOf} ${JSON.stringify(e.otherText)}`)
  }
  if (m.missExamples.length > 0) {
    console.log('missed duplicates (examples):')
    for (const e of m.missExamples) console.log(`  ${e.label.padEnd(22)} ${e.id} ${JSON.stringify(e.text)}`)
  }
}

function printComparison(results: readonly SystemResult[]): void {
  if (results.length < 2) return
  const names = results.map((_, i) => `S${i + 1}`)
  console.log('\n=== comparison')
  results.forEach((r, i) => console.log(`  ${names[i]} = ${r.name}`))
  const header = `  ${''.padEnd(22)} ${names.map((n) => n.padStart(8)).join(' ')}`
  console.log(header)
  const line = (label: string, values: string[]): void => console.log(`  ${label.padEnd(22)} ${values.map((v) => v.padStart(8)).join(' ')}`)
  line('precision', results.map((r) => pct(r.metrics.precision)))
  line('recall', results.map((r) => pct(r.metrics.recall)))
  line('F1', results.map((r) => pct(r.metrics.f1)))
  line('false positives', results.map((r) => String(r.metrics.fp)))
  line('docs/s', results.map((r) => r.docsPerSec.toFixed(0)))
  const labels = [...new Set(results.flatMap((r) => r.metrics.recallByPerturbation.map((x) => x.label)))].sort()
  for (const label of labels) {
    line(`R ${label}`, results.map((r) => {
      const row = r.metrics.recallByPerturbation.find((x) => x.label === label)
      return row === undefined ? '-' : pct(row.recall)
    }))
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      limit: { type: 'string' },
      json: { type: 'string' },
      system: { type: 'string' },
      kinds: { type: 'string', default: 'all' },
      only: { type: 'string' },
      'url-resemblance': { type: 'string' },
      peers: { type: 'string', default: 'all' },
    },
  })
  if (!['all', 'none'].includes(values.peers)) throw new Error(`--peers must be all or none, got ${values.peers}`)
  const seed = Number(values.seed)
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed must be a non-negative integer, got ${values.seed}`)
  const limit = values.limit === undefined ? Infinity : Number(values.limit)
  if (!(limit > 0)) throw new Error(`--limit must be a positive number, got ${values.limit}`)
  if (values.system !== undefined && !['simdup', 'baseline'].includes(values.system)) {
    throw new Error(`--system must be simdup or baseline, got ${values.system}`)
  }
  if (!['all', 'none', 'only'].includes(values.kinds)) throw new Error(`--kinds must be all, none or only, got ${values.kinds}`)
  const only = values.only === undefined ? undefined : new Set(values.only.split(',').map((x) => x.trim()))
  const log = (s: string): void => console.error(s)

  const mainStream = values.kinds !== 'only' && (only === undefined || only.has('main'))
  const corpus = await loadCorpus({ log })
  const t0 = performance.now()
  // Without the main stream (`--only` not naming it), an empty one: nothing of it is built or run.
  const dataset: Dataset = mainStream ? buildDataset(corpus, { seed }) : { seed, docs: [], composition: {}, facts: {}, options: {} } as unknown as Dataset
  const buildMs = performance.now() - t0
  if (Number.isFinite(limit)) dataset.docs = dataset.docs.slice(0, limit)
  if (mainStream) printDataset(dataset, buildMs)
  const evalDocs = toEvalDocs(dataset.docs)
  const chars = evalDocs.reduce((a, d) => a + d.content.length, 0)

  const factories: [string, () => Promise<EvalSystem | null>][] = []
  // A looser content check for same-URL pairs (DeduplicatorOptions.urlMinResemblance), to measure it.
  const urlMinResemblance = values['url-resemblance'] === undefined ? undefined : Number(values['url-resemblance'])
  if (values.system !== 'baseline') factories.push(['simdup', () => loadSimdup(log, urlMinResemblance === undefined ? {} : { urlMinResemblance })])
  if (values.system !== 'simdup') factories.push(['baseline', async () => createBaselineSystem()])

  const results: SystemResult[] = []
  for (const [, factory] of mainStream ? factories : []) {
    const i0 = performance.now()
    const system = await factory()
    if (system === null) continue
    const initMs = performance.now() - i0
    const r0 = performance.now()
    // Each system gets its own copy, so one cannot change what the next one sees.
    const decisions = await system.run(evalDocs.map((d) => ({ ...d })))
    const runMs = performance.now() - r0
    await system.close?.()
    const result: SystemResult = {
      name: system.name,
      initMs,
      runMs,
      docsPerSec: evalDocs.length / (runMs / 1000),
      charsPerSec: chars / (runMs / 1000),
      metrics: computeMetrics(dataset.docs, decisions, { examples: 3 }),
    }
    results.push(result)
    printSystem(result)
  }
  printComparison(results)
  // Kind (a): raw HTML pages with real site chrome, a stream of its own (real-html.ts).
  const realHtml = values.kinds === 'none' || (only !== undefined && !only.has('real-html')) ? [] : await evalRealHtml(factories.map(([, f]) => f), { seed, log })
  // Kinds (b)–(d) (issue 15): simdup only, each its own stream; overall = main + every kind.
  // The short-text kinds (issue 24) first, with the peers beside simdup.
  let short: ShortResult[] = []
  if (values.kinds !== 'none' && values.system !== 'baseline') {
    const streams = [
      ...results.filter((r) => r.name === 'simdup').map((r) => ({ name: 'main', metrics: r.metrics })),
      ...realHtml.filter((r) => r.name === 'simdup' && r.stream === 'all-sites').map((r) => ({ name: 'real-html', metrics: r.metrics })),
      ...realHtml.filter((r) => r.name === 'simdup' && r.stream === 'more-sites').map((r) => ({ name: 'real-html-more', metrics: r.metrics })),
    ]
    const oldSites = realHtml.find((r) => r.name === 'simdup' && r.stream === 'old-sites')
    if (oldSites !== undefined) console.log(`\nkind (a) on the old sites only (LibreOffice help + Debian Reference, as before the extra sites): P ${pct(oldSites.metrics.precision)}  R ${pct(oldSites.metrics.recall)}`)
    const makeSimdup = async (): Promise<EvalSystem> => (await loadSimdup(log, urlMinResemblance === undefined ? {} : { urlMinResemblance }))!
    const shortOnly = only === undefined ? undefined : new Set([...only].filter((k) => (SHORT_KINDS as readonly string[]).includes(k)))
    if (only === undefined || shortOnly!.size > 0) {
      short = await runShortKinds(seed, makeSimdup, log, { ...(shortOnly === undefined ? {} : { only: shortOnly }), peers: values.peers === 'all' })
      streams.push(...short.filter((r) => r.system === 'simdup').map((r) => ({ name: r.kind, metrics: r.metrics })))
    }
    if (only === undefined || [...only].some((k) => !(SHORT_KINDS as readonly string[]).includes(k) && k !== 'main' && k !== 'real-html')) {
      await runKinds(corpus, seed, makeSimdup, log, streams, only)
    }
  }

  if (values.json !== undefined) {
    writeFileSync(values.json, JSON.stringify({
      seed: dataset.seed,
      options: dataset.options,
      docs: dataset.docs.length,
      composition: dataset.composition,
      facts: dataset.facts,
      datasetBuildMs: buildMs,
      systems: results,
      realHtml,
      short,
    }, null, 2))
    log(`wrote ${values.json}`)
  }
}

await main()
