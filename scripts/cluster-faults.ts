/**
 * Fault tests against a real Elasticsearch cluster (issue 13): the CLI (bin/simdup.js, the real
 * binary) against three JVMs of scripts/es-start.sh, with nodes killed by `kill -9`, a node that
 * answers 429 and four writers at once. No mock anywhere. Each scenario compares with an
 * uninterrupted run of the same input on a fresh index of the same cluster:
 *
 *   index-kill     kill -9 a node holding a primary in the middle of `simdup index --replicas 1`;
 *                  the run completes or exits 1 with a message; the node is restarted on its
 *                  data, the same input re-run: every document stored once, decisions (of the
 *                  re-run, and of the killed run when it completed) and stored records equal.
 *   red            the same with `--replicas 0`: a primary with no copy is gone (the index is
 *                  red) until its node comes back 10 s later; the run must wait, not drop, or
 *                  exit 1 naming the missing shards (never exit 4, "cannot reach": the live
 *                  nodes answer 503 even when a request's last try met the dead node).
 *   red-read       a node holding a primary of an index with no replica is killed while no run
 *                  is active (the index is red); the same input and more is indexed while it is
 *                  down and the node comes back 10 s later: the run must never decide on the
 *                  shards that answered (a copy whose original sits on the lost shard would be
 *                  "unique"): it waits and succeeds, or exits 1 with a message; after the
 *                  restart the re-run's decisions and stored records equal the reference.
 *   reindex-kill   kill -9 a node in the middle of `simdup reindex --dest`, restart it, run the
 *                  same command again (resume): dedup fields equal an uninterrupted reindex.
 *   four-writers   four `simdup index` at once on overlapping input into one index, then
 *                  `simdup reconcile`: no pair that the engine's matcher accepts (brute force
 *                  over every stored record) left in two clusters; every id stored once.
 *   rejections     a node of its own (ES_PORT+10) with thread_pool.write.size=1 and
 *                  queue_size=1 and an index of 8 shards: bulk items come back 429
 *                  (es_rejected_execution_exception, counted in the node's stats); the run
 *                  backs off, writes everything, decisions equal the reference.
 *
 *   npx tsx scripts/cluster-faults.ts [--docs N] [--only index-kill,red,…]
 *
 * dist/ is rebuilt first when older than src/ (the scenarios run bin/simdup.js).
 * ES_PORT (default 9250): the 3-node cluster on ES_PORT…ES_PORT+2 (started when it does not
 * answer, and then stopped at the end). Exits 0 when every check holds, 1 otherwise; one line per
 * check and the timings on stdout. CI runs it once after the suites on the cluster (.ci/run;
 * SIMDUP_CI_FAULTS=0 skips it).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client, ClusterConnectionPool } from '@elastic/elasticsearch'
import { createDeduplicator, type FingerprintRecord } from '../src/index.js'
import { matchCandidate } from '../src/internal.js'
import { createElasticsearchStore, type ElasticsearchStore } from '../src/elasticsearch/index.js'
import { isEarlier } from '../src/engine/match.js'
import { loadCorpus } from './corpus/load.js'
import buildIfStale from '../test/setup/build.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const BIN = join(ROOT, 'bin/simdup.js')
const STATE = join(ROOT, '.cache/es')
const PORT = Number(process.env.ES_PORT ?? 9250)
const NODES = 3
const REJECT_PORT = PORT + 10

const argv = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(name)
  return i < 0 ? undefined : argv[i + 1]
}
const DOCS = Number(flag('--docs') ?? 1500)
const ONLY = flag('--only')?.split(',')
const wanted = (name: string) => ONLY === undefined || ONLY.includes(name)

const dir = mkdtempSync(join(tmpdir(), 'simdup-faults-'))
const failures: string[] = []
const t0 = Date.now()
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`
const log = (line: string) => console.log(`[${secs(Date.now() - t0).padStart(7)}] ${line}`)

function check(name: string, ok: boolean, detail = ''): void {
  log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail === '' ? '' : `: ${detail}`}`)
  if (!ok) failures.push(name)
}

// --- the cluster -------------------------------------------------------------------------------

/** Runs scripts/es-start.sh (or stop) with `env`; returns its last stdout line. */
function launcher(script: 'es-start.sh' | 'es-stop.sh', env: Record<string, string>): string {
  const r = spawnSync('bash', [join(ROOT, 'scripts', script)], { env: { ...process.env, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (r.status !== 0) throw new Error(`${script} failed (exit ${r.status})`)
  return r.stdout.trim().split('\n').at(-1) ?? ''
}

const pidOf = (port: number) => Number(readFileSync(join(STATE, `es-${port}.pid`), 'utf8').trim())

/** The port of a node holding a started primary of `index` (node names are simdup-node-PORT). */
async function primaryHolder(client: Client, index: string): Promise<number> {
  const shards = await client.cat.shards({ index, format: 'json' })
  const primary = shards.find((s) => s.prirep === 'p' && s.state === 'STARTED' && s.node !== undefined && s.node !== null)
  if (primary === undefined) throw new Error(`no started primary of ${index}`)
  return Number(String(primary.node).replace('simdup-node-', ''))
}

async function count(client: Client, index: string): Promise<number> {
  try {
    return (await client.count({ index })).count
  } catch {
    return 0 // not created yet, or not searchable this instant
  }
}

async function waitFor(what: string, pred: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!(await pred())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

// --- the CLI -----------------------------------------------------------------------------------

interface Run {
  code: number | null
  stderr: string
  ms: number
}

/** Starts bin/simdup.js with `args`; `done` settles when it exits. */
function simdup(args: string[]): { done: Promise<Run> } {
  const started = Date.now()
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, ES_URL: '' }, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  return { done: new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr, ms: Date.now() - started }))) }
}

