/**
 * Block schemes on a large Elasticsearch index (issue 13's 10 M bench, at the size the machine allows):
 * bulk-loads N synthetic fingerprint records shaped like the engine's into one index per scheme and
 * reports, per scheme, disk per document, candidates per lookup on the block route against the true
 * matches (distance ≤ 3), lookup latency per batch and per document (p50 / p99), and end-to-end
 * `simdup index` throughput against the loaded index.
 *
 *   npx tsx scripts/bench-es-scale.ts --n 2000000 [--url http://127.0.0.1:9220[,URL…]]
 *     [--schemes 4x16-m1,6x11-m3] [--queries 10000] [--batch 500] [--rounds 3] [--seed 1]
 *     [--shards 1] [--replicas 0] [--checkpoints 2500000,5000000]
 *     [--e2e FILE] [--e2e-docs 20000] [--no-forcemerge] [--json FILE]
 *
 * `--checkpoints`: sizes below --n at which the load pauses and the lookups are measured (as
 * loaded, without a force merge) before it goes on, so a run stopped early still gives figures and
 * a long run gives the growth. The lookups at size n are records n..n+Q-1 and the truth is over
 * records 0..n-1: each checkpoint measures what a run with `--n n` would. At --n the lookups are
 * measured as loaded and again after a force merge to one segment per shard, then the e2e runs.
 * Results are written to --json after each measurement.
 *
 * The records: fingerprints are drawn bit by bit with the per-bit bias of real SimHash fingerprints
 * (measured at start on the corpus, `.cache/corpus/docs.jsonl`: real fingerprints are far from
 * uniform, and a biased 16-bit block is shared by unrelated documents ~3× as often as a uniform
 * one), bits independent. 55 % of records are copies of an earlier record (uniform over those
 * before it, as in scripts/bench-stream.ts), in five equal kinds: exact (same fingerprint and
 * content hash), light edit (0–3 bits flipped), appended line (0–6), heavy edit (4–16), HTML-wrapped
 * (0–3). Every record has a URL hash, a MinHash sketch and 8 band terms (a copy keeps each of its
 * source's bands with a chance falling with the distance; the sketch has the engine's size), the engine's analyzer version and a
 * `seq`, so the index is one `simdup index` can open and write to.
 *
 * Lookups are the next `--queries` records of the same stream (not loaded), block route only (no
 * keys, no bands: the scheme is what is compared), asked through the store's `candidates` in batches
 * of `--batch` (one `_msearch` each, as the engine asks), the schemes' batches timed in alternation
 * so that other load weighs on both alike. True matches come from an in-memory pigeonhole index
 * (exact), checked against a brute-force scan for the first 200 lookups.
 *
 * `--e2e FILE` (default: the 100 k stream of scripts/bench-stream.ts, when it exists): after the
 * lookups, the first `--e2e-docs` documents of FILE are indexed with `simdup index` (the CLI's job
 * code, in a child process, `--workers 2`) into the loaded index with that scheme's flags, and into
 * an empty index, and docs/s of both are reported.
 *
 * Needs a running node (`ES_PORT=9220 ES_HEAP=2g npm run es:start`) or cluster
 * (`ES_NODES=3 ES_PORT=9270 ES_HEAP=1g npm run es:start`, its URLs as --url); indices are named
 * simdup-bench-scale-<scheme>-<pid> and deleted at the end.
 */
import { spawnSync } from 'node:child_process'
import { createReadStream, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createElasticsearchStore, type ElasticsearchStore } from '../src/elasticsearch/store.js'
import { createAnalyzer } from '../src/fingerprint/analyzer.js'
import { fingerprintBlocks, type BlockScheme } from '../src/fingerprint/blocks.js'
import { popcount32 } from '../src/fingerprint/hamming.js'
import { SKETCH_BINS } from '../src/fingerprint/minhash.js'
import type { CandidateQuery, FingerprintRecord } from '../src/types.js'
import { Rng } from './eval/prng.js'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000000' },
    url: { type: 'string' },
    schemes: { type: 'string', default: '4x16-m1,6x11-m3' },
    queries: { type: 'string', default: '10000' },
    batch: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    e2e: { type: 'string' },
    'e2e-docs': { type: 'string', default: '20000' },
    'no-forcemerge': { type: 'boolean', default: false },
    'bulk-size': { type: 'string', default: '5000' },
    shards: { type: 'string', default: '1' },
    replicas: { type: 'string', default: '0' },
    checkpoints: { type: 'string' },
    json: { type: 'string' },
    child: { type: 'string' },
  },
})

