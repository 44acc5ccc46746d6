/**
 * Per-document cost as the index grows: `simdup index` (the CLI's own job code, in-process, with a
 * worker pool as `--workers auto` picks for these file sizes) on a generated stream of documents
 * that share content the way real corpora do.
 *
 *   npx tsx scripts/bench-stream.ts [--n 100000] [--seed 1] [--workers 2] [--es URL]
 *     [--runs minhash,no-minhash[,minhash/nocheck,minhash/load4]] [--interleave N] [--entry-cache N] [--sample 10] [--index-args="--blocks 6 --min-match 3"] [--json FILE]
 *
 * The stream: a pool of real Chinese sentences (`.cache/corpus/docs.jsonl`, zh_CN documents, split after
 * 。！？; 8–80 characters with ≥ 4 Han characters, distinct); each original is 4–14 sentences drawn from
 * it (the zh_CN documents' sentences: ~40,000), and ~55 % of documents are copies of an earlier document (uniform over those before it), in
 * five kinds of equal share: exact, light edit (2–4 characters replaced), an appended line, heavy
 * edit (a third of the sentences replaced, one dropped), HTML-wrapped (page chrome around `<p>`
 * lines). The file is written once per (n, seed) under the OS temp directory and reused.
 *
 * Each run (`minhash`: default settings; `no-minhash`: `--no-minhash`) is a separate child process
 * (its own peak RSS) on a fresh store. With more than one run they are interleaved: all start, and
 * take turns of n / `--interleave` documents (each process stops itself, worker threads included,
 * and the driver continues the next), so both meet the load of the same minutes on a shared
 * machine; time stopped is left out of every figure (`--interleave 0`: one run after the other).
 * Stores: an embedded store in a temp directory, or with --es a fresh
 * index `simdup-bench-stream-<pid>` that is deleted afterwards. Reported per run: wall time and
 * docs/s of the whole job (startup included), docs/s of the first and the last 10 % of the
 * documents (from the first decided batch on), candidates per lookup (mean, p50, p99, max: every
 * document, over all its lookups: the embedded store is asked for band terms apart; and by the route that brought them: exact key, block route, band term only), log reads,
 * milliseconds of store lookups and CPU milliseconds (this process; the Elasticsearch node) per
 * document in those segments, and verified
 * matches per lookup (candidates `matchCandidate` accepts; every `--sample`-th
 * lookup), candidates sharing no key and farther than k (`beyondK`: on the embedded store, the band
 * route's own), duplicates found (and by the MinHash rule), peak RSS, and on Elasticsearch what the
 * hot band cache holds and how far back its answers reach. A single run cut in slices
 * (`--interleave N`) writes its figures so far to --json after each slice.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { streamFile } from './stream/shared-sentences.js'
import type { FingerprintRecord } from '../src/types.js'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    workers: { type: 'string', default: '2' },
    es: { type: 'string' },
    runs: { type: 'string', default: 'minhash,no-minhash' },
    sample: { type: 'string', default: '10' },
    /** Extra `simdup index` flags for every run, space-separated (e.g. a block scheme). */
    'index-args': { type: 'string', default: '' },
    /** Slices per run (default 20 when several run, else 0): each child stops itself after every slice and the next goes on (0: one after the other); each round writes the figures so far to --json. */
    interleave: { type: 'string' },
    /** Slots of the embedded store's cache of log entries (default: the store's; 0: none). */
    'entry-cache': { type: 'string' },
    json: { type: 'string' },
    child: { type: 'string' },
  },
})

const here = fileURLToPath(import.meta.url)

// ---------------------------------------------------------------- one run (child process)

interface RunConfig {
  input: string
  n: number
  minhash: boolean
  workers: number
  es?: string
  sample: number
  indexArgs: string[]
  /** The run's name as given to `--runs`. */
  name: string
  /** Slots of the embedded store's entry cache (undefined: the store's default). */
  entryCache?: number
  /** Strip `bandCheck` from every lookup (the store returns every band-route record whole, as before it). */
  noCheck?: boolean
  /** Rows per bucket of the embedded store's band indexes (undefined: the store's). */
  bandLoad?: number
  /** Stop after every n / slices decided documents (and before starting) until the driver continues this process; 0: never. */
  slices: number
}