const decisions = (file: string) => readFileSync(join(dir, file), 'utf8').trim().split('\n')

/** Every stored record's decision fields, sorted by id; and how many records there are. */
async function stored(urls: string, index: string): Promise<{ lines: string[]; records: FingerprintRecord[] }> {
  const store = await createElasticsearchStore({ node: urls, index, ensureIndex: 'none' })
  const records: FingerprintRecord[] = []
  for await (const b of store.scan(500)) records.push(...b)
  await store.close()
  const lines = records.map((r) => `${r.id} dup=${r.duplicateOf} cluster=${r.clusterId} ${r.layer} ${r.distance}`).sort()
  return { lines, records }
}

/** Lines of `a` not equal to the line at the same position in `b` (at most 3, for the message). */
function diff(a: string[], b: string[]): string {
  if (a.length !== b.length) return `${a.length} lines against ${b.length}`
  const bad = a.flatMap((l, i) => (l === b[i] ? [] : [`${l} ≠ ${b[i]}`]))
  return bad.length === 0 ? '' : `${bad.length} differ, e.g. ${bad.slice(0, 3).join(' | ')}`
}

// --- input -------------------------------------------------------------------------------------

interface Doc {
  id: string
  title: string
  content: string
  n: number
}

/**
 * `n` documents: corpus documents, and every fourth an edited copy of an earlier one (a sentence
 * appended, a tenth cut, or verbatim), so runs have duplicates of every layer. Deterministic.
 */
async function input(n: number): Promise<Doc[]> {
  const corpus = (await loadCorpus()).filter((d) => d.content.length >= 200)
  const out: Doc[] = []
  let next = 0
  for (let i = 0; out.length < n; i++) {
    if (i % 4 === 3 && out.length > 10) {
      const src = out[(i * 7919) % out.length]!
      const edit = i % 3
      const content = edit === 0 ? `${src.content}\n本文档已更新。` : edit === 1 ? src.content.slice(0, Math.floor(src.content.length * 0.9)) : src.content
      out.push({ id: `copy-${i}`, title: src.title, content, n: out.length })
    } else {
      const d = corpus[next++ % corpus.length]!
      out.push({ id: next > corpus.length ? `${d.id}#${next}` : d.id, title: d.title, content: d.content, n: out.length })
    }
  }
  return out
}