// ---------------------------------------------------------------- e2e child: one `simdup index` run

if (values.child !== undefined) {
  const { file, url, index, docs, flags } = JSON.parse(values.child) as { file: string; url: string; index: string; docs: number; flags: string[] }
  const { indexCommand } = await import('../src/cli/commands/index-jsonl.js')
  const dir = mkdtempSync(join(os.tmpdir(), 'simdup-bench-scale-e2e-'))
  // The first `docs` lines of the stream, as their own file (its size decides --workers auto; we pass 2).
  const input = join(dir, 'input.jsonl')
  const lines: string[] = []
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (lines.length >= docs) break
    lines.push(line)
  }
  writeFileSync(input, lines.join('\n') + '\n')
  const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() }
  const t0 = performance.now()
  const code = await indexCommand([input, '--es', url, '--index', index, '--out', join(dir, 'out.jsonl'), '--workers', '2', '--quiet', ...flags], io)
  const seconds = (performance.now() - t0) / 1000
  rmSync(dir, { recursive: true, force: true })
  if (code !== 0) throw new Error(`simdup index exited ${code}`)
  process.stdout.write(`\n@@RESULT ${JSON.stringify({ docs: lines.length, seconds, docsPerSecond: lines.length / seconds })}\n`)
  process.exit(0)
}

/** Sizes at which the load pauses to measure (the last is N): a partial run still gives figures and the growth. */
const CHECKPOINTS = [...new Set([...(values.checkpoints ?? '').split(',').filter((c) => c !== '').map(Number), Number(values.n)])].sort((a, b) => a - b)
if (CHECKPOINTS.some((c) => !Number.isInteger(c) || c < 1 || c > Number(values.n))) throw new Error(`--checkpoints takes sizes from 1 to --n, got ${values.checkpoints}`)
const N = Number(values.n)
const SHARDS = Number(values.shards)
const REPLICAS = Number(values.replicas)
const Q = Number(values.queries)
const BATCH = Number(values.batch)
const ROUNDS = Number(values.rounds)
const BULK = Number(values['bulk-size'])
const URL_ = values.url ?? process.env.ES_URL ?? 'http://127.0.0.1:9200'
/** The first node's URL, for the plain HTTP calls (URL_ may list every node, comma-separated). */
const FIRST_URL = URL_.split(',')[0]!.trim()
const LAYOUT_FLAGS = ['--shards', String(SHARDS), '--replicas', String(REPLICAS)]
const MAX_DISTANCE = 3
const here = fileURLToPath(import.meta.url)
const log = (line: string): void => console.error(line)
const loadAvg = (): number => Number(os.loadavg()[0]!.toFixed(2))

const SCHEMES: { name: string; scheme: BlockScheme; flags: string[] }[] = [
  { name: '4x16-m1', scheme: { blocks: 4, minMatch: 1 }, flags: ['--blocks', '4', '--min-match', '1'] },
  { name: '6x11-m3', scheme: { blocks: 6, minMatch: 3 }, flags: ['--blocks', '6', '--min-match', '3'] },
]
const wanted = values.schemes.split(',')
const schemes = SCHEMES.filter((s) => wanted.includes(s.name))

// ---------------------------------------------------------------- calibration: per-bit bias of real fingerprints

