/**
 * Where a single-document `POST /v1/documents` spends its time: an in-process server over a copy
 * of a store (`--store DIR`, e.g. .cache/bench-serve/store-100000 from scripts/bench-serve.ts),
 * one keep-alive client in a child process sending `--requests` new documents one after the
 * other, and the time of each stage per request: parse (body parsing + validation, onRequest to
 * handler), prepare (validate + fingerprint), queue wait, lookup (sequence + candidates), put
 * (stage: the log write), durable (from the write to the end of the fdatasync + commit point),
 * serialize + send. Medians and p99 per stage.
 * Without `--store`: an empty store. `--clients N`: N clients at once (batch sizes show the grouping).
 * `--cpu-prof FILE`: a CPU profile of the measured requests only (open it in Chrome's DevTools).
 *
 *   npx tsx scripts/profile-serve.ts --store .cache/bench-serve/store-100000 [--requests 500] [--clients 1]
 */
import { spawnSync, fork } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { tmpdir, loadavg } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createDeduplicator, openMemoryStore } from '../src/index.js'
import { createServer } from '../src/server/index.js'

const { values } = parseArgs({ options: { store: { type: 'string' }, requests: { type: 'string', default: '500' }, clients: { type: 'string', default: '1' }, child: { type: 'string' }, 'cpu-prof': { type: 'string' } } })

if (values.child !== undefined) {
  // The client: `--child PORT`; sends its documents, reports client-side milliseconds.
  const { Agent, request } = await import('node:http')
  const { loadCorpus } = await import('./corpus/load.js')
  const corpus = await loadCorpus({ log: () => {} })
  const agent = new Agent({ keepAlive: true })
  const port = Number(values.child)
  const n = Number(values.requests)
  const clients = Number(values.clients)
  const post = (body: string) => new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/v1/documents', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume()
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))))
    })
    req.on('error', reject)
    req.end(body)
  })
  const doc = (i: number, p: string) => { const c = corpus[(i * 7919) % corpus.length]!; return JSON.stringify({ id: `${p}${i}`, content: `${c.content.slice(i % 50)} 新${i}` }) }
  for (let i = 0; i < 30; i++) await post(doc(i, 'warm'))
  process.send!({ warm: true })
  await new Promise((r) => process.once('message', r))
  const ms: number[] = []
  let k = 0
  await Promise.all(Array.from({ length: clients }, async () => {
    while (k < n) {
      const body = doc(k++, 'p')
      const t = performance.now()
      await post(body)
      ms.push(performance.now() - t)
    }
  }))
  process.send!({ ms })
  agent.destroy()
  process.exit(0)
}

const dir = mkdtempSync(join(tmpdir(), 'simdup-profile-serve-'))
if (values.store !== undefined) spawnSync('cp', ['-r', values.store, join(dir, 'store')])
rmSync(join(dir, 'store', 'done'), { force: true })
const store = await openMemoryStore({ dir: join(dir, 'store') })
const dedup = createDeduplicator({ store })
await dedup.checkVersions()

// Stage clocks: wrap the calls the write path makes.
type Stage = 'prepare' | 'wait' | 'sequence' | 'candidates' | 'put' | 'durable' | 'decide' | 'handler' | 'total' | 'send'
const times = new Map<Stage, number[]>()
const note = (s: Stage, ms: number) => { let a = times.get(s); if (a === undefined) times.set(s, (a = [])); a.push(ms) }
let measuring = false
const wrap = <T extends object>(obj: T, name: keyof T & string, stage: Stage) => {
  const f = (obj as Record<string, (...a: unknown[]) => Promise<unknown>>)[name]!.bind(obj)
  ;(obj as Record<string, unknown>)[name] = async (...a: unknown[]) => { const t = performance.now(); try { return await f(...a) } finally { if (measuring) note(stage, performance.now() - t) } }
}
wrap(dedup, 'prepareBatch', 'prepare')
// The queue decides with `decideStaged` and writes with `stage` (put = write; durable = fdatasync + commit point).
wrap(dedup, 'decideStaged', 'decide')
const batchSizes: number[] = []
{
  const f = dedup.decideStaged.bind(dedup)
  dedup.decideStaged = (items) => { if (measuring) batchSizes.push(items.length); return f(items) }
}
wrap(store, 'sequence', 'sequence')
wrap(store, 'candidates', 'candidates')
{
  const f = store.stage.bind(store)
  store.stage = async (records) => {
    const t = performance.now()
    const staged = await f(records)
    if (measuring) note('put', performance.now() - t)
    void staged.durable.then(() => { if (measuring) note('durable', performance.now() - t) }, () => {})
    return staged
  }
}
const server = await createServer({ dedup, logger: { level: 'warn' } }) // as `simdup serve` runs it
const app = server.app
wrap(server.queue, 'submit', 'handler')
// Whole requests, from the first byte parsed to the answer written (node:http's own events).
app.server.prependListener('request', (_req, res) => {
  const t0 = performance.now()
  res.once('finish', () => { if (measuring) note('total', performance.now() - t0) })
})
const address = await app.listen({ host: '127.0.0.1', port: 0 })
const port = Number(new URL(address).port)
const child = fork(new URL(import.meta.url).pathname, ['--child', String(port), '--requests', values.requests!, '--clients', values.clients!], { execArgv: ['--import', 'tsx'] })
await new Promise((r) => child.once('message', r))
// The profile covers the measured requests only (not the store's replay or the warm-up).
const session = values['cpu-prof'] === undefined ? null : new Session()
if (session !== null) {
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
}
measuring = true
const cpu0 = process.cpuUsage()
const wall0 = performance.now()
const load0 = loadavg()[0]!
child.send('go')
const { ms } = await new Promise<{ ms: number[] }>((r) => child.once('message', (m) => r(m as { ms: number[] })))
measuring = false
const cpu = process.cpuUsage(cpu0)
const wall = performance.now() - wall0
if (session !== null) {
  const { profile } = await session.post('Profiler.stop')
  writeFileSync(values['cpu-prof']!, JSON.stringify(profile))
  session.disconnect()
}
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!
const row = (name: string, xs: number[] | undefined) => xs === undefined ? `${name}: –` : `${name.padEnd(11)} n=${String(xs.length).padStart(5)} p50 ${q(xs, 0.5).toFixed(2).padStart(7)} ms  p99 ${q(xs, 0.99).toFixed(2).padStart(7)} ms  mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2)}`
console.log(`stored ${await store.count()}, ${values.requests} requests, ${values.clients} client(s), load ${load0.toFixed(1)}–${loadavg()[0]!.toFixed(1)}`)
console.log(row('client', ms))
const n = Number(values.requests)
console.log(`${(n / (wall / 1000)).toFixed(0)} docs/s; server CPU ${((cpu.user + cpu.system) / 1000 / n).toFixed(2)} ms a request (${(100 * (cpu.user + cpu.system) / 1000 / wall).toFixed(0)} % of one core); ${batchSizes.length} commits, ${(n / batchSizes.length).toFixed(1)} documents each on average`)
for (const s of ['total', 'handler', 'prepare', 'decide', 'sequence', 'candidates', 'put', 'durable'] as Stage[]) console.log(row(s, times.get(s)))
await server.close()
await store.close()
rmSync(dir, { recursive: true, force: true })
