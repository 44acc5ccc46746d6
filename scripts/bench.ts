/**
 * Throughput benchmark on the Debian Chinese corpus (scripts/corpus): docs/s and MB/s per stage
 * and for the whole pipeline, next to the raw segmentation throughput of the segmenter used;
 * the worker pool on all cores; memory per stored fingerprint. `--es URL` adds end-to-end
 * indexing into Elasticsearch.
 *
 *   npx tsx scripts/bench.ts [--runs 3] [--workers 2] [--segmenter default|wasm] [--es URL] [--es-warmup 2] [--json FILE] [--compare FILE]
 *
 * `--compare FILE`: a previous run's `--json` output; each row's docs/s is printed against that
 * run's. Those are not interleaved (the machine's speed drifts by up to 2× between runs), so they
 * show a large change only; the ratios above, from interleaved rounds, are the measurements.
 */
import { parseArgs } from 'node:util'
import { readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { loadCorpus } from './corpus/load.js'
import { containsTraditional } from '../src/normalize/_char-class.js'
import {
  createAnalyzer, createDeduplicator, createJiebaWasmSegmenter, openMemoryStore, type AnalyzerOptions, type FingerprintStore, type Segmenter,
} from '../src/index.js'
import { type JsonlLine } from '../src/internal.js'
import { parseJsonLine } from '../src/io/jsonl.js'
import { tryCreateNodeRsSegmenter } from '../src/segment/node-rs.js'
import { DEFAULT_WEIGHTING_OPTIONS, defaultIdf, defaultStopWords, simhash, weightTerms } from '../src/fingerprint/index.js'
import { createPreparePool, runBatches } from '../src/engine/index.js'
import { normalizeContent } from '../src/normalize/index.js'
import { type PreparePool } from '../src/engine/prepare-pool.js'
import { RunMemo } from '../src/fingerprint/_run-memo.js'
import { TermTable } from '../src/fingerprint/_term-table.js'
import { buildRealHtmlDataset } from './eval/real-html.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    workers: { type: 'string', default: String(Math.min(2, os.availableParallelism())) },
    segmenter: { type: 'string', default: 'default' },
    es: { type: 'string' },
    'es-warmup': { type: 'string', default: '2' },
    json: { type: 'string' },
    compare: { type: 'string' },
  },
})
const runs = Number(values.runs)
const corpus = await loadCorpus({ log: (l) => console.error(l) })
const contents = corpus.map((d) => d.content)
const chars = contents.reduce((s, c) => s + c.length, 0)
const bytes = contents.reduce((s, c) => s + Buffer.byteLength(c), 0)
console.log(`corpus: ${contents.length} docs, ${(chars / 1e6).toFixed(2)} M chars, ${(bytes / 1e6).toFixed(1)} MB UTF-8; node ${process.version}, ${os.cpus()[0]?.model ?? '?'}`)

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

interface Row { stage: string; seconds: number; docsPerSec: number; mbPerSec: number; charsPerSec: number }
const rows: Row[] = []
/**
 * A timed workload. Calling it does the untimed setup and returns the timed part, so a pass can
 * start from cold caches (a fresh analyzer: an empty term table and run memo; a fresh worker
 * pool), as one CLI run over the corpus does; a warm cache from the previous pass over the same
 * documents would measure the cache, not the pipeline.
 */
type Workload = () => Promise<() => unknown> | (() => unknown)
async function measure(stage: string, work: Workload): Promise<Row> {
  return measureSubset(stage, work, contents.length, chars)
}
async function measureSubset(stage: string, work: Workload, n: number, nChars: number): Promise<Row> {
  await (await work())() // warm-up (JIT, dictionary build, IDF load)
  const times: number[] = []
  for (let r = 0; r < runs; r++) {
    const run = await work()
    const t = performance.now()
    await run()
    times.push((performance.now() - t) / 1000)
  }
  const seconds = median(times)
  const row = { stage, seconds, docsPerSec: n / seconds, mbPerSec: (bytes * (nChars / chars)) / 1e6 / seconds, charsPerSec: nChars / seconds }
  rows.push(row)
  console.log(`${stage.padEnd(34)} ${Math.round(row.docsPerSec).toString().padStart(7)} docs/s ${row.mbPerSec.toFixed(2).padStart(7)} MB/s ${(row.charsPerSec / 1e6).toFixed(2).padStart(6)} M chars/s`)
  return row
}

