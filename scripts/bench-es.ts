/**
 * simdup on Elasticsearch against plain ingestion, on one node, interleaved (`npm run bench:es -- …`):
 *
 *   npx tsx scripts/bench-es.ts [--n 20000] [--stream FILE] [--es http://127.0.0.1:9200] [--rounds 3]
 *     [--runs bulk,es,embedded] [--before OTHER/bin/simdup.js] [--index-args="--no-minhash"] [--profile DIR] [--keep] [--json FILE]
 *
 * Each round runs every workload once, as a child process of its own (wall clock from spawn to
 * exit, startup included; peak RSS from /usr/bin/time), the order rotated from round to round so
 * that each meets the load of the same minutes on a shared machine:
 *
 * - `bulk`: the user's baseline. The official client's bulk helper (`client.helpers.bulk`, its
 *   defaults: 5 MB flushes, concurrency 5) indexes the same documents, whole (`content` and
 *   `title` as `text`, `id` and `url` as `keyword`), into a fresh one-shard index.
 * - `es`: `simdup index FILE --es URL --index …` (this checkout's bin/simdup.js, dist/ built) into a
 *   fresh index: records only, every document decided.
 * - `embedded`: `simdup index FILE --store DIR`, the embedded store.
 * - `es-before` (with `--before BIN`): `es` with another checkout's bin/simdup.js (its dist/ built),
 *   for a before/after in the same rounds.
 *
 * The ratio of each round is taken in that round, the median of rounds reported. After each round
 * the two indices are force-merged to one segment and their `_stats` store sizes compared (records
 * against full documents). `_nodes/stats` is read around each Elasticsearch workload: the node's
 * time in bulk indexing, refresh, merges, search query and fetch phases, and its GC, per document;
 * after each run its own index's `_stats` give the same times for that index alone.
 *
 * The stream: `--stream FILE` (any simdup JSONL, e.g. a hot-cluster stream), else the
 * shared-sentence stream of scripts/bench-stream.ts (n documents, written once under the temp
 * directory). `--profile DIR` adds `--cpu-prof` to the `es` child (one .cpuprofile per thread in
 * DIR) and prints its self time by stage (scripts/_cpu-profile.ts).
 * Indices are named `simdup-bench-es-<pid>-…` / `bench-es-bulk-<pid>-…` and deleted at the end
 * (`--keep` leaves the last round's).
 */
import { spawn } from 'node:child_process'
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { Client } from '@elastic/elasticsearch'
import { awaitLeases } from './_es-leases.js'
import { streamFile } from './stream/shared-sentences.js'
import { summarizeProfiles } from './_cpu-profile.js'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '20000' },
    seed: { type: 'string', default: '1' },
    stream: { type: 'string' },
    es: { type: 'string', default: process.env.ES_URL ?? 'http://127.0.0.1:9200' },
    rounds: { type: 'string', default: '3' },
    runs: { type: 'string', default: 'bulk,es,embedded' },
    before: { type: 'string' },
    'index-args': { type: 'string', default: '' },
    profile: { type: 'string' },
    keep: { type: 'boolean', default: false },
    json: { type: 'string' },
    child: { type: 'string' },
    input: { type: 'string' },
    index: { type: 'string' },
  },
})

const here = fileURLToPath(import.meta.url)
const bin = fileURLToPath(new URL('../bin/simdup.js', import.meta.url))

/** Mapping of the baseline's index: the documents as a user would index them. */
const FULL_DOCUMENT_MAPPING = {
  dynamic: false,
  properties: { id: { type: 'keyword' }, content: { type: 'text' }, title: { type: 'text' }, url: { type: 'keyword' } },
} as const

// ---------------------------------------------------------------- child: plain bulk ingestion

async function bulkChild(input: string, es: string, index: string): Promise<void> {
  const client = new Client({ node: es })
  await client.indices.create({ index, settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings: FULL_DOCUMENT_MAPPING })
  const lines = createInterface({ input: createReadStream(input), crlfDelay: Infinity })
  async function* docs(): AsyncGenerator<Record<string, unknown>> {
    for await (const line of lines) if (line.trim() !== '') yield JSON.parse(line) as Record<string, unknown>
  }
  const stats = await client.helpers.bulk<Record<string, unknown>>({
    datasource: docs(),
    onDocument: (doc) => ({ index: { _index: index, _id: String(doc.id) } }),
    onDrop: (d) => console.error(`dropped ${String((d.document as Record<string, unknown>).id)}: ${JSON.stringify(d.error)}`),
  })
  await client.close()
  if (stats.failed > 0) throw new Error(`bulk: ${stats.failed} documents failed`)
}

if (values.child === 'bulk') {
  await bulkChild(values.input!, values.es, values.index!)
  process.exit(0)
}

