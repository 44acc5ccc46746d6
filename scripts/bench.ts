/**
 * Throughput benchmark on the Debian Chinese corpus (scripts/corpus): docs/s and MB/s per stage
 * and for the whole pipeline, next to the raw segmentation throughput of the segmenter used;
 * the worker pool on all cores; memory per stored fingerprint. `--es URL` adds end-to-end
 * indexing into Elasticsearch.
 *
 *   npx tsx scripts/bench.ts [--runs 3] [--workers 2] [--segmenter default|wasm] [--es URL] [--json FILE]
 */
import { parseArgs } from 'node:util'
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { loadCorpus } from './corpus/load.js'
import { containsTraditional } from '../src/normalize/_char-class.js'
import {
  createAnalyzer, createDeduplicator, createJiebaWasmSegmenter, createPreparePool, defaultIdf, defaultStopWords,
  normalizeContent, openMemoryStore, parseJsonLine, runBatches, simhash, tryCreateNodeRsSegmenter, weightTerms, type FingerprintStore, type JsonlLine, type Segmenter,
} from '../src/index.js'

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    workers: { type: 'string', default: String(Math.min(2, os.availableParallelism())) },
    segmenter: { type: 'string', default: 'default' },
    es: { type: 'string' },
    json: { type: 'string' },
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
async function measure(stage: string, fn: () => unknown | Promise<unknown>): Promise<Row> {
  return measureSubset(stage, fn, contents.length, chars)
}
async function measureSubset(stage: string, fn: () => unknown | Promise<unknown>, n: number, nChars: number): Promise<Row> {
  await fn() // warm-up (JIT, dictionary build, IDF load)
  const times: number[] = []
  for (let r = 0; r < runs; r++) {
    const t = performance.now()
    await fn()
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
await measure('normalise', () => contents.forEach((c) => normalizeContent(c)))
if (segName !== 'jieba-wasm') {
  const wasm = createJiebaWasmSegmenter()
  await measure('segment (raw jieba-wasm cut, for comparison)', () => normalized.forEach((n) => wasm.cut(n)))
}
await measure(`segment (raw ${segName} cut)`, () => normalized.forEach((n) => segmenter.cut(n)))
await measure('weight (TF-IDF)', () => tokens.forEach((t) => weightTerms(t, idf, stop)))
await measure('simhash', () => weighted.forEach((w) => simhash(w)))
const analyzer = createAnalyzer({ segmenter })
await measure('pipeline (analyze: all stages)', () => contents.forEach((c) => analyzer.analyze(c)))
// Everything but segmentation: the same analyzer fed tokens cut beforehand.
// analyze() cuts once per document, in order, so replaying the tokens by position is exact.
let replayAt = 0
const replay: Segmenter = { name: segmenter.name, addWords: () => undefined, cut: () => tokens[replayAt++ % tokens.length]! }
const noSeg = createAnalyzer({ segmenter: replay })
await measure('pipeline without segmentation', () => contents.forEach((c) => noSeg.analyze(c)))

// Half of this corpus is Traditional (zh_TW pages and converted copies), which costs a
// conversion pass; most real corpora are mostly Simplified. The same ratio on Simplified-only docs:
const simplifiedIdx = contents.flatMap((c, i) => (containsTraditional(c) ? [] : [i]))
const simplified = simplifiedIdx.map((i) => contents[i]!)
const simplifiedNorm = simplifiedIdx.map((i) => normalized[i]!)
const subChars = simplified.reduce((s, c) => s + c.length, 0)
await measureSubset(`segment (raw ${segName}), Simplified-only docs`, () => simplifiedNorm.forEach((n) => segmenter.cut(n)), simplified.length, subChars)
await measureSubset('pipeline, Simplified-only docs', () => simplified.forEach((c) => analyzer.analyze(c)), simplified.length, subChars)


async function engineRun(store: FingerprintStore, pool: Awaited<ReturnType<typeof createPreparePool>> | null) {
  const dedup = createDeduplicator({ store, analyzer })
  const lines: JsonlLine[] = corpus.map((d, i) => ({ line: i + 1, text: JSON.stringify({ id: d.id, content: d.content, title: d.title }) }))
  const batches = Array.from({ length: Math.ceil(lines.length / 500) }, (_, i) => lines.slice(i * 500, (i + 1) * 500))
  // As the CLI does: preparation runs ahead of the in-order store round trips.
  await runBatches(batches, {
    prepare: (batch) => (pool === null ? dedup.prepareBatch(batch.map(parseJsonLine)) : pool.prepareLines(batch)),
    decide: (items) => dedup.decide(items),
    emit: () => undefined,
    ahead: pool === null ? 1 : 2,
  })
}
await measure('engine, 1 thread, memory store', async () => engineRun(await openMemoryStore(), null))
const workers = Number(values.workers)
const pool = await createPreparePool({ workers, blockScheme: { blocks: 4, minMatch: 1 }, maxContentLength: 10_000_000, expectVersion: analyzer.version })
await measure(`engine, ${workers} workers, memory store`, async () => engineRun(await openMemoryStore(), pool))

// Ratios come from interleaved rounds: each round times every workload back to back, and the
// ratio is taken per round (median over rounds). Machine speed drifts by 2× within minutes on a
// shared VM, so dividing two rows measured minutes apart would measure the drift.
async function rounds(workloads: Record<string, () => unknown>, n: number): Promise<Record<string, number>[]> {
  const out: Record<string, number>[] = []
  for (let r = 0; r < n; r++) {
    const times: Record<string, number> = {}
    for (const [name, fn] of Object.entries(workloads)) {
      const t = performance.now()
      await fn()
      times[name] = performance.now() - t
    }
    out.push(times)
  }
  return out
}
const ratioOf = (rs: Record<string, number>[], base: string, other: string) => median(rs.map((t) => t[base]! / t[other]!))
const n = Math.max(3, runs)
const main = await rounds({
  raw: () => normalized.forEach((t) => segmenter.cut(t)),
  pipeline: () => contents.forEach((c) => analyzer.analyze(c)),
  subRaw: () => simplifiedNorm.forEach((t) => segmenter.cut(t)),
  subPipeline: () => simplified.forEach((c) => analyzer.analyze(c)),
  engine1: async () => engineRun(await openMemoryStore(), null),
  engineN: async () => engineRun(await openMemoryStore(), pool),
}, n)
let wasmRatio: number | undefined
if (segName !== 'jieba-wasm') {
  const wasm = createJiebaWasmSegmenter()
  const wasmAnalyzer = createAnalyzer({ segmenter: wasm })
  wasmRatio = ratioOf(await rounds({ raw: () => normalized.forEach((t) => wasm.cut(t)), pipeline: () => contents.forEach((c) => wasmAnalyzer.analyze(c)) }, n), 'raw', 'pipeline')
}
await pool.close()
const ratios = {
  pipelineVsRawSeg: ratioOf(main, 'raw', 'pipeline'),
  simplifiedPipelineVsRawSeg: ratioOf(main, 'subRaw', 'subPipeline'),
  wasmPipelineVsRawWasm: wasmRatio,
  engineWorkersVsRawSeg: ratioOf(main, 'raw', 'engineN'),
  engineWorkersVsPipeline: ratioOf(main, 'pipeline', 'engineN'),
  engineWorkersVsEngine1: ratioOf(main, 'engine1', 'engineN'),
}
console.log(`\nratios (median of ${n} interleaved rounds; same documents, so time ratio = throughput ratio):`)
console.log(`pipeline / raw segmentation (${segName}, one core): ${ratios.pipelineVsRawSeg.toFixed(2)}× (target ≥ 0.7×)`)
console.log(`  on the ${simplified.length} Simplified-only docs: ${ratios.simplifiedPipelineVsRawSeg.toFixed(2)}×`)
if (wasmRatio !== undefined) console.log(`  with jieba-wasm as the segmenter (its pipeline / its raw cut): ${wasmRatio.toFixed(2)}×`)
console.log(`engine with ${workers} workers / one-core pipeline: ${ratios.engineWorkersVsPipeline.toFixed(2)}×; / engine on 1 thread: ${ratios.engineWorkersVsEngine1.toFixed(2)}×; / raw segmentation: ${ratios.engineWorkersVsRawSeg.toFixed(2)}× (target ≥ 1.8×)`)

let es: Record<string, number> | undefined
if (values.es !== undefined) {
  const { createElasticsearchStore } = await import('../src/store/elasticsearch.js')
  // Each run indexes the corpus into a fresh index, and fingerprint-only (the pipeline row above)
  // is timed again right before it: on a shared machine the load drifts within minutes, and a
  // ratio of two figures taken far apart would measure the drift.
  const pairs: { es: number; fingerprintOnly: number }[] = []
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now()
    contents.forEach((c) => analyzer.analyze(c))
    const fingerprintOnly = contents.length / ((performance.now() - t0) / 1000)
    const index = `simdup-bench-${process.pid}-${r}`
    const store = await createElasticsearchStore({ node: values.es, index })
    try {
      const t = performance.now()
      await engineRun(store, null)
      pairs.push({ es: contents.length / ((performance.now() - t) / 1000), fingerprintOnly })
    } finally {
      await store.client.indices.delete({ index }).catch(() => undefined)
      await store.close()
    }
  }
  const r = {
    docsPerSec: median(pairs.map((p) => p.es)),
    fingerprintOnlyDocsPerSec: median(pairs.map((p) => p.fingerprintOnly)),
    vsFingerprintOnly: median(pairs.map((p) => p.es / p.fingerprintOnly)),
  }
  es = r
  console.log(
    `\nelasticsearch end to end (1 thread, median of ${runs}): ${Math.round(r.docsPerSec)} docs/s; fingerprint-only timed next to each run ${Math.round(r.fingerprintOnlyDocsPerSec)} docs/s; ` +
      `ratio ${r.vsFingerprintOnly.toFixed(2)}× (per-run ${pairs.map((p) => (p.es / p.fingerprintOnly).toFixed(2)).join(', ')}; target ≥ 0.6×)`,
  )
}

if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ corpus: { docs: contents.length, chars, bytes }, rows, ratios, es }, null, 2))