const nodeRs = values.segmenter === 'wasm' ? undefined : tryCreateNodeRsSegmenter()
const segmenter: Segmenter = nodeRs ?? createJiebaWasmSegmenter()
const segName = nodeRs === undefined ? 'jieba-wasm' : '@node-rs/jieba'
const idf = defaultIdf()
const stop = defaultStopWords().words
const normalized = contents.map((c) => normalizeContent(c))
const tokens = normalized.map((n) => segmenter.cut(n))
const weighted = tokens.map((t) => weightTerms(t, idf, stop))

console.log(`\nstages (one core, segmenter ${segName}, median of ${runs}):`)
const timed = (fn: () => unknown): Workload => () => fn
/** One pass of a fresh analyzer over `docs`. */
const analyzePass = (docs: readonly string[], options: AnalyzerOptions = {}): Workload => () => {
  const a = createAnalyzer({ segmenter, ...options })
  return () => docs.forEach((c) => a.analyze(c))
}
await measure('normalise', timed(() => contents.forEach((c) => normalizeContent(c))))
const wasm = segName === 'jieba-wasm' ? segmenter : createJiebaWasmSegmenter()
if (segName !== 'jieba-wasm') {
  await measure('segment (raw jieba-wasm cut, for comparison)', timed(() => normalized.forEach((n) => wasm.cut(n))))
}
await measure(`segment (raw ${segName} cut)`, timed(() => normalized.forEach((n) => segmenter.cut(n))))
await measure('weight (TF-IDF)', timed(() => tokens.forEach((t) => weightTerms(t, idf, stop))))
await measure('simhash', timed(() => weighted.forEach((w) => simhash(w))))
await measure('pipeline (analyze: all stages)', analyzePass(contents))
await measure('pipeline, run memo off', analyzePass(contents, { memoizeRuns: false }))
// Everything but segmentation: the same analyzer fed tokens cut beforehand.
// analyze() cuts once per document, in order, so replaying the tokens by position is exact.
let replayAt = 0
const replay: Segmenter = { name: segmenter.name, addWords: () => undefined, cut: () => tokens[replayAt++ % tokens.length]! }
await measure('pipeline without segmentation', () => {
  replayAt = 0
  return analyzePass(contents, { segmenter: replay })()
})
// How much of the text the run memo finds segmented before, in one pass from empty.
const memoCount = new RunMemo(new TermTable(idf, stop, DEFAULT_WEIGHTING_OPTIONS.singleCharFactor, DEFAULT_WEIGHTING_OPTIONS.numberFactor), segmenter)
for (const n of normalized) memoCount.load(n)
const memoHits = { runs: memoCount.hits / memoCount.lookups, chars: memoCount.hitUnits / memoCount.lookupUnits, twoWorkersChars: 0 }
console.log(`run memo, one pass from empty: ${(memoHits.runs * 100).toFixed(1)} % of runs, ${(memoHits.chars * 100).toFixed(1)} % of their characters found`)
// A pool's workers each keep their own memo and see part of the documents: deal 63-document
// chunks (the pool's chunk size for 500-line batches on 2 workers) alternately to two memos.
const split = [0, 1].map(() => new RunMemo(new TermTable(idf, stop, DEFAULT_WEIGHTING_OPTIONS.singleCharFactor, DEFAULT_WEIGHTING_OPTIONS.numberFactor), segmenter))
normalized.forEach((n, i) => split[Math.floor(i / 63) % 2]!.load(n))
memoHits.twoWorkersChars = split.reduce((s, m) => s + m.hitUnits, 0) / split.reduce((s, m) => s + m.lookupUnits, 0)
console.log(`  split over two memos as a 2-worker pool splits it: ${(memoHits.twoWorkersChars * 100).toFixed(1)} % of characters found`)

