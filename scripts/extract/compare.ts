/**
 * Compares main-text extractors on real pages of eval kind (a) (scripts/eval/real-html.ts):
 * simdup's htmlparser2 path (with and without the link-density rule), Mozilla Readability on
 * linkedom, defuddle on linkedom, and trafilatura (Python, when installed). Each page's reference
 * is the oracle's main text (the site's known content element); trafilatura is also compared with
 * the oracle, as a cross-check of the oracle itself. Figures per extractor: coverage (share of the
 * reference's character 5-grams the extraction keeps), purity (share of the extraction's 5-grams
 * that are in the reference), Jaccard, share of pages at Jaccard ≥ 0.6, and pages/s.
 *
 *   npx tsx scripts/extract/compare.ts [--seed N] [--lo 200] [--no-trafilatura]
 */
import { spawnSync } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Readability } from '@mozilla/readability'
import { Defuddle } from 'defuddle/node'
import { parseHTML } from 'linkedom'
import { htmlToText } from '../../src/normalize/html.js'
import { extractionOverlap, type ExtractionOverlap } from '../eval/oracle.js'
import { Rng } from '../eval/prng.js'
import { buildRealHtmlDataset, type RealHtmlDoc } from '../eval/real-html.js'

type Extractor = (html: string, url: string) => Promise<string> | string

const textOf = (html: string): string => htmlToText(html, { dropChrome: false, preferMain: false })

const EXTRACTORS: Record<string, Extractor> = {
  'htmlparser2 (before: names and tags only)': (html) => htmlToText(html, { linkDensity: false }),
  'htmlparser2 + link density (chosen)': (html) => htmlToText(html),
  'readability on linkedom': (html) => {
    const { document } = parseHTML(html)
    const article = new Readability(document as never).parse()
    return article?.textContent ?? ''
  },
  'defuddle on linkedom': async (html, url) => {
    const { document } = parseHTML(html)
    const r = await Defuddle(document as never, url)
    return textOf(r.content ?? '')
  },
}

type Score = ExtractionOverlap
const score = extractionOverlap

interface Row {
  name: string
  pages: number
  ms: number
  byLabel: Map<string, Score[]>
  vsTrafilatura: Score[]
}

const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length)
const f = (x: number): string => x.toFixed(3)

function summary(scores: readonly Score[]): string {
  return `${f(mean(scores.map((s) => s.coverage)))} / ${f(mean(scores.map((s) => s.purity)))} / ${f(mean(scores.map((s) => s.jaccard)))} / ${f(scores.filter((s) => s.jaccard >= 0.6).length / scores.length)}`
}

function trafilatura(pages: readonly RealHtmlDoc[]): Map<string, { text: string; ms: number }> | null {
  const script = join(dirname(fileURLToPath(import.meta.url)), '..', 'eval', 'trafilatura_main.py')
  const input = pages.map((p) => JSON.stringify({ id: p.id, html: p.html })).join('\n')
  const r = spawnSync('python3', [script], { input, encoding: 'utf8', maxBuffer: 1 << 30 })
  if (r.status !== 0) {
    console.error(`trafilatura not run (pip install trafilatura lxml_html_clean): ${r.stderr.trim().split('\n').pop()}`)
    return null
  }
  const out = new Map<string, { text: string; ms: number }>()
  for (const line of r.stdout.split('\n')) {
    if (line.trim() === '') continue
    const x = JSON.parse(line) as { id: string; text: string; ms: number }
    out.set(x.id, { text: x.text, ms: x.ms })
  }
  return out
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, lo: { type: 'string', default: '200' }, 'no-trafilatura': { type: 'boolean' } } })
  const seed = Number(values.seed)
  const ds = buildRealHtmlDataset({ seed, sites: 'old' })
  const rng = new Rng(seed).fork('extract-compare')
  const lo = rng.sample(ds.docs.filter((d) => d.perturbation === 'lo-page'), Number(values.lo))
  const pages = [...lo, ...ds.docs.filter((d) => d.perturbation !== 'lo-page')]
  console.log(`${pages.length} pages: ${lo.length} LibreOffice pages (sample), ${pages.length - lo.length} Debian Reference chunks and re-wrapped copies; seed ${seed}\n`)

  const traf = values['no-trafilatura'] === true ? null : trafilatura(pages)
  const rows: Row[] = []
  for (const [name, extract] of Object.entries(EXTRACTORS)) {
    const texts: string[] = []
    // One warm-up pass (JIT, lazy module loading), then the timed pass.
    for (const p of pages.slice(0, 20)) await extract(p.html, p.url)
    const t0 = performance.now()
    for (const p of pages) texts.push(await extract(p.html, p.url))
    const ms = performance.now() - t0
    const row: Row = { name, pages: pages.length, ms, byLabel: new Map(), vsTrafilatura: [] }
    pages.forEach((p, i) => {
      const s = score(p.main, texts[i] as string)
      const list = row.byLabel.get(p.perturbation) ?? []
      list.push(s)
      row.byLabel.set(p.perturbation, list)
      const t = traf?.get(p.id)
      if (t !== undefined) row.vsTrafilatura.push(score(t.text, texts[i] as string))
    })
    rows.push(row)
  }
  if (traf !== null) {
    const row: Row = { name: 'trafilatura (Python)', pages: pages.length, ms: [...traf.values()].reduce((a, t) => a + t.ms, 0), byLabel: new Map(), vsTrafilatura: [] }
    for (const p of pages) {
      const s = score(p.main, traf.get(p.id)?.text ?? '')
      const list = row.byLabel.get(p.perturbation) ?? []
      list.push(s)
      row.byLabel.set(p.perturbation, list)
    }
    rows.push(row)
  }

  const labels = [...new Set(pages.map((p) => p.perturbation))].sort()
  console.log('Against the oracle main text (coverage / purity / Jaccard / share J ≥ 0.6), and speed:\n')
  console.log('| extractor | pages | pages/s | all pages | ' + labels.join(' | ') + ' |')
  console.log('|---|---|---|---|' + labels.map(() => '---|').join(''))
  for (const r of rows) {
    const all = [...r.byLabel.values()].flat()
    console.log(`| ${r.name} | ${r.pages} | ${(r.pages / (r.ms / 1000)).toFixed(0)} | ${summary(all)} | ${labels.map((l) => summary(r.byLabel.get(l) ?? [])).join(' | ')} |`)
  }
  if (traf !== null) {
    console.log('\nAgainst trafilatura\'s text (coverage / purity / Jaccard / share J ≥ 0.6):\n')
    console.log('| extractor | all pages |')
    console.log('|---|---|')
    for (const r of rows) if (r.vsTrafilatura.length > 0) console.log(`| ${r.name} | ${summary(r.vsTrafilatura)} |`)
  }
}

await main()