interface RunResult {
  run: string
  store: string
  indexArgs: string
  docs: number
  wallSeconds: number
  docsPerSecond: number
  first10DocsPerSecond: number
  last10DocsPerSecond: number
  endVsStart: number
  /** Log reads (embedded store) and milliseconds in store.candidates per document. */
  first10PerDoc: PerDoc
  last10PerDoc: PerDoc
  lookups: number
  candidates: { mean: number; p50: number; p99: number; max: number }
  /** Candidates per lookup by the route that brought them (see `routeOf`). */
  byRoute: Record<Route, { mean: number; p50: number; p99: number; max: number }>
  beyondKCandidates: { mean: number; p50: number; p99: number; max: number }
  verified: { sampled: number; mean: number; p50: number; p99: number; max: number }
  duplicates: number
  minhashDuplicates: number
  peakRssMB: number
  /** Elasticsearch: the hot band cache at the end (see `HotCacheStats`). */
  hotCache?: HotCacheStats
}

/**
 * The Elasticsearch store's hot band cache: terms and records held (and distinct ids among them),
 * lookups of a term asked of it and answered, and of those answers how many came from entries filled
 * more than 10,000 / 25,000 / 50,000 fills before (a cache holding only that many newest entries
 * would have missed them).
 */
interface HotCacheStats { terms: number; records: number; distinctIds: number; gets: number; hits: number; hitsOlderThan: Record<string, number> }

/**
 * A point of the run, after a decided batch: the clock, documents decided, the store's log reads
 * and entry-cache hits (embedded), milliseconds in store lookups, CPU milliseconds of this process
 * (worker threads included) and of the Elasticsearch node (all of its work, other clients'
 * included: asked after the batch without waiting, NaN until answered). CPU time grows with the
 * work done, where wall time on a shared machine also grows with the load.
 */
interface Mark { t: number; docs: number; reads: number; hits: number; lookupMs: number; cpuMs: number; esCpuMs: number }

/** Per document between two marks: log reads, entry-cache hits, lookup ms, CPU ms of this process and of the Elasticsearch node (null on the embedded store). */
interface PerDoc { reads: number; cacheHits: number; lookupMs: number; cpuMs: number; esCpuMs: number | null }

/** What a run measured so far (see `runChild`). */
interface Measured {
  marks: Mark[]
  candidates: Uint32Array
  byRoute: Record<Route, Uint32Array>
  beyondK: Uint32Array
  verified: number[]
  lookups: number
  decided: number
  duplicates: number
  minhashDuplicates: number
}

function percentiles(xs: Uint32Array | number[]): { mean: number; p50: number; p99: number; max: number } {
  const a = Float64Array.from(xs).sort()
  if (a.length === 0) return { mean: 0, p50: 0, p99: 0, max: 0 }
  let sum = 0
  for (const x of a) sum += x
  const at = (q: number): number => a[Math.min(a.length - 1, Math.floor(q * a.length))]!
  return { mean: Math.round((sum / a.length) * 100) / 100, p50: at(0.5), p99: at(0.99), max: a[a.length - 1]! }
}

