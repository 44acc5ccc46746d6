/**
 * Wall time of the real `simdup index` binary (dist/, so `npm run build` first) on JSONL files cut
 * from the bench corpus, with 1 and with N worker threads, startup included: what a user waits
 * for. Rounds are interleaved (every file and worker count once per round, medians over rounds),
 * since this VM's speed drifts within minutes. From the medians it estimates where the pool starts
 * to pay: its fixed cost (threads loading dictionaries) against the time it saves per MB.
 *
 *   npx tsx scripts/bench-cli.ts [--rounds 5] [--workers 2] [--docs 300,1500,3500,all] [--json FILE]
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadCorpus } from './corpus/load.js'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    workers: { type: 'string', default: '2' },
    docs: { type: 'string', default: '300,1500,3500,all' },
    json: { type: 'string' },
  },
})
const rounds = Number(values.rounds)
const workers = Number(values.workers)
const bin = new URL('../bin/simdup.js', import.meta.url).pathname
const corpus = await loadCorpus({ log: (l) => console.error(l) })
const dir = mkdtempSync(join(tmpdir(), 'simdup-bench-cli-'))
const files = values.docs.split(',').map((d) => {
  const n = d === 'all' ? corpus.length : Math.min(corpus.length, Number(d))
  const path = join(dir, `docs-${n}.jsonl`)
  writeFileSync(path, corpus.slice(0, n).map((c) => JSON.stringify({ id: c.id, title: c.title, content: c.content })).join('\n') + '\n')
  return { n, path, mb: statSync(path).size / 1e6 }
})

/** One run from an empty store; wall seconds. */
function run(path: string, w: number): number {
  const store = join(dir, 'store')
  rmSync(store, { recursive: true, force: true })
  const t = performance.now()
  const r = spawnSync(process.execPath, [bin, 'index', path, '--out', join(dir, 'out.jsonl'), '--store', store, '--workers', String(w), '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] })
  const s = (performance.now() - t) / 1000
  if (r.status !== 0) throw new Error(`simdup index failed (${r.status}): ${r.stderr.toString()}`)
  return s
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const times = new Map<string, number[]>()
const key = (n: number, w: number) => `${n}/${w}`
run(files[0]!.path, 1) // warm the page cache and the compile cache
for (let r = 0; r < rounds; r++) {
  for (const f of files) {
    for (const w of r % 2 === 0 ? [1, workers] : [workers, 1]) {
      const k = key(f.n, w)
      times.set(k, [...(times.get(k) ?? []), run(f.path, w)])
    }
  }
  console.error(`round ${r + 1}/${rounds} done`)
}

console.log(`simdup index, wall seconds (median of ${rounds} interleaved rounds), store in a directory, startup included:`)
console.log('docs     MB   1 thread  ' + `${workers} workers`.padEnd(10) + '  ratio (per round, median)')
const rows = files.map((f) => {
  const one = times.get(key(f.n, 1))!
  const many = times.get(key(f.n, workers))!
  const ratio = median(one.map((t, i) => t / many[i]!))
  console.log(`${String(f.n).padStart(5)} ${f.mb.toFixed(1).padStart(6)} ${median(one).toFixed(2).padStart(9)} ${median(many).toFixed(2).padStart(11)}   ${ratio.toFixed(2)}×`)
  return { docs: f.n, mb: f.mb, oneThread: median(one), workers: median(many), ratio, rounds: { one, many } }
})
// Least-squares lines t = a + b·MB for each worker count over the files: a is the fixed cost.
function fit(pts: { x: number; y: number }[]) {
  const mx = pts.reduce((s, p) => s + p.x, 0) / pts.length
  const my = pts.reduce((s, p) => s + p.y, 0) / pts.length
  const b = pts.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / pts.reduce((s, p) => s + (p.x - mx) ** 2, 0)
  return { a: my - b * mx, b }
}
const f1 = fit(rows.map((r) => ({ x: r.mb, y: r.oneThread })))
const fn = fit(rows.map((r) => ({ x: r.mb, y: r.workers })))
const breakEven = fn.b < f1.b ? (fn.a - f1.a) / (f1.b - fn.b) : Infinity
console.log(`fit: 1 thread ${f1.a.toFixed(2)} s + ${(f1.b * 1000).toFixed(0)} ms/MB; ${workers} workers ${fn.a.toFixed(2)} s + ${(fn.b * 1000).toFixed(0)} ms/MB; ` +
  `the pool pays from about ${Number.isFinite(breakEven) ? `${breakEven.toFixed(1)} MB` : 'never (no per-MB gain)'}; per-MB speed-up ${(f1.b / fn.b).toFixed(2)}×`)
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ workers, rows, fit: { oneThread: f1, workers: fn, breakEvenMB: breakEven } }, null, 2))
rmSync(dir, { recursive: true, force: true })