const analyzer = createAnalyzer({})
const corpus = fileURLToPath(new URL('../.cache/corpus/docs.jsonl', import.meta.url))
const bias = new Float64Array(64).fill(0.5) // P(bit = 1), bit 0 = lowest bit of `lo`
if (existsSync(corpus)) {
  const ones = new Float64Array(64)
  let count = 0
  for await (const line of createInterface({ input: createReadStream(corpus), crlfDelay: Infinity })) {
    if (line.trim() === '') continue
    const fp = analyzer.analyze((JSON.parse(line) as { content: string }).content).fingerprint
    for (let b = 0; b < 32; b++) {
      ones[b]! += (fp.lo >>> b) & 1
      ones[32 + b]! += (fp.hi >>> b) & 1
    }
    count++
  }
  for (let b = 0; b < 64; b++) bias[b] = ones[b]! / count
  const pairDiff = bias.reduce((s, p) => s + 2 * p * (1 - p), 0)
  log(`calibration: ${count} corpus documents; per-bit bias ${Math.min(...bias).toFixed(2)}–${Math.max(...bias).toFixed(2)}, mean distance of unrelated pairs ${pairDiff.toFixed(1)} bits (32 if uniform)`)
} else {
  log(`calibration: ${corpus} is missing; uniform bits (run \`npm run corpus\` for realistic ones)`)
}

// ---------------------------------------------------------------- the record stream

const rng = new Rng(Number(values.seed))
const rand = (): number => rng.next()
const int = (k: number): number => Math.floor(rand() * k)
const u32 = (): number => Math.floor(rand() * 4294967296) >>> 0
const hex8 = (x: number): string => (x >>> 0).toString(16).padStart(8, '0')

const total = N + Q
const HI = new Uint32Array(total)
const LO = new Uint32Array(total)
/** Index of the record whose content hash this one shares (itself unless an exact copy). */
const CONTENT = new Int32Array(total)
/** Band terms of each record: 8 × u32 (the band's hash). */
const BANDS = new Uint32Array(total * 8)
const KIND_DISTANCE: [number, number][] = [[0, 0], [0, 3], [0, 6], [4, 16], [0, 3]] // exact, light, appended, heavy, html

for (let i = 0; i < total; i++) {
  if (i > 0 && rand() < 0.55) {
    const from = int(i)
    const kind = int(5)
    const [lo, hi] = KIND_DISTANCE[kind]!
    const d = lo + int(hi - lo + 1)
    let h = HI[from]!
    let l = LO[from]!
    const bits = new Set<number>()
    while (bits.size < d) bits.add(int(64))
    for (const b of bits) {
      if (b >= 32) h = (h ^ (1 << (b - 32))) >>> 0
      else l = (l ^ (1 << b)) >>> 0
    }
    HI[i] = h
    LO[i] = l
    CONTENT[i] = kind === 0 ? CONTENT[from]! : i
    // A band survives an edit of d bits with a chance falling with d (exact: all of them).
    for (let b = 0; b < 8; b++) BANDS[i * 8 + b] = rand() < 1 - d / 20 ? BANDS[from * 8 + b]! : u32()
  } else {
    let h = 0
    let l = 0
    for (let b = 0; b < 32; b++) {
      if (rand() < bias[b]!) l |= 1 << b
      if (rand() < bias[32 + b]!) h |= 1 << b
    }
    HI[i] = h >>> 0
    LO[i] = l >>> 0
    CONTENT[i] = i
    for (let b = 0; b < 8; b++) BANDS[i * 8 + b] = u32()
  }
}

const T_BASE = Date.UTC(2026, 0, 1)
function recordAt(i: number, scheme: BlockScheme): FingerprintRecord {
  const fingerprint = { hi: HI[i]!, lo: LO[i]! }
  // The engine's sketch: one bit of each of SKETCH_BINS minima, as hex words (a copy shares most of it).
  let sketch = 'm:'
  for (let w = 0; w < SKETCH_BINS / 32; w++) sketch += hex8(Math.imul(BANDS[i * 8 + (w % 8)]! ^ w, 0x9e3779b1))
  const bands: string[] = []
  for (let b = 0; b < 8; b++) bands.push(`m${b}_${hex8(BANDS[i * 8 + b]!)}`)
  return {
    id: `s${i}`,
    fingerprint,
    blocks: fingerprintBlocks(fingerprint, scheme),
    contentHash: hex8(CONTENT[i]!) + hex8(Math.imul(CONTENT[i]!, 0x9e3779b1)),
    urlHash: hex8(i) + hex8(Math.imul(i, 0x85ebca6b)),
    titleHash: null,
    short: false,
    clusterId: `s${CONTENT[i]}`,
    duplicateOf: null,
    distance: null,
    layer: null,
    version: analyzer.version,
    indexedAt: T_BASE + Math.floor(i / 500) * 1000,
    seq: i + 1,
    sketch,
    bands,
  }
}