const jsonl = (docs: object[]) => docs.map((d) => JSON.stringify(d)).join('\n') + '\n'

// --- scenarios ---------------------------------------------------------------------------------

interface Ctx {
  urls: string
  client: Client
  docs: Doc[]
  reference: { decisions: string[]; stored: string[] }
}

const layoutFlags = (replicas: number) => ['--shards', '3', '--replicas', String(replicas)]

async function referenceRun(urls: string): Promise<Ctx['reference']> {
  const r = await simdup(['index', 'input.jsonl', '--out', 'ref.jsonl', '--es', urls, '--index', 'faults-ref', '--batch', '100', '--quiet', ...layoutFlags(1)]).done
  if (r.code !== 0) throw new Error(`reference run failed: ${r.stderr}`)
  log(`reference: ${DOCS} documents indexed uninterrupted in ${secs(r.ms)} (${Math.round(DOCS / (r.ms / 1000))} docs/s)`)
  return { decisions: decisions('ref.jsonl'), stored: (await stored(urls, 'faults-ref')).lines }
}

/** kill -9 the node holding a primary of `index` once a third of the documents are in it; restart it after `downMs`. */
async function killMidRun(ctx: Ctx, index: string, run: { done: Promise<Run> }, downMs: number): Promise<{ killed: number; restarted: Promise<void> }> {
  const third = Math.floor(DOCS / 3)
  await waitFor(`${third} documents in ${index}`, async () => (await count(ctx.client, index)) >= third, 600_000)
  const port = await primaryHolder(ctx.client, index)
  const pid = pidOf(port)
  process.kill(pid, 'SIGKILL')
  log(`kill -9 node ${port} (pid ${pid}) with ${await count(ctx.client, index)} documents in ${index}`)
  const restarted = (async () => {
    await new Promise((r) => setTimeout(r, downMs))
    // The launcher starts only the missing node, on its own data.
    launcher('es-start.sh', { ES_PORT: String(PORT) })
    log(`node ${port} restarted`)
  })()
  void run
  return { killed: port, restarted }
}

async function green(client: Client): Promise<void> {
  await client.cluster.health({ wait_for_status: 'green', wait_for_no_initializing_shards: true, timeout: '180s' })
}

async function indexKill(ctx: Ctx, name: string, replicas: number, downMs: number): Promise<void> {
  const index = `faults-${name}`
  const run = simdup(['index', 'input.jsonl', '--out', `${name}-1.jsonl`, '--es', ctx.urls, '--index', index, '--batch', '100', '--quiet', ...layoutFlags(replicas)])
  const { restarted } = await killMidRun(ctx, index, run, downMs)
  const first = await run.done
  const message = first.stderr.trim().replace(/\s*\n\s*/g, ' ⏎ ')
  // Exit 4 (STORE_UNAVAILABLE, "cannot reach") is wrong here: two nodes stay up and answer. With
  // no replica (red) an exit 1 must name the missing shards (a 503, a shard not yet started), not a
  // connection failure.
  const stopped = replicas === 0 ? /status 503|shards did not answer|no started copy/ : /Elasticsearch/
  check(`${name}: the killed run completes or exits 1 with a message`, first.code === 0 || (first.code === 1 && stopped.test(first.stderr)), `exit ${first.code} after ${secs(first.ms)}${first.code === 0 ? '' : `: ${message}`}`)
  if (first.code === 0) check(`${name}: the killed run's decisions equal the uninterrupted run's`, diff(decisions(`${name}-1.jsonl`), ctx.reference.decisions) === '', diff(decisions(`${name}-1.jsonl`), ctx.reference.decisions))
  await restarted
  await green(ctx.client)
  const again = await simdup(['index', 'input.jsonl', '--out', `${name}-2.jsonl`, '--es', ctx.urls, '--index', index, '--batch', '100', '--quiet']).done
  check(`${name}: the re-run after the restart succeeds`, again.code === 0, `exit ${again.code} in ${secs(again.ms)} ${again.stderr.trim()}`)
  const after = await stored(ctx.urls, index)
  const ids = new Set(after.records.map((r) => r.id))
  check(`${name}: every document stored exactly once`, after.records.length === DOCS && ids.size === DOCS, `${after.records.length} records, ${ids.size} ids, ${DOCS} documents`)
  check(`${name}: the re-run's decisions equal the uninterrupted run's`, diff(decisions(`${name}-2.jsonl`), ctx.reference.decisions) === '', diff(decisions(`${name}-2.jsonl`), ctx.reference.decisions))
  check(`${name}: stored records equal the uninterrupted run's`, diff(after.lines, ctx.reference.stored) === '', diff(after.lines, ctx.reference.stored))
}