async function runChild(c: RunConfig): Promise<void> {
  const { indexCommand } = await import('../src/cli/commands/index-jsonl.js')
  const { HotBandCache } = await import('../src/elasticsearch/_hot-bands.js')
  // Each entry's fill number, to tell how far back the entries that answer are.
  const hot = { gets: 0, hits: 0, fills: 0, filled: new Map<string, number>(), olderThan: { '10000': 0, '25000': 0, '50000': 0 } as Record<string, number>, caches: new Set<object>() }
  const hotProto = HotBandCache.prototype
  const hotGet = hotProto.get
  const hotSet = hotProto.set
  hotProto.set = function (this: InstanceType<typeof HotBandCache>, term, searched, unseen) {
    hot.caches.add(this)
    hot.filled.set(term, ++hot.fills)
    return hotSet.call(this, term, searched, unseen)
  }
  hotProto.get = function (this: InstanceType<typeof HotBandCache>, term) {
    const held = hotGet.call(this, term)
    hot.gets++
    if (held !== undefined) {
      hot.hits++
      const age = hot.fills - (hot.filled.get(term) ?? hot.fills)
      for (const k of Object.keys(hot.olderThan)) if (age > Number(k)) hot.olderThan[k]!++
    }
    return held
  }
  const hotStats = (): HotCacheStats | undefined => {
    const cache = [...hot.caches][0] as unknown as { entries: Map<string, { records: { id: string }[] }> } | undefined
    if (cache === undefined) return undefined
    let records = 0
    const ids = new Set<string>()
    for (const e of cache.entries.values()) {
      records += e.records.length
      for (const r of e.records) ids.add(r.id)
    }
    return { terms: cache.entries.size, records, distinctIds: ids.size, gets: hot.gets, hits: hot.hits, hitsOlderThan: { ...hot.olderThan } }
  }
  const { Deduplicator } = await import('../src/engine/deduplicator.js')
  const { matchCandidate, candidateQuery } = await import('../src/engine/match.js')
  const { LogReader } = await import('../src/store/embedded/_log-reader.js')
  if (c.entryCache !== undefined) LogReader.cacheEntries = c.entryCache
  if (c.bandLoad !== undefined) (await import('../src/store/embedded/_bands.js')).BandStore.load = c.bandLoad
  // Positional reads of the embedded store's log (each a readSync): read-backs and confirmations.
  let reads = 0
  const proto = LogReader.prototype as unknown as { fill: (...a: unknown[]) => void }
  const fill = proto.fill
  // Every reader that read: their `hits` (random reads served from the entry cache) are summed at each mark.
  const readers = new Set<InstanceType<typeof LogReader>>()
  proto.fill = function (this: InstanceType<typeof LogReader>, ...a: unknown[]) {
    reads++
    readers.add(this)
    return fill.apply(this, a)
  }
  const cacheHits = (): number => {
    let hits = 0
    for (const r of readers) hits += r.hits
    return hits
  }
  let lookupMs = 0
  // Interleaved runs: the process stops itself (every thread, the prepare workers too) and the
  // driver continues the other run; time stopped is left out of every figure (`clock`).
  let stopped = 0
  const clock = (): number => performance.now() - stopped
  let t0 = 0
  let slice = 0
  const pause = async (): Promise<void> => {
    if (c.slices <= 0) return
    // What the run has measured so far, for a run that will not finish in the time there is.
    if (marks.length > 1) {
      const wall = (clock() - t0) / 1000
      await Promise.all(esCpu)
      process.stdout.write(`@@PROGRESS ${JSON.stringify(summary(decided, wall))}\n`)
    }
    const t = performance.now()
    process.stdout.write(`@@PAUSE ${slice++}\n`)
    process.kill(process.pid, 'SIGSTOP')
    stopped += performance.now() - t
  }
  const esCpu: Promise<void>[] = []
  const mark = (docs: number): Mark => {
    const usage = process.cpuUsage()
    const m: Mark = { t: clock(), docs, reads, hits: cacheHits(), lookupMs, cpuMs: (usage.user + usage.system) / 1000, esCpuMs: Number.NaN }
    if (c.es !== undefined) {
      esCpu.push(
        fetch(`${c.es}/_nodes/_local/stats/process?filter_path=nodes.*.process.cpu.total_in_millis`)
          .then(async (r) => (await r.json()) as { nodes: Record<string, { process: { cpu: { total_in_millis: number } } }> })
          .then((r) => void (m.esCpuMs = Object.values(r.nodes)[0]!.process.cpu.total_in_millis))
          .catch(() => undefined),
      )
    }
    return m
  }
  type Dedup = InstanceType<typeof Deduplicator>
  type Items = Parameters<Dedup['decide']>[0]

  const candidates = new Uint32Array(c.n)
  const byRoute: Record<Route, Uint32Array> = { key: new Uint32Array(c.n), block: new Uint32Array(c.n), band: new Uint32Array(c.n) }
  const beyondK = new Uint32Array(c.n)
  const verified: number[] = []
  let lookups = 0
  const marks: Mark[] = []
  let decided = 0
  let duplicates = 0
  let minhashDuplicates = 0
  const summary = (size: number, wall: number): RunResult => {
    const r = summarize(c, { marks, candidates, byRoute, beyondK, verified, lookups, decided, duplicates, minhashDuplicates }, size, wall)
    const h = hotStats()
    if (h !== undefined) r.hotCache = h
    return r
  }
  const wrapped = new WeakSet<object>()
  /** Candidates of each document of the batch being decided, by id. */
  const found = new Map<string, FingerprintRecord[]>()
  const decide = Deduplicator.prototype.decide
  Deduplicator.prototype.decide = async function (this: Dedup, items: Items) {
    if (marks.length === 0) marks.push(mark(0))
    const store = this.options.store
    const o = this.options
    const docs = items.flatMap((it) => (it.ok ? [it.doc] : []))
    if (!wrapped.has(store)) {
      wrapped.add(store)
      const original = store.candidates.bind(store)
      store.candidates = async (queries) => {
        const t = clock()
        const answers = await original(c.noCheck === true ? queries.map(({ bandCheck: _, ...q }) => q) : queries)
        lookupMs += clock() - t
        // A document may be looked up more than once (its band terms apart, see
        // `CandidateBounds.blockRoute`): its candidates are the union, counted once it is decided.
        answers.forEach((answer, i) => {
          const id = queries[i]!.excludeId
          if (id === undefined) return
          const earlier = found.get(id)
          if (earlier === undefined) found.set(id, answer)
          else {
            const ids = new Set(earlier.map((e) => e.id))
            found.set(id, [...earlier, ...answer.filter((r) => !ids.has(r.id))])
          }
        })
        return answers
      }
    }
    found.clear()
    const out = await decide.call(this, items)
    const keyedOptions = { ...o, minhash: false }
    for (const d of docs) {
      const answer = found.get(d.id)
      if (answer === undefined) continue
      const at = lookups++
      if (at < candidates.length) candidates[at] = answer.length
      // Beyond k: candidates sharing no key and farther than k (the embedded store's block route
      // drops those, so there they are the band route's; Elasticsearch also returns block-route ones).
      let b = 0
      let v = 0
      const keyed = candidateQuery(d, keyedOptions)
      for (const r of answer) {
        if (at < candidates.length) byRoute[routeOf(r, keyed)][at]!++
        if (!matchesOtherRoute(r, keyed)) b++
        if (at % c.sample === 0 && r.id !== d.id && matchCandidate(d, r, o) !== null) v++
      }
      if (at < beyondK.length) beyondK[at] = b
      if (at % c.sample === 0) verified.push(v)
    }
    for (const d of out) {
      if (d.status !== 'duplicate') continue
      duplicates++
      if (d.rule === 'minhash') minhashDuplicates++
    }
    decided += out.length
    marks.push(mark(decided))
    if (c.slices > 0 && decided >= (slice * c.n) / c.slices && decided < c.n) await pause()
    return out
  }

  const dir = mkdtempSync(join(tmpdir(), 'simdup-bench-stream-run-'))
  const index = `simdup-bench-stream-${process.pid}`
  const args = [c.input, '--out', join(dir, 'decisions.jsonl'), '--workers', String(c.workers), '--quiet']
  if (c.es !== undefined) args.push('--es', c.es, '--index', index)
  else args.push('--store', join(dir, 'store'))
  if (!c.minhash) args.push('--no-minhash')
  args.push(...c.indexArgs)
  const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() }
  await pause()
  t0 = clock()
  let code: number
  try {
    code = await indexCommand(args, io)
  } finally {
    if (c.es !== undefined) await fetch(`${c.es}/${index}`, { method: 'DELETE' }).catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  }
  const wall = (clock() - t0) / 1000
  if (code !== 0) throw new Error(`simdup index exited ${code}`)
  await Promise.all(esCpu)
  process.stdout.write(`\n@@RESULT ${JSON.stringify(summary(c.n, wall))}\n`)
}

