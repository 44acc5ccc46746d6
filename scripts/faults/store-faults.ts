/**
 * Store integrity faults, end to end (issue 26): the real CLI (bin/simdup.js) on the embedded
 * store and, when ES_URL answers, on Elasticsearch; every case is checked against a promise of
 * docs/GUARANTEES.md and printed in a table: case, store, promise, held / BROKEN / skipped.
 *
 *   crash        kill -9 `simdup index` at random points (mid-write too), then the same command
 *                to the end: every decision the killed runs wrote is stored; the final decisions
 *                and stored records equal one clean run's (input with ~8 % re-used ids).
 *   damage       a flipped byte in the last frame of a closed store, a cut at a frame boundary:
 *                `index` and `store check` stop with STORE_CORRUPT naming what is lost, nothing
 *                cut; `store repair` then keeps the valid prefix. Header damage: refused with
 *                "restore a backup", never a repair that then fails.
 *   concurrency  a second writer while one runs (same PID namespace; another one through
 *                `unshare --pid --fork --mount-proc`, "skipped: not permitted" where it cannot
 *                run; after `LOCK` is deleted): exit 3, the first run completes with every
 *                record; `store check` during a live write agrees with itself; a copied store
 *                (with the original's `LOCK`) opens.
 *   outputs      --out inside the store, --out the input (stdin redirected from it too) refused
 *                before writing; --out /dev/null with a rejected line writes no /dev/null.rejects.jsonl.
 *   update       a stream with re-used ids run twice (other batch sizes): decisions and stored
 *                records equal; every cluster has its representative; every pointer verifies.
 *
 *   npx tsx scripts/faults/store-faults.ts [--short] [--only crash,damage,…] [--docs N]
 *
 * --short (what .ci/run runs): fewer documents and kills. Exits 0 when every case held or was
 * skipped, 1 otherwise. dist/ is rebuilt first when older than src/ (the cases run bin/simdup.js).
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process'
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createAnalyzer, createDeduplicator, openMemoryStore, type FingerprintRecord, type FingerprintStore } from '../../src/index.js'
import { matchCandidate } from '../../src/internal.js'
import { createElasticsearchStore } from '../../src/elasticsearch/index.js'
import { isEarlier } from '../../src/engine/match.js'
import { copyStream } from '../../test/helpers/copy-stream.js'
import { mulberry32 } from '../../test/helpers/random.js'
import buildIfStale from '../../test/setup/build.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const BIN = join(ROOT, 'bin/simdup.js')
const argv = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(name)
  return i < 0 ? undefined : argv[i + 1]
}
const SHORT = argv.includes('--short')
const DOCS = Number(flag('--docs') ?? (SHORT ? 1500 : 4000))
const KILLS = SHORT ? 2 : 6
const ONLY = flag('--only')?.split(',')
const wanted = (name: string): boolean => ONLY === undefined || ONLY.includes(name)
const ES_URL = process.env.ES_URL
// The CLI reads ES_URL itself: the embedded cases run without it (the Elasticsearch ones pass --es).
const { ES_URL: _esUrl, ...CHILD_ENV } = process.env

const work = mkdtempSync(join(tmpdir(), 'simdup-store-faults-'))
const t0 = Date.now()
const log = (line: string): void => console.log(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${line}`)

interface Row { kase: string; store: string; promise: string; result: 'held' | 'BROKEN' | string; detail: string }
const rows: Row[] = []
function record(kase: string, store: string, promise: string, held: boolean, detail = ''): void {
  rows.push({ kase, store, promise, result: held ? 'held' : 'BROKEN', detail })
  log(`${held ? 'held  ' : 'BROKEN'} ${kase} [${store}]: ${promise}${detail === '' ? '' : ` (${detail})`}`)
}
function skip(kase: string, store: string, promise: string, why: string): void {
  rows.push({ kase, store, promise, result: `skipped: ${why}`, detail: '' })
  log(`skip   ${kase} [${store}]: ${why}`)
}

// --- helpers ------------------------------------------------------------------------------------

function cli(args: string[], options: { stdin?: number | string; env?: NodeJS.ProcessEnv } = {}): SpawnSyncReturns<string> {
  const stdio = typeof options.stdin === 'number' ? [options.stdin, 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe']
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd: work, encoding: 'utf8', stdio: stdio as never, env: { ...CHILD_ENV, ...options.env },
    ...(typeof options.stdin === 'string' ? { input: options.stdin } : {}),
  })
}

/** Starts `simdup` (optionally in a new PID namespace); resolves its exit code. */
function start(args: string[], prefix: string[] = []): { pid: number; done: Promise<number | null>; kill: () => void; stderr: () => string } {
  const [cmd, ...rest] = [...prefix, process.execPath, BIN, ...args]
  const child = spawn(cmd!, rest, { cwd: work, stdio: ['ignore', 'ignore', 'pipe'], env: CHILD_ENV })
  let err = ''
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s))
  const done = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { pid: child.pid!, done, kill: () => child.kill('SIGKILL'), stderr: () => err.trim() }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function writeInput(name: string, n: number, seed: number, reuse = true): string {
  const path = join(work, name)
  writeFileSync(path, copyStream(seed, n, reuse).map((d) => JSON.stringify(d)).join('\n') + '\n')
  return path
}