// ---------------------------------------------------------------- truth: records within k of each lookup

/** For lookups n..n+Q-1: the records 0..n-1 within MAX_DISTANCE, by a 4 × 16-bit pigeonhole index (exact). */
function buildTruth(n: number): number[][] {
  const t0 = performance.now()
  // Postings per (block position, 16-bit value), as a counting-sorted array.
  const start = new Int32Array(4 * 65536 + 1)
  const blockOf = (i: number, p: number): number => (p < 2 ? (HI[i]! >>> (16 * (1 - p))) & 0xffff : (LO[i]! >>> (16 * (3 - p))) & 0xffff)
  for (let i = 0; i < n; i++) for (let p = 0; p < 4; p++) start[p * 65536 + blockOf(i, p) + 1]!++
  for (let k = 1; k < start.length; k++) start[k]! += start[k - 1]!
  const fill = start.slice(0, -1)
  const post = new Int32Array(4 * n)
  for (let i = 0; i < n; i++) for (let p = 0; p < 4; p++) post[fill[p * 65536 + blockOf(i, p)]!++] = i
  const truth: number[][] = []
  for (let q = n; q < n + Q; q++) {
    const found = new Set<number>()
    for (let p = 0; p < 4; p++) {
      const key = p * 65536 + blockOf(q, p)
      for (let k = start[key]!; k < start[key + 1]!; k++) {
        const i = post[k]!
        if (popcount32((HI[i]! ^ HI[q]!) >>> 0) + popcount32((LO[i]! ^ LO[q]!) >>> 0) <= MAX_DISTANCE) found.add(i)
      }
    }
    truth.push([...found])
  }
  // The pigeonhole index against a plain scan, for the first lookups.
  for (let q = n; q < Math.min(n + Q, n + 200); q++) {
    let brute = 0
    for (let i = 0; i < n; i++) if (popcount32((HI[i]! ^ HI[q]!) >>> 0) + popcount32((LO[i]! ^ LO[q]!) >>> 0) <= MAX_DISTANCE) brute++
    if (brute !== truth[q - n]!.length) throw new Error(`truth index disagrees with a scan at lookup ${q - n}: ${truth[q - n]!.length} vs ${brute}`)
  }
  log(`truth at ${n}: ${truth.reduce((s, t) => s + t.length, 0)} records within ${MAX_DISTANCE} of ${Q} lookups (${((performance.now() - t0) / 1000).toFixed(1)} s)`)
  return truth
}

// ---------------------------------------------------------------- per scheme: load, look up, e2e

function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}
const round = (x: number, d = 2): number => Number(x.toFixed(d))

async function storeBytes(store: ElasticsearchStore, index: string): Promise<{ bytes: number; segments: number }> {
  const stats = await store.client.indices.stats({ index, metric: ['store', 'segments'] })
  const p = stats._all.primaries
  return { bytes: p?.store?.size_in_bytes ?? NaN, segments: p?.segments?.count ?? NaN }
}

interface Loaded {
  name: string
  scheme: BlockScheme
  flags: string[]
  index: string
  store: ElasticsearchStore
  /** Records 0..loadedTo-1 are in the index. */
  loadedTo: number
  loadSeconds: number
}

const opened: { store: ElasticsearchStore; index: string }[] = []
const LOADING = { refresh_interval: '-1', translog: { durability: 'async' as const, sync_interval: '30s' } }

