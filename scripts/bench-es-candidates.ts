/**
 * Candidate lookup in Elasticsearch for two block schemes, on N random fingerprints:
 *   A: 4 × 16-bit blocks, minMatch 1        B: 6 blocks (11,11,11,11,10,10 bits), minMatch 3
 * Both guarantee distance ≤ 3. For each scheme: load N records (plus planted neighbours at
 * distance 1–3 of half the queries) through the store's bulk path with refresh off, then run the
 * queries through `candidates` (one `_msearch` per batch; the two schemes' batches are timed in
 * alternation, so other load on the machine weighs on both alike) and report candidates fetched
 * per lookup vs true matches (distance ≤ 3, by brute force), recall, latency per `_msearch`
 * batch, and the index size on disk (after refresh, and after a force merge to one segment).
 *
 *   npx tsx scripts/bench-es-candidates.ts --n 1000000 [--queries 1000] [--batch 50] [--bulk-size 5000]
 *     [--schemes 4x16-m1,6x11-m3] [--rounds 3] [--url http://127.0.0.1:9200] [--seed 1] [--no-forcemerge] [--json FILE]
 *
 * Needs a running node (`npm run es:start`); ES_URL is used when --url is not given.
 * Indices are named simdup-bench-<scheme>-<pid> and deleted at the end.
 */
import { parseArgs } from 'node:util'
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { createElasticsearchStore, type ElasticsearchStore } from '../src/elasticsearch/store.js'
import { fingerprintBlocks, type BlockScheme } from '../src/fingerprint/blocks.js'
import { hamming, popcount32 } from '../src/fingerprint/hamming.js'
import type { CandidateQuery, Fingerprint, FingerprintRecord } from '../src/types.js'
import { Rng } from './eval/prng.js'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '1000' },
    batch: { type: 'string', default: '50' },
    url: { type: 'string' },
    seed: { type: 'string', default: '1' },
    'no-forcemerge': { type: 'boolean', default: false },
    'bulk-size': { type: 'string', default: '5000' },
    schemes: { type: 'string', default: '4x16-m1,6x11-m3' },
    rounds: { type: 'string', default: '3' },
    json: { type: 'string' },
  },
})
const N = Number(values.n)
const Q = Number(values.queries)
const BATCH = Number(values.batch)
const BULK = Number(values['bulk-size'])
const URL_ = values.url ?? process.env.ES_URL ?? 'http://127.0.0.1:9200'
const log = (line: string): void => console.error(line)

const SCHEMES: { name: string; scheme: BlockScheme }[] = [
  { name: '4x16-m1', scheme: { blocks: 4, minMatch: 1 } },
  { name: '6x11-m3', scheme: { blocks: 6, minMatch: 3 } },
]
const MAX_DISTANCE = 3

// ---- data: the same fingerprints for both schemes ----

const rng = new Rng(Number(values.seed))
const u32 = (): number => Math.floor(rng.next() * 4294967296) >>> 0
const hex16 = (): string => u32().toString(16).padStart(8, '0') + u32().toString(16).padStart(8, '0')

/** Flips `k` distinct random bits of `fp`. */
function flipBits(fp: Fingerprint, k: number): Fingerprint {
  const bits = new Set<number>()
  while (bits.size < k) bits.add(Math.floor(rng.next() * 64))
  let { hi, lo } = fp
  for (const b of bits) {
    if (b >= 32) hi = (hi ^ (1 << (b - 32))) >>> 0
    else lo = (lo ^ (1 << b)) >>> 0
  }
  return { hi, lo }
}

const queries: Fingerprint[] = Array.from({ length: Q }, () => ({ hi: u32(), lo: u32() }))
const planted: Fingerprint[] = []
for (let i = 0; i < Q; i += 2) {
  // Half the queries get 1–3 neighbours at distance 1–3.
  const count = 1 + Math.floor(rng.next() * 3)
  for (let j = 0; j < count; j++) planted.push(flipBits(queries[i]!, 1 + Math.floor(rng.next() * 3)))
}
const total = N + planted.length
const HI = new Uint32Array(total)
const LO = new Uint32Array(total)
for (let i = 0; i < N; i++) {
  HI[i] = u32()
  LO[i] = u32()
}
planted.forEach((fp, j) => {
  HI[N + j] = fp.hi
  LO[N + j] = fp.lo
})

/** True matches per query by brute force: XOR + popcount over every record. */
function truth(): number[][] {
  return queries.map((q) => {
    const out: number[] = []
    for (let i = 0; i < total; i++) {
      if (popcount32((HI[i]! ^ q.hi) >>> 0) + popcount32((LO[i]! ^ q.lo) >>> 0) <= MAX_DISTANCE) out.push(i)
    }
    return out
  })
}