const readLines = (path: string): string[] => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter((l) => l !== '') : [])

async function scanAll(store: FingerprintStore): Promise<Map<string, FingerprintRecord>> {
  await store.refresh()
  const out = new Map<string, FingerprintRecord>()
  for await (const batch of store.scan(500)) for (const r of batch) out.set(r.id, r)
  return out
}
const decisionsOf = (records: Map<string, FingerprintRecord>): string[] =>
  [...records.values()].map((r) => `${r.id} ${r.duplicateOf} ${r.clusterId} ${r.layer} ${r.distance} ${r.supersedes ?? '-'}`).sort()

/** Problems of a stored state: pointers to missing, later or rejected records; clusters without their representative. */
async function problems(records: Map<string, FingerprintRecord>): Promise<string[]> {
  const scratch = await openMemoryStore()
  const options = createDeduplicator({ store: scratch, analyzer }).options
  await scratch.close()
  const out: string[] = []
  for (const r of records.values()) {
    if (r.duplicateOf !== null) {
      const t = records.get(r.duplicateOf)
      if (t === undefined) out.push(`${r.id} points at missing ${r.duplicateOf}`)
      else if (!isEarlier(t, r)) out.push(`${r.id} points forward at ${t.id}`)
      else if (matchCandidate(r, t, options) === null) out.push(`${r.id} points at ${t.id}, which the rules reject`)
    }
    const rep = records.get(r.clusterId)
    if (rep === undefined || rep.clusterId !== rep.id || rep.duplicateOf !== null) out.push(`${r.id}'s cluster ${r.clusterId} has no representative`)
  }
  return out
}

const analyzer = createAnalyzer()
async function embedded(dir: string): Promise<Map<string, FingerprintRecord>> {
  const store = await openMemoryStore({ dir: join(work, dir), readOnly: true })
  try {
    return await scanAll(store)
  } finally {
    await store.close()
  }
}
async function elastic(index: string): Promise<Map<string, FingerprintRecord>> {
  const store = await createElasticsearchStore({ node: ES_URL!, index })
  try {
    return await scanAll(store)
  } finally {
    await store.close()
  }
}
const created: string[] = []
function esIndex(name: string): string {
  const index = `simdup-faults-${process.pid}-${name}`
  created.push(index)
  return index
}

type Target = { name: string; args: (id: string) => string[]; read: (id: string) => Promise<Map<string, FingerprintRecord>> }
const EMBEDDED: Target = { name: 'embedded', args: (id) => ['--store', id], read: embedded }
const ELASTIC: Target = { name: 'elasticsearch', args: (id) => ['--es', ES_URL!, '--index', esIndex(id)], read: (id) => elastic(`simdup-faults-${process.pid}-${id}`) }

// --- cases --------------------------------------------------------------------------------------

