/**
 * Cost of the search-time dedup hook on a local node: latency of `dedupSearch` (collapsed search
 * + uncollapsed search for documents without a cluster id, in one `_msearch`, then the app-layer
 * fold) against a plain search and a bare collapsed search of the same query on the same index,
 * and the app-layer fold's own cost per 100 hits.
 *
 * Index: N synthetic documents of pre-segmented Chinese words (whitespace analyzer, so a query word
 * is one term, as with a jieba-segmented field), drawn with Zipf frequencies from jieba's IDF
 * vocabulary; clusters of realistic sizes (most articles unique, a long tail of syndicated copies
 * up to 50) whose copies differ by a few words and 0–3 SimHash bits; 4 % fresh copies (SimHash but
 * no cluster id yet) and 3 % content documents never fingerprinted.
 *
 *   npx tsx scripts/bench-hook.ts [--n 30000] [--queries 200] [--size 10] [--shards 1] [--seed 1]
 *     [--max-seconds 150] [--url http://127.0.0.1:9200] [--keep] [--json FILE]
 *
 * Needs a running node (`npm run es:start`); ES_URL is used when --url is not given. The index is
 * simdup-bench-hook-<pid>, deleted at the end unless --keep. Variants run interleaved per query,
 * so other load on the machine weighs on all alike.
 */
import { parseArgs } from 'node:util'
import { readFileSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { performance } from 'node:perf_hooks'
import { Client, type estypes } from '@elastic/elasticsearch'
import type { Fingerprint } from '../src/types.js'
import { fingerprintToHex, flipBit } from '../src/fingerprint/hamming.js'
import { DEDUP_FIELDS_COMPONENT } from '../src/elasticsearch/store.js'
import { dedupSearch, foldNearDuplicates } from '../src/elasticsearch/hook/index.js'
import { Rng } from './eval/prng.js'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '30000' },
    queries: { type: 'string', default: '200' },
    size: { type: 'string', default: '10' },
    shards: { type: 'string', default: '1' },
    seed: { type: 'string', default: '1' },
    'max-seconds': { type: 'string', default: '150' },
    url: { type: 'string' },
    keep: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
})
const N = Number(values.n)
const Q = Number(values.queries)
const SIZE = Number(values.size)
const DEADLINE = performance.now() + Number(values['max-seconds']) * 1000
const INDEX = `simdup-bench-hook-${process.pid}`
const log = (line: string): void => console.error(line)

const rng = new Rng(Number(values.seed))
const u32 = (): number => Math.floor(rng.next() * 4294967296) >>> 0

// ---- vocabulary: common jieba words (lowest IDF first), sampled with Zipf frequencies ----

const VOCAB = gunzipSync(readFileSync(new URL('../data/idf.txt.gz', import.meta.url)))
  .toString('utf8')
  .split('\n')
  .map((line) => line.split(' '))
  .filter(([w, idf]) => w !== undefined && /^[\u4e00-\u9fff]{2,4}$/.test(w) && Number(idf) > 0)
  .sort((a, b) => Number(a[1]) - Number(b[1]))
  .slice(0, 20_000)
  .map(([w]) => w!)