// Half of this corpus is Traditional (zh_TW pages and converted copies), which costs a
// conversion pass; most real corpora are mostly Simplified. The same ratio on Simplified-only docs:
const simplifiedIdx = contents.flatMap((c, i) => (containsTraditional(c) ? [] : [i]))
const simplified = simplifiedIdx.map((i) => contents[i]!)
const simplifiedNorm = simplifiedIdx.map((i) => normalized[i]!)
const subChars = simplified.reduce((s, c) => s + c.length, 0)
await measureSubset(`segment (raw ${segName}), Simplified-only docs`, timed(() => simplifiedNorm.forEach((n) => segmenter.cut(n))), simplified.length, subChars)
await measureSubset('pipeline, Simplified-only docs', analyzePass(simplified), simplified.length, subChars)


const analyzer = createAnalyzer({ segmenter })
const lines: JsonlLine[] = corpus.map((d, i) => ({ line: i + 1, text: JSON.stringify({ id: d.id, content: d.content, title: d.title }) }))
const batches = Array.from({ length: Math.ceil(lines.length / 500) }, (_, i) => lines.slice(i * 500, (i + 1) * 500))
async function engineRun(store: FingerprintStore, pool: PreparePool | null) {
  const dedup = createDeduplicator({ store, analyzer: createAnalyzer({ segmenter }) })
  // As the CLI does: preparation runs ahead of the in-order store round trips.
  await runBatches(batches, {
    prepare: (batch) => (pool === null ? dedup.prepareBatch(batch.map(parseJsonLine)) : pool.prepareLines(batch)),
    decide: (items) => dedup.decide(items),
    emit: () => undefined,
    ahead: pool === null ? 1 : 2,
  })
}
const workers = Number(values.workers)
/** Pool settings; workers segment with what the main thread uses. */
const poolOptions = {
  analyzer: { segmenter: nodeRs === undefined ? ('jieba-wasm' as const) : ('default' as const) },
  blockScheme: { blocks: 4, minMatch: 1 },
  maxContentLength: 10_000_000,
  expectVersion: analyzer.version,
}
// One pool for every pass (warm workers, as in a long CLI run); clearCaches() gives each pass
// cold analyzers, untimed.
const pool = await createPreparePool({ ...poolOptions, workers })
/** One engine pass with a fresh store and cold analyzers, setup untimed. */
const enginePass = (withPool: boolean): Workload => async () => {
  const store = await openMemoryStore()
  if (withPool) await pool.clearCaches()
  return () => engineRun(store, withPool ? pool : null)
}
/** The pipeline as the engine runs it (JSON parse, validation, analysis, blocks), no store. */
const preparePass = (withPool: boolean): Workload => async () => {
  if (withPool) {
    await pool.clearCaches()
    return () => Promise.all(batches.map((b) => pool.prepareLines(b)))
  }
  const dedup = createDeduplicator({ store: await openMemoryStore(), analyzer: createAnalyzer({ segmenter }) })
  return () => lines.forEach((l) => dedup.prepare(parseJsonLine(l)))
}
await measure('prepare (parse + pipeline), 1 thread', preparePass(false))
await measure(`prepare (parse + pipeline), ${workers} workers`, preparePass(true))
await measure('engine, 1 thread, memory store', enginePass(false))
await measure(`engine, ${workers} workers, memory store`, enginePass(true))