/** The first line where two files differ, for the table's detail. */
function firstDiff(a: string, b: string): string {
  const x = readLines(join(work, a))
  const y = readLines(join(work, b))
  const i = x.findIndex((l, k) => l !== y[k])
  return i < 0 ? (x.length === y.length ? '' : `${x.length} vs ${y.length} lines`) : `line ${i + 1}: ${x[i]?.slice(0, 160)} | ${y[i]?.slice(0, 160)}`
}

async function crash(t: Target, docs: number): Promise<void> {
  const input = writeInput(`crash-${t.name}.jsonl`, docs, 7, false)
  const clean = cli(['index', input, ...t.args('crash-clean'), '--out', `crash-clean-${t.name}.jsonl`, '--batch', '50', '--quiet'])
  if (clean.status !== 0) return record('crash', t.name, 'kill -9 then run again = clean run', false, `clean run exit ${clean.status}: ${clean.stderr.trim()}`)
  const cleanRecords = await t.read('crash-clean')
  const rnd = mulberry32(11)
  const acknowledged = new Set<string>()
  let killed = 0
  for (let k = 0; k < KILLS; k++) {
    const out = `crash-out-${t.name}-${k}.jsonl`
    const run = start(['index', input, ...t.args('crash'), '--out', out, '--batch', '50', '--quiet'])
    // Killed once its decisions file holds a random share of the input (5-80 %), wherever in a
    // batch's write that falls.
    const target = Math.floor(docs * (0.05 + rnd() * 0.75))
    let ended = false
    void run.done.then(() => (ended = true))
    const temp = join(work, `.${out}.${run.pid}.tmp`)
    while (!ended && (!existsSync(temp) || readLines(temp).length < target)) await sleep(30)
    run.kill()
    if ((await run.done) === null) killed++
    // --out is renamed in only at the end: a killed run's decisions are in its temporary file
    // (.<out>.<pid>.tmp, src/cli/output-file.ts), whole lines only.
    for (const line of readLines(join(work, `.${out}.${run.pid}.tmp`))) acknowledged.add((JSON.parse(line) as { id: string }).id)
  }
  const again = cli(['index', input, ...t.args('crash'), '--out', `crash-final-${t.name}.jsonl`, '--batch', '70', '--quiet'])
  const records = await t.read('crash')
  const lost = [...acknowledged].filter((id) => !records.has(id))
  const same = again.status === 0 && readFileSync(join(work, `crash-final-${t.name}.jsonl`), 'utf8') === readFileSync(join(work, `crash-clean-${t.name}.jsonl`), 'utf8')
  const stored = JSON.stringify(decisionsOf(records)) === JSON.stringify(decisionsOf(cleanRecords))
  record('crash: kill -9 at random points', t.name, 'then run again: decisions and store equal a clean run; nothing acknowledged lost', same && stored && lost.length === 0 && killed > 0,
    `${killed} of ${KILLS} killed mid-run, ${acknowledged.size} acknowledged before kills, ${lost.length} lost; decisions ${same ? 'equal' : `DIFFER (${firstDiff(`crash-final-${t.name}.jsonl`, `crash-clean-${t.name}.jsonl`)})`}, store ${stored ? 'equal' : 'DIFFERS'}`)
}

/** The store directory after one run of `input`, and the log's size after it. */
function closedStore(name: string, input: string): { dir: string; log: string; size: number } {
  const r = cli(['index', input, '--store', name, '--out', '/dev/null', '--quiet'])
  if (r.status !== 0) throw new Error(`index ${name}: exit ${r.status} ${r.stderr}`)
  const log = join(work, name, 'store.log')
  return { dir: name, log, size: statSync(log).size }
}

