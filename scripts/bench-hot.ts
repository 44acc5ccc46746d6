/**
 * Hot clusters against a control (issue 25): a stream of a few articles reposted thousands of
 * times with 0–3 characters changed per copy (scripts/hot-stream.ts, real text of the Debian
 * corpus) and a control stream of as many documents of the same lengths without hot clusters,
 * each through the library's `Deduplicator` (default options, batches of 500, preparation on the
 * main thread), on the embedded store and, with `--es`, on Elasticsearch.
 *
 *   npx tsx scripts/bench-hot.ts [--articles 20] [--copies 10000] [--n N] [--es URL] [--slices 20] [--json FILE]
 *
 * `--n N`: the first N documents of each stream (quick runs). Every (store, stream) is its own
 * child process on a fresh store (its own peak RSS); they are interleaved: each in turn decides a
 * slice of the stream (n / `--slices` documents) while the others wait, so all meet the load of
 * the same minutes on a shared machine. Only the time spent deciding counts. Reported: docs/s of
 * each stream, the ratio hot/control per store, flatness (docs/s of the last 10 % of the
 * stream over the first 10 %), peak RSS, duplicates found, and the load average.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'
import { controlStream, corpusTexts, hotStream, type StreamDoc } from './hot-stream.js'

const BATCH = 500

interface SliceReply {
  ms: number
  batches: number[]
  duplicates: number
}

interface Final {
  rssMb: number
  duplicates: number
}

async function child(): Promise<void> {
  const { values } = parseArgs({ options: { child: { type: 'boolean' }, store: { type: 'string' }, stream: { type: 'string' }, articles: { type: 'string' }, copies: { type: 'string' }, n: { type: 'string' }, es: { type: 'string' } } })
  const articles = Number(values.articles)
  const copies = Number(values.copies)
  const texts = corpusTexts()
  let docs: StreamDoc[] = values.stream === 'hot' ? hotStream(articles, copies, 1, texts) : controlStream(articles * copies, 1, texts)
  if (values.n !== undefined) docs = docs.slice(0, Number(values.n))
  const { createDeduplicator, openMemoryStore } = await import('../src/index.js')
  let dir: string | null = null
  let index: string | null = null
  let store
  if (values.store === 'es') {
    const { createElasticsearchStore } = await import('../src/elasticsearch/index.js')
    index = `simdup-bench-hot-${values.stream}-${process.pid}`
    store = await createElasticsearchStore({ node: values.es!, index })
  } else {
    dir = mkdtempSync(join(tmpdir(), 'simdup-bench-hot-'))
    store = await openMemoryStore({ dir })
  }
  const dedup = createDeduplicator({ store })
  // Warm-up without the store (segmenter, tables, JIT), so the first 10 % measure the store's work.
  for (const d of docs.slice(0, 200)) dedup.prepare({ value: d })
  let at = 0
  let duplicates = 0
  process.on('message', async (m: { slice?: number; end?: boolean }) => {
    if (m.end === true) {
      if (index !== null) {
        const s = store as unknown as { client?: { indices: { delete(a: unknown): Promise<unknown> } } }
        await s.client?.indices.delete({ index, ignore_unavailable: true }).catch(() => undefined)
      }
      await store.close()
      if (dir !== null) rmSync(dir, { recursive: true, force: true })
      const final: Final = { rssMb: process.resourceUsage().maxRSS / 1024, duplicates }
      process.send!(final, () => process.exit(0))
      return
    }
    const end = Math.min(docs.length, at + m.slice!)
    const batches: number[] = []
    const t0 = performance.now()
    while (at < end) {
      const b0 = performance.now()
      const decisions = await dedup.add(docs.slice(at, Math.min(end, at + BATCH)))
      batches.push(performance.now() - b0)
      for (const d of decisions) if (d.status === 'duplicate') duplicates++
      at += decisions.length
    }
    const reply: SliceReply = { ms: performance.now() - t0, batches, duplicates }
    process.send!(reply)
  })
  process.send!({ ready: true })
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { articles: { type: 'string', default: '20' }, copies: { type: 'string', default: '10000' }, n: { type: 'string' }, es: { type: 'string' }, slices: { type: 'string', default: '20' }, json: { type: 'string' } },
  })
  const articles = Number(values.articles)
  const copies = Number(values.copies)
  const n = Math.min(articles * copies, values.n === undefined ? Infinity : Number(values.n))
  const slice = Math.ceil(n / Number(values.slices) / BATCH) * BATCH
  const runs: { store: string; stream: string }[] = []
  for (const store of values.es === undefined ? ['embedded'] : ['embedded', 'es']) for (const stream of ['control', 'hot']) runs.push({ store, stream })
  const load0 = loadavg()
  const kids = runs.map((r) => {
    const args = ['--child', '--store', r.store === 'es' ? 'es' : 'embedded', '--stream', r.stream === 'hot' ? 'hot' : 'control', '--articles', String(articles), '--copies', String(copies), '--n', String(n)]
    if (values.es !== undefined) args.push('--es', values.es)
    return fork(fileURLToPath(import.meta.url), args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  })
  const next = (k: ChildProcess): Promise<unknown> => new Promise((resolve, reject) => {
    k.once('message', resolve)
    k.once('exit', (code) => reject(new Error(`bench child exited (${code})`)))
  })
  await Promise.all(kids.map(next))
  const batches: number[][] = runs.map(() => [])
  const total = runs.map(() => 0)
  for (let done = 0; done < n; done += slice) {
    for (let i = 0; i < kids.length; i++) {
      const k = kids[i]!
      const p = next(k)
      k.send({ slice })
      const r = (await p) as SliceReply
      batches[i]!.push(...r.batches)
      total[i]! += r.ms
    }
    process.stderr.write(`\r${Math.min(n, done + slice)} / ${n}`)
  }
  process.stderr.write('\n')
  const finals: Final[] = []
  for (const k of kids) {
    const p = next(k)
    k.send({ end: true })
    finals.push((await p) as Final)
  }
  const tenth = Math.max(1, Math.round(batches[0]!.length / 10))
  const rate = (ms: number[], docs: number): number => docs / (ms.reduce((a, b) => a + b, 0) / 1000)
  const rows = runs.map((r, i) => {
    const b = batches[i]!
    const first = rate(b.slice(0, tenth), tenth * BATCH)
    const last = rate(b.slice(-tenth), Math.min(tenth * BATCH, n - (b.length - tenth) * BATCH))
    return { ...r, docs: n, seconds: total[i]! / 1000, docsPerSec: n / (total[i]! / 1000), first10: first, last10: last, flatness: last / first, rssMb: finals[i]!.rssMb, duplicates: finals[i]!.duplicates }
  })
  const load1 = loadavg()
  console.log(`hot clusters: ${articles} articles × ${copies} copies (first ${n}); control: ${n} documents; slices of ${slice}; load average ${load0.map((x) => x.toFixed(2)).join(' ')} → ${load1.map((x) => x.toFixed(2)).join(' ')}`)
  console.log('store     stream   docs/s  first10%  last10%  last/first  peak RSS MB  duplicates')
  for (const r of rows) console.log(`${r.store.padEnd(9)} ${r.stream.padEnd(7)} ${r.docsPerSec.toFixed(0).padStart(7)} ${r.first10.toFixed(0).padStart(9)} ${r.last10.toFixed(0).padStart(8)} ${r.flatness.toFixed(2).padStart(11)} ${r.rssMb.toFixed(0).padStart(12)} ${String(r.duplicates).padStart(11)}`)
  for (const store of new Set(rows.map((r) => r.store))) {
    const c = rows.find((r) => r.store === store && r.stream === 'control')!
    const h = rows.find((r) => r.store === store && r.stream === 'hot')!
    console.log(`${store}: hot/control ${(h.docsPerSec / c.docsPerSec).toFixed(2)}×, hot last/first 10 % ${h.flatness.toFixed(2)}, control last/first ${c.flatness.toFixed(2)}`)
  }
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ articles, copies, n, load: [load0, load1], rows }, null, 2))
}

if (process.argv.includes('--child')) await child()
else await main()