// ---------------------------------------------------------------- driver

interface NodeTimes {
  cpuMs: number; indexMs: number; refreshMs: number; mergeMs: number; flushMs: number; queryMs: number; queries: number; fetchMs: number; gcMs: number
}

interface RunTimes { wall: number; rssMb: number; cpu: number; node?: NodeTimes; own?: IndexTimes; bytes?: number }

/** The run's own index's times from its `_stats` (other clients of the node do not count here). */
interface IndexTimes {
  indexMs: number; refreshMs: number; refreshes: number; mergeMs: number; queryMs: number; queries: number; fetchMs: number; fetches: number; segments: number
}

async function indexTimes(index: string): Promise<IndexTimes> {
  const s = await client.indices.stats({ index, metric: ['indexing', 'refresh', 'merge', 'search', 'segments'] })
  const p = s._all.primaries!
  return {
    indexMs: p.indexing?.index_time_in_millis ?? 0,
    refreshMs: p.refresh?.total_time_in_millis ?? 0,
    refreshes: p.refresh?.external_total ?? p.refresh?.total ?? 0,
    mergeMs: p.merges?.total_time_in_millis ?? 0,
    queryMs: p.search?.query_time_in_millis ?? 0,
    queries: p.search?.query_total ?? 0,
    fetchMs: p.search?.fetch_time_in_millis ?? 0,
    fetches: p.search?.fetch_total ?? 0,
    segments: p.segments?.count ?? 0,
  }
}

const client = new Client({ node: values.es })

async function nodeTimes(): Promise<NodeTimes> {
  const res = await client.nodes.stats({ metric: ['indices', 'jvm', 'process'] })
  const t: NodeTimes = { cpuMs: 0, indexMs: 0, refreshMs: 0, mergeMs: 0, flushMs: 0, queryMs: 0, queries: 0, fetchMs: 0, gcMs: 0 }
  for (const n of Object.values(res.nodes)) {
    const i = n.indices!
    t.cpuMs += n.process?.cpu?.total_in_millis ?? 0
    t.indexMs += i.indexing?.index_time_in_millis ?? 0
    t.refreshMs += i.refresh?.total_time_in_millis ?? 0
    t.mergeMs += i.merges?.total_time_in_millis ?? 0
    t.flushMs += i.flush?.total_time_in_millis ?? 0
    t.queryMs += i.search?.query_time_in_millis ?? 0
    t.queries += i.search?.query_total ?? 0
    t.fetchMs += i.search?.fetch_time_in_millis ?? 0
    for (const c of Object.values(n.jvm?.gc?.collectors ?? {})) t.gcMs += c.collection_time_in_millis ?? 0
  }
  return t
}

function minus(a: NodeTimes, b: NodeTimes): NodeTimes {
  const out = { ...a }
  for (const k of Object.keys(out) as (keyof NodeTimes)[]) out[k] = (a[k] ?? 0) - (b[k] ?? 0)
  return out
}