function damage(): void {
  const first = writeInput('damage-1.jsonl', 300, 21)
  const second = writeInput('damage-2.jsonl', 300, 22)
  // A flipped byte in the last frame of a store whose run exited 0.
  const a = closedStore('flip', first)
  const bytes = readFileSync(a.log)
  bytes[bytes.length - 10]! ^= 0xff
  writeFileSync(a.log, bytes)
  const more = cli(['index', second, '--store', 'flip', '--out', '/dev/null', '--quiet'])
  const check = cli(['store', 'check', '--store', 'flip'])
  const unchanged = statSync(a.log).size === a.size
  const repair = cli(['store', 'repair', '--store', 'flip'])
  const after = cli(['store', 'check', '--store', 'flip'])
  record('damage: flipped byte in the last frame', 'embedded', 'acknowledged data damaged: STORE_CORRUPT naming what is lost, nothing cut until `store repair`',
    more.status === 1 && /STORE_CORRUPT/.test(more.stderr) && /acknowledged/.test(more.stderr) && check.status === 1 && unchanged && repair.status === 0 && after.status === 0,
    `index exit ${more.status}, check exit ${check.status}, log ${unchanged ? 'not cut' : 'CUT'}, repair exit ${repair.status}, check after ${after.status}`)

  // A cut at a frame boundary: the log as it was after the first run, the second's frames gone.
  const b = closedStore('cut', first)
  const more2 = cli(['index', second, '--store', 'cut', '--out', '/dev/null', '--quiet'])
  const full = readFileSync(b.log)
  writeFileSync(b.log, full.subarray(0, b.size))
  const check2 = cli(['store', 'check', '--store', 'cut'])
  const reopen = cli(['index', second, '--store', 'cut', '--out', '/dev/null', '--quiet'])
  record('damage: cut at a frame boundary', 'embedded', 'a log missing acknowledged frames is STORE_CORRUPT, never "damage none"',
    more2.status === 0 && check2.status === 1 && /lost|acknowledged/.test(check2.stdout + check2.stderr) && reopen.status === 1 && /STORE_CORRUPT/.test(reopen.stderr),
    `check exit ${check2.status}, index exit ${reopen.status}`)

  // Header damage: no frame can be read; the advice is a backup, not a repair that then fails.
  const c = closedStore('header', first)
  const head = readFileSync(c.log)
  head[2]! ^= 0xff
  writeFileSync(c.log, head)
  const idx = cli(['index', second, '--store', 'header', '--out', '/dev/null', '--quiet'])
  const rep = cli(['store', 'repair', '--store', 'header'])
  record('damage: header', 'embedded', 'refused (exit 1) with "restore a backup"; repair does not pretend to fix it',
    idx.status === 1 && /restore a backup/.test(idx.stderr) && rep.status === 1 && /restore a backup/.test(rep.stderr) && !/run `simdup store repair`/.test(idx.stderr),
    `index exit ${idx.status}, repair exit ${rep.status}`)
}