/**
 * The figures of a run over its first `size` documents decided (`c.n` at the end): the segments
 * are the first and the last 10 % of those.
 */
function summarize(c: RunConfig, m: Measured, size: number, wall: number): RunResult {
  const { marks, candidates, byRoute, beyondK, verified, lookups } = m
  /** docs/s between the marks where `from` and `to` documents were decided. */
  const rate = (from: number, to: number): number => {
    const a = marks.find((m) => m.docs >= from)!
    const b = marks.find((m) => m.docs >= to)!
    return (b.docs - a.docs) / ((b.t - a.t) / 1000)
  }
  const first = rate(0, Math.round(size * 0.1))
  const last = rate(Math.round(size * 0.9), size)
  /** Log reads and store lookup milliseconds per document between the same marks. */
  const perDoc = (from: number, to: number): PerDoc => {
    const a = marks.find((m) => m.docs >= from)!
    const b = marks.find((m) => m.docs >= to)!
    const n = b.docs - a.docs
    const round2 = (x: number): number => Math.round((x / n) * 100) / 100
    const ms = (x: number): number => Math.round((x / n) * 1000) / 1000
    const es = b.esCpuMs - a.esCpuMs
    return { reads: round2(b.reads - a.reads), cacheHits: round2(b.hits - a.hits), lookupMs: ms(b.lookupMs - a.lookupMs), cpuMs: ms(b.cpuMs - a.cpuMs), esCpuMs: Number.isNaN(es) ? null : ms(es) }
  }
  return {
    run: c.name,
    indexArgs: c.indexArgs.join(' '),
    store: c.es === undefined ? 'embedded' : 'elasticsearch',
    docs: m.decided,
    wallSeconds: Math.round(wall * 10) / 10,
    docsPerSecond: Math.round(m.decided / wall),
    first10DocsPerSecond: Math.round(first),
    last10DocsPerSecond: Math.round(last),
    endVsStart: Math.round((last / first) * 100) / 100,
    first10PerDoc: perDoc(0, Math.round(size * 0.1)),
    last10PerDoc: perDoc(Math.round(size * 0.9), size),
    lookups,
    candidates: percentiles(candidates.subarray(0, Math.min(lookups, candidates.length))),
    byRoute: {
      key: percentiles(byRoute.key.subarray(0, Math.min(lookups, candidates.length))),
      block: percentiles(byRoute.block.subarray(0, Math.min(lookups, candidates.length))),
      band: percentiles(byRoute.band.subarray(0, Math.min(lookups, candidates.length))),
    },
    beyondKCandidates: percentiles(beyondK.subarray(0, Math.min(lookups, beyondK.length))),
    verified: { sampled: verified.length, ...percentiles(verified) },
    duplicates: m.duplicates,
    minhashDuplicates: m.minhashDuplicates,
    peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
  }
}