// Ratios come from interleaved rounds: each round times every workload back to back, and the
// ratio is taken per round (median over rounds). Machine speed drifts by 2× within minutes on a
// shared VM, so dividing two rows measured minutes apart would measure the drift.
async function rounds(workloads: Record<string, Workload>, n: number): Promise<Record<string, number>[]> {
  const out: Record<string, number>[] = []
  for (let r = 0; r < n; r++) {
    const times: Record<string, number> = {}
    for (const [name, work] of Object.entries(workloads)) {
      const run = await work()
      const t = performance.now()
      await run()
      times[name] = performance.now() - t
    }
    out.push(times)
  }
  return out
}
const ratioOf = (rs: Record<string, number>[], base: string, other: string) => median(rs.map((t) => t[base]! / t[other]!))
const n = Math.max(3, runs)
// The machine's own ceiling for any pool: two 1-worker pools that share nothing, each preparing
// the whole corpus at once, against one of them alone. What the two cores lose to each other
// (shared cache, memory bandwidth, the VM) shows here, with no coordination cost in it.
const soloPools = await Promise.all([0, 1].map(() => createPreparePool({ ...poolOptions, workers: 1 })))
const allLines = (p: PreparePool) => Promise.all(batches.map((b) => p.prepareLines(b)))
const main = await rounds({
  copy1: async () => {
    await soloPools[0]!.clearCaches()
    return () => allLines(soloPools[0]!)
  },
  copies: async () => {
    await Promise.all(soloPools.map((p) => p.clearCaches()))
    return () => Promise.all(soloPools.map(allLines))
  },
  raw: timed(() => normalized.forEach((t) => segmenter.cut(t))),
  pipeline: analyzePass(contents),
  pipelineNoMemo: analyzePass(contents, { memoizeRuns: false }),
  subRaw: timed(() => simplifiedNorm.forEach((t) => segmenter.cut(t))),
  subPipeline: analyzePass(simplified),
  prepare1: preparePass(false),
  prepareN: preparePass(true),
  engine1: enginePass(false),
  engineN: enginePass(true),
}, n)
let wasmRatio: number | undefined
if (segName !== 'jieba-wasm') {
  wasmRatio = ratioOf(await rounds({ raw: timed(() => normalized.forEach((t) => wasm.cut(t))), pipeline: analyzePass(contents, { segmenter: wasm }) }, n), 'raw', 'pipeline')
}
await pool.close()
await Promise.all(soloPools.map((p) => p.close()))
const ratios = {
  pipelineVsRawSeg: ratioOf(main, 'raw', 'pipeline'),
  pipelineNoMemoVsRawSeg: ratioOf(main, 'raw', 'pipelineNoMemo'),
  simplifiedPipelineVsRawSeg: ratioOf(main, 'subRaw', 'subPipeline'),
  wasmPipelineVsRawWasm: wasmRatio,
  prepareWorkersVsRawSeg: ratioOf(main, 'raw', 'prepareN'),
  prepareWorkersVsPrepare1: ratioOf(main, 'prepare1', 'prepareN'),
  engineWorkersVsRawSeg: ratioOf(main, 'raw', 'engineN'),
  engineWorkersVsPipeline: ratioOf(main, 'pipeline', 'engineN'),
  engineWorkersVsEngine1: ratioOf(main, 'engine1', 'engineN'),
  twoIndependentCopiesVsOne: median(main.map((t) => (2 * t.copy1!) / t.copies!)),
}
console.log(`\nratios (median of ${n} interleaved rounds; same documents, so time ratio = throughput ratio):`)
console.log(`pipeline / raw segmentation (${segName}, one core): ${ratios.pipelineVsRawSeg.toFixed(2)}× (target ≥ 0.7×)`)
console.log(`  on the ${simplified.length} Simplified-only docs: ${ratios.simplifiedPipelineVsRawSeg.toFixed(2)}×; with the run memo off: ${ratios.pipelineNoMemoVsRawSeg.toFixed(2)}×`)
if (wasmRatio !== undefined) console.log(`  with jieba-wasm as the segmenter (its pipeline / its raw cut): ${wasmRatio.toFixed(2)}×`)
console.log(`pipeline (parse + prepare) on ${workers} workers / raw segmentation (one core): ${ratios.prepareWorkersVsRawSeg.toFixed(2)}× (target ≥ 1.8×); / the same on 1 thread: ${ratios.prepareWorkersVsPrepare1.toFixed(2)}×`)
console.log(`  ceiling: two independent 1-worker pools at once, each the whole corpus / one alone: ${ratios.twoIndependentCopiesVsOne.toFixed(2)}× (what the cores lose to each other)`)
console.log(`engine with ${workers} workers / one-core pipeline: ${ratios.engineWorkersVsPipeline.toFixed(2)}×; / engine on 1 thread: ${ratios.engineWorkersVsEngine1.toFixed(2)}×; / raw segmentation: ${ratios.engineWorkersVsRawSeg.toFixed(2)}×`)

