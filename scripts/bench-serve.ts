/**
 * `simdup serve` against `simdup index` (dist/, so `npm run build` first), on the Debian corpus.
 *
 * 1. Throughput: documents/s over HTTP with `--clients` concurrent clients (requests of 1 and of
 *    `--per-request` documents; keep-alive), from a freshly started server on an empty embedded
 *    store, against `simdup index` of the same documents into an empty store (its own reported
 *    rate: startup excluded on both sides, dictionary loading included on both). Rounds are
 *    interleaved (the order rotates), medians over rounds.
 * 2. Latency: single-document requests (one client, one after the other, then `--clients` at
 *    once) on a store that already holds `--stored` documents (built once with `simdup index` and
 *    kept in .cache/bench-serve/ for the next run): p50 / p99 client-side.
 * 3. The cost of the metrics (prom-client) per request: what the choice of library costs.
 *
 *   npx tsx scripts/bench-serve.ts [--rounds 3] [--docs 3000] [--clients 8] [--per-request 20]
 *     [--stored 100000] [--latency-requests 1000] [--json FILE]
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir, loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Agent, request } from 'node:http'
import { loadCorpus } from './corpus/load.js'
import { createMetrics } from '../src/server/metrics.js'
import { createDeduplicator, openMemoryStore, type Decision, type FingerprintStore } from '../src/index.js'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    docs: { type: 'string', default: '3000' },
    clients: { type: 'string', default: '8' },
    'per-request': { type: 'string', default: '20' },
    stored: { type: 'string', default: '100000' },
    'latency-requests': { type: 'string', default: '1000' },
    json: { type: 'string' },
  },
})
const rounds = Number(values.rounds)
const clients = Number(values.clients)
const perRequest = Number(values['per-request'])
const stored = Number(values.stored)
const latencyRequests = Number(values['latency-requests'])
const bin = new URL('../bin/simdup.js', import.meta.url).pathname
const cacheDir = new URL('../.cache/bench-serve/', import.meta.url).pathname
mkdirSync(cacheDir, { recursive: true })
const corpus = await loadCorpus({ log: (l) => console.error(l) })
const dir = mkdtempSync(join(tmpdir(), 'simdup-bench-serve-'))
type Doc = { id: string; title?: string; content: string }
const docs: Doc[] = corpus.slice(0, Math.min(corpus.length, Number(values.docs))).map((c) => ({ id: c.id, title: c.title, content: c.content }))
const input = join(dir, 'docs.jsonl')
writeFileSync(input, docs.map((d) => JSON.stringify(d)).join('\n') + '\n')

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!

/** `simdup index` into an empty store: its own docs/s (the summary line). */
function cliRate(): number {
  const store = join(dir, 'cli-store')
  rmSync(store, { recursive: true, force: true })
  const r = spawnSync(process.execPath, [bin, 'index', input, '--out', join(dir, 'out.jsonl'), '--store', store, '--workers', '1'], { stdio: ['ignore', 'ignore', 'pipe'] })
  if (r.status !== 0) throw new Error(`simdup index failed (${r.status}): ${r.stderr.toString()}`)
  const m = /elapsed, (\d+) docs\/s/.exec(r.stderr.toString())
  if (m === null) throw new Error(`no rate in: ${r.stderr.toString()}`)
  return Number(m[1])
}

/** A started `simdup serve`; resolves with its URL. */
async function startServer(store: string): Promise<{ port: number; pid: number; stop(): Promise<void> }> {
  const p = spawn(process.execPath, [bin, 'serve', '--store', store, '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] })
  // A bench that fails part way leaves no server behind (Ctrl-C reaches the server itself).
  const orphan = () => p.kill('SIGKILL')
  process.once('exit', orphan)
  p.once('exit', () => process.off('exit', orphan))
  let err = ''
  const port = await new Promise<number>((resolve, reject) => {
    p.stderr.on('data', (c: Buffer) => {
      err += c.toString()
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(err)
      if (m !== null) resolve(Number(m[1]))
    })
    p.on('exit', (code) => reject(new Error(`simdup serve exited ${code}: ${err}`)))
  })
  return {
    port,
    pid: p.pid!,
    stop: () => new Promise((resolve) => {
      p.once('exit', () => resolve())
      p.kill('SIGTERM')
    }),
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 })
/** POST /v1/documents (node:http with keep-alive: fetch's pool adds its own milliseconds under load). */
function post(port: number, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/documents', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume()
      res.on('end', () => (res.statusCode === 200 ? resolve(200) : reject(new Error(`HTTP ${res.statusCode}`))))
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** Documents/s through a fresh server on an empty store, `clients` at once, `n` documents a request. */
async function serverRate(n: number): Promise<number> {
  const store = join(dir, 'server-store')
  rmSync(store, { recursive: true, force: true })
  const server = await startServer(store)
  let next = 0
  const t = performance.now()
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < docs.length) {
      const batch = docs.slice(next, next + n)
      next += n
      await post(server.port, JSON.stringify(n === 1 ? batch[0] : batch))
    }
  }))
  const rate = docs.length / ((performance.now() - t) / 1000)
  await server.stop()
  return rate
}