async function redRead(ctx: Ctx): Promise<void> {
  const index = 'faults-red-read'
  // The first half stored on 3 shards without replicas; then the node holding a primary goes and
  // the second half (a quarter of it copies of the first) is indexed: every one of its lookups
  // reaches the lost shard.
  const lines = readFileSync(join(dir, 'input.jsonl'), 'utf8').trim().split('\n')
  const h = Math.floor(DOCS / 2)
  writeFileSync(join(dir, 'head.jsonl'), lines.slice(0, h).join('\n') + '\n')
  writeFileSync(join(dir, 'tail.jsonl'), lines.slice(h).join('\n') + '\n')
  const head = await simdup(['index', 'head.jsonl', '--out', 'red-read-0.jsonl', '--es', ctx.urls, '--index', index, '--batch', '100', '--quiet', ...layoutFlags(0)]).done
  if (head.code !== 0) throw new Error(`red-read: indexing the first half failed: ${head.stderr}`)
  const stored0 = (await stored(ctx.urls, index)).records
  // Opened while green (opening reads the index too, and refuses a red one).
  const reader = await createElasticsearchStore({ node: ctx.urls, index, ensureIndex: 'none', retries: 0 })
  const port = await primaryHolder(ctx.client, index)
  process.kill(pidOf(port), 'SIGKILL')
  await waitFor('a red cluster', async () => (await ctx.client.cluster.health({ index })).status === 'red', 60_000)
  log(`kill -9 node ${port}: ${index} is red`)
  await partialReads(reader, stored0)
  const run = simdup(['index', 'tail.jsonl', '--out', 'red-read-1.jsonl', '--es', ctx.urls, '--index', index, '--batch', '100', '--quiet'])
  await new Promise((r) => setTimeout(r, 10_000))
  launcher('es-start.sh', { ES_PORT: String(PORT) })
  log(`node ${port} restarted`)
  const first = await run.done
  const message = first.stderr.trim().replace(/\s*\n\s*/g, ' ⏎ ')
  // Decisions do not depend on batch boundaries: the second half's equal the reference's, but for the line.
  const same = first.code === 0 ? diff(withoutLine(decisions('red-read-1.jsonl')), withoutLine(ctx.reference.decisions.slice(h))) : ''
  check('red-read: the run on a red index waits and decides as the reference, or exits 1 with a message', (first.code === 0 && same === '') || (first.code === 1 && /Elasticsearch/.test(first.stderr)), `exit ${first.code} after ${secs(first.ms)}${first.code === 0 ? ` ${same}` : `: ${message}`}`)
  await green(ctx.client)
  const again = await simdup(['index', 'input.jsonl', '--out', 'red-read-2.jsonl', '--es', ctx.urls, '--index', index, '--batch', '100', '--quiet']).done
  check('red-read: the re-run after the restart succeeds', again.code === 0, `exit ${again.code} in ${secs(again.ms)} ${again.stderr.trim()}`)
  const after = await stored(ctx.urls, index)
  check('red-read: every document stored exactly once', after.records.length === DOCS && new Set(after.records.map((r) => r.id)).size === DOCS, `${after.records.length} records of ${DOCS}`)
  check("red-read: the re-run's decisions equal the reference", diff(decisions('red-read-2.jsonl'), ctx.reference.decisions) === '', diff(decisions('red-read-2.jsonl'), ctx.reference.decisions))
  check('red-read: stored records equal the reference', diff(after.lines, ctx.reference.stored) === '', diff(after.lines, ctx.reference.stored))
}