// HTML input: the pages of eval kind (a) (real Debian HTML as shipped, with its chrome), through
// the normalise stage with the link-density rule (default) and without it (the names-and-tags
// path before it), next to plain text, in interleaved rounds. Plain text never reaches the HTML
// parser (looksLikeHtml is false), so its row is the corpus row above, timed again in each round.
const htmlDocs = buildRealHtmlDataset({ seed: 1 }).docs
const htmlPages = htmlDocs.map((d) => d.html)
const htmlChars = htmlPages.reduce((a, h) => a + h.length, 0)
const htmlBytes = htmlPages.reduce((a, h) => a + Buffer.byteLength(h), 0)
const htmlRounds = await rounds({
  linkDensity: timed(() => htmlPages.forEach((h) => normalizeContent(h))),
  namesOnly: timed(() => htmlPages.forEach((h) => normalizeContent(h, { linkDensity: false }))),
  plain: timed(() => contents.forEach((c) => normalizeContent(c))),
}, n)
const html = {
  pages: htmlPages.length,
  mb: htmlBytes / 1e6,
  linkDensityDocsPerSec: htmlPages.length / (median(htmlRounds.map((t) => t.linkDensity!)) / 1000),
  namesOnlyDocsPerSec: htmlPages.length / (median(htmlRounds.map((t) => t.namesOnly!)) / 1000),
  plainDocsPerSec: contents.length / (median(htmlRounds.map((t) => t.plain!)) / 1000),
  linkDensityVsNamesOnly: ratioOf(htmlRounds, 'namesOnly', 'linkDensity'),
}
for (const [stage, dps, nDocs, nBytes, nChars] of [
  ['normalise HTML pages (default: link density)', html.linkDensityDocsPerSec, htmlPages.length, htmlBytes, htmlChars],
  ['normalise HTML pages (linkDensity: false)', html.namesOnlyDocsPerSec, htmlPages.length, htmlBytes, htmlChars],
  ['normalise plain text (same rounds)', html.plainDocsPerSec, contents.length, bytes, chars],
] as const) {
  const seconds = nDocs / dps
  rows.push({ stage, seconds, docsPerSec: dps, mbPerSec: nBytes / 1e6 / seconds, charsPerSec: nChars / seconds })
  console.log(`${stage.padEnd(44)} ${Math.round(dps).toString().padStart(7)} docs/s ${(nBytes / 1e6 / seconds).toFixed(2).padStart(7)} MB/s`)
}
console.log(`HTML (${htmlPages.length} real pages, ${html.mb.toFixed(1)} MB): link density / without it: ${html.linkDensityVsNamesOnly.toFixed(2)}× (target ≥ 0.5×)`)

// HTML pages and plain text through the whole engine (one thread, in-memory store, batches of
// 500, pages with their URLs as a crawler sends them), in the same interleaved rounds: what a page
// costs against a plain document of the corpus, HTML extraction and the template layer included.
const plainDocs = corpus.slice(0, htmlDocs.length).map((d) => ({ id: d.id, content: d.content }))
type Doc = { id: string; content: string; url?: string }
const pageDocs: Doc[] = htmlDocs.map((d) => ({ id: d.id, content: d.html, url: d.url }))
const enginePassOf = (docs: Doc[]): Workload => async () => {
  const store = await openMemoryStore()
  const dedup = createDeduplicator({ store, analyzer: createAnalyzer({ segmenter }) })
  return async () => {
    for (let i = 0; i < docs.length; i += 500) await dedup.add(docs.slice(i, i + 500))
    await store.close()
  }
}
const engineRounds = await rounds({ html: enginePassOf(pageDocs), plain: enginePassOf(plainDocs) }, n)
const engineHtml = {
  pages: pageDocs.length,
  plainDocs: plainDocs.length,
  pagesPerSec: pageDocs.length / (median(engineRounds.map((t) => t.html!)) / 1000),
  plainDocsPerSec: plainDocs.length / (median(engineRounds.map((t) => t.plain!)) / 1000),
  // Per document, round by round (the two sides hold the same count unless the corpus is smaller).
  htmlVsPlain: median(engineRounds.map((t) => (t.plain! / plainDocs.length) / (t.html! / pageDocs.length))),
}
for (const [stage, dps, count] of [
  ['engine, 1 thread, HTML pages (same rounds)', engineHtml.pagesPerSec, pageDocs.length],
  ['engine, 1 thread, plain text (same rounds)', engineHtml.plainDocsPerSec, plainDocs.length],
] as const) {
  rows.push({ stage, seconds: count / dps, docsPerSec: dps, mbPerSec: Number.NaN, charsPerSec: Number.NaN })
}
console.log(
  `\nwhole engine, 1 thread, median of ${n} interleaved rounds: HTML ${Math.round(engineHtml.pagesPerSec)} pages/s (${pageDocs.length} pages), ` +
    `plain text ${Math.round(engineHtml.plainDocsPerSec)} docs/s (${plainDocs.length} corpus documents); HTML / plain per document: ${engineHtml.htmlVsPlain.toFixed(2)}×`,
)

