/**
 * Disk per document of the Elasticsearch store, and where it goes, field by field (issue 16: the
 * block sets' cost).
 *
 *   npx tsx scripts/bench-es-disk.ts [--n 20000] [--input FILE] [--url http://127.0.0.1:9200]
 *     [--variants] [--keep] [--json FILE]
 *
 * The first `--n` documents of `--input` (default: the 20,000-document bench-stream input,
 * `<tmp>/simdup-bench-stream-20000-1.jsonl`, which `npx tsx scripts/bench-stream.ts --n 20000`
 * writes on its first run) are indexed by `simdup index --es` (the CLI's own job code, in-process,
 * from src/) into a fresh one-shard index `simdup-disk-<pid>`; the index is force-merged to one
 * segment and measured: `_stats` store size and document count, and the per-field
 * `_disk_usage?run_expensive_tasks=true` (inverted index: terms dictionary + postings; stored
 * fields, i.e. `_source`; doc values; points). B/doc = bytes / documents.
 *
 * `--variants`: the stored `dedup` objects are also copied (as they are, or changed) into one
 * fresh index per variant, force-merged and measured the same way, to see what a field costs
 * without re-running the pipeline: `as stored` (the copy itself: how far a bulk copy's size is from
 * the pipeline's), `no block sets`, `block sets out of _source` (mapping `_source.excludes`),
 * `block sets as 48-bit hashes` (8 characters each), `index.codec best_compression`, two other
 * layouts of format 2 (the rank digit last; the sets as one string in a whitespace-analysed text
 * field). The
 * indices are deleted at the end (`--keep` keeps them). `--lookups Q`: the candidate lookups of Q stored
 * records (every n/Q-th; their own keys, blocks and bands, as the engine asks) through a store on
 * the `as stored` copy and one on each other copy that keeps every record, in batches of 500, the
 * copies' batches alternated over 3 rounds (so the machine's load weighs on both alike); reported:
 * wall ms per batch (median over batches and rounds), and whether both answered the same candidates. Needs a running node (ES_URL is used when
 * --url is not given); the machine may be loaded (sizes are not timings: they do not depend on it).
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { parseArgs } from 'node:util'
import { Client, type estypes } from '@elastic/elasticsearch'
import { awaitLeases } from './_es-leases.js'
import { run } from '../src/cli/main.js'
import { simdupIndexBody } from '../src/elasticsearch/mapping.js'
import { NEWEST_BLOCK_SET_FORMAT, blockSets } from '../src/elasticsearch/_query.js'
import { recordToSource, sourceToRecord } from '../src/elasticsearch/_document.js'
import { compactTerms, gramRuns } from '../src/elasticsearch/_compact.js'
import { createElasticsearchStore, type ElasticsearchStore } from '../src/elasticsearch/store.js'
import type { CandidateQuery } from '../src/types.js'

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '20000' },
    input: { type: 'string' },
    url: { type: 'string' },
    variants: { type: 'boolean', default: false },
    /** With --variants: candidate lookups timed on the `as stored` copy against each other copy, in alternation. */
    lookups: { type: 'string', default: '0' },
    keep: { type: 'boolean', default: false },
    json: { type: 'string' },
    /** Measure this existing simdup index (made from the same first --n documents) instead of indexing them again. */
    from: { type: 'string' },
    /** Also index the same documents whole (the official client's bulk, `content`/`title` as text) and report records / full documents. */
    full: { type: 'boolean', default: false },
    /** With --variants: only the variants whose name matches this regular expression. */
    only: { type: 'string' },
  },
})

