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

interface Tally { calls: number; ms: number; subSearches: number; hits: number; newTerms: number; maxHits: number; byRoute: Record<string, number> }
const tallies = new Map<string, Tally>()
const askedTerms = new Set<string>()
let written = 0
/** When the last bulk of each tenth was acknowledged. */
const tenthEnds: number[] = []
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
    let maxHits = 0
    const byRoute: Record<string, number> = {}
    if (name === 'msearch') {
      const searches = params.searches as Record<string, unknown>[]
      const bodies = searches.filter((_, i) => i % 2 === 1) as { sort?: Record<string, unknown>[]; query?: { bool?: { filter?: { term?: Record<string, string> }[] } } }[]
      kind = bodies[0]?.sort?.[0]?.['dedup.seq'] !== undefined ? 'msearch (hot band terms)' : 'msearch (union)'
      subSearches = bodies.length
      const responses = (res as { responses: { hits?: { hits?: { _source?: { dedup?: DedupHit } }[] } }[] }).responses
      responses.forEach((r, i) => {
        const list = r.hits?.hits ?? []
        hits += list.length
        if (list.length > maxHits) maxHits = list.length
        if (kind !== 'msearch (union)') return
        // Which route of the union each hit came by (the first that holds, in this order).
        const keys = unionKeys(bodies[i])
        for (const h of list) {
          const route = routeOf(h._source?.dedup ?? {}, keys)
          byRoute[route] = (byRoute[route] ?? 0) + 1
        }
      })
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
    if (name === 'bulk') {
      const before = tenth()
      written += (((params.operations ?? params.body) as unknown[] | undefined)?.length ?? 0) / 2
      tenthEnds[before] = performance.now()
      if (tenth() !== before) void sample(before)
    }
    const key = `${tenth()}\u0001${kind}`
    const t0 = tallies.get(key) ?? { calls: 0, ms: 0, subSearches: 0, hits: 0, newTerms: 0, maxHits: 0, byRoute: {} }
    t0.calls++
    t0.ms += ms
    t0.subSearches += subSearches
    t0.hits += hits
    t0.newTerms += newTerms
    if (maxHits > t0.maxHits) t0.maxHits = maxHits
    for (const [r, n] of Object.entries(byRoute)) t0.byRoute[r] = (t0.byRoute[r] ?? 0) + n
    tallies.set(key, t0)
    return res
  }
}

interface DedupHit { content_hash?: string; url_hash?: string; title_hash?: string; bands?: string[] }
type Keys = Record<'content_hash' | 'url_hash' | 'title_hash' | 'bands', Set<string>>

/** The exact keys and band terms a union search body asks for (its `terms` clauses). */
function unionKeys(body: unknown): Keys {
  const keys: Keys = { content_hash: new Set(), url_hash: new Set(), title_hash: new Set(), bands: new Set() }
  const should = (body as { query?: { bool?: { filter?: { bool?: { should?: { terms?: Record<string, string[]> }[] } }[] } } }).query?.bool?.filter?.[0]?.bool?.should ?? []
  for (const c of should) {
    for (const [field, values] of Object.entries(c.terms ?? {})) {
      const k = field.replace('dedup.', '') as keyof Keys
      if (k in keys) for (const v of values) keys[k].add(v)
    }
  }
  return keys
}

function routeOf(d: DedupHit, keys: Keys): string {
  if (d.content_hash !== undefined && keys.content_hash.has(d.content_hash)) return 'content'
  if (d.url_hash !== undefined && keys.url_hash.has(d.url_hash)) return 'url'
  if (d.title_hash !== undefined && keys.title_hash.has(d.title_hash)) return 'title'
  if (d.bands?.some((b) => keys.bands.has(b)) === true) return 'band'
  return 'block'
}

// Refreshes (the store's own) are timed too.
const probe = new Client({ node: es })
/** CPU ms of the Elasticsearch node (all of its work, other clients' included) and of this process, and the index's segments, when each tenth ended. */
interface Sample { esCpuMs: number; ownCpuMs: number; segments: number }
const samples: Sample[] = []
async function sample(part: number): Promise<Sample> {
  const ownCpuMs = (process.cpuUsage().user + process.cpuUsage().system) / 1000
  const [stats, segments] = await Promise.all([
    probe.nodes.stats({ node_id: '_local', metric: 'process' }),
    probe.cat.segments({ index, format: 'json' }).catch(() => []), // none before the first write
  ])
  const node = Object.values(stats.nodes)[0] as { process?: { cpu?: { total_in_millis?: number } } }
  const x = { esCpuMs: node.process?.cpu?.total_in_millis ?? 0, ownCpuMs, segments: segments.length }
  if (part >= 0) samples[part] = x
  return x
}

const indicesApi = Object.getPrototypeOf(probe.indices) as Record<string, Call>
const refresh = indicesApi.refresh!
indicesApi.refresh = async function (this: unknown, params, ...rest) {
  const t = performance.now()
  const res = await refresh.call(this, params, ...rest)
  const key = `${tenth()}\u0001refresh`
  const t0 = tallies.get(key) ?? { calls: 0, ms: 0, subSearches: 0, hits: 0, newTerms: 0, maxHits: 0, byRoute: {} }
  t0.calls++
  t0.ms += performance.now() - t
  tallies.set(key, t0)
  return res
}

const index = `simdup-bench-es-requests-${process.pid}`
const dir = mkdtempSync(join(tmpdir(), 'simdup-bench-es-requests-'))
const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {}, cwd: process.cwd() }
const started = performance.now()
const start = await sample(-1)
try {
  const code = await indexCommand([input, '--out', join(dir, 'decisions.jsonl'), '--es', es, '--index', index, '--workers', '2', '--quiet', ...extra], io)
  if (code !== 0) throw new Error(`simdup index exited ${code}`)
  await sample(9)
} finally {
  await fetch(`${es}/${index}`, { method: 'DELETE' }).catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
}
console.log(`${total} documents, ${((performance.now() - started) / 1000).toFixed(1)} s`)
await probe.close()
// A short input has fewer batches than tenths: tenths without a sample are left out.
const sampled = samples.filter((x) => x !== undefined)
console.log(`CPU s per tenth, Elasticsearch node: ${sampled.map((x, i) => ((x.esCpuMs - (i === 0 ? start.esCpuMs : sampled[i - 1]!.esCpuMs)) / 1000).toFixed(1)).join(' ')}`)
console.log(`CPU s per tenth, this process: ${sampled.map((x, i) => ((x.ownCpuMs - (i === 0 ? start.ownCpuMs : sampled[i - 1]!.ownCpuMs)) / 1000).toFixed(1)).join(' ')}`)
console.log(`segments at the end of each tenth: ${sampled.map((x) => x.segments).join(' ')}`)
console.log(`wall s per tenth: ${tenthEnds.map((t, i) => ((t - (i === 0 ? started : tenthEnds[i - 1]!)) / 1000).toFixed(1)).join(' ')}`)
console.log('tenth\trequest\tcalls\tms\tms/call\tsub-searches (terms)\thits\tmax hits of a sub-search\tunion hits by route\tterms asked for the first time')
for (const [key, t] of [...tallies].sort(([a], [b]) => (a < b ? -1 : 1))) {
  const [part, kind] = key.split('\u0001')
  console.log([part, kind, t.calls, Math.round(t.ms), (t.ms / t.calls).toFixed(1), t.subSearches, t.hits, t.maxHits, Object.entries(t.byRoute).map(([r, n]) => `${r} ${n}`).join(' '), kind === 'msearch (hot band terms)' ? t.newTerms : ''].join('\t'))
}