/** The route a candidate came by: an exact key (content, URL, title hash), else the block route (≥ minMatch shared blocks in the popcount window), else a band term. */
type Route = 'key' | 'block' | 'band'

function routeOf(
  r: { contentHash: string; urlHash: string | null; titleHash: string | null; blocks: readonly string[]; fingerprint: { hi: number; lo: number } },
  q: { contentHash?: string | null; urlHash?: string | null; titleHash?: string | null; blocks: readonly string[]; minMatch: number; fingerprint: { hi: number; lo: number }; maxDistance: number },
): Route {
  if ((q.contentHash != null && q.contentHash === r.contentHash) || (q.urlHash != null && q.urlHash === r.urlHash) || (q.titleHash != null && q.titleHash === r.titleHash)) return 'key'
  if (Math.abs(popcount(r.fingerprint) - popcount(q.fingerprint)) > q.maxDistance) return 'band'
  // (A stand-in, `FingerprintRecord.partial`, has no blocks: it came by a band term alone.)
  let shared = 0
  for (const b of q.blocks) if (r.blocks.includes(b)) shared++
  return shared >= q.minMatch ? 'block' : 'band'
}

/** Bits set in a 32-bit word. */
function pop(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24
}

function popcount(f: { hi: number; lo: number }): number {
  return pop(f.hi >>> 0) + pop(f.lo >>> 0)
}

