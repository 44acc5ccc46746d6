/**
 * Benchmark of the embedded store: memory per fingerprint (in total and by table part), put
 * throughput, candidate lookups/s (4×16-bit blocks, k = 3) and, with --dir, log size and replay
 * time on reopen. With --dir the store reads records back from its log and keeps only its indexes
 * in RAM (the persistent store's memory figure); without, records are held in RAM.
 *
 *   node --expose-gc --import tsx scripts/bench-store.ts [--n 10000000] [--batch 10000]
 *     [--queries 20000] [--dir DIR] [--no-fsync] [--url 1] [--title 1] [--dups 0.1] [--short 0.05]
 *     [--no-minhash] [--filter-distance] [--json FILE]
 *
 * Records are synthetic but shaped like the deduplicator's: ids "doc-<n>", random 64-bit
 * fingerprints with their 4 block terms, random content/URL/title hashes (--url/--title: share of
 * records that have one), --dups of them duplicates pointing at an earlier cluster, --short of
 * them short texts carrying a 12-term sketch ("t:" + 96 hex digits); the others carry a MinHash
 * sketch ("m:" + 32 hex digits) and 8 LSH band terms, unless --no-minhash. One `indexedAt` per
 * batch, as the deduplicator stamps them.
 */
import { rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { parseArgs } from 'node:util'
import { fingerprintBlocks } from '../src/fingerprint/blocks.js'
import { hamming } from '../src/fingerprint/hamming.js'
import { openMemoryStore } from '../src/store/embedded/store.js'
import type { CandidateQuery, Fingerprint, FingerprintRecord } from '../src/types.js'
import { xorshift32 } from './eval/prng.js'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '10000000' },
    batch: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '20000' },
    dir: { type: 'string' },
    'no-fsync': { type: 'boolean', default: false },
    url: { type: 'string', default: '1' },
    title: { type: 'string', default: '1' },
    dups: { type: 'string', default: '0.1' },
    short: { type: 'string', default: '0.05' },
    'no-minhash': { type: 'boolean', default: false },
    'filter-distance': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
})
const N = Number(values.n)
const BATCH = Number(values.batch)
const QUERIES = Number(values.queries)
const URL_SHARE = Number(values.url)
const TITLE_SHARE = Number(values.title)
const DUP_SHARE = Number(values.dups)
const SHORT_SHARE = Number(values.short)
const MINHASH = !values['no-minhash']
const T0 = Date.UTC(2024, 4, 1)

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) {
  console.error('Run with node --expose-gc --import tsx scripts/bench-store.ts (memory figures need a full GC).')
  process.exit(2)
}

// xorshift32: fast, deterministic, good enough for synthetic hashes.
const rand32 = xorshift32(0x9e3779b9)
const hex8 = (): string => rand32().toString(16).padStart(8, '0')
const hex16 = (): string => hex8() + hex8()
const chance = (p: number): boolean => rand32() / 2 ** 32 < p

const randomBands = (): string[] => Array.from({ length: 8 }, (_, b) => `m${b}_${hex8()}`)

function makeRecord(i: number): FingerprintRecord {
  const id = `doc-${i}`
  const fingerprint: Fingerprint = { hi: rand32(), lo: rand32() }
  const dup = i > 0 && chance(DUP_SHARE)
  const of = dup ? `doc-${rand32() % i}` : null
  const short = chance(SHORT_SHARE)
  const r: FingerprintRecord = {
    id,
    fingerprint,
    blocks: fingerprintBlocks(fingerprint),
    contentHash: hex16(),
    urlHash: chance(URL_SHARE) ? hex16() : null,
    titleHash: chance(TITLE_SHARE) ? hex16() : null,
    short,
    clusterId: of ?? id,
    duplicateOf: of,
    distance: dup ? rand32() % 4 : null,
    layer: dup ? 'simhash' : null,
    version: 'simhash64-tfidf-v1',
    indexedAt: T0 + Math.floor(i / BATCH) * 1000, // one time per batch, as the deduplicator stamps them
  }
  if (short) r.sketch = `t:${Array.from({ length: 12 }, hex8).join('')}`
  else if (MINHASH) {
    r.sketch = `m:${hex16()}${hex16()}`
    r.bands = randomBands()
  }
  return r
}