/** Runs `node args…` under /usr/bin/time: wall seconds, peak RSS (MB), CPU seconds (user + system, worker threads included). */
function timed(args: string[]): Promise<{ wall: number; rssMb: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const t = performance.now()
    // ES_URL would make `simdup index --store` refuse (--store and --es both given).
    const env = { ...process.env }
    delete env.ES_URL
    const p = spawn('/usr/bin/time', ['-f', 'maxrss_kb=%M cpu_s=%U+%S', process.execPath, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env })
    let err = ''
    p.stderr.on('data', (d: Buffer) => (err += d.toString()))
    p.on('error', reject)
    p.on('exit', (code) => {
      const wall = (performance.now() - t) / 1000
      const m = /maxrss_kb=(\d+) cpu_s=([\d.]+)\+([\d.]+)/.exec(err)
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}:\n${err.slice(-4000)}`))
      else resolve({ wall, rssMb: m === null ? Number.NaN : Number(m[1]) / 1024, cpu: m === null ? Number.NaN : Number(m[2]) + Number(m[3]) })
    })
  })
}

/** Store size of `index` once force-merged to one segment without deleted documents, refreshed and flushed (merged again until it is one). */
async function storeBytes(index: string): Promise<number> {
  await client.indices.refresh({ index })
  await client.indices.flush({ index })
  await awaitLeases(client, index)
  for (let attempt = 0; attempt < 5; attempt++) {
    await client.indices.forcemerge({ index, max_num_segments: 1, wait_for_completion: true })
    // Until a refresh (and flush) an open reader keeps the merged-away segments' files, counted in the store size.
    await client.indices.refresh({ index })
    await client.indices.flush({ index })
    const s = await client.indices.stats({ index, metric: ['store', 'segments', 'docs'] })
    const p = s._all.primaries
    if ((p?.segments?.count ?? 0) <= 1 && (p?.docs?.deleted ?? 0) === 0) return p?.store?.size_in_bytes ?? Number.NaN
    await new Promise((resolve) => setTimeout(resolve, 2000))
  }
  console.error(`${index}: not one segment after 5 force-merges; size left out`)
  return Number.NaN
}

async function drop(index: string): Promise<void> {
  await client.indices.delete({ index, ignore_unavailable: true })
}

function median(xs: number[]): number {
  const s = [...xs].filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (s.length === 0) return Number.NaN
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const input = values.stream ?? (await streamFile(Number(values.n), Number(values.seed)))
const n = readFileSync(input, 'utf8').split('\n').filter((l) => l.trim() !== '').length
const runs = values.runs.split(',')
if (values.before !== undefined && !runs.includes('es-before')) runs.push('es-before')
const rounds = Number(values.rounds)
const indexArgs = values['index-args'].split(' ').filter((a) => a !== '')
const tag = `${process.pid}`
const results: Record<string, RunTimes>[] = []
const loads: number[] = []
let sameDecisions = true
let sameAsEmbedded = true
const scratch = mkdtempSync(join(tmpdir(), 'simdup-bench-es-'))
console.error(`${n} documents (${(statSync(input).size / 2 ** 20).toFixed(1)} MB) from ${input}; runs ${runs.join(', ')}; ${rounds} rounds; load ${loadavg()[0]!.toFixed(2)}`)

for (let r = 0; r < rounds; r++) {
  const order = runs.map((_, i) => runs[(i + r) % runs.length]!)
  const round: Record<string, RunTimes> = {}
  const indices: Record<string, string> = {}
  for (const run of order) {
    let args: string[]
    if (run === 'bulk') {
      indices.bulk = `bench-es-bulk-${tag}-${r}`
      args = ['--import', 'tsx', here, '--child', 'bulk', '--input', input, '--es', values.es, '--index', indices.bulk]
    } else if (run === 'es' || run === 'es-before') {
      const index = (indices[run] = `simdup-bench-${run}-${tag}-${r}`)
      const prof = values.profile !== undefined && r === rounds - 1 && run === 'es' ? ['--cpu-prof', '--cpu-prof-dir', values.profile] : []
      if (run === 'es-before' && values.before === undefined) throw new Error('es-before needs --before OTHER/bin/simdup.js')
      args = [...prof, run === 'es' ? bin : values.before!, 'index', input, '--es', values.es, '--index', index, '--out', join(scratch, `${run}.jsonl`), '--quiet', ...indexArgs]
    } else if (run === 'embedded') {
      const dir = join(scratch, `store-${r}`)
      args = [bin, 'index', input, '--store', dir, '--out', join(scratch, 'embedded.jsonl'), '--quiet', ...indexArgs]
    } else throw new Error(`unknown run ${run} (bulk, es, embedded, es-before)`)
    const before = run === 'embedded' ? null : await nodeTimes()
    const t = await timed(args)
    const times: RunTimes = { ...t }
    if (before !== null) times.node = minus(await nodeTimes(), before)
    const own = run === 'bulk' ? indices.bulk : run === 'es' || run === 'es-before' ? indices[run] : undefined
    if (own !== undefined) times.own = await indexTimes(own)
    round[run] = times
    console.error(`round ${r + 1} ${run}: ${t.wall.toFixed(1)} s, ${(n / t.wall).toFixed(0)} docs/s, CPU ${t.cpu.toFixed(1)} s, peak RSS ${t.rssMb.toFixed(0)} MB`)
  }
  for (const [run, index] of Object.entries(indices)) round[run]!.bytes = await storeBytes(index)
  rmSync(join(scratch, `store-${r}`), { recursive: true, force: true })
  for (const [other, same] of [['embedded', () => (sameAsEmbedded = false)], ['es-before', () => (sameDecisions = false)]] as const) {
    if (round.es === undefined || round[other] === undefined) continue
    const a = readFileSync(join(scratch, 'es.jsonl'), 'utf8')
    const b = readFileSync(join(scratch, `${other}.jsonl`), 'utf8')
    if (a === b) continue
    same()
    // Kept for a look: the decisions of both runs of this round.
    const keep = join(tmpdir(), `simdup-bench-es-${tag}-${r}`)
    writeFileSync(`${keep}-es.jsonl`, a)
    writeFileSync(`${keep}-${other}.jsonl`, b)
    console.error(`  decisions of es and ${other} differ: ${keep}-es.jsonl, ${keep}-${other}.jsonl`)
  }
  if (!values.keep || r < rounds - 1) for (const index of Object.values(indices)) await drop(index)
  loads.push(loadavg()[0]!)
  results.push(round)
  console.error(`  load ${loads.at(-1)!.toFixed(2)}${round.es?.bytes !== undefined && round.bulk?.bytes !== undefined ? `, disk records / full documents ${(round.es.bytes / round.bulk.bytes).toFixed(2)}×` : ''}`)
}

// ---------------------------------------------------------------- report

const fmt = (x: number, d = 0): string => (Number.isFinite(x) ? x.toFixed(d) : '–')
console.log(`\n${n} documents, ${rounds} rounds, load average ${loads.map((l) => l.toFixed(1)).join(' / ')} after each round\n`)
console.log('| run | docs/s (median) | wall s (rounds) | client CPU ms/doc | peak RSS MB | disk B/doc (force-merged) | node ms/doc: CPU · bulk index · refresh · merge · query (count/doc) · fetch · GC |')
console.log('|---|---|---|---|---|---|---|')
for (const run of runs) {
  const rs = results.map((x) => x[run]!)
  const nodeMs = (k: keyof NodeTimes): number => median(rs.map((x) => (x.node?.[k] ?? Number.NaN) / n))
  const node = rs[0]!.node === undefined ? '–' : `${fmt(nodeMs('cpuMs'), 3)} · ${fmt(nodeMs('indexMs'), 3)} · ${fmt(nodeMs('refreshMs'), 3)} · ${fmt(nodeMs('mergeMs'), 3)} · ${fmt(nodeMs('queryMs'), 3)} (${fmt(nodeMs('queries'), 2)}) · ${fmt(nodeMs('fetchMs'), 3)} · ${fmt(nodeMs('gcMs'), 3)}`
  console.log(`| ${run} | ${fmt(median(rs.map((x) => n / x.wall)))} | ${rs.map((x) => fmt(x.wall, 1)).join(' / ')} | ${fmt(median(rs.map((x) => (1000 * x.cpu) / n)), 2)} | ${fmt(Math.max(...rs.map((x) => x.rssMb)))} | ${fmt(median(rs.map((x) => (x.bytes ?? Number.NaN) / n)), 1)} | ${node} |`)
}
console.log('')
console.log('| run | own index ms/doc: bulk index · refresh (count) · merge · query (searches/doc) · fetch | segments at the end |')
console.log('|---|---|---|')
for (const run of runs) {
  const rs = results.map((x) => x[run]!)
  if (rs[0]!.own === undefined) continue
  const m = (k: keyof IndexTimes): number => median(rs.map((x) => (x.own?.[k] ?? Number.NaN) / n))
  const c = (k: keyof IndexTimes): number => median(rs.map((x) => x.own?.[k] ?? Number.NaN))
  console.log(`| ${run} | ${fmt(m('indexMs'), 3)} · ${fmt(m('refreshMs'), 3)} (${fmt(c('refreshes'))}) · ${fmt(m('mergeMs'), 3)} · ${fmt(m('queryMs'), 3)} (${fmt(m('queries'), 2)}) · ${fmt(m('fetchMs'), 3)} | ${fmt(c('segments'))} |`)
}
const ratio = (a: string, b: string, f: (x: RunTimes) => number): string =>
  runs.includes(a) && runs.includes(b) ? `${fmt(median(results.map((x) => f(x[a]!) / f(x[b]!))), 2)}× (rounds ${results.map((x) => fmt(f(x[a]!) / f(x[b]!), 2)).join(', ')})` : '–'
const speed = (x: RunTimes): number => n / x.wall
console.log('')
console.log(`simdup index --es / plain bulk, docs/s: ${ratio('es', 'bulk', speed)}`)
console.log(`embedded store / plain bulk, docs/s: ${ratio('embedded', 'bulk', speed)}`)
console.log(`simdup index --es / embedded store, docs/s: ${ratio('es', 'embedded', speed)}`)
if (runs.includes('es') && runs.includes('embedded')) console.log(`decisions of --es identical to the embedded store's: ${sameAsEmbedded ? 'yes' : 'NO'}`)
if (values.before !== undefined) {
  console.log(`simdup index --es, this checkout / --before, docs/s: ${ratio('es', 'es-before', speed)}; client CPU: ${ratio('es', 'es-before', (x) => x.cpu)}`)
  console.log(`decisions identical to --before: ${sameDecisions ? 'yes' : 'NO'}`)
}
console.log(`disk, dedup records / full documents: ${ratio('es', 'bulk', (x) => x.bytes ?? Number.NaN)}`)
if (values.profile !== undefined) {
  console.log(`\nCPU profile of the last \`es\` run (${values.profile}), self time by stage:`)
  console.log(summarizeProfiles(values.profile))
}
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ n, input, runs, rounds, loads, results }, null, 1))
rmSync(scratch, { recursive: true, force: true })
await client.close()