async function open(name: string, scheme: BlockScheme, flags: string[]): Promise<Loaded> {
  const index = `simdup-bench-scale-${name}-${process.pid}`
  const store = await createElasticsearchStore({
    node: URL_, index, bulkSize: BULK, concurrency: 2, pendingTtlMs: 0, requestTimeoutMs: 600_000, shards: SHARDS, replicas: REPLICAS,
  })
  opened.push({ store, index })
  await store.client.indices.putSettings({ index, settings: { index: LOADING } })
  return { name, scheme, flags: [...flags, ...LAYOUT_FLAGS], index, store, loadedTo: 0, loadSeconds: 0 }
}

/** Loads records l.loadedTo..to-1 (refresh off, async translog while loading). */
async function loadTo(l: Loaded, to: number): Promise<void> {
  await l.store.client.indices.putSettings({ index: l.index, settings: { index: LOADING } })
  const t0 = performance.now()
  const first = l.loadedTo
  const CHUNK = BULK * 4
  for (let from = first; from < to; from += CHUNK) {
    const records: FingerprintRecord[] = []
    for (let i = from; i < Math.min(to, from + CHUNK); i++) records.push(recordAt(i, l.scheme))
    const result = await l.store.put(records)
    if (result.failed.length > 0) throw new Error(`${result.failed.length} records failed, first: ${result.failed[0]!.error.message}`)
    l.loadedTo = from + records.length
    if (((from - first) / CHUNK) % 25 === 0) {
      log(`  ${l.name}: ${l.loadedTo} / ${N} loaded (${Math.round((l.loadedTo - first) / ((performance.now() - t0) / 1000))} docs/s since ${first}, load average ${loadAvg()}, ${new Date().toISOString().slice(11, 19)} UTC)`)
    }
  }
  l.loadSeconds += (performance.now() - t0) / 1000
  await l.store.client.indices.putSettings({ index: l.index, settings: { index: { refresh_interval: '1s', translog: { durability: 'request' } } } })
  await l.store.refresh()
  await l.store.client.indices.flush({ index: l.index })
}

function e2e(index: string, flags: string[], file: string, docs: number): { docs: number; seconds: number; docsPerSecond: number } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', here, '--child', JSON.stringify({ file, url: URL_, index, docs, flags })], {
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 26,
  })
  if (r.status !== 0) throw new Error(`e2e run into ${index} failed with ${r.status}`)
  const line = r.stdout.toString().split('\n').find((l) => l.startsWith('@@RESULT '))
  if (line === undefined) throw new Error('e2e run printed no result')
  return JSON.parse(line.slice('@@RESULT '.length)) as { docs: number; seconds: number; docsPerSecond: number }
}

/** Lookups n..n+Q-1 against every loaded index, the schemes' batches alternated; one answer list per scheme (round 0). */
async function lookUp(loaded: Loaded[], n: number): Promise<{ batchMs: Map<string, number[]>; answers: Map<string, number[][]> }> {
  const batchMs = new Map<string, number[]>(loaded.map((l) => [l.name, []]))
  const answers = new Map<string, number[][]>(loaded.map((l) => [l.name, []]))
  const queries = new Map<string, CandidateQuery[]>()
  for (const l of loaded) {
    const list: CandidateQuery[] = []
    for (let q = n; q < n + Q; q++) {
      const fingerprint = { hi: HI[q]!, lo: LO[q]! }
      list.push({ fingerprint, blocks: fingerprintBlocks(fingerprint, l.scheme), minMatch: l.scheme.minMatch, maxDistance: MAX_DISTANCE })
    }
    queries.set(l.name, list)
  }
  const loadBefore = loadAvg()
  for (const l of loaded) await l.store.candidates(queries.get(l.name)!.slice(0, BATCH)) // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < Q; i += BATCH) {
      for (const l of r % 2 === 0 ? loaded : [...loaded].reverse()) {
        const t = performance.now()
        const got = await l.store.candidates(queries.get(l.name)!.slice(i, i + BATCH))
        batchMs.get(l.name)!.push(performance.now() - t)
        if (r === 0) answers.get(l.name)!.push(...got.map((a) => a.map((rec) => Number(rec.id.slice(1)))))
      }
    }
  }
  log(`lookups at ${n}: ${ROUNDS} rounds of ${Q} in batches of ${BATCH}; load average ${loadBefore} → ${loadAvg()}`)
  return { batchMs, answers }
}