let es: Record<string, number | number[]> | undefined
if (values.es !== undefined) {
  const { createElasticsearchStore } = await import('../src/elasticsearch/store.js')
  // Each run indexes the corpus into a fresh index, and fingerprint-only (the pipeline row above)
  // is timed again right before it: on a shared machine the load drifts within minutes, and a
  // ratio of two figures taken far apart would measure the drift.
  // The node's JVM compiles its hot paths during the first runs, which then cost the node several
  // times the CPU of later ones. A long indexing job runs on a warm node, so the first
  // `--es-warmup` runs are reported (as warm-up) but left out of the median.
  const warmup = Number(values['es-warmup'])
  const pairs: { es: number; fingerprintOnly: number }[] = []
  const cold: { es: number; fingerprintOnly: number }[] = []
  for (let r = 0; r < warmup + runs; r++) {
    const fresh = createAnalyzer({ segmenter })
    const t0 = performance.now()
    contents.forEach((c) => fresh.analyze(c))
    const fingerprintOnly = contents.length / ((performance.now() - t0) / 1000)
    const index = `simdup-bench-${process.pid}-${r}`
    const store = await createElasticsearchStore({ node: values.es, index })
    try {
      const t = performance.now()
      await engineRun(store, null)
      ;(r < warmup ? cold : pairs).push({ es: contents.length / ((performance.now() - t) / 1000), fingerprintOnly })
    } finally {
      await store.client.indices.delete({ index }).catch(() => undefined)
      await store.close()
    }
  }
  const r = {
    docsPerSec: median(pairs.map((p) => p.es)),
    fingerprintOnlyDocsPerSec: median(pairs.map((p) => p.fingerprintOnly)),
    vsFingerprintOnly: median(pairs.map((p) => p.es / p.fingerprintOnly)),
    warmupRatios: cold.map((p) => p.es / p.fingerprintOnly),
  }
  es = r
  console.log(
    `\nelasticsearch end to end (1 thread, median of ${runs}): ${Math.round(r.docsPerSec)} docs/s; fingerprint-only timed next to each run ${Math.round(r.fingerprintOnlyDocsPerSec)} docs/s; ` +
      `ratio ${r.vsFingerprintOnly.toFixed(2)}× (per-run ${pairs.map((p) => (p.es / p.fingerprintOnly).toFixed(2)).join(', ')}; target ≥ 0.6×); ` +
      `warm-up runs before them ${cold.map((p) => `${Math.round(p.es)} docs/s (${(p.es / p.fingerprintOnly).toFixed(2)}×)`).join(', ') || 'none'}`,
  )
}

if (values.compare !== undefined) {
  const previous = JSON.parse(readFileSync(values.compare, 'utf8')) as { rows?: Row[] }
  const then = new Map((previous.rows ?? []).map((r) => [r.stage, r.docsPerSec]))
  console.log(`\nagainst ${values.compare} (docs/s now / then; not interleaved, so only a large change means anything):`)
  for (const row of rows) {
    const old = then.get(row.stage)
    console.log(`  ${row.stage.padEnd(44)} ${old === undefined ? 'not in that run' : `${(row.docsPerSec / old).toFixed(2)}× (${Math.round(row.docsPerSec)} / ${Math.round(old)})`}`)
  }
}

if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ corpus: { docs: contents.length, chars, bytes }, rows, ratios, rounds: main, memoHits, html, engineHtml, es }, null, 2))
