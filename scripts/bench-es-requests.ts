/**
 * Where a `simdup index --es` run spends its store time, by request kind and by tenth of the run:
 * each Elasticsearch client call the store makes is timed (wall clock, so concurrent calls overlap)
 * and counted with its sub-searches and hits. `_msearch` calls are split into the union searches
 * and the hot band term searches (sorted by `dedup.seq`); for the latter, how many of the terms
 * were asked for the first time in the run. Run it on a prefix of the bench-stream input:
 *
 *   head -n 60000 /tmp/simdup-bench-stream-200000-1.jsonl > /tmp/s60k.jsonl
 *   npx tsx scripts/bench-es-requests.ts /tmp/s60k.jsonl http://127.0.0.1:9200 [simdup index flags…]
 *
 * A fresh index `simdup-bench-es-requests-<pid>`, deleted afterwards. Documents per tenth come from
 * the bulk requests (one record per two lines), so the input's line count sets the tenths.
 */
import { Client } from '@elastic/elasticsearch'
import { readFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { indexCommand } from '../src/cli/commands/index-jsonl.js'

const [input, es, ...extra] = process.argv.slice(2)
if (input === undefined || es === undefined) throw new Error('usage: bench-es-requests.ts INPUT ES_URL [simdup index flags…]')
const total = readFileSync(input, 'utf8').split('\n').filter((l) => l.trim() !== '').length

interface Tally { calls: number; ms: number; subSearches: number; hits: number; newTerms: number }
const tallies = new Map<string, Tally>()
const askedTerms = new Set<string>()
let written = 0
const tenth = (): number => Math.min(9, Math.floor((written * 10) / total))

type Call = (this: unknown, params: Record<string, unknown>, ...rest: unknown[]) => Promise<unknown>
const api = Client.prototype as unknown as Record<string, Call>
for (const name of ['termvectors', 'msearch', 'bulk', 'search', 'mget']) {
  const original = api[name]!
  api[name] = async function (this: unknown, params, ...rest) {
    const t = performance.now()
    const res = await original.call(this, params, ...rest)
    const ms = performance.now() - t
    let kind = name
    let subSearches = 1
    let hits = 0
    let newTerms = 0
    if (name === 'msearch') {
      const searches = params.searches as Record<string, unknown>[]
      const bodies = searches.filter((_, i) => i % 2 === 1) as { sort?: Record<string, unknown>[]; query?: { bool?: { filter?: { term?: Record<string, string> }[] } } }[]
      kind = bodies[0]?.sort?.[0]?.['dedup.seq'] !== undefined ? 'msearch (hot band terms)' : 'msearch (union)'
      subSearches = bodies.length
      for (const r of (res as { responses: { hits?: { hits?: unknown[] } }[] }).responses) hits += r.hits?.hits?.length ?? 0
      if (kind === 'msearch (hot band terms)') {
        for (const b of bodies) {
          const term = b.query?.bool?.filter?.[0]?.term?.['dedup.bands']
          if (term !== undefined && !askedTerms.has(term)) {
            askedTerms.add(term)
            newTerms++
          }
        }
      }
    }
    if (name === 'termvectors') subSearches = ((params.doc as { dedup: { bands: string[] } }).dedup.bands).length
    if (name === 'bulk') written += (((params.operations ?? params.body) as unknown[] | undefined)?.length ?? 0) / 2
    const key = `${tenth()}\u0001${kind}`
    const t0 = tallies.get(key) ?? { calls: 0, ms: 0, subSearches: 0, hits: 0, newTerms: 0 }
    t0.calls++
    t0.ms += ms
    t0.subSearches += subSearches
    t0.hits += hits
    t0.newTerms += newTerms
    tallies.set(key, t0)
    return res
  }
}

const index = `simdup-bench-es-requests-${process.pid}`
const dir = mkdtempSync(join(tmpdir(), 'simdup-bench-es-requests-'))
const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() }
const started = performance.now()
try {
  const code = await indexCommand([input, '--out', join(dir, 'decisions.jsonl'), '--es', es, '--index', index, '--workers', '2', '--quiet', ...extra], io)
  if (code !== 0) throw new Error(`simdup index exited ${code}`)
} finally {
  await fetch(`${es}/${index}`, { method: 'DELETE' }).catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
}
console.log(`${total} documents, ${((performance.now() - started) / 1000).toFixed(1)} s`)
console.log('tenth\trequest\tcalls\tms\tms/call\tsub-searches (terms)\thits\tterms asked for the first time')
for (const [key, t] of [...tallies].sort(([a], [b]) => (a < b ? -1 : 1))) {
  const [part, kind] = key.split('\u0001')
  console.log([part, kind, t.calls, Math.round(t.ms), (t.ms / t.calls).toFixed(1), t.subSearches, t.hits, kind === 'msearch (hot band terms)' ? t.newTerms : ''].join('\t'))
}