const results: Record<string, unknown>[] = []
const e2eFile = values.e2e ?? join(os.tmpdir(), 'simdup-bench-stream-100000-1.jsonl')
const e2eDocs = Number(values['e2e-docs'])
const writeJson = (): void => {
  if (values.json !== undefined) {
    writeFileSync(values.json, JSON.stringify({ n: N, checkpoints: CHECKPOINTS, shards: SHARDS, replicas: REPLICAS, queries: Q, batch: BATCH, rounds: ROUNDS, seed: Number(values.seed), bias: Array.from(bias), results }, null, 2))
  }
}
try {
  const loaded: Loaded[] = []
  for (const s of schemes) loaded.push(await open(s.name, s.scheme, s.flags))
  log(`${schemes.map((s) => s.name).join(', ')} into ${SHARDS} shard(s), ${REPLICAS} replica(s) on ${URL_}; checkpoints ${CHECKPOINTS.join(', ')}; load average ${loadAvg()} on ${os.availableParallelism()} cores`)
  for (const n of CHECKPOINTS) {
    const final = n === N
    for (const l of loaded) await loadTo(l, n)
    const sizes = new Map<string, { bytes: number; segments: number }>()
    for (const l of loaded) {
      sizes.set(l.name, await storeBytes(l.store, l.index))
      log(`  ${l.name}: ${n} loaded in ${l.loadSeconds.toFixed(0)} s (${Math.round(n / l.loadSeconds)} docs/s), ${(sizes.get(l.name)!.bytes / n).toFixed(0)} B/doc in ${sizes.get(l.name)!.segments} segments`)
    }
    const truth = buildTruth(n)
    const trueCount = truth.map((t) => t.length)
    // Every checkpoint is measured as loaded (many segments); the last one also after a force merge
    // to one segment per shard, as the rows measured before.
    const passes: boolean[] = final && !values['no-forcemerge'] ? [false, true] : [false]
    for (const mergedPass of passes) {
      const merged = new Map<string, { bytes: number; segments: number; seconds: number }>()
      if (mergedPass) {
        for (const l of loaded) {
          const m0 = performance.now()
          await l.store.client.indices.forcemerge({ index: l.index, max_num_segments: 1 }, { requestTimeout: 3_600_000 })
          merged.set(l.name, { ...(await storeBytes(l.store, l.index)), seconds: (performance.now() - m0) / 1000 })
          log(`  ${l.name}: force merge ${merged.get(l.name)!.seconds.toFixed(0)} s, ${(merged.get(l.name)!.bytes / n).toFixed(0)} B/doc`)
        }
      }
      const { batchMs, answers } = await lookUp(loaded, n)
      const runE2e = final && mergedPass === passes[passes.length - 1]
      const baseline = runE2e && existsSync(e2eFile) && loaded.length > 0 ? e2e(`simdup-bench-scale-empty-${process.pid}`, loaded[0]!.flags, e2eFile, e2eDocs) : null
      if (baseline !== null) log(`e2e into an empty index (${loaded[0]!.name}): ${Math.round(baseline.docsPerSecond)} docs/s`)
      for (const l of loaded) {
        const got = answers.get(l.name)!
        const cand = Float64Array.from(got, (a) => a.length).sort()
        let recalled = 0
        let trueTotal = 0
        const falses: number[] = []
        got.forEach((a, qi) => {
          const want = new Set(truth[qi]!)
          trueTotal += want.size
          let f = 0
          for (const id of a) {
            if (want.has(id)) recalled++
            else f++
          }
          falses.push(f)
        })
        const falseSorted = Float64Array.from(falses).sort()
        const fetched = cand.reduce((s, x) => s + x, 0)
        const lat = Float64Array.from(batchMs.get(l.name)!).sort()
        const perDoc = Float64Array.from(lat, (x) => x / BATCH)
        const run = runE2e && existsSync(e2eFile) ? e2e(l.index, l.flags, e2eFile, e2eDocs) : null
        if (run !== null) log(`e2e into the loaded ${l.name} index: ${Math.round(run.docsPerSecond)} docs/s`)
        const size = sizes.get(l.name)!
        const m = merged.get(l.name)
        const result = {
          scheme: l.name,
          docs: n,
          forceMerged: mergedPass,
          loadDocsPerSecond: Math.round(n / l.loadSeconds),
          bytesPerDoc: round(size.bytes / n, 1),
          segments: size.segments,
          mergedBytesPerDoc: m === undefined ? null : round(m.bytes / n, 1),
          mergeSeconds: m === undefined ? null : Math.round(m.seconds),
          lookups: Q,
          candidates: { mean: round(fetched / Q), p50: quantile(cand, 0.5), p99: quantile(cand, 0.99), max: cand[cand.length - 1] },
          trueMatches: { mean: round(trueTotal / Q), p99: quantile(Float64Array.from(trueCount).sort(), 0.99) },
          beyondK: { mean: round(falses.reduce((s, x) => s + x, 0) / Q), p50: quantile(falseSorted, 0.5), p99: quantile(falseSorted, 0.99) },
          candidatesPerTrueMatch: round(fetched / Math.max(1, trueTotal)),
          recall: trueTotal === 0 ? 1 : recalled / trueTotal,
          batchMs: { p50: round(quantile(lat, 0.5), 1), p99: round(quantile(lat, 0.99), 1), batches: lat.length },
          perDocMs: { p50: round(quantile(perDoc, 0.5), 3), p99: round(quantile(perDoc, 0.99), 3) },
          e2eDocsPerSecond: run === null ? null : Math.round(run.docsPerSecond),
          e2eEmptyDocsPerSecond: baseline === null ? null : Math.round(baseline.docsPerSecond),
          loadAverage: loadAvg(),
        }
        log(`  ${JSON.stringify(result)}`)
        results.push(result)
        writeJson()
      }
    }
  }
} finally {
  for (const { store, index } of opened) {
    await store.client.indices.delete({ index }, { ignore: [404] }).catch(() => undefined)
    await store.close()
  }
  await fetch(`${FIRST_URL}/simdup-bench-scale-empty-${process.pid}`, { method: 'DELETE' }).catch(() => undefined)
}