// Cumulative Zipf (s = 1) weights, sampled by binary search.
const CUM: number[] = []
VOCAB.reduce((sum, _w, i) => (CUM[i] = sum + 1 / (i + 1)), 0)
function word(): string {
  const x = rng.next() * CUM[CUM.length - 1]!
  let lo = 0
  let hi = CUM.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (CUM[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return VOCAB[lo]!
}

/** Cluster sizes of a news feed: most articles unique, some syndicated a few times, a long tail. */
function clusterSize(): number {
  const x = rng.next()
  if (x < 0.7) return 1
  if (x < 0.92) return 2 + Math.floor(rng.next() * 4) // 2–5
  if (x < 0.98) return 6 + Math.floor(rng.next() * 15) // 6–20
  return 21 + Math.floor(rng.next() * 30) // 21–50
}

function randomFp(): Fingerprint {
  return { hi: u32(), lo: u32() }
}

function nearFp(fp: Fingerprint): Fingerprint {
  let out = fp
  const bits = Math.floor(rng.next() * 4) // 0–3 bits
  for (let i = 0; i < bits; i++) out = flipBit(out, Math.floor(rng.next() * 64))
  return out
}

/** A copy: a few words replaced, sometimes a short sentence appended (an editor's byline). */
function edit(words: readonly string[]): string[] {
  const out = [...words]
  const edits = 1 + Math.floor(rng.next() * 4)
  for (let i = 0; i < edits; i++) out[Math.floor(rng.next() * out.length)] = word()
  if (rng.next() < 0.3) for (let i = 0; i < 8; i++) out.push(word())
  return out
}

interface BenchDoc {
  id: string
  content: string
  dedup?: { id: string; simhash: string; cluster_id?: string; indexed_at: number }
}

function* documents(): Generator<BenchDoc> {
  let made = 0
  let cluster = 0
  const t0 = Date.UTC(2024, 0, 1)
  while (made < N) {
    const headWords = Array.from({ length: 120 + Math.floor(rng.next() * 280) }, word)
    const headFp = randomFp()
    const size = Math.min(clusterSize(), N - made)
    const cid = `c${cluster++}`
    for (let i = 0; i < size && made < N; i++) {
      const id = `d${made++}`
      const words = i === 0 ? headWords : edit(headWords)
      const at = t0 + made * 1000
      const fp = i === 0 ? headFp : nearFp(headFp)
      const r = rng.next()
      const dedup =
        i > 0 && r < 0.04
          ? { id, simhash: fingerprintToHex(fp), indexed_at: at } // fresh copy, not reconciled yet
          : { id, simhash: fingerprintToHex(fp), cluster_id: cid, indexed_at: at }
      yield r > 0.97 ? { id, content: words.join(' ') } : { id, content: words.join(' '), dedup }
    }
  }
}

// ---- helpers ----

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

function summary(ms: readonly number[]): { n: number; p50: number; p95: number; mean: number } {
  const s = [...ms].sort((a, b) => a - b)
  const round = (x: number) => Math.round(x * 100) / 100
  return { n: s.length, p50: round(quantile(s, 0.5)), p95: round(quantile(s, 0.95)), mean: round(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)) }
}

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now()
  const out = await fn()
  return [performance.now() - t, out]
}

// ---- run ----

const client = new Client({ node: values.url ?? process.env.ES_URL ?? 'http://127.0.0.1:9200', requestTimeout: 60_000 })

async function build(): Promise<number> {
  await client.indices.create({
    index: INDEX,
    settings: { number_of_shards: Number(values.shards), number_of_replicas: 0, refresh_interval: '-1' },
    mappings: { properties: { content: { type: 'text', analyzer: 'whitespace' }, ...DEDUP_FIELDS_COMPONENT.template.mappings.properties } as Record<string, estypes.MappingProperty> },
  })
  const t = performance.now()
  let batch: unknown[] = []
  const flush = async () => {
    if (batch.length === 0) return
    const res = await client.bulk({ operations: batch })
    if (res.errors) throw new Error(`bulk failed: ${JSON.stringify(res.items.find((i) => Object.values(i)[0]?.error))}`)
    batch = []
  }
  for (const d of documents()) {
    const { id, ...body } = d
    batch.push({ index: { _index: INDEX, _id: id } }, body)
    if (batch.length >= 4000) await flush()
  }
  await flush()
  await client.indices.putSettings({ index: INDEX, settings: { refresh_interval: '1s' } })
  await client.indices.refresh({ index: INDEX })
  await client.indices.forcemerge({ index: INDEX, max_num_segments: 1 })
  return (performance.now() - t) / 1000
}