const N = Number(values.n)
if (!Number.isInteger(N) || N < 1) throw new Error(`--n: expected a positive integer, got ${values.n}`)
const INPUT = values.input ?? join(tmpdir(), 'simdup-bench-stream-20000-1.jsonl')
if (!existsSync(INPUT)) throw new Error(`${INPUT} is missing: run \`npx tsx scripts/bench-stream.ts --n 20000\` once (it writes it), or pass --input.`)
const URL_ = values.url ?? process.env.ES_URL ?? 'http://127.0.0.1:9200'
const client = new Client({ nodes: URL_.split(','), requestTimeout: 600_000 })
const BASE = `simdup-disk-${process.pid}`
/** The full documents' mapping of scripts/bench-es.ts (the user's baseline). */
const FULL_DOCUMENT_MAPPING = {
  dynamic: false,
  properties: { id: { type: 'keyword' }, content: { type: 'text' }, title: { type: 'text' }, url: { type: 'keyword' } },
} as const

/** Bytes of one field (or of all fields) in `_disk_usage`'s answer. */
interface FieldUsage {
  total: number
  inverted: number
  stored: number
  docValues: number
  points: number
}

interface Measured {
  name: string
  docs: number
  storeBytes: number
  perDoc: number
  fields: Record<string, FieldUsage>
  all: FieldUsage
}

function usageOf(u: Record<string, unknown> | undefined): FieldUsage {
  const n = (k: string): number => Number(u?.[k] ?? 0)
  return {
    total: n('total_in_bytes'),
    inverted: Number((u?.inverted_index as { total_in_bytes?: unknown } | undefined)?.total_in_bytes ?? 0),
    stored: n('stored_fields_in_bytes'),
    docValues: n('doc_values_in_bytes'),
    points: n('points_in_bytes'),
  }
}

/** Force merge to one segment, then store size, documents and the per-field disk usage. */
async function measure(name: string, index: string): Promise<Measured> {
  await client.indices.refresh({ index })
  await client.indices.flush({ index })
  await awaitLeases(client, index)
  await client.indices.forcemerge({ index, max_num_segments: 1, flush: true })
  await client.indices.refresh({ index })
  const stats = await client.indices.stats({ index, metric: ['store', 'docs'] })
  const primaries = stats.indices?.[index]?.primaries
  const docs = primaries?.docs?.count ?? 0
  const storeBytes = primaries?.store?.size_in_bytes ?? 0
  const usage = (await client.transport.request({ method: 'POST', path: `/${index}/_disk_usage`, querystring: { run_expensive_tasks: true } })) as Record<string, { all_fields?: Record<string, unknown>; fields?: Record<string, Record<string, unknown>> }>
  const own = usage[index]
  const fields: Record<string, FieldUsage> = {}
  for (const [field, u] of Object.entries(own?.fields ?? {})) fields[field] = usageOf(u)
  return { name, docs, storeBytes, perDoc: docs === 0 ? 0 : storeBytes / docs, fields, all: usageOf(own?.all_fields) }
}