/**
 * The store's reads on a red index: each either answers in full or rejects; never a smaller
 * answer (records on the lost shard taken for absent). `records`: what the index held before.
 */
async function partialReads(store: ElasticsearchStore, records: FingerprintRecord[]): Promise<void> {
  try {
    const outcome = async <T>(what: string, fn: () => Promise<T>, full: (v: T) => boolean): Promise<void> => {
      const started = Date.now()
      try {
        const v = await fn()
        check(`red-read: ${what} answers in full or rejects`, full(v), `answered ${full(v) ? 'in full' : 'PARTIALLY'} in ${secs(Date.now() - started)}`)
      } catch (err) {
        const e = err as { code?: string; message?: string }
        check(`red-read: ${what} answers in full or rejects`, e.code === 'STORE_REQUEST_FAILED' || e.code === 'STORE_UNAVAILABLE', `rejected in ${secs(Date.now() - started)}: ${e.code} ${e.message}`)
      }
    }
    const ids = records.map((r) => r.id)
    await outcome('get', () => store.get(ids), (m) => m.size === records.length)
    await outcome('count', () => store.count(), (n) => n === records.length)
    // Each record's own content hash finds it (no excludeId).
    const queries = records.map((r) => ({ fingerprint: r.fingerprint, blocks: r.blocks, minMatch: 3, maxDistance: 3, contentHash: r.contentHash, urlHash: null, titleHash: null }))
    await outcome('candidates', () => store.candidates(queries), (c) => c.every((list, i) => list.some((x) => x.id === records[i]!.id)))
  } finally {
    await store.close()
  }
}

/** Decision lines without their input line number. */
function withoutLine(lines: string[]): string[] {
  return lines.map((l) => {
    const { line: _line, ...rest } = JSON.parse(l) as Record<string, unknown>
    return JSON.stringify(rest)
  })
}

/** The dedup fields of every document of `index`, sorted by id. */
async function dedupFields(client: Client, index: string): Promise<string[]> {
  const out: string[] = []
  let res = await client.search<{ dedup?: Record<string, unknown> }>({ index, scroll: '1m', size: 1000, _source: ['dedup.clusterId', 'dedup.duplicateOf', 'dedup.layer', 'dedup.distance', 'dedup.id'] })
  while (res.hits.hits.length > 0) {
    for (const h of res.hits.hits) {
      const d = h._source?.dedup ?? {}
      out.push(`${h._id} cluster=${String(d.clusterId)} dup=${String(d.duplicateOf)} ${String(d.layer)} ${String(d.distance)}`)
    }
    res = await client.scroll({ scroll_id: res._scroll_id!, scroll: '1m' })
  }
  if (res._scroll_id !== undefined) await client.clearScroll({ scroll_id: res._scroll_id })
  return out.sort()
}