/** Whether record `r` answers query `q` by a key or by the block route (within k). */
function matchesOtherRoute(
  r: { contentHash: string; urlHash: string | null; titleHash: string | null; fingerprint: { hi: number; lo: number } },
  q: { contentHash?: string | null; urlHash?: string | null; titleHash?: string | null; fingerprint: { hi: number; lo: number }; maxDistance: number },
): boolean {
  if (q.contentHash != null && q.contentHash === r.contentHash) return true
  if (q.urlHash != null && q.urlHash === r.urlHash) return true
  if (q.titleHash != null && q.titleHash === r.titleHash) return true
  return pop((r.fingerprint.hi ^ q.fingerprint.hi) >>> 0) + pop((r.fingerprint.lo ^ q.fingerprint.lo) >>> 0) <= q.maxDistance
}

// ---------------------------------------------------------------- driver

if (values.child !== undefined) {
  await runChild(JSON.parse(values.child) as RunConfig)
  process.exit(0)
}

const n = Number(values.n)
const seed = Number(values.seed)
const input = await streamFile(n, seed)

const runs = values.runs.split(',')
// One run is cut in slices only when asked (each slice then writes the figures so far to --json).
const slices = values.interleave !== undefined ? Number(values.interleave) : runs.length > 1 ? 20 : 0
const configs = runs.map((run): RunConfig => {
  const config: RunConfig = {
    name: run, input, n, minhash: !run.startsWith('no-minhash'), workers: Number(values.workers), sample: Number(values.sample),
    indexArgs: values['index-args'].split(' ').filter((a) => a !== ''), slices,
  }
  if (values.es !== undefined) config.es = values.es
  // A run named `…/nocache` reads without the entry cache (an A/B of the cache in one run).
  if (run.endsWith('/nocache')) config.entryCache = 0
  // A run named `…/nocheck` asks without `CandidateQuery.bandCheck` (an A/B of the stand-ins in one run).
  if (run.endsWith('/nocheck')) config.noCheck = true
  // A run named `…/load<N>` sizes the band indexes for N rows a bucket (an A/B of the load in one run).
  const load = /\/load(\d+)$/.exec(run)
  if (load !== null) config.bandLoad = Number(load[1])
  else if (values['entry-cache'] !== undefined) config.entryCache = Number(values['entry-cache'])
  return config
})
console.error(`runs ${runs.join(', ')} on ${values.es === undefined ? 'the embedded store' : `Elasticsearch ${values.es}`}${slices > 0 ? `, interleaved in ${slices} slices each` : ''} …`)
/** The 1-minute load average after each round of slices (the machine is shared). */
const loads: number[] = []
const results: RunResult[] = slices > 0 ? await interleaved(configs) : configs.map(sequential)
for (const result of results) console.log(JSON.stringify(result))

function resultOf(run: string, stdout: string): RunResult {
  const line = stdout.split('\n').find((l) => l.startsWith('@@RESULT '))
  if (line === undefined) throw new Error(`run ${run} printed no result`)
  return JSON.parse(line.slice('@@RESULT '.length)) as RunResult
}

function sequential(config: RunConfig): RunResult {
  const run = config.name
  const r = spawnSync(process.execPath, ['--import', 'tsx', here, '--child', JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 26 })
  if (r.status !== 0) throw new Error(`run ${run} failed with ${r.status}`)
  return resultOf(run, r.stdout.toString())
}

