import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, reconcile, type FingerprintRecord, type InputDocument } from '../../src/index.js'
import { createElasticsearchStore } from '../../src/elasticsearch/index.js'
import type { ElasticsearchStore } from '../../src/elasticsearch/store.js'
import { simdupIndexBody } from '../../src/elasticsearch/mapping.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../fixtures/articles.js'
import { compareOrder } from '../../src/engine/match.js'
import { acquireElasticsearch, testIndexOptions } from '../helpers/es-node.js'
import { TestIndices } from '../helpers/es-indices.js'
import { copyStream } from '../helpers/copy-stream.js'
import { mulberry32 } from '../helpers/random.js'
import { decided, expectConsistent, runInBatches, storedDecisions } from '../helpers/rerun.js'
import { TIED_SEQ_SEQUENTIAL, tiedSeqCopies } from '../helpers/tied-seq.js'

type Node = Awaited<ReturnType<typeof acquireElasticsearch>>
let es: Node
const analyzer = createAnalyzer()
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'simdup.js')

beforeAll(async () => {
  es = await acquireElasticsearch()
})
afterAll(async () => {
  await es?.stop()
})

const indices = new TestIndices(() => es.nodes[0]!, 'simdup-rerun')
const nextIndex = (): string => indices.next()
const admin = (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> => indices.admin(method, path, body)

afterEach(() => indices.drop())

function open(index: string): Promise<ElasticsearchStore> {
  return createElasticsearchStore({ node: es.url, index, ...testIndexOptions() })
}

/** One run of `docs` over `index` with a fresh store and deduplicator, as one `simdup index` would do. */
async function run(index: string, docs: readonly InputDocument[], seed: number) {
  const store = await open(index)
  try {
    return decided(await runInBatches(createDeduplicator({ store, analyzer }), docs, seed))
  } finally {
    await store.close()
  }
}

async function stored(index: string): Promise<string[]> {
  const store = await open(index)
  try {
    return await storedDecisions(store)
  } finally {
    await store.close()
  }
}

describe('re-running an input decides as one clean run (Elasticsearch)', () => {
  test.prop([fc.integer()], { numRuns: 2, endOnFailure: true })('a second run, and a run cut short then run again, repeat the clean run', async (seed) => {
    const docs = copyStream(seed, 120, false) // ids re-indexed with other content: see README, Guarantees
    const cleanIndex = nextIndex()
    const clean = await run(cleanIndex, docs, seed)
    const cleanStored = await stored(cleanIndex)
    // The embedded store decides the same stream alike.
    const memory = await openMemoryStore()
    expect(decided(await runInBatches(createDeduplicator({ store: memory, analyzer }), docs, seed + 9))).toEqual(clean)
    await memory.close()

    const twice = nextIndex()
    expect(await run(twice, docs, seed + 1)).toEqual(clean)
    expect(await run(twice, docs, seed + 2)).toEqual(clean)
    expect(await stored(twice)).toEqual(cleanStored)

    const cut = nextIndex()
    await run(cut, docs.slice(0, Math.floor(mulberry32(seed)() * docs.length)), seed + 3)
    expect(await run(cut, docs, seed + 4)).toEqual(clean)
    expect(await stored(cut)).toEqual(cleanStored)
    const store = await open(cut)
    await expectConsistent(store, false)
    await store.close()
  }, 120_000)

  // One run (five passes over 120 documents, each update a few more round trips): 60-90 s at load 10-25.
  test.prop([fc.integer()], { numRuns: 1, endOnFailure: true })('with about 8 % re-used ids (updates), a second run and a run cut short then run again repeat the clean run', async (seed) => {
    const docs = copyStream(seed, 120) // updates: each re-elects its old cluster in the same bulk
    expect(new Set(docs.map((d) => d.id)).size).toBeLessThan(docs.length)
    const cleanIndex = nextIndex()
    const clean = await run(cleanIndex, docs, seed)
    const cleanStored = await stored(cleanIndex)
    // The embedded store decides the same stream alike.
    const memory = await openMemoryStore()
    expect(decided(await runInBatches(createDeduplicator({ store: memory, analyzer }), docs, seed + 9))).toEqual(clean)
    expect(await storedDecisions(memory)).toEqual(cleanStored)
    await memory.close()
    await run(cleanIndex, docs, seed + 1)
    expect(await stored(cleanIndex)).toEqual(cleanStored)
    const cut = nextIndex()
    await run(cut, docs.slice(0, Math.floor(mulberry32(seed)() * docs.length)), seed + 3)
    expect(await run(cut, docs, seed + 4)).toEqual(clean)
    expect(await stored(cut)).toEqual(cleanStored)
    const store = await open(cut)
    await expectConsistent(store)
    await store.close()
  }, 600_000)

  test('reconcile repairs forward pointers', { timeout: 60_000 }, async () => {
    const docs = copyStream(11, 100, false)
    const index = nextIndex()
    await run(index, docs, 1)
    const cleanStored = await stored(index)
    const store = await open(index)
    const all: FingerprintRecord[] = []
    for await (const batch of store.scan(100)) all.push(...batch)
    const damaged: FingerprintRecord[] = []
    for (const r of all) {
      const later = r.duplicateOf === null ? all.find((x) => x.duplicateOf === r.id) : undefined
      if (later !== undefined) damaged.push({ ...r, duplicateOf: later.id, clusterId: later.id, distance: later.distance, layer: later.layer })
    }
    expect(damaged.length).toBeGreaterThan(0)
    // And no version links, as an index written before simdup stored them.
    const linked = all.filter((r) => r.supersedes !== undefined).length
    expect(linked).toBeGreaterThan(0)
    const unlinked = new Map(all.map(({ supersedes: _, ...r }) => [r.id, r as FingerprintRecord]))
    for (const r of damaged) unlinked.set(r.id, (({ supersedes: _, ...x }) => x)(r))
    await store.put([...unlinked.values()])
    const result = await reconcile(createDeduplicator({ store, analyzer }))
    expect(await storedDecisions(store)).toEqual(cleanStored)
    expect(result.forwardPointers).toBe(damaged.length)
    expect(result.versions).toBe(linked)
    await expectConsistent(store)
    await store.close()
  })
})

describe('two writers at once (Elasticsearch)', () => {
  test('after reconcile the index holds what one sequential run in (seq, id) order gives', { timeout: 120_000 }, async () => {
    const docs = copyStream(23, 160, false)
    const index = nextIndex()
    await (await open(index)).close()
    // Two processes' worth of stores and deduplicators, writing interleaved halves at the same time.
    const halves = [docs.filter((_, i) => i % 2 === 0), docs.filter((_, i) => i % 2 === 1)]
    await Promise.all(halves.map((half, k) => run(index, half, 100 + k)))
    const store = await open(index)
    const result = await reconcile(createDeduplicator({ store, analyzer }))
    expect(result.scanned).toBe(docs.length)
    expect(result.pairs).toBeGreaterThan(0) // the writers did miss each other
    await expectConsistent(store)
    const all: FingerprintRecord[] = []
    for await (const batch of store.scan(100)) all.push(...batch)
    await store.close()
    const order = all.sort(compareOrder).map((r) => r.id)
    const byId = new Map(docs.map((d) => [d.id, d]))
    // The sequential run over the same documents in the order the two writers numbered them, on
    // the embedded store with its default bounds (the same as Elasticsearch's).
    const memory = await openMemoryStore()
    await runInBatches(createDeduplicator({ store: memory, analyzer }), order.map((id) => byId.get(id)!), 7)
    expect(await stored(index)).toEqual(await storedDecisions(memory))
    await memory.close()
  })

  test('a later record of an earlier one\'s seq takes no band slot in reconcile (writers that started together)', async () => {
    const index = nextIndex()
    // The newest record per band term (no bound by cluster: the bound whose slots a tie could take), as test/unit/engine/reconcile.test.ts.
    const store = await createElasticsearchStore({ node: es.url, index, ...testIndexOptions(), maxPerBand: 1, maxPerCluster: 0 })
    expect((await store.put(await tiedSeqCopies(analyzer))).written).toBe(3)
    await reconcile(createDeduplicator({ store, analyzer }))
    const got: Record<string, unknown> = {}
    for await (const batch of store.scan(100)) for (const r of batch) got[r.id] = [r.duplicateOf, r.clusterId]
    await store.close()
    expect(got).toEqual(TIED_SEQ_SEQUENTIAL)
  })

  test('a later record of the document\'s seq takes no band slot when it is re-indexed (the engine\'s lookup)', async () => {
    const index = nextIndex()
    const store = await createElasticsearchStore({ node: es.url, index, ...testIndexOptions(), maxPerBand: 1, maxPerCluster: 0 })
    expect((await store.put(await tiedSeqCopies(analyzer))).written).toBe(3)
    await store.refresh()
    // r keeps seq 2: one sequential run (and reconcile) give r → a; x, after r, is no match.
    const [r] = await createDeduplicator({ store, analyzer }).add([{ id: 'r', content: ARTICLE_A }])
    await store.close()
    expect(r).toMatchObject({ status: 'duplicate', duplicateOf: TIED_SEQ_SEQUENTIAL.r[0], clusterId: TIED_SEQ_SEQUENTIAL.r[1] })
  })
})

/** The body of an index as an older simdup made it: record format 1 (nothing out of `_source`, simhash indexed, default codec). */
function formatOneBody(): ReturnType<typeof simdupIndexBody> {
  const body = simdupIndexBody()
  delete body.mappings._source
  delete body.mappings._meta
  delete body.settings.codec
  ;(body.mappings.properties as { dedup: { properties: Record<string, unknown> } }).dedup.properties.simhash = { type: 'keyword', doc_values: false }
  return body
}

describe('indices written before records carried a sequence', () => {
  /** The mapping and a record as simdup wrote them before `dedup.seq` existed. */
  async function oldIndex(withRecord: boolean): Promise<string> {
    const index = nextIndex()
    const body = formatOneBody()
    const props = (body.mappings.properties as { dedup: { properties: Record<string, unknown> } }).dedup.properties
    delete props.seq
    expect((await admin('PUT', `/${index}`, body)).status).toBe(200)
    if (withRecord) {
      const dedup = {
        id: 'old', simhash: '3fa20b119c00ffe1', blocks: ['0_3fa2', '1_0b11', '2_9c00', '3_ffe1'], popcount: 30, content_hash: '0123456789abcdef',
        url_hash: null, title_hash: null, short: false, cluster_id: 'old', duplicate_of: null, distance: null, layer: null,
        version: 'v', indexed_at: 1, sketch: null, bands: null,
      }
      expect((await admin('PUT', `/${index}/_doc/old?refresh=true`, { dedup })).status).toBe(201)
    }
    return index
  }

  test('one holding records without `dedup.seq` is refused with what to do; an empty one is upgraded', async () => {
    const full = await oldIndex(true)
    await expect(open(full)).rejects.toMatchObject({ code: 'SNAPSHOT_VERSION', message: expect.stringMatching(/holds 1 dedup records written by an older simdup.*new index/) })
    const empty = await oldIndex(false)
    const store = await open(empty)
    const mapping = (await admin('GET', `/${empty}/_mapping`)).json as Record<string, { mappings: { properties: { dedup: { properties: Record<string, unknown> } } } }>
    expect(mapping[empty]!.mappings.properties.dedup.properties.seq).toEqual({ type: 'long' })
    await store.close()
  })
})

describe('indices written before records carried `supersedes`', () => {
  test('one is opened as it is and gets the field in its mapping; its versions are listed, and reconcile adds their links', async () => {
    const index = nextIndex()
    const body = formatOneBody()
    delete (body.mappings.properties as { dedup: { properties: Record<string, unknown> } }).dedup.properties.supersedes
    expect((await admin('PUT', `/${index}`, body)).status).toBe(200)
    // Two versions of one page as simdup wrote them before: same URL key, other content, no link.
    const old = (id: string, seq: number, simhash: string) => ({
      dedup: {
        id, simhash, blocks: [0, 1, 2, 3].map((p) => `${p}_${simhash.slice(p * 4, p * 4 + 4)}`), popcount: 32, content_hash: `${seq}0123456789abcde`,
        url_hash: 'aaaabbbbccccdddd', title_hash: null, short: false, cluster_id: id, duplicate_of: null, distance: null, layer: null,
        version: 'v', indexed_at: seq, seq, sketch: null, bands: null,
      },
    })
    expect((await admin('PUT', `/${index}/_doc/v1?refresh=true`, old('v1', 1, '0000ffff0000ffff'))).status).toBe(201)
    expect((await admin('PUT', `/${index}/_doc/v2?refresh=true`, old('v2', 2, 'ffff0000ffff0000'))).status).toBe(201)
    const store = await open(index)
    try {
      const mapping = (await admin('GET', `/${index}/_mapping`)).json as Record<string, { mappings: { properties: { dedup: { properties: Record<string, unknown> } } } }>
      expect(mapping[index]!.mappings.properties.dedup.properties.supersedes).toEqual({ type: 'keyword', doc_values: false })
      expect((await store.byUrl(['aaaabbbbccccdddd']))[0]!.map((r) => [r.id, r.supersedes ?? null])).toEqual([['v2', null], ['v1', null]])
      expect(await reconcile(createDeduplicator({ store, analyzer, versionCheck: false }))).toMatchObject({ versions: 1, pairs: 0, updated: 1 })
      expect((await store.get(['v2'])).get('v2')?.supersedes).toBe('v1')
    } finally {
      await store.close()
    }
  })
})

describe('simdup index --es killed with SIGKILL and run again decides as one clean run', () => {
  /**
   * `simdup index --es` through the binary; with `killAfterLines`, SIGKILLed once its decisions
   * (temporary) file holds that many lines (a batch's decisions are written after its records are acknowledged,
   * so the kill lands after that many documents reached the index, often mid-way through the next batch).
   */
  function index(input: string, indexName: string, out: string, killAfterLines?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
    const child = spawn(process.execPath, [BIN, 'index', input, '--es', es.url, '--index', indexName, '--out', out, '--batch', '50', '--workers', '1', '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    // Decisions go to a temporary file beside --out while the run lasts (renamed at the end).
    const temp = join(dirname(out), `.${basename(out)}.${child.pid}.tmp`)
    const timer = killAfterLines === undefined ? undefined : setInterval(() => {
      void readFile(temp, 'utf8').catch(() => readFile(out, 'utf8')).then(
        (text) => {
          if (text.split('\n').length > killAfterLines && child.exitCode === null) child.kill('SIGKILL')
        },
        () => undefined,
      )
    }, 5)
    return new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        clearInterval(timer)
        resolve({ code, signal, stderr })
      })
    })
  }

  test('the client killed at random points, then run to the end', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'simdup-rerun-es-'))
    try {
      const input = join(dir, 'input.jsonl')
      await writeFile(input, copyStream(5, 800, false).map((d) => JSON.stringify(d)).join('\n') + '\n')
      const cleanIndex = nextIndex()
      const clean = await index(input, cleanIndex, join(dir, 'clean.jsonl'))
      expect(clean, clean.stderr).toMatchObject({ code: 0, signal: null })
      const cleanDecisions = await readFile(join(dir, 'clean.jsonl'), 'utf8')
      const cleanStored = await stored(cleanIndex)
      const rnd = mulberry32(Date.now() % 100_000)
      for (let trial = 0; trial < 2; trial++) {
        const name = nextIndex()
        const killed = await index(input, name, join(dir, `killed-${trial}.jsonl`), Math.floor(800 * (0.2 + 0.7 * rnd())))
        expect(killed.signal, killed.stderr).toBe('SIGKILL')
        const final = await index(input, name, join(dir, `final-${trial}.jsonl`))
        expect(final, final.stderr).toMatchObject({ code: 0, signal: null })
        expect(await readFile(join(dir, `final-${trial}.jsonl`), 'utf8')).toBe(cleanDecisions)
        expect(await stored(name)).toEqual(cleanStored)
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

/**
 * Short texts (issue 24): sentences of the fixture articles, each copied with a line added, a tail
 * cut, punctuation changed, written twice, a negation or a figure changed; many share grams, so the
 * band bound (4 newest records per prefix term) is met on both stores.
 */
function shortStream(seed: number, n: number): InputDocument[] {
  const rnd = mulberry32(seed)
  const sentences = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D].flatMap((a) => a.split(/[。！？\n]/)).map((s) => s.trim()).filter((s) => s.length >= 6 && s.length <= 60)
  const edits = [
    (s: string) => s,
    (s: string) => `${s}。扫码关注公众号，获取更多资讯。`,
    (s: string) => s.slice(0, Math.max(4, Math.floor(s.length * 0.8))),
    (s: string) => s.replace(/，/g, ' '),
    (s: string) => `${s}。${s}`,
    (s: string) => `不${s}`,
    (s: string) => `${s}，同比上涨${Math.floor(rnd() * 9)}.${Math.floor(rnd() * 9)}%`,
  ]
  return Array.from({ length: n }, (_, i) => {
    const s = sentences[Math.floor(rnd() * Math.min(sentences.length, 25))]!
    return { id: `s${i}`, content: edits[Math.floor(rnd() * edits.length)]!(s) }
  })
}

describe('short texts: both stores decide alike, a re-run repeats (issue 24)', () => {
  test.prop([fc.integer()], { numRuns: 2, endOnFailure: true })('Elasticsearch and the embedded store, a second run on each', async (seed) => {
    const docs = shortStream(seed, 80)
    const index = nextIndex()
    const clean = await run(index, docs, seed)
    expect(clean.filter((d) => d.includes(' duplicate ')).length).toBeGreaterThan(30)
    const memory = await openMemoryStore()
    expect(decided(await runInBatches(createDeduplicator({ store: memory, analyzer }), docs, seed + 9))).toEqual(clean)
    expect(decided(await runInBatches(createDeduplicator({ store: memory, analyzer }), docs, seed + 10))).toEqual(clean)
    await memory.close()
    expect(await run(index, docs, seed + 1)).toEqual(clean)
  }, 300_000)
})