async function reindexKill(ctx: Ctx): Promise<void> {
  // The source: the input as content documents on 3 shards / 1 replica, walked in `n` order.
  await ctx.client.indices.create({ index: 'faults-src', settings: { number_of_shards: 3, number_of_replicas: 1 }, mappings: { properties: { n: { type: 'integer' } } } })
  for (let i = 0; i < ctx.docs.length; i += 1000) {
    const operations = ctx.docs.slice(i, i + 1000).flatMap((d) => [{ index: { _index: 'faults-src', _id: d.id } }, { title: d.title, content: d.content, n: d.n }])
    const res = await ctx.client.bulk({ operations, refresh: true })
    if (res.errors) throw new Error('loading faults-src failed')
  }
  const job = (dest: string) => ['reindex', '--es', ctx.urls, '--source', 'faults-src', '--dest', dest, '--sort', 'n', '--batch', '100', '--quiet', '--checkpoint', `${dest}.json`]
  const ref = await simdup(job('faults-reindex-ref')).done
  if (ref.code !== 0) throw new Error(`reference reindex failed: ${ref.stderr}`)
  log(`reindex reference: ${DOCS} documents in ${secs(ref.ms)}`)
  const want = await dedupFields(ctx.client, 'faults-reindex-ref')
  const run = simdup(job('faults-reindex'))
  const { restarted } = await killMidRun(ctx, 'faults-reindex', run, 0)
  const first = await run.done
  const message = first.stderr.trim().replace(/\s*\n\s*/g, ' ⏎ ')
  check('reindex-kill: the killed run completes or exits 1 with a message', first.code === 0 || (first.code === 1 && /Elasticsearch/.test(first.stderr)), `exit ${first.code} after ${secs(first.ms)}${first.code === 0 ? '' : `: ${message}`}`)
  await restarted
  await green(ctx.client)
  const resumed = await simdup(job('faults-reindex')).done
  check('reindex-kill: the resumed run succeeds', resumed.code === 0, `exit ${resumed.code} in ${secs(resumed.ms)} ${resumed.stderr.trim()}`)
  const got = await dedupFields(ctx.client, 'faults-reindex')
  check('reindex-kill: every document copied exactly once', got.length === DOCS, `${got.length} of ${DOCS}`)
  check('reindex-kill: dedup fields equal the uninterrupted reindex', diff(got, want) === '', diff(got, want))
}