function memory(): { rss: number; heapUsed: number; external: number; arrayBuffers: number } {
  gc!()
  gc!()
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage()
  return { rss, heapUsed, external, arrayBuffers }
}
/** CPU seconds (user + system) of this process since `since`: a fairer clock on a shared machine. */
function cpuSeconds(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since)
  return (d.user + d.system) / 1e6
}
const mb = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`

if (values.dir !== undefined) await rm(values.dir, { recursive: true, force: true })
const before = memory()
const filterBlockDistance = values['filter-distance']
const store = await openMemoryStore(values.dir === undefined ? { filterBlockDistance } : { dir: values.dir, fsync: !values['no-fsync'], filterBlockDistance })
const sample: FingerprintRecord[] = []
let putSeconds = 0
let putCpu = 0
for (let start = 0; start < N; start += BATCH) {
  const records: FingerprintRecord[] = []
  for (let i = start; i < Math.min(N, start + BATCH); i++) records.push(makeRecord(i))
  if (sample.length < QUERIES) sample.push(records[0]!)
  const t = performance.now()
  const c = process.cpuUsage()
  const result = await store.put(records)
  putSeconds += (performance.now() - t) / 1000
  putCpu += cpuSeconds(c)
  if (result.failed.length > 0) throw result.failed[0]!.error
  if ((start / BATCH) % 100 === 99) console.error(`  ${(start + BATCH).toLocaleString()} records, ${Math.round((start + BATCH) / putSeconds).toLocaleString()} puts/s`)
}
const after = memory()
const stats = store.stats()
const used = after.heapUsed + after.external - before.heapUsed - before.external

// Half the queries have a planted neighbour (an indexed fingerprint with 0–3 bits flipped, and
// its band terms), half are random; each carries fresh hashes, as a new document would.
const queries: CandidateQuery[] = Array.from({ length: QUERIES }, (_, i) => {
  const planted = i % 2 === 0 ? sample[i % sample.length]! : undefined
  let fp: Fingerprint = planted?.fingerprint ?? { hi: rand32(), lo: rand32() }
  for (let k = rand32() % 4; k > 0; k--) {
    const bit = rand32() % 64
    fp = bit >= 32 ? { hi: (fp.hi ^ (1 << (bit - 32))) >>> 0, lo: fp.lo } : { hi: fp.hi, lo: (fp.lo ^ (1 << bit)) >>> 0 }
  }
  const q: CandidateQuery = { fingerprint: fp, blocks: fingerprintBlocks(fp), minMatch: 1, maxDistance: 3, contentHash: hex16(), urlHash: hex16(), titleHash: hex16() }
  if (MINHASH) q.bands = planted?.bands ?? randomBands()
  return q
})
let candidates = 0
let duplicates = 0
const tq = performance.now()
const cq = process.cpuUsage()
for (let i = 0; i < queries.length; i += 100) {
  const batch = queries.slice(i, i + 100)
  const answers = await store.candidates(batch)
  answers.forEach((a, j) => {
    candidates += a.length
    for (const r of a) if (hamming(r.fingerprint, batch[j]!.fingerprint) <= 3) duplicates++
  })
}
const lookupSeconds = (performance.now() - tq) / 1000
const lookupCpu = cpuSeconds(cq)
await store.close()

let replaySeconds: number | null = null
let replayCpu: number | null = null
if (values.dir !== undefined) {
  const t = performance.now()
  const c = process.cpuUsage()
  const reopened = await openMemoryStore({ dir: values.dir })
  replaySeconds = (performance.now() - t) / 1000
  replayCpu = cpuSeconds(c)
  if ((await reopened.count()) !== stats.live) throw new Error('replay lost records')
  await reopened.close()
}

const report = {
  n: N,
  node: process.version,
  minhash: MINHASH,
  filterBlockDistance,
  persistent: values.dir !== undefined,
  fsync: values.dir !== undefined && !values['no-fsync'],
  bytesPerFingerprint: {
    heapPlusExternal: used / N,
    heapUsed: (after.heapUsed - before.heapUsed) / N,
    external: (after.external - before.external) / N,
    arrayBuffers: (after.arrayBuffers - before.arrayBuffers) / N,
    rss: (after.rss - before.rss) / N,
    tableBytes: stats.tableBytes / N,
  },
  tableBytesPerFingerprint: Object.fromEntries(Object.entries(stats.tableParts).map(([part, bytes]) => [part, bytes / N])),
  totals: { heapUsed: after.heapUsed, external: after.external, arrayBuffers: after.arrayBuffers, rss: after.rss },
  loadAverage: os.loadavg()[0] ?? 0,
  putsPerSecond: N / putSeconds,
  putsPerCpuSecond: N / putCpu,
  lookupsPerSecond: QUERIES / lookupSeconds,
  lookupsPerCpuSecond: QUERIES / lookupCpu,
  candidatesPerLookup: candidates / QUERIES,
  duplicatesPerLookup: duplicates / QUERIES,
  logBytesPerRecord: stats.logBytes / N,
  replaySeconds,
  replayRecordsPerSecond: replaySeconds === null ? null : N / replaySeconds,
  replayCpuSeconds: replayCpu,
}
const b = report.bytesPerFingerprint
console.log(`${N.toLocaleString()} fingerprints${MINHASH ? ' with MinHash sketches and 8 bands' : ''} (${report.persistent ? `log in ${values.dir}, fsync ${report.fsync ? 'on' : 'off'}` : 'in memory'}), node ${process.version}, load average ${report.loadAverage.toFixed(1)} on ${os.availableParallelism()} cores`)
console.log(`  memory: ${b.heapPlusExternal.toFixed(1)} B/fp heap+external (${b.heapUsed.toFixed(1)} heap, ${b.external.toFixed(1)} external of which ${b.arrayBuffers.toFixed(1)} array buffers; ${b.tableBytes.toFixed(1)} in tables), rss +${b.rss.toFixed(1)} B/fp`)
console.log(`  tables by part (B/fp): ${Object.entries(report.tableBytesPerFingerprint).map(([part, v]) => `${part} ${v.toFixed(1)}`).join(', ')}`)
console.log(`  totals: heapUsed ${mb(after.heapUsed)}, external ${mb(after.external)}, rss ${mb(after.rss)}`)
console.log(`  put: ${Math.round(report.putsPerSecond).toLocaleString()} records/s wall, ${Math.round(report.putsPerCpuSecond).toLocaleString()} per CPU second (batches of ${BATCH.toLocaleString()})`)
console.log(`  candidates: ${Math.round(report.lookupsPerSecond).toLocaleString()} lookups/s wall, ${Math.round(report.lookupsPerCpuSecond).toLocaleString()} per CPU second (4×16 blocks, k = 3, batches of 100${filterBlockDistance ? ', filterBlockDistance' : ''}); ${report.candidatesPerLookup.toFixed(1)} candidates and ${report.duplicatesPerLookup.toFixed(2)} within distance 3 per lookup`)
if (replaySeconds !== null) {
  console.log(`  log: ${report.logBytesPerRecord.toFixed(1)} B/record; replay on open ${replaySeconds.toFixed(2)} s wall, ${replayCpu!.toFixed(2)} s CPU (${Math.round(report.replayRecordsPerSecond!).toLocaleString()} records/s)`)
}
if (values.json !== undefined) await writeFile(values.json, JSON.stringify(report, null, 2))