async function concurrency(): Promise<void> {
  const input = writeInput('conc.jsonl', DOCS, 31, false)
  const small = writeInput('conc-small.jsonl', 20, 32, false)
  const unshareOk = spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true']).status === 0
  // One writer, long enough for every case below to run beside it.
  const dir = 'conc'
  const first = start(['index', input, '--store', dir, '--out', '/dev/null', '--quiet', '--batch', '10'])
  for (let i = 0; i < 600 && !(existsSync(join(work, dir, 'LOCK')) && existsSync(join(work, dir, 'store.log'))); i++) await sleep(50)
  const promise = 'refused with exit 3 while the first runs'
  const cases: { name: string; prefix: string[]; before?: () => void }[] = [
    { name: 'second writer, same PID namespace', prefix: [] },
    { name: 'second writer, another PID namespace (unshare --pid)', prefix: ['unshare', '--pid', '--fork', '--mount-proc'] },
    { name: 'second writer after LOCK is deleted', prefix: [], before: () => unlinkSync(join(work, dir, 'LOCK')) },
  ]
  let firstEnded = false
  void first.done.then(() => (firstEnded = true))
  for (const c of cases) {
    if (c.prefix.length > 0 && !unshareOk) {
      skip(`concurrency: ${c.name}`, 'embedded', promise, 'not permitted (unshare --pid failed here)')
      continue
    }
    c.before?.()
    const second = start(['index', small, '--store', dir, '--out', '/dev/null', '--quiet'], c.prefix)
    const code = await second.done
    if (code !== 3) log(`second writer: ${second.stderr()}`)
    record(`concurrency: ${c.name}`, 'embedded', promise, code === 3 && !firstEnded, `exit ${code}${firstEnded ? ', but the first had ended: not a test' : ''}`)
  }
  // store check while the writer writes: each answer agrees with itself (valid bytes = log size read, no damage).
  let checks = 0
  let contradictions = 0
  for (let k = 0; k < 4 && !firstEnded; k++) {
    const r = cli(['store', 'check', '--store', dir, '--json'])
    checks++
    try {
      const j = JSON.parse(r.stdout) as { fileBytes: number; validBytes: number; damage: unknown }
      if (r.status !== 0 || j.fileBytes !== j.validBytes || j.damage !== null) contradictions++
    } catch {
      contradictions++
    }
  }
  record('concurrency: store check during a live write', 'embedded', 'each check sees one consistent log (no damage, sizes agree)', checks > 0 && contradictions === 0, `${checks} checks, ${contradictions} contradictory`)
  // A copy of the store, LOCK and all, taken while its writer holds it, opens and takes writes.
  cpSync(join(work, dir), join(work, 'conc-copy'), { recursive: true })
  const hadLock = existsSync(join(work, 'conc-copy', 'LOCK'))
  const copiedLive = !firstEnded
  // The copy may end in a torn frame (copied mid-write): `store repair` is the documented step for that.
  cli(['store', 'repair', '--store', 'conc-copy'])
  const copyRun = cli(['index', small, '--store', 'conc-copy', '--out', '/dev/null', '--quiet'])
  record('concurrency: a copied store keeps LOCK', 'embedded', 'the copy opens for writing (the lock is the original directory\'s)', copiedLive && copyRun.status === 0,
    `LOCK copied: ${hadLock}, copied while held: ${copiedLive}, index on the copy exit ${copyRun.status}`)
  const firstCode = await first.done
  const records = existsSync(join(work, dir, 'store.log')) ? await embedded(dir) : new Map()
  if (firstCode !== 0) log(`first writer: ${first.stderr()}`)
  record('concurrency: the first writer beside them', 'embedded', 'completes (exit 0) with every record, none of the refused writers\'', firstCode === 0 && records.size === DOCS && [...records.keys()].every((id) => !/^d\d+$/.test(id) || Number(id.slice(1)) < DOCS),
    `exit ${firstCode}, ${records.size} of ${DOCS} stored`)
}

function outputs(): void {
  const input = writeInput('out-in.jsonl', 50, 41)
  const base = closedStore('outs', input)
  const logBefore = readFileSync(base.log)
  const r1 = cli(['index', input, '--store', 'outs', '--out', join('outs', 'store.log'), '--quiet'])
  const r1b = cli(['index', input, '--store', 'outs', '--out', '/dev/null', '--rejects', join('outs', 'store.log.commit'), '--quiet'])
  const intact = readFileSync(base.log).equals(logBefore)
  record('outputs: --out / --rejects inside the store', 'embedded', 'refused before anything is written; the log intact', r1.status !== 0 && r1b.status !== 0 && intact,
    `exit ${r1.status} and ${r1b.status}, log ${intact ? 'intact' : 'CHANGED'}`)
  const inBefore = readFileSync(input)
  const r2 = cli(['index', input, '--store', 'outs2', '--out', input, '--quiet'])
  const fd = openSync(input, 'r')
  const r3 = cli(['index', '-', '--store', 'outs3', '--out', input, '--quiet'], { stdin: fd })
  closeSync(fd)
  const same = readFileSync(input).equals(inBefore)
  record('outputs: --out is the input (stdin too)', 'any', 'refused before anything is written; the input intact', r2.status !== 0 && r3.status !== 0 && same,
    `exit ${r2.status} (file), ${r3.status} (stdin), input ${same ? 'intact' : 'CHANGED'}`)
  const bad = join(work, 'out-bad.jsonl')
  writeFileSync(bad, '{"id":"a","content":"北京大学是中国著名的高等学府。"}\n{"id":"b"}\n')
  const r4 = cli(['index', bad, '--store', 'outs4', '--out', '/dev/null', '--quiet'])
  record('outputs: --out /dev/null with a rejected line', 'any', 'no default rejects file beside a device', r4.status === 0 && !existsSync('/dev/null.rejects.jsonl'), `exit ${r4.status}`)
}