console.log(`| scheme | docs | B/doc (merged) | candidates / lookup mean · p50 · p99 | true / lookup | beyond k mean · p99 | cand. / true | recall | batch of ${BATCH} p50 / p99 ms | per doc p50 / p99 ms | simdup index docs/s (empty index) |`)
console.log('|---|---|---|---|---|---|---|---|---|---|---|')
for (const r of results) {
  const c = r.candidates as { mean: number; p50: number; p99: number }
  const t = r.trueMatches as { mean: number }
  const b = r.beyondK as { mean: number; p99: number }
  const l = r.batchMs as { p50: number; p99: number }
  const d = r.perDocMs as { p50: number; p99: number }
  console.log(
    `| ${String(r.scheme)} | ${String(r.docs)}${r.forceMerged === true ? ' (merged)' : ''} | ${String(r.bytesPerDoc)} (${String(r.mergedBytesPerDoc ?? '–')}) | ${c.mean} · ${c.p50} · ${c.p99} | ${t.mean} | ${b.mean} · ${b.p99} | ${String(r.candidatesPerTrueMatch)} | ${(Number(r.recall) * 100).toFixed(2)} % | ${l.p50} / ${l.p99} | ${d.p50} / ${d.p99} | ${String(r.e2eDocsPerSecond ?? '–')} (${String(r.e2eEmptyDocsPerSecond ?? '–')}) |`,
  )
}
writeJson()