const t0 = performance.now()
const trueMatches = truth()
log(`truth: ${trueMatches.reduce((s, m) => s + m.length, 0)} records within distance ${MAX_DISTANCE} of ${Q} queries, brute force over ${total} in ${((performance.now() - t0) / 1000).toFixed(1)} s`)

const T_BASE = Date.UTC(2024, 0, 1)
function recordAt(i: number, scheme: BlockScheme): FingerprintRecord {
  const fingerprint = { hi: HI[i]!, lo: LO[i]! }
  return {
    id: `r${i}`,
    fingerprint,
    blocks: fingerprintBlocks(fingerprint, scheme),
    contentHash: hex16(),
    urlHash: hex16(),
    titleHash: null,
    short: false,
    clusterId: `r${i}`,
    duplicateOf: null,
    distance: null,
    layer: null,
    version: 'bench-v1',
    indexedAt: T_BASE + i,
  }
}

// ---- per scheme ----

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

async function storeBytes(store: ElasticsearchStore, index: string): Promise<{ bytes: number; segments: number }> {
  const stats = await store.client.indices.stats({ index, metric: ['store', 'segments'] })
  const p = stats._all.primaries
  return { bytes: p?.store?.size_in_bytes ?? NaN, segments: p?.segments?.count ?? NaN }
}

/** 1-minute load average: the figures mean little if other work competes for the cores. */
const loadAvg = (): number => Number(os.loadavg()[0]!.toFixed(2))

interface Loaded {
  name: string
  scheme: BlockScheme
  index: string
  store: ElasticsearchStore
  loadSeconds: number
  size: { bytes: number; segments: number }
  lookups: CandidateQuery[]
}

async function load(name: string, scheme: BlockScheme): Promise<Loaded> {
  const index = `simdup-bench-${name}-${process.pid}`
  // Pending list off: this process never reads its own writes before the refresh below.
  const store = await createElasticsearchStore({ node: URL_, index, bulkSize: BULK, concurrency: 2, pendingTtlMs: 0, msearchSize: BATCH, requestTimeoutMs: 300_000 })
  opened.push({ store, index })
  // Bulk-load settings: no refresh, no fsync per request (restored below).
  await store.client.indices.putSettings({ index, settings: { index: { refresh_interval: '-1', translog: { durability: 'async', sync_interval: '30s' } } } })
  const loadStart = performance.now()
  const CHUNK = BULK * 4
  for (let from = 0; from < total; from += CHUNK) {
    const records: FingerprintRecord[] = []
    for (let i = from; i < Math.min(total, from + CHUNK); i++) records.push(recordAt(i, scheme))
    const result = await store.put(records)
    if (result.failed.length > 0) throw new Error(`${result.failed.length} records failed, first: ${result.failed[0]!.error.message}`)
    if ((from / CHUNK) % 10 === 0) log(`  ${name}: ${from + records.length} / ${total} loaded`)
  }
  const loadSeconds = (performance.now() - loadStart) / 1000
  await store.client.indices.putSettings({ index, settings: { index: { refresh_interval: '1s', translog: { durability: 'request' } } } })
  await store.refresh()
  await store.client.indices.flush({ index })
  const size = await storeBytes(store, index)
  log(`  ${name}: loaded ${total} in ${loadSeconds.toFixed(1)} s (${Math.round(total / loadSeconds)} docs/s, load average ${loadAvg()}), ${(size.bytes / 2 ** 20).toFixed(1)} MiB in ${size.segments} segments`)
  const lookups = queries.map((fp) => ({ fingerprint: fp, blocks: fingerprintBlocks(fp, scheme), minMatch: scheme.minMatch, maxDistance: MAX_DISTANCE }))
  return { name, scheme, index, store, loadSeconds, size, lookups }
}

