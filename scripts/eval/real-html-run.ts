/**
 * Runs eval kind (a) (real-html.ts) for each system and prints P and R, with recall and false
 * positives per label. Two streams: the LibreOffice + Debian Reference one as before the extra
 * sites (`old sites`, comparable with earlier figures), then all sites (real-html-sites.ts), with
 * a table per site/part: P, R, and the extraction quality of simdup's HTML → text against the
 * oracle's main text (coverage / purity / Jaccard of character 5-grams, as
 * scripts/extract/compare.ts measures). Called by run.ts after the main stream; also alone:
 *
 *   npx tsx scripts/eval/real-html-run.ts [--seed N] [--system simdup|baseline] [--sites old|all] [--errors]
 *
 * `--errors` lists every false positive and miss of simdup on the all-sites stream, with the
 * oracle's Jaccard (oj) and the same on simdup's extracted text (ej).
 */
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { htmlToText } from '../../src/normalize/html.js'
import { createBaselineSystem } from './baseline.js'
import { computeMetrics, type EvalMetrics } from './metrics.js'
import { extractionOverlap, jaccard, shingleSet, type ExtractionOverlap } from './oracle.js'
import { buildRealHtmlDatasets, toRealHtmlEvalDocs, type RealHtmlDataset, type RealHtmlDoc } from './real-html.js'
import { createSimdupSystem } from './simdup-system.js'
import type { EvalDecision, EvalSystem } from './systems.js'

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`

/** Result of one system on one stream of kind (a). */
export interface RealHtmlResult {
  name: string
  /** `old-sites` (LibreOffice + Debian Reference) or `all-sites`. */
  stream: string
  docsPerSec: number
  metrics: EvalMetrics
  parts?: PartRow[]
}

/** Figures of one site/part of the all-sites stream. */
export interface PartRow {
  label: string
  docs: number
  trueDuplicates: number
  flagged: number
  tp: number
  fp: number
  precision: number
  recall: number
  /** Means over the part's pages of simdup's extraction against the oracle's main text. */
  coverage: number
  purity: number
  jaccard: number
}

type Overlap = ExtractionOverlap

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length)

/** P, R and extraction quality per label (flags are counted on the flagged document's label). */
function partRows(docs: readonly RealHtmlDoc[], decisions: readonly EvalDecision[], m: EvalMetrics): PartRow[] {
  const extracted = new Map<string, Overlap[]>()
  for (const d of docs) {
    const list = extracted.get(d.perturbation) ?? []
    list.push(extractionOverlap(d.main, htmlToText(d.html)))
    extracted.set(d.perturbation, list)
  }
  const labels = [...extracted.keys()]
  const rows: PartRow[] = []
  for (const label of labels) {
    const r = m.recallByPerturbation.find((x) => x.label === label)
    const fp = m.falsePositives.find((x) => x.label === label)?.fp ?? 0
    const tp = r?.tp ?? 0
    const flagged = decisions.filter((x, i) => x.duplicateOf !== null && docs[i]!.perturbation === label).length
    const ov = extracted.get(label)!
    rows.push({
      label,
      docs: ov.length,
      trueDuplicates: r?.count ?? 0,
      flagged,
      tp,
      fp,
      precision: flagged === 0 ? 1 : tp / flagged,
      recall: r === undefined || r.count === 0 ? 1 : r.recall,
      coverage: mean(ov.map((o) => o.coverage)),
      purity: mean(ov.map((o) => o.purity)),
      jaccard: mean(ov.map((o) => o.jaccard)),
    })
  }
  return rows
}

function printParts(rows: readonly PartRow[]): void {
  console.log('  | part | pages | true dups | flagged | FP | P | R | extraction coverage / purity / Jaccard |')
  console.log('  |---|---|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(`  | ${r.label} | ${r.docs} | ${r.trueDuplicates} | ${r.flagged} | ${r.fp} | ${pct(r.precision)} | ${r.trueDuplicates === 0 ? '–' : pct(r.recall)} | ${r.coverage.toFixed(3)} / ${r.purity.toFixed(3)} / ${r.jaccard.toFixed(3)} |`)
  }
}

/** Every false positive and miss, with the oracle's and the extraction's Jaccard. */
function printErrors(docs: readonly RealHtmlDoc[], decisions: readonly EvalDecision[]): void {
  const index = new Map(docs.map((d, i) => [d.id, i]))
  const ext = new Map<string, Float64Array>()
  const extSet = (i: number): Float64Array => {
    const d = docs[i]!
    let s = ext.get(d.id)
    if (s === undefined) {
      s = shingleSet(htmlToText(d.html), 5)
      ext.set(d.id, s)
    }
    return s
  }
  const pair = (kind: string, i: number, j: number): void => {
    const a = docs[i]!
    const b = docs[j]!
    const oj = jaccard(shingleSet(a.main, 5), shingleSet(b.main, 5))
    const ej = jaccard(extSet(i), extSet(j))
    console.log(`  ${kind} ${a.perturbation} ${a.id} → ${b.id}  oj=${oj.toFixed(2)} ej=${ej.toFixed(2)} main=${a.main.length}/${b.main.length}`)
  }
  decisions.forEach((x, i) => {
    const d = docs[i]!
    if (x.duplicateOf !== null) {
      const j = index.get(x.duplicateOf)!
      if (docs[j]!.group !== d.group) pair('FP', i, j)
    } else if (d.group !== d.id || docs.slice(0, i).some((o) => o.group === d.group)) {
      const j = docs.findIndex((o, k) => k < i && o.group === d.group)
      if (j >= 0) pair('FN', i, j)
    }
  })
}

async function runOne(system: EvalSystem, ds: RealHtmlDataset, stream: string, withParts: boolean, errors: boolean): Promise<RealHtmlResult> {
  const docs = toRealHtmlEvalDocs(ds.docs)
  const t0 = performance.now()
  const decisions = await system.run(docs.map((d) => ({ ...d })))
  const ms = performance.now() - t0
  await system.close?.()
  const m = computeMetrics(ds.docs, decisions, { examples: 3 })
  const r: RealHtmlResult = { name: system.name, stream, docsPerSec: docs.length / (ms / 1000), metrics: m }
  console.log(`--- ${r.name} on kind (a), ${stream}: P ${pct(m.precision)}  R ${pct(m.recall)}  (TP ${m.tp}, FP ${m.fp}, FN ${m.fn}; flagged ${m.flagged}; ${r.docsPerSec.toFixed(0)} docs/s)`)
  if (withParts) {
    r.parts = partRows(ds.docs, decisions, m)
    printParts(r.parts)
  } else {
    for (const row of m.recallByPerturbation) console.log(`  R ${row.label.padEnd(22)} ${pct(row.recall).padStart(6)}  (${row.tp}/${row.count})`)
  }
  for (const row of m.falsePositives) {
    console.log(`  FP ${row.label.padEnd(21)} ${String(row.fp).padStart(5)} of ${row.docs} (distinct ${row.distinct}, wrong-group ${row.wrongGroup})`)
    for (const e of row.examples) console.log(`      ${e.id} ${JSON.stringify(e.text)}\n        → ${e.duplicateOf} ${JSON.stringify(e.otherText)}`)
  }
  if (errors) printErrors(ds.docs, decisions)
  return r
}

function printComposition(ds: RealHtmlDataset, what: string): void {
  const dups = ds.docs.length - new Set(ds.docs.map((d) => d.group)).size
  console.log(`\n=== kind (a) real-html, ${what}: ${ds.docs.length} raw HTML pages with their real chrome (${dups} true duplicates by the main-text oracle)`)
  console.log(Object.entries(ds.composition).map(([k, v]) => `  ${k.padEnd(28)} ${String(v).padStart(5)}`).join('\n'))
}

/**
 * Builds the kind-(a) streams and scores each system on them; prints as it goes. The all-sites
 * result (or the old-sites one, with `sites: 'old'`) is the kind's figure in the overall line.
 * @example await evalRealHtml([() => createSimdupSystem()], { seed: 1 })
 */
export async function evalRealHtml(
  factories: readonly (() => Promise<EvalSystem | null>)[],
  options: { seed: number; sites?: 'old' | 'all' | 'more'; errors?: boolean; log?: (s: string) => void },
): Promise<RealHtmlResult[]> {
  const oldOnly = options.sites === 'old'
  const moreOnly = options.sites === 'more'
  const ds = buildRealHtmlDatasets({ seed: options.seed, oldOnly, ...(options.log === undefined ? {} : { log: options.log }) })
  if (!moreOnly) printComposition(ds.old, 'old sites (LibreOffice help + Debian Reference)')
  if (ds.all !== undefined && !moreOnly) printComposition(ds.all, 'all sites')
  if (ds.more !== undefined) printComposition(ds.more, 'more sites (the held-out test\'s five: GIMP, Debian Edu, developers-reference, git, jsoup)')
  const out: RealHtmlResult[] = []
  for (const factory of factories) {
    const errors = (s: EvalSystem): boolean => options.errors === true && s.name === 'simdup'
    if (!moreOnly) {
      const oldSystem = await factory()
      if (oldSystem === null) continue
      out.push(await runOne(oldSystem, ds.old, 'old-sites', false, false))
      if (ds.all !== undefined) {
        const system = (await factory())!
        out.push(await runOne(system, ds.all, 'all-sites', true, errors(system)))
      }
    }
    if (ds.more === undefined) continue
    const system = await factory()
    if (system === null) continue
    out.push(await runOne(system, ds.more, 'more-sites', true, errors(system)))
  }
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, system: { type: 'string' }, sites: { type: 'string', default: 'all' }, errors: { type: 'boolean' } } })
  if (values.sites !== 'old' && values.sites !== 'all' && values.sites !== 'more') throw new Error(`--sites must be old, all or more, got ${values.sites}`)
  const factories: (() => Promise<EvalSystem | null>)[] = []
  if (values.system !== 'baseline') factories.push(() => createSimdupSystem())
  if (values.system !== 'simdup') factories.push(async () => createBaselineSystem())
  await evalRealHtml(factories, { seed: Number(values.seed), sites: values.sites, errors: values.errors === true, log: (s) => console.error(s) })
}