/**
 * All runs at once, taking turns: each child stops itself (SIGSTOP) before starting and after
 * each slice; the driver continues one at a time (SIGCONT), round robin, once the one before has
 * stopped. So every run meets the machine's load of the same minutes, slice by slice.
 */
async function interleaved(list: RunConfig[]): Promise<RunResult[]> {
  interface Child { run: string; proc: ChildProcess; out: string; events: string[]; wake: (() => void) | null; exited: boolean; progress: RunResult | null }
  const children = list.map((config): Child => {
    const proc = spawn(process.execPath, ['--import', 'tsx', here, '--child', JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] })
    const child: Child = { run: config.name, proc, out: '', events: [], wake: null, exited: false, progress: null }
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      child.out += line + '\n'
      if (line.startsWith('@@PAUSE ')) child.events.push('pause')
      if (line.startsWith('@@PROGRESS ')) child.progress = JSON.parse(line.slice('@@PROGRESS '.length)) as RunResult
      child.wake?.()
    })
    proc.on('exit', (code) => {
      if (code !== 0) console.error(`run ${child.run} exited ${code}`)
      child.exited = true
      child.wake?.()
    })
    return child
  })
  /** Resolves at the child's next pause (true) or its exit (false). */
  const next = async (c: Child): Promise<boolean> => {
    for (;;) {
      if (c.events.length > 0) {
        c.events.shift()
        return true
      }
      if (c.exited) return false
      await new Promise<void>((resolve) => (c.wake = resolve))
      c.wake = null
    }
  }
  /** Waits until the child's process state is "stopped" (Linux /proc). */
  const stoppedState = async (c: Child): Promise<void> => {
    for (let i = 0; i < 5000; i++) {
      if (c.exited) return
      const stat = readFileSync(`/proc/${c.proc.pid}/stat`, 'utf8')
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    throw new Error(`run ${c.run} did not stop`)
  }
  const live = new Set<Child>()
  for (const c of children) if (await next(c)) live.add(c)
  let slice = 0
  while (live.size > 0) {
    for (const c of [...live]) {
      await stoppedState(c)
      c.proc.kill('SIGCONT')
      if (!(await next(c))) live.delete(c)
    }
    loads.push(loadavg()[0]!)
    // The figures so far, replaced by the final ones at the end: a long run cut short still says how far it got.
    if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ n, seed, input, slices, loads, partial: true, results: children.map((c) => c.progress) }, null, 2))
    if (++slice % 5 === 0) console.error(`  slice ${slice} of ${slices} done (load average ${loadavg()[0]!.toFixed(1)})`)
  }
  return children.map((c) => {
    if (c.proc.exitCode !== 0) throw new Error(`run ${c.run} failed with ${c.proc.exitCode}`)
    return resultOf(c.run, c.out)
  })
}
const mh = results.find((r) => r.run === 'minhash')
const no = results.find((r) => r.run === 'no-minhash')
if (mh !== undefined && no !== undefined) {
  console.log(`whole run, minhash / no-minhash: ${(mh.docsPerSecond / no.docsPerSecond).toFixed(2)}; minhash end vs start: ${mh.endVsStart}`)
}
const mhNc = results.find((r) => r.run === 'minhash/nocache')
const noNc = results.find((r) => r.run === 'no-minhash/nocache')
if (mhNc !== undefined && noNc !== undefined) {
  console.log(`whole run without the entry cache, minhash / no-minhash: ${(mhNc.docsPerSecond / noNc.docsPerSecond).toFixed(2)}; minhash end vs start: ${mhNc.endVsStart}`)
}
const mhNk = results.find((r) => r.run === 'minhash/nocheck')
if (mh !== undefined && mhNk !== undefined) {
  console.log(`minhash with / without bandCheck: ${(mh.docsPerSecond / mhNk.docsPerSecond).toFixed(2)}${no === undefined ? '' : `; without, minhash / no-minhash: ${(mhNk.docsPerSecond / no.docsPerSecond).toFixed(2)}`}`)
}
if (loads.length > 0) console.log(`load average (1 min) over the rounds: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`)
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ n, seed, input, slices, loads, results }, null, 2))