/** The first N lines of the input, indexed by `simdup index --es` into `index`. */
async function indexWithCli(index: string): Promise<void> {
  const lines = readFileSync(INPUT, 'utf8').split('\n', N).join('\n') + '\n'
  const dir = mkdtempSync(join(tmpdir(), 'simdup-disk-'))
  try {
    const file = join(dir, 'docs.jsonl')
    writeFileSync(file, lines)
    const err: string[] = []
    const io = {
      stdin: Readable.from([]),
      stdout: { write: () => true },
      stderr: { write: (t: string) => void err.push(t), isTTY: false },
      env: {},
      cwd: dir,
    }
    const code = await run(['index', file, '--es', URL_, '--index', index, '--out', join(dir, 'decisions.jsonl'), '--quiet'], io as never)
    if (code !== 0) throw new Error(`simdup index exited ${code}: ${err.join('')}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Every stored `dedup` object of `index`, in `_doc` order. */
async function storedRecords(index: string): Promise<{ id: string; dedup: Record<string, unknown> }[]> {
  const out: { id: string; dedup: Record<string, unknown> }[] = []
  let res = await client.search<{ dedup: Record<string, unknown> }>({ index, scroll: '2m', size: 5000, sort: ['_doc'], query: { match_all: {} } })
  while (res.hits.hits.length > 0) {
    for (const h of res.hits.hits) {
      const d = h._source!.dedup
      // Record format 2 keeps the bands and block sets out of `_source`: rebuilt (as the store sends them) so each copy indexes them.
      if ('terms' in d) out.push({ id: h._id!, dedup: recordToSource(sourceToRecord(h._id!, { dedup: d }, true)!, NEWEST_BLOCK_SET_FORMAT, true) as unknown as Record<string, unknown> })
      else out.push({ id: h._id!, dedup: d })
    }
    res = await client.scroll<{ dedup: Record<string, unknown> }>({ scroll_id: res._scroll_id!, scroll: '2m' })
  }
  if (res._scroll_id !== undefined) await client.clearScroll({ scroll_id: res._scroll_id })
  return out
}

interface Variant {
  name: string
  /** Index settings of the copy, over the store's. */
  settings?: Record<string, unknown>
  /** Changes the mapping of the copy (a fresh clone of the store's). */
  mapping?: (m: { _source?: unknown; properties: { dedup: { properties: Record<string, unknown> } } }) => void
  /** Changes a stored `dedup` object before it is copied. */
  transform?: (d: Record<string, unknown>) => Record<string, unknown>
}

/** The field holding the stored records' sets (format 2, or 1 on code before it). */
const setField = (d: Record<string, unknown>): string => ('block_sets_v2' in d ? 'block_sets_v2' : 'block_sets')
/** A set term as a 48-bit hash of the joined blocks, 8 characters (what a hashed format would store). */
const hashed = (set: string): string => createHash('sha256').update(set).digest().subarray(0, 6).toString('base64url')

/** A record in the compact `_source` of record format 2 (src/elasticsearch/_compact.ts). */
function compact(d: Record<string, unknown>): Record<string, unknown> {
  const sketch = typeof d.sketch === 'string' ? d.sketch : undefined
  const bands = Array.isArray(d.bands) ? (d.bands as string[]) : null
  return { ...d, sketch: sketch === undefined ? null : (gramRuns(sketch) ?? sketch), terms: bands === null ? null : compactTerms(bands, sketch) }
}

const VARIANTS: Variant[] = [
  { name: 'as stored' },
  {
    name: 'no block sets',
    transform: (d) => Object.fromEntries(Object.entries(d).filter(([k]) => k !== setField(d))),
  },
  {
    name: 'block sets out of _source',
    mapping: (m) => void (m._source = { excludes: ['dedup.block_sets', 'dedup.block_sets_v2'] }),
  },
  {
    name: 'block sets as 48-bit hashes (8 characters)',
    transform: (d) => ({ ...d, [setField(d)]: blockSets(d.blocks as string[], 1).map(hashed) }),
  },
  { name: 'as stored, index.codec best_compression', settings: { 'index.codec': 'best_compression' } },
  { name: 'as stored, index.codec default (LZ4)', settings: { codec: 'default' } },
  {
    name: 'simhash not indexed',
    mapping: (m) => void (m.properties.dedup.properties.simhash = { type: 'keyword', index: false, doc_values: false }),
  },
  {
    name: 'record format 2: gram sets as runs, terms as places, bands and block sets out of _source, simhash not indexed',
    mapping: (m) => {
      m._source = { excludes: ['dedup.bands', 'dedup.block_sets', 'dedup.block_sets_v2'] }
      m.properties.dedup.properties.simhash = { type: 'keyword', index: false, doc_values: false }
    },
    transform: compact,
  },
  {
    name: 'record format 2, index.codec best_compression',
    settings: { 'index.codec': 'best_compression' },
    mapping: (m) => {
      m._source = { excludes: ['dedup.bands', 'dedup.block_sets', 'dedup.block_sets_v2'] }
      m.properties.dedup.properties.simhash = { type: 'keyword', index: false, doc_values: false }
    },
    transform: compact,
  },
  {
    name: 'record format 2, best_compression, without id and popcount in _source (_id and the simhash give them)',
    settings: { 'index.codec': 'best_compression' },
    mapping: (m) => {
      m._source = { excludes: ['dedup.bands', 'dedup.block_sets', 'dedup.block_sets_v2', 'dedup.id', 'dedup.popcount'] }
      m.properties.dedup.properties.simhash = { type: 'keyword', index: false, doc_values: false }
    },
    transform: compact,
  },
  {
    name: 'record format 2, best_compression, without id, popcount and blocks in _source',
    settings: { 'index.codec': 'best_compression' },
    mapping: (m) => {
      m._source = { excludes: ['dedup.bands', 'dedup.block_sets', 'dedup.block_sets_v2', 'dedup.id', 'dedup.popcount', 'dedup.blocks'] }
      m.properties.dedup.properties.simhash = { type: 'keyword', index: false, doc_values: false }
    },
    transform: compact,
  },
  {
    name: 'record format 2, best_compression, blocks not indexed (lookups ask the block sets)',
    settings: { 'index.codec': 'best_compression' },
    mapping: (m) => {
      m._source = { excludes: ['dedup.bands', 'dedup.block_sets', 'dedup.block_sets_v2'] }
      m.properties.dedup.properties.simhash = { type: 'keyword', index: false, doc_values: false }
      m.properties.dedup.properties.blocks = { type: 'keyword', index: false, doc_values: false }
    },
    transform: compact,
  },
  {
    name: 'sets with the rank digit last',
    transform: (d) => ({ ...d, [setField(d)]: (d[setField(d)] as string[]).map((x) => x.slice(1) + x[0]) }),
  },
  {
    name: 'sets as one string (text, whitespace)',
    mapping: (m) => void (m.properties.dedup.properties.block_sets_v2 = { type: 'text', analyzer: 'whitespace', index_options: 'docs', norms: false }),
    transform: (d) => ({ ...d, [setField(d)]: (d[setField(d)] as string[]).join(' ') }),
  },
]

async function copyVariant(v: Variant, records: { id: string; dedup: Record<string, unknown> }[], index: string): Promise<void> {
  const body = simdupIndexBody()
  const mappings = body.mappings as Parameters<NonNullable<Variant['mapping']>>[0]
  v.mapping?.(mappings)
  await client.indices.create({ index, settings: { ...body.settings, ...v.settings }, mappings: mappings as estypes.MappingTypeMapping })
  for (let i = 0; i < records.length; i += 2000) {
    const operations = records.slice(i, i + 2000).flatMap((r) => [{ index: { _index: index, _id: r.id } }, { dedup: v.transform === undefined ? r.dedup : v.transform(r.dedup) }])
    const res = await client.bulk({ operations })
    if (res.errors) throw new Error(`bulk into ${index} failed: ${JSON.stringify(res.items.find((it) => Object.values(it)[0]?.error !== undefined))}`)
  }
}

const perDoc = (b: number): string => (b / N).toFixed(1)

function report(m: Measured): void {
  console.log(`\n${m.name}: ${m.docs} documents, ${m.storeBytes} bytes, ${m.perDoc.toFixed(1)} B/doc (store size after a force merge to one segment)`)
  const rows = Object.entries(m.fields)
    .filter(([, u]) => u.total > 0)
    .sort((a, b) => b[1].total - a[1].total)
  console.log('| field | total B/doc | inverted index | stored (_source) | doc values | points |')
  console.log('|---|---|---|---|---|---|')
  for (const [f, u] of rows) console.log(`| ${f} | ${perDoc(u.total)} | ${perDoc(u.inverted)} | ${perDoc(u.stored)} | ${perDoc(u.docValues)} | ${perDoc(u.points)} |`)
  console.log(`| all fields | ${perDoc(m.all.total)} | ${perDoc(m.all.inverted)} | ${perDoc(m.all.stored)} | ${perDoc(m.all.docValues)} | ${perDoc(m.all.points)} |`)
}

/** Candidate lookups of `queries` on each index, batches alternated between them: median ms per batch, and a digest of the answers. */
async function timeLookups(indices: readonly string[], queries: readonly CandidateQuery[]): Promise<{ index: string; medianMs: number; answers: string }[]> {
  const stores: ElasticsearchStore[] = []
  for (const index of indices) stores.push(await createElasticsearchStore({ node: URL_, index, ensureIndex: 'existing' }))
  const ms: number[][] = indices.map(() => [])
  const answers: string[][] = indices.map(() => [])
  try {
    for (let round = 0; round < 3; round++) {
      for (let at = 0; at < queries.length; at += 500) {
        const batch = queries.slice(at, at + 500)
        for (const [i, store] of stores.entries()) {
          const t0 = performance.now()
          const found = await store.candidates(batch)
          ms[i]!.push(performance.now() - t0)
          if (round === 0) answers[i]!.push(...found.map((c) => c.map((r) => r.id).sort().join(',')))
        }
      }
    }
  } finally {
    for (const store of stores) await store.close()
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  return indices.map((index, i) => ({ index, medianMs: median(ms[i]!), answers: createHash('sha256').update(answers[i]!.join('\n')).digest('hex').slice(0, 12) }))
}

const created: string[] = []
const results: Measured[] = []
try {
  const t0 = Date.now()
  const from = values.from ?? BASE
  if (values.from === undefined) {
    created.push(BASE)
    await indexWithCli(BASE)
    console.log(`indexed ${N} documents of ${INPUT} with simdup index --es in ${((Date.now() - t0) / 1000).toFixed(0)} s`)
  }
  const base = await measure('simdup index', from)
  results.push(base)
  report(base)
  if (values.variants) {
    const records = await storedRecords(from)
    for (const [i, v] of VARIANTS.entries()) {
      if (values.only !== undefined && !new RegExp(values.only).test(v.name)) continue
      const index = `${BASE}-v${i}`
      created.push(index)
      await copyVariant(v, records, index)
      const m = await measure(`copy: ${v.name}`, index)
      results.push(m)
      report(m)
    }
    const q = Number(values.lookups)
    if (q > 0) {
      const step = Math.max(1, Math.floor(records.length / q))
      const queries: CandidateQuery[] = []
      for (let i = 0; i < records.length && queries.length < q; i += step) {
        const r = sourceToRecord(records[i]!.id, { dedup: records[i]!.dedup })!
        queries.push({ fingerprint: r.fingerprint, blocks: r.blocks, minMatch: r.blocks.length - 3, maxDistance: 3, contentHash: r.contentHash, urlHash: r.urlHash, titleHash: null, ...(r.bands === undefined ? {} : { bands: r.bands }) })
      }
      // Copies that keep every record and its sets: the same candidates are expected of each.
      const comparable = VARIANTS.flatMap((v, i) => (v.transform === undefined ? [`${BASE}-v${i}`] : []))
      const timed = await timeLookups(comparable, queries)
      console.log(`\ncandidate lookups of ${queries.length} stored records, batches of 500, 3 rounds alternated:`)
      for (const t of timed) console.log(`${VARIANTS[Number(t.index.slice(BASE.length + 2))]!.name}: median ${t.medianMs.toFixed(0)} ms a batch, answers ${t.answers}`)
    }
  }
  if (values.full) {
    const index = `${BASE}-full`
    created.push(index)
    await client.indices.create({ index, settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings: FULL_DOCUMENT_MAPPING })
    const docs = readFileSync(INPUT, 'utf8').split('\n', N).filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Record<string, unknown>)
    await client.helpers.bulk({ datasource: docs, onDocument: (doc) => ({ index: { _index: index, _id: String(doc.id) } }) })
    const m = await measure('full documents (plain bulk)', index)
    results.push(m)
    report(m)
    console.log('\nrecords / full documents, store size:')
    for (const r of results) if (r !== m) console.log(`${r.name}: ${(r.storeBytes / m.storeBytes).toFixed(2)}×`)
  }
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ n: N, input: INPUT, results }, null, 2))
} finally {
  if (!values.keep) for (const index of created) await client.indices.delete({ index }, { ignore: [404] })
  await client.close()
}