async function fourWriters(ctx: Ctx): Promise<void> {
  const index = 'faults-four'
  // Each document goes to one, two or three of the four writers.
  const parts: Doc[][] = [[], [], [], []]
  ctx.docs.forEach((d, i) => {
    for (let w = 0; w < 4; w++) if ((i + w) % 4 === 0 || (i * 31 + w) % 5 === 0) parts[w]!.push(d)
  })
  const covered = new Set(parts.flat().map((d) => d.id))
  parts.forEach((p, w) => writeFileSync(join(dir, `part-${w}.jsonl`), jsonl(p)))
  // The first writer creates the index; the others join it at once.
  await (await createElasticsearchStore({ node: ctx.urls, index, shards: 3, replicas: 1 })).close()
  const runs = await Promise.all(parts.map((_, w) => simdup(['index', `part-${w}.jsonl`, '--out', `four-${w}.jsonl`, '--es', ctx.urls, '--index', index, '--batch', '50', '--quiet']).done))
  check('four-writers: all four runs succeed', runs.every((r) => r.code === 0), runs.map((r) => `exit ${r.code} in ${secs(r.ms)}`).join(', '))
  const rec = await simdup(['reconcile', '--es', ctx.urls, '--index', index, '--json']).done
  check('four-writers: reconcile succeeds', rec.code === 0, `exit ${rec.code} in ${secs(rec.ms)} ${rec.stderr.trim()}`)
  const { records } = await stored(ctx.urls, index)
  const ids = new Set(records.map((r) => r.id))
  check('four-writers: every document stored exactly once', records.length === covered.size && ids.size === covered.size, `${records.length} records, ${covered.size} distinct documents written`)
  // Writers that start together hand out the same sequence numbers (order is then by id);
  // reconcile must bound candidates among the records before each one in that order.
  const perSeq = new Map<number, number>()
  for (const r of records) perSeq.set(r.seq!, (perSeq.get(r.seq!) ?? 0) + 1)
  log(`four-writers: ${records.filter((r) => perSeq.get(r.seq!)! > 1).length} of ${records.length} records share their seq with another`)
  const store = await createElasticsearchStore({ node: ctx.urls, index, ensureIndex: 'none' })
  const o = createDeduplicator({ store }).options
  const maxPerBand = store.options.maxPerBand
  await store.close()
  // Brute force over every stored record, in first-insertion order: each duplicate points at an
  // earlier record the matcher accepts and shares its cluster; a record left unique matches no
  // earlier record it can reach; every cluster is named after a representative of its own.
  const bySeq = [...records].sort((a, b) => (isEarlier(a, b) ? -1 : 1))
  const byId = new Map(records.map((r) => [r.id, r]))
  // The engine's one documented bound (docs/DESIGN.md): a MinHash band term brings a lookup only
  // its maxPerBand newest earlier records. A match by the MinHash rule alone (SimHash distance
  // over k) whose earlier record is past that bound on every band term the two share is not a
  // candidate, in a sequential run either (the man-page templates make such terms): excused and
  // counted, never a problem. Every other match (URL, exact, distance ≤ k) must be found.
  const positions = new Map<string, number[]>()
  bySeq.forEach((r, i) => {
    for (const t of r.bands ?? []) positions.set(t, [...(positions.get(t) ?? []), i])
  })
  const withinBandBound = (i: number, j: number) =>
    (bySeq[j]!.bands ?? []).some((t) => bySeq[i]!.bands?.includes(t) === true && positions.get(t)!.filter((k) => k > j && k < i).length < maxPerBand)
  const problems: string[] = []
  let pairs = 0
  let beyondBound = 0
  bySeq.forEach((r, i) => {
    const earlier = bySeq.slice(0, i).filter((e) => matchCandidate(r, e, o) !== null)
    pairs += earlier.length
    if (r.duplicateOf === null) {
      const reachable = earlier.filter((e) => {
        const m = matchCandidate(r, e, o)!
        return m.rule !== 'minhash' || m.distance <= o.maxDistance || withinBandBound(i, bySeq.indexOf(e))
      })
      beyondBound += earlier.length - reachable.length
      if (reachable.length > 0) problems.push(`${r.id} unique, matches earlier ${reachable[0]!.id}`)
      if (r.clusterId !== r.id) problems.push(`${r.id} unique in cluster ${r.clusterId}`)
      return
    }
    const t = byId.get(r.duplicateOf)
    if (t === undefined || !earlier.includes(t)) problems.push(`${r.id} → ${r.duplicateOf}: not an earlier verified match`)
    else if (t.clusterId !== r.clusterId) problems.push(`${r.id} in ${r.clusterId}, its original ${t.id} in ${t.clusterId}`)
  })
  check('four-writers: every pointer verified and earlier, clusters follow them, no unique record matches an earlier one it can reach (brute force)', problems.length === 0, `${pairs} verified pairs (${beyondBound} of a unique record beyond the band bound); ${problems.length} problems${problems.length > 0 ? `, e.g. ${problems.slice(0, 3).join(' | ')}` : ''}`)
  // reconcile re-decides as one sequential run would: the same documents in the stored
  // first-insertion order, indexed by one writer into a fresh index.
  const docById = new Map(ctx.docs.map((d) => [d.id, d]))
  writeFileSync(join(dir, 'four-seq.jsonl'), jsonl(bySeq.map((r) => docById.get(r.id)!).map(({ id, title, content }) => ({ id, title, content }))))
  const seqRun = await simdup(['index', 'four-seq.jsonl', '--out', 'four-seq-out.jsonl', '--es', ctx.urls, '--index', 'faults-four-seq', '--batch', '100', '--quiet', ...layoutFlags(1)]).done
  if (seqRun.code !== 0) throw new Error(`four-writers: the sequential run failed: ${seqRun.stderr}`)
  const want = (await stored(ctx.urls, 'faults-four-seq')).lines
  const got = (await stored(ctx.urls, index)).lines
  check('four-writers: after reconcile, stored records equal one sequential run in the same order', diff(got, want) === '', diff(got, want))
}