async function main(): Promise<void> {
  const info = await client.info()
  log(`Elasticsearch ${info.version.number}; building ${INDEX} with ${N} documents`)
  const buildSeconds = await build()
  const stats = await client.count({ index: INDEX })
  const clusters = await client.search({ index: INDEX, size: 0, aggs: { c: { cardinality: { field: 'dedup.cluster_id' } } } })
  const distinct = (clusters.aggregations?.c as estypes.AggregationsCardinalityAggregate).value
  log(`indexed ${stats.count} documents (~${distinct} clusters) in ${buildSeconds.toFixed(1)} s`)

  // Two words, both required: a typical search-box query. A common word (rank 20–200) and a
  // rarer one (100–1 000) match ~0.5–5 % of the documents: enough for many pages of results.
  const queries = Array.from({ length: Q + 20 }, () => ({ match: { content: { query: `${VOCAB[20 + Math.floor(rng.next() * 180)]} ${VOCAB[100 + Math.floor(rng.next() * 900)]}`, operator: 'and' as const } } }))
  const times = { plain: [] as number[], collapse: [] as number[], hookPage1: [] as number[], hookPage2: [] as number[] }
  const matched: number[] = []
  const shownPerPage: number[] = []
  const hiddenPerPage: number[] = []
  const rounds: number[] = []
  let done = 0
  for (const [i, query] of queries.entries()) {
    if (performance.now() > DEADLINE) break
    const warm = i < 20
    const [plain, plainRes] = await timed(() => client.search({ index: INDEX, query, size: SIZE }))
    const [collapse] = await timed(() =>
      client.search({ index: INDEX, query, size: SIZE, collapse: { field: 'dedup.cluster_id', inner_hits: { name: 'duplicates', size: 4, _source: false, fields: ['dedup.simhash'] } } }),
    )
    const [p1, page1] = await timed(() => dedupSearch(client, { index: INDEX, query, size: SIZE }))
    const [p2] = page1.next === null ? [Number.NaN] : await timed(() => dedupSearch(client, { index: INDEX, query, size: SIZE, cursor: page1.next }))
    if (warm) continue
    times.plain.push(plain)
    times.collapse.push(collapse)
    times.hookPage1.push(p1)
    if (!Number.isNaN(p2)) times.hookPage2.push(p2)
    const total = plainRes.hits.total
    matched.push(typeof total === 'number' ? total : (total?.value ?? 0))
    shownPerPage.push(page1.results.length)
    hiddenPerPage.push(page1.results.reduce((n, r) => n + r.duplicateCount, 0))
    rounds.push(page1.rounds)
    done++
  }
  log(`${done} timed queries (after 20 warm-up)`)

  // App-layer fold cost: 100 real hits' SimHashes (by relevance) per call, as hex (parsing
  // included) and pre-parsed.
  const lists: string[][] = []
  for (const query of queries.slice(0, 30)) {
    const res = await client.search<{ dedup?: { simhash?: string } }>({ index: INDEX, query: { bool: { should: [query, { match: { content: VOCAB[10]! } }] } }, size: 120, _source: ['dedup.simhash'] })
    const hex = res.hits.hits.map((h) => h._source?.dedup?.simhash ?? null).filter((x): x is string => x !== null)
    if (hex.length >= 100) lists.push(hex.slice(0, 100))
  }
  const parsed = lists.map((l) => l.map((h) => ({ hi: parseInt(h.slice(0, 8), 16) >>> 0, lo: parseInt(h.slice(8), 16) >>> 0 })))
  const foldCost = (input: readonly (readonly (string | Fingerprint)[])[]): number => {
    for (let w = 0; w < 2000; w++) foldNearDuplicates(input[w % input.length]!, 3)
    const reps = 20_000
    const t = performance.now()
    for (let r = 0; r < reps; r++) foldNearDuplicates(input[r % input.length]!, 3)
    return ((performance.now() - t) * 1000) / reps
  }
  const fold = lists.length === 0 ? null : { hexUsPer100: Number(foldCost(lists).toFixed(2)), parsedUsPer100: Number(foldCost(parsed).toFixed(2)), lists: lists.length }

  const result = {
    node: info.version.number,
    documents: stats.count,
    clusters: distinct,
    buildSeconds: Number(buildSeconds.toFixed(1)),
    pageSize: SIZE,
    queries: done,
    matchedPerQuery: summary(matched),
    latencyMs: { plain: summary(times.plain), collapseOnly: summary(times.collapse), dedupSearchPage1: summary(times.hookPage1), dedupSearchPage2: summary(times.hookPage2) },
    page1: { shown: summary(shownPerPage), hiddenCounted: summary(hiddenPerPage), roundsMean: summary(rounds).mean, roundsMax: Math.max(...rounds) },
    foldUs: fold,
  }
  console.log(JSON.stringify(result, null, 2))
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(result, null, 2))
}

try {
  await main()
} finally {
  if (!values.keep) await client.indices.delete({ index: INDEX }, { ignore: [404] })
  await client.close()
}