async function update(t: Target, docs: number, seed = 51): Promise<void> {
  const id = `update-${docs}`
  const input = writeInput(`${id}-${t.name}.jsonl`, docs, seed)
  const out = (k: number) => `${id}-${k}-${t.name}.jsonl`
  const one = cli(['index', input, ...t.args(id), '--out', out(1), '--batch', '37', '--quiet'])
  const first = await t.read(id)
  const two = cli(['index', input, ...t.args(id), '--out', out(2), '--batch', '53', '--quiet'])
  const second = await t.read(id)
  const same = readFileSync(join(work, out(1)), 'utf8') === readFileSync(join(work, out(2)), 'utf8')
  const stored = JSON.stringify(decisionsOf(first)) === JSON.stringify(decisionsOf(second))
  const bad = await problems(second)
  record(`update: ${docs} docs, ~8 % re-used ids, run twice`, t.name, 'a re-run equals the first run; clusters keep representatives; pointers verify', one.status === 0 && two.status === 0 && same && stored && bad.length === 0,
    `decisions ${same ? 'equal' : `DIFFER (${firstDiff(out(2), out(1))})`}, store ${stored ? 'equal' : 'DIFFERS'}, ${bad.length} problem(s)${bad.length > 0 ? `: ${bad.slice(0, 2).join('; ')}` : ''}`)
}

// --- run ----------------------------------------------------------------------------------------

async function esAnswers(): Promise<boolean> {
  if (ES_URL === undefined) return false
  try {
    return (await fetch(ES_URL)).ok
  } catch {
    return false
  }
}

await buildIfStale()
const es = await esAnswers()
try {
  if (wanted('crash')) {
    await crash(EMBEDDED, DOCS)
    if (es) await crash(ELASTIC, SHORT ? 300 : 1000)
    else skip('crash: kill -9 at random points', 'elasticsearch', 'then run again = clean run', 'ES_URL not set or not answering')
  }
  if (wanted('damage')) damage()
  if (wanted('concurrency')) await concurrency()
  if (wanted('outputs')) outputs()
  if (wanted('update')) {
    await update(EMBEDDED, 300)
    if (es) await update(ELASTIC, 300)
    else skip('update: 300 docs, ~8 % re-used ids, run twice', 'elasticsearch', 'a re-run equals the first run', 'ES_URL not set or not answering')
    // Known open (docs/GUARANTEES.md, "Not covered"): at 1,500 documents, where a URL is shared by
    // more than the store's 16 records per key, one decision in 1,500 differs. The full form shows it.
    if (!SHORT) await update(EMBEDDED, 1500, 7)
  }
} finally {
  for (const index of created) await fetch(new URL(`/${index}`, ES_URL), { method: 'DELETE' }).catch(() => undefined)
  rmSync(work, { recursive: true, force: true })
}

const width = (k: keyof Row) => Math.max(k.length, ...rows.map((r) => r[k].length))
const [wc, ws, wp] = [width('kase'), width('store'), width('promise')]
console.log(`\n${'case'.padEnd(wc)}  ${'store'.padEnd(ws)}  ${'promise'.padEnd(wp)}  result`)
for (const r of rows) console.log(`${r.kase.padEnd(wc)}  ${r.store.padEnd(ws)}  ${r.promise.padEnd(wp)}  ${r.result}`)
const broken = rows.filter((r) => r.result === 'BROKEN').length
console.log(`\n${rows.length} cases: ${rows.filter((r) => r.result === 'held').length} held, ${broken} broken, ${rows.filter((r) => r.result.startsWith('skipped')).length} skipped (${((Date.now() - t0) / 1000).toFixed(0)} s)`)
process.exit(broken === 0 ? 0 : 1)
