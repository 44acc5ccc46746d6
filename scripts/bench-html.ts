/**
 * HTML through the whole engine: the real pages of eval kind (a) (Debian's LibreOffice help and
 * Debian Reference chunks, as shipped, with their chrome) decided on a fresh embedded store, with
 * the cross-document template layer on (the default) and off, next to the corpus's plain text.
 * The template layer re-analyses, on the deciding thread, each page that holds a learned template
 * line; this measures what that costs. Interleaved rounds (each round runs every workload back to
 * back), ratios per round, median: the machine's speed drifts within minutes. Times are CPU time
 * of this process (see `pass`), so figures are docs per CPU-second.
 *
 *   npx tsx scripts/bench-html.ts [--rounds 5] [--json FILE]
 */
import { writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { parseArgs } from 'node:util'
import { createAnalyzer, createDeduplicator, openMemoryStore, type InputDocument } from '../src/index.js'
import { loadCorpus } from './corpus/load.js'
import { buildRealHtmlDataset } from './eval/real-html.js'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, json: { type: 'string' } } })
const rounds = Number(values.rounds)
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds must be a positive integer, got ${values.rounds}`)

const pages: InputDocument[] = buildRealHtmlDataset({ seed: 1 }).docs.map((d) => ({ id: d.id, content: d.html }))
const corpus = await loadCorpus({ log: (s) => console.error(s) })
const plain: InputDocument[] = corpus.slice(0, pages.length).map((d) => ({ id: d.id, content: d.content }))

/**
 * One engine pass over `docs` in batches of 500 on a fresh store and analyzer: milliseconds of
 * this process's CPU time (user + system). The pass runs on one thread with an in-memory store,
 * so its CPU time is its work; wall time on a loaded 2-core machine also counts the other
 * processes' turns (load averages of 10 were seen while this was written).
 */
async function pass(docs: readonly InputDocument[], templates: boolean): Promise<number> {
  const store = await openMemoryStore()
  const dedup = createDeduplicator({ store, analyzer: createAnalyzer(), templates })
  const t = process.cpuUsage()
  for (let i = 0; i < docs.length; i += 500) await dedup.add(docs.slice(i, i + 500))
  const used = process.cpuUsage(t)
  await store.close()
  return (used.user + used.system) / 1000
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
await pass(pages.slice(0, 300), true) // warm-up: JIT, dictionaries
const times: Record<string, number>[] = []
for (let r = 0; r < rounds; r++) {
  const row = { htmlTemplates: await pass(pages, true), htmlNoTemplates: await pass(pages, false), plainTemplates: await pass(plain, true), plainNoTemplates: await pass(plain, false) }
  times.push(row)
  console.error(`round ${r + 1}: ${Object.entries(row).map(([k, v]) => `${k} ${Math.round(v)} ms`).join(', ')}`)
}
const rate = (k: string, n: number) => n / (median(times.map((t) => t[k]!)) / 1000)
const ratio = (base: string, other: string) => median(times.map((t) => t[base]! / t[other]!))
const result = {
  pages: pages.length,
  plainDocs: plain.length,
  htmlTemplatesDocsPerSec: rate('htmlTemplates', pages.length),
  htmlNoTemplatesDocsPerSec: rate('htmlNoTemplates', pages.length),
  plainTemplatesDocsPerSec: rate('plainTemplates', plain.length),
  plainNoTemplatesDocsPerSec: rate('plainNoTemplates', plain.length),
  htmlTemplatesVsOff: ratio('htmlNoTemplates', 'htmlTemplates'),
  plainTemplatesVsOff: ratio('plainNoTemplates', 'plainTemplates'),
}
console.log(`engine, 1 thread, embedded store, ${pages.length} real HTML pages / ${plain.length} plain corpus documents (docs per CPU-second, median of ${rounds} interleaved rounds; load average ${loadavg()[0]!.toFixed(1)}):`)
console.log(`  HTML, templates on (default)   ${Math.round(result.htmlTemplatesDocsPerSec)} docs/s`)
console.log(`  HTML, templates off            ${Math.round(result.htmlNoTemplatesDocsPerSec)} docs/s   on / off ${result.htmlTemplatesVsOff.toFixed(2)}×`)
console.log(`  plain text, templates on       ${Math.round(result.plainTemplatesDocsPerSec)} docs/s`)
console.log(`  plain text, templates off      ${Math.round(result.plainNoTemplatesDocsPerSec)} docs/s   on / off ${result.plainTemplatesVsOff.toFixed(2)}×`)
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ ...result, times }, null, 2))