async function rejections(ctx: Ctx): Promise<void> {
  const url = launcher('es-start.sh', {
    ES_PORT: String(REJECT_PORT),
    ES_NODES: '1',
    ES_HEAP: '512m',
    ES_EXTRA_SETTINGS: 'thread_pool.write.size=1 thread_pool.write.queue_size=1',
  })
  const client = new Client({ node: url })
  try {
    const rejected = async () => {
      const s = await client.nodes.stats({ metric: 'thread_pool' })
      return Object.values(s.nodes).reduce((sum, n) => sum + (n.thread_pool?.write?.rejected ?? 0), 0)
    }
    const before = await rejected()
    const r = await simdup(['index', 'input.jsonl', '--out', 'rejections.jsonl', '--es', url, '--index', 'faults-429', '--batch', '500', '--quiet', '--shards', '8', '--replicas', '0']).done
    const during = (await rejected()) - before
    check('rejections: the node answered 429 (write rejections in its stats)', during > 0, `${during} rejected shard writes`)
    check('rejections: the run backs off and succeeds', r.code === 0, `exit ${r.code} in ${secs(r.ms)} ${r.stderr.trim()}`)
    if (r.code === 0) check('rejections: decisions equal the uninterrupted run on the cluster', diff(decisions('rejections.jsonl'), ctx.reference.decisions) === '', diff(decisions('rejections.jsonl'), ctx.reference.decisions))
    const after = await stored(url, 'faults-429')
    check('rejections: every document stored exactly once, records equal the reference', after.records.length === DOCS && diff(after.lines, ctx.reference.stored) === '', `${after.records.length} of ${DOCS}; ${diff(after.lines, ctx.reference.stored)}`)
  } finally {
    await client.indices.delete({ index: 'faults-429', ignore_unavailable: true }).catch(() => undefined)
    await client.close()
    launcher('es-stop.sh', { ES_PORT: String(REJECT_PORT), ES_NODES: '1' })
  }
}

// --- main --------------------------------------------------------------------------------------

async function main(): Promise<void> {
  // The scenarios run bin/simdup.js, which runs dist/: rebuilt here when older than src/.
  buildIfStale()
  const answered = existsSync(join(STATE, `es-${PORT}.nodes`))
  const startOut = spawnSync('bash', [join(ROOT, 'scripts/es-start.sh')], { env: { ...process.env, ES_PORT: String(PORT), ES_NODES: String(NODES) }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
  if (startOut.status !== 0) throw new Error('could not start the cluster')
  const ours = /^started pid/m.test(startOut.stdout) && !answered
  const urls = startOut.stdout.trim().split('\n').at(-1)!
  log(`cluster ${urls}${ours ? ' (started here)' : ''}`)
  // The store's pool (src/elasticsearch/_connection.ts): the default one holds a node that refused
  // or answered 503 dead for a minute and, all three so held after a kill, answers "no living
  // connections" (a whole run of this script failed so, at the health wait after index-kill).
  const client = new Client({ nodes: urls.split(','), maxRetries: 5, ConnectionPool: ClusterConnectionPool })
  // By name: a cluster may refuse wildcard deletes (action.destructive_requires_name).
  const cleanup = async () => {
    const names = (await client.cat.indices({ index: 'faults-*', format: 'json', h: 'index' })).map((i) => i.index!)
    if (names.length > 0) await client.indices.delete({ index: names })
  }
  try {
    await cleanup()
    const docs = await input(DOCS)
    writeFileSync(join(dir, 'input.jsonl'), jsonl(docs.map(({ id, title, content }) => ({ id, title, content }))))
    const ctx: Ctx = { urls, client, docs, reference: { decisions: [], stored: [] } }
    if (wanted('index-kill') || wanted('red') || wanted('red-read') || wanted('rejections')) ctx.reference = await referenceRun(urls)
    if (wanted('index-kill')) await indexKill(ctx, 'index-kill', 1, 0)
    if (wanted('red')) await indexKill(ctx, 'red', 0, 10_000)
    if (wanted('red-read')) await redRead(ctx)
    if (wanted('reindex-kill')) await reindexKill(ctx)
    if (wanted('four-writers')) await fourWriters(ctx)
    if (wanted('rejections')) await rejections(ctx)
  } finally {
    // A failure here must not hide the one that brought us here.
    await cleanup().catch((err: unknown) => log(`cleanup failed: ${String(err)}`))
    await client.close()
    if (ours) launcher('es-stop.sh', { ES_PORT: String(PORT) })
    rmSync(dir, { recursive: true, force: true })
  }
  log(failures.length === 0 ? 'all checks hold' : `${failures.length} check(s) failed: ${failures.join('; ')}`)
  process.exitCode = failures.length === 0 ? 0 : 1
}

main().catch((err: unknown) => {
  console.error(err)
  process.exitCode = 1
})