// 1. Throughput, interleaved.
const rates = new Map<string, number[]>()
const add = (k: string, v: number) => rates.set(k, [...(rates.get(k) ?? []), v])
const runs: [string, () => Promise<number>][] = [
  ['cli', async () => cliRate()],
  ['http x1', () => serverRate(1)],
  [`http x${perRequest}`, () => serverRate(perRequest)],
]
if (rounds > 0) cliRate() // warm the page and compile caches
for (let r = 0; r < rounds; r++) {
  for (let i = 0; i < runs.length; i++) {
    const [name, run] = runs[(i + r) % runs.length]!
    add(name, await run())
  }
  console.error(`round ${r + 1}/${rounds}: ${[...rates].map(([k, v]) => `${k} ${Math.round(v[v.length - 1]!)}`).join(', ')} docs/s; load ${loadavg()[0]!.toFixed(1)}`)
}
// Ratios per round (interleaved), then their median: the machine's speed drifts between rounds.
const cliRuns = rates.get('cli') ?? []
const throughput = [...rates].map(([k, v]) => ({
  run: k,
  docsPerSecond: Math.round(median(v)),
  ratioToCli: Number(median(v.map((x, i) => x / cliRuns[i]!)).toFixed(2)),
  all: v.map(Math.round),
}))

// 2. Latency at `stored` documents. The store is built once (variants of the corpus documents:
// near-duplicates of each other, as a crawl is), then copied for each run. `done` holds the
// fingerprint version it was built with: a store of another version (an older checkout) is rebuilt.
const bigStore = join(cacheDir, `store-${stored}`)
const version = createDeduplicator({ store: await openMemoryStore() }).version
if (!existsSync(join(bigStore, 'done')) || readFileSync(join(bigStore, 'done'), 'utf8') !== version) {
  rmSync(bigStore, { recursive: true, force: true })
  const bigInput = join(dir, 'big.jsonl')
  const lines: string[] = []
  for (let i = 0; i < stored; i++) {
    const c = corpus[i % corpus.length]!
    const round = Math.floor(i / corpus.length)
    lines.push(JSON.stringify({ id: `s${i}`, content: round === 0 ? c.content : `${c.content.slice((round * 37) % Math.max(1, c.content.length >> 3))} ${round}` }))
  }
  writeFileSync(bigInput, lines.join('\n') + '\n')
  const t = performance.now()
  const r = spawnSync(process.execPath, [bin, 'index', bigInput, '--out', '/dev/null', '--store', bigStore], { stdio: ['ignore', 'ignore', 'inherit'] })
  if (r.status !== 0) throw new Error('building the stored documents failed')
  writeFileSync(join(bigStore, 'done'), version)
  console.error(`stored ${stored} documents in ${((performance.now() - t) / 1000).toFixed(0)} s`)
}
const latencyStore = join(dir, 'latency-store')
rmSync(latencyStore, { recursive: true, force: true })
spawnSync('cp', ['-r', bigStore, latencyStore])
rmSync(join(latencyStore, 'done'))
const server = await startServer(latencyStore)
const fresh = (i: number, prefix = 'new'): string => {
  const c = corpus[(i * 7919) % corpus.length]!
  return JSON.stringify({ id: `${prefix}${i}`, content: `${c.content.slice(i % 50)} 新${i}` })
}
for (let i = 0; i < 50; i++) await post(server.port, fresh(i, 'warm')) // warm-up
/** CPU milliseconds the server process has used (user + system, from /proc): what a request costs whatever the load. */
const cpuMs = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100 // clock ticks (USER_HZ 100)
}
const one: number[] = []
const cpuBefore = cpuMs(server.pid)
const wallBefore = performance.now()
for (let i = 0; i < latencyRequests; i++) {
  const body = fresh(i)
  const t = performance.now()
  await post(server.port, body)
  one.push(performance.now() - t)
}
const cpuPerRequest = (cpuMs(server.pid) - cpuBefore) / latencyRequests
const wallPerRequest = (performance.now() - wallBefore) / latencyRequests
const many: number[] = []
let k = latencyRequests
await Promise.all(Array.from({ length: clients }, async () => {
  while (k < 2 * latencyRequests) {
    const body = fresh(k++)
    const t = performance.now()
    await post(server.port, body)
    many.push(performance.now() - t)
  }
}))
await server.stop()
const latency = {
  storedDocuments: stored,
  oneClient: { p50ms: Number(quantile(one, 0.5).toFixed(2)), p99ms: Number(quantile(one, 0.99).toFixed(2)), requests: one.length, serverCpuMsPerRequest: Number(cpuPerRequest.toFixed(2)), wallMsPerRequest: Number(wallPerRequest.toFixed(2)) },
  [`${clients}Clients`]: { p50ms: Number(quantile(many, 0.5).toFixed(2)), p99ms: Number(quantile(many, 0.99).toFixed(2)), requests: many.length },
}

// 3. What the metrics cost per request (prom-client): one latency observation and one decision counted.
const metrics = createMetrics({ count: async () => 0 } as unknown as FingerprintStore, () => 0)
const decision = { status: 'duplicate', layer: 'simhash', rule: 'simhash' } as Decision
const N = 200_000
let t = performance.now()
for (let i = 0; i < N; i++) {
  metrics.request('POST', '/v1/documents', 200, 0.003)
  metrics.commit([decision], 0.002)
}
const metricsNs = ((performance.now() - t) / N) * 1e6
t = performance.now()
const text = await metrics.registry.metrics()
const scrapeMs = performance.now() - t

const result = { docs: docs.length, clients, rounds, load: loadavg().map((l) => Number(l.toFixed(1))), throughput, latency, metrics: { nsPerRequest: Math.round(metricsNs), scrapeMs: Number(scrapeMs.toFixed(2)), scrapeBytes: text.length } }
console.log(JSON.stringify(result, null, 2))
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(result, null, 2) + '\n')
rmSync(dir, { recursive: true, force: true })
agent.destroy()