const opened: { store: ElasticsearchStore; index: string }[] = []
const results: Record<string, unknown>[] = []
const wanted = new Set(values.schemes.split(','))
const ROUNDS = Number(values.rounds)
try {
  const loaded: Loaded[] = []
  for (const { name, scheme } of SCHEMES.filter((s) => wanted.has(s.name))) {
    log(`scheme ${name}: ${scheme.blocks} blocks, minMatch ${scheme.minMatch}, ${total} records (${N} random + ${planted.length} planted); load average ${loadAvg()} on ${os.availableParallelism()} cores`)
    loaded.push(await load(name, scheme))
  }

  // Lookups: every batch of every scheme is timed in alternation, round after round, so that
  // whatever else runs on the machine weighs on both schemes alike.
  const latencies = new Map<string, number[]>(loaded.map((l) => [l.name, []]))
  const answers = new Map<string, FingerprintRecord[][]>(loaded.map((l) => [l.name, []]))
  const loadBefore = loadAvg()
  for (const l of loaded) await l.store.candidates(l.lookups) // warm-up: terms dictionaries, caches
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < Q; i += BATCH) {
      const order = round % 2 === 0 ? loaded : [...loaded].reverse()
      for (const l of order) {
        const s = performance.now()
        const got = await l.store.candidates(l.lookups.slice(i, i + BATCH))
        latencies.get(l.name)!.push(performance.now() - s)
        if (round === 0) answers.get(l.name)!.push(...got)
      }
    }
  }
  log(`lookups: ${ROUNDS} rounds of ${Q} queries in batches of ${BATCH}; load average ${loadBefore} → ${loadAvg()}`)

  for (const l of loaded) {
    const got = answers.get(l.name)!
    let recalled = 0
    let trueTotal = 0
    const fetched = got.map((a) => a.length).sort((a, b) => a - b)
    const verified = got.map((a, qi) => a.filter((r) => hamming(r.fingerprint, queries[qi]!) <= MAX_DISTANCE).length)
    trueMatches.forEach((m, qi) => {
      trueTotal += m.length
      const ids = new Set(got[qi]!.map((r) => r.id))
      recalled += m.filter((i) => ids.has(`r${i}`)).length
    })
    const fetchedTotal = fetched.reduce((s, x) => s + x, 0)
    const lat = [...latencies.get(l.name)!].sort((a, b) => a - b)
    let merged: { bytes: number; segments: number; seconds: number } | null = null
    if (!values['no-forcemerge']) {
      const m0 = performance.now()
      await l.store.client.indices.forcemerge({ index: l.index, max_num_segments: 1 }, { requestTimeout: 900_000 })
      merged = { ...(await storeBytes(l.store, l.index)), seconds: (performance.now() - m0) / 1000 }
    }
    const result = {
      scheme: l.name,
      blocks: l.scheme.blocks,
      minMatch: l.scheme.minMatch,
      docs: total,
      loadSeconds: Number(l.loadSeconds.toFixed(1)),
      docsPerSecond: Math.round(total / l.loadSeconds),
      queries: Q,
      batch: BATCH,
      candidatesPerLookup: { mean: Number((fetchedTotal / Q).toFixed(2)), p50: quantile(fetched, 0.5), p95: quantile(fetched, 0.95), max: fetched.at(-1) },
      trueMatchesPerLookup: Number((trueTotal / Q).toFixed(3)),
      verifiedPerLookup: Number((verified.reduce((s, x) => s + x, 0) / Q).toFixed(3)),
      candidatesPerTrueMatch: Number((fetchedTotal / Math.max(1, trueTotal)).toFixed(2)),
      recall: trueTotal === 0 ? 1 : recalled / trueTotal,
      msearchBatchMs: { p50: Number(quantile(lat, 0.5).toFixed(1)), p95: Number(quantile(lat, 0.95).toFixed(1)), max: Number(lat.at(-1)!.toFixed(1)), batches: lat.length },
      perLookupMs: Number((lat.reduce((s, x) => s + x, 0) / (Q * ROUNDS)).toFixed(3)),
      indexBytes: l.size.bytes,
      bytesPerDoc: Number((l.size.bytes / total).toFixed(1)),
      segments: l.size.segments,
      ...(merged === null ? {} : { mergedBytes: merged.bytes, mergedBytesPerDoc: Number((merged.bytes / total).toFixed(1)), mergeSeconds: Number(merged.seconds.toFixed(1)) }),
    }
    log(`  ${l.name}: ${JSON.stringify(result)}`)
    results.push(result)
  }
} finally {
  for (const { store, index } of opened) {
    await store.client.indices.delete({ index }, { ignore: [404] }).catch(() => undefined)
    await store.close()
  }
}

console.log('| scheme | docs | load docs/s | cand./lookup mean (p50/p95/max) | true/lookup | recall | _msearch batch of ' + BATCH + ' p50 / p95 ms | ms/lookup | index MiB (B/doc) | merged MiB (B/doc) |')
console.log('|---|---|---|---|---|---|---|---|---|---|')
for (const r of results) {
  const c = r.candidatesPerLookup as { mean: number; p50: number; p95: number; max: number }
  const l = r.msearchBatchMs as { p50: number; p95: number }
  const mib = (b: unknown): string => ((b as number) / 2 ** 20).toFixed(1)
  console.log(
    `| ${String(r.scheme)} | ${String(r.docs)} | ${String(r.docsPerSecond)} | ${c.mean} (${c.p50}/${c.p95}/${c.max}) | ${String(r.trueMatchesPerLookup)} | ${(Number(r.recall) * 100).toFixed(1)}% | ${l.p50} / ${l.p95} | ${String(r.perLookupMs)} | ${mib(r.indexBytes)} (${String(r.bytesPerDoc)}) | ${r.mergedBytes === undefined ? '–' : `${mib(r.mergedBytes)} (${String(r.mergedBytesPerDoc)})`} |`,
  )
}
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ n: N, queries: Q, batch: BATCH, rounds: ROUNDS, seed: Number(values.seed), results }, null, 2))
