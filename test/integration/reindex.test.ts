/**
 * `reindex` against a real Elasticsearch node: a source index of ~270 small Chinese documents
 * with planted near-duplicates, reindexed into a copy (`dest`) and in place, checked against the
 * same engine run in memory over the same order (the oracle), and against the planted structure.
 */
import { spawn } from 'node:child_process'
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { Client } from '@elastic/elasticsearch'
import { createAnalyzer, createDeduplicator, hamming, openMemoryStore, type Analyzer, type Decision } from '../../src/index.js'
import { reindex, parseFieldList, resolveReindexOptions, type ReindexOptions, type ReindexCheckpoint } from '../../src/elasticsearch/reindex/index.js'
import { compareSortValues } from '../../src/elasticsearch/reindex/_sort.js'
import { getPath, mapHit } from '../../src/elasticsearch/reindex/_fields.js'
import { run } from '../../src/cli/main.js'
import { acquireElasticsearch, testIndexSettings } from '../helpers/es-node.js'
import { fakeIO } from '../helpers/cli.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../fixtures/articles.js'
import { mulberry32 } from '../helpers/random.js'

// ---- corpus ----

/**
 * Words the random documents are drawn from (glosses in order): city, countryside, school,
 * hospital, factory, park, station, airport, port, market; teacher, student, doctor, worker,
 * farmer, driver, reporter, expert, resident, tourist; build, develop, reform, research, survey,
 * manage, service, protect, train, invest; economy, culture, education, technology, environment,
 * traffic, energy, agriculture, tourism, sports; spring, summer, autumn, winter, morning, evening,
 * this year, last year, next year, weekend; river, mountain area, forest, lake, ocean, grassland,
 * desert, island, plain, canyon; computer, mobile phone, car, train, aeroplane, ship, television,
 * newspaper, books, music; increase, decrease, raise, lower, complete, begin, end, take part,
 * organise, hold (an event); important, obvious, stable, safe, convenient, rich, difficult,
 * active, ordinary, special; vegetables, fruit, grain, tea leaves, medicine, clothes, furniture,
 * toys, steel, petroleum. A 60-word draw is far (SimHash distance ≥ 10) from any other draw.
 */
const WORDS = (
  '城市 农村 学校 医院 工厂 公园 车站 机场 港口 市场 老师 学生 医生 工人 农民 司机 记者 专家 居民 游客 ' +
  '建设 发展 改革 研究 调查 管理 服务 保护 培训 投资 经济 文化 教育 科技 环境 交通 能源 农业 旅游 体育 ' +
  '春天 夏天 秋天 冬天 早上 晚上 今年 去年 明年 周末 河流 山区 森林 湖泊 海洋 草原 沙漠 岛屿 平原 峡谷 ' +
  '电脑 手机 汽车 火车 飞机 轮船 电视 报纸 图书 音乐 增加 减少 提高 降低 完成 开始 结束 参加 组织 举办 ' +
  '重要 明显 稳定 安全 方便 丰富 困难 积极 普通 特别 蔬菜 水果 粮食 茶叶 药品 衣服 家具 玩具 钢铁 石油'
).split(' ')

/** Words joined into sentences: a comma every third word, a full stop every eighth. */
function sentences(words: readonly string[]): string {
  return words.map((w, i) => w + ((i + 1) % 8 === 0 ? '。' : i % 3 === 2 ? '，' : '')).join('')
}

const T0 = Date.UTC(2024, 0, 1)
const MIN = 60_000
const DAY = 86_400_000

interface SourceDoc {
  meta: { title: string; author: string }
  body?: unknown
  link?: string
  published: number
  tag: string
  views: number
}

/** The planted structure: which document each planted one must end up with. */
interface Planted {
  /** id → id of its expected cluster representative (near-duplicates planted later than their base). */
  clusterOf: Map<string, string>
  /** id → layer expected to decide it. */
  layerOf: Map<string, string>
  rejected: string[]
}

/**
 * 200 random documents (r000…, times shuffled so id order is not time order); 30 one-word edits
 * of some of them (v…, 30 s after their base, the edit chosen so that the SimHash distance is 1–3);
 * 15 copies wrapped in HTML (x…, exact after normalisation); 10 unrelated texts at a base's URL
 * plus tracking parameters (u…); for each fixture article three copies whose earliest by
 * `published` has the LARGEST id (z-early-…, m-mid-… two days later with one comma turned into a
 * semicolon, a-late-… thirty days later); three documents without usable content.
 *
 * Every planted pair is within SimHash reach (shared blocks) or shares a hash, so the memory
 * store and Elasticsearch see the same candidates.
 */
function buildCorpus(analyzer: Analyzer): { docs: Map<string, SourceDoc>; planted: Planted } {
  const r = mulberry32(20240101)
  const draw = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]!)
  const docs = new Map<string, SourceDoc>()
  const planted: Planted = { clusterOf: new Map(), layerOf: new Map(), rejected: [] }
  const order = Array.from({ length: 200 }, (_, i) => i).sort(() => r() - 0.5)
  const words: string[][] = []
  const rid = (i: number) => `r${String(i).padStart(3, '0')}`
  for (let i = 0; i < 200; i++) {
    words.push(draw(60))
    docs.set(rid(i), {
      meta: { title: sentences(draw(4)), author: `作者${i % 7}` }, // 作者 = author
      body: sentences(words[i]!),
      link: `https://news.example.com/a/${i}`,
      published: T0 + order[i]! * MIN,
      tag: i % 2 === 0 ? 'even' : 'odd',
      views: i * 10,
    })
  }
  const base = (i: number) => docs.get(rid(i))!
  for (let k = 0; k < 30; k++) {
    const b = 3 * k
    const own = analyzer.analyze(sentences(words[b]!)).fingerprint
    let body = ''
    for (let distance = 0; distance < 1 || distance > 3; ) {
      const w = [...words[b]!]
      w[Math.floor(r() * w.length)] = WORDS[Math.floor(r() * WORDS.length)]!
      body = sentences(w)
      distance = hamming(analyzer.analyze(body).fingerprint, own)
    }
    const id = `v${String(k).padStart(3, '0')}`
    docs.set(id, { ...structuredClone(base(b)), body, link: `https://news.example.com/${id}`, published: base(b).published + 30_000 })
    planted.clusterOf.set(id, rid(b))
    planted.layerOf.set(id, 'simhash')
  }
  for (let k = 0; k < 15; k++) {
    const b = 3 * k + 1
    const id = `x${String(k).padStart(3, '0')}`
    docs.set(id, { ...structuredClone(base(b)), body: `<p>${String(base(b).body)}</p>`, link: `https://news.example.com/${id}`, published: base(b).published + 20_000 })
    planted.clusterOf.set(id, rid(b))
    planted.layerOf.set(id, 'exact')
  }
  for (let k = 0; k < 10; k++) {
    const b = 3 * k + 2
    const id = `u${String(k).padStart(3, '0')}`
    // Same page (tracking parameters added), same content: a url-layer duplicate (issue 15: a URL
    // alone, with other content, is a new version, not a duplicate).
    docs.set(id, { ...structuredClone(base(b)), link: `${base(b).link}?utm_source=feed&utm_medium=rss`, published: base(b).published + 10_000 })
    planted.clusterOf.set(id, rid(b))
    planted.layerOf.set(id, 'url')
  }
  const articles = { A: ARTICLE_A, B: ARTICLE_B, C: ARTICLE_C, D: ARTICLE_D }
  for (const [name, text] of Object.entries(articles)) {
    const shared = { meta: { title: `文章${name}`, author: '编辑部' }, tag: 'article', views: 1 } // 文章 = article, 编辑部 = editorial office
    docs.set(`z-early-${name}`, { ...structuredClone(shared), body: text, published: T0 - DAY })
    docs.set(`m-mid-${name}`, { ...structuredClone(shared), body: text.replace('，', '；'), published: T0 + 2 * DAY })
    docs.set(`a-late-${name}`, { ...structuredClone(shared), body: text, published: T0 + 30 * DAY })
    planted.clusterOf.set(`m-mid-${name}`, `z-early-${name}`)
    planted.layerOf.set(`m-mid-${name}`, 'simhash')
    planted.clusterOf.set(`a-late-${name}`, `z-early-${name}`)
    planted.layerOf.set(`a-late-${name}`, 'exact')
  }
  // k-link-later repeats the URL and the text of a document of the first batch (a url-layer
  // duplicate in that cluster), just after k-first in walk order (batch 3). (It was a trap when a
  // URL alone made a duplicate: a one-word edit of k-first under the early URL. Since a URL match
  // needs agreeing content, a URL no longer links other text into a cluster.)
  const sorted = [...docs.entries()].sort((a, b) => a[1].published - b[1].published)
  const [early, earlyDoc] = sorted[20]!
  const t = sorted[2 * BATCH + 10]![1].published
  const kFirst = sentences(draw(60))
  docs.set('k-first', { meta: { title: '陷阱', author: '' }, body: kFirst, link: 'https://news.example.com/k-first', published: t + 1, tag: 'trap', views: 0 }) // 陷阱 = trap
  docs.set('k-link-later', { meta: { title: '陷阱', author: '' }, body: earlyDoc.body, link: earlyDoc.link!, published: t + 2, tag: 'trap', views: 0 })
  planted.clusterOf.set('k-link-later', planted.clusterOf.get(early) ?? early)
  planted.layerOf.set('k-link-later', 'url')
  docs.set('bad-empty', { meta: { title: '空', author: '' }, body: '   ', published: T0 + 5 * MIN + 1, tag: 'bad', views: 0 }) // 空 = empty
  docs.set('bad-missing', { meta: { title: '缺', author: '' }, published: T0 + 6 * MIN + 1, tag: 'bad', views: 0 }) // 缺 = missing
  docs.set('bad-type', { meta: { title: '数', author: '' }, body: 42, published: T0 + 7 * MIN + 1, tag: 'bad', views: 0 }) // 数 = number
  planted.rejected.push('bad-empty', 'bad-missing', 'bad-type')
  return { docs, planted }
}

let CORPUS: Map<string, SourceDoc>
let PLANTED: Planted
const FIELDS = parseFieldList('meta.title,body,link')
const BATCH = 40

// ---- node, indices ----

// Each test runs a few reindex jobs of ~270 documents; on a loaded 2-core machine that can take
// a while (timings are never asserted).
vi.setConfig({ testTimeout: 120_000 })

let es: Awaited<ReturnType<typeof acquireElasticsearch>>
let client: Client
let analyzer: Analyzer
let dir: string
let n = 0
const created: string[] = []
const name = (what: string) => {
  const index = `simdup-reindex-${process.pid}-${++n}-${what}`
  created.push(index)
  return index
}

beforeAll(async () => {
  // Fails (never skips) when no node can be had: CI must not pass without Elasticsearch.
  es = await acquireElasticsearch()
  client = new Client({ nodes: es.nodes })
  analyzer = createAnalyzer()
  ;({ docs: CORPUS, planted: PLANTED } = buildCorpus(analyzer))
  dir = mkdtempSync(join(tmpdir(), 'simdup-reindex-'))
})

afterAll(async () => {
  await client?.close()
  await es?.stop()
})

afterEach(async () => {
  for (const index of created.splice(0)) await client.indices.delete({ index }, { ignore: [404] })
})

/**
 * A source index holding the corpus; 2 shards by default, so `_shard_doc` order interleaves
 * shards. Tests that check the largest clusters use 1: the store's `topClusters` (a terms
 * aggregation without `shard_size`) can undercount a cluster whose members span shards.
 */
async function makeSource(shards = 2): Promise<string> {
  const index = name('src')
  await client.indices.create({
    index,
    settings: { number_of_shards: shards, number_of_replicas: 0, ...testIndexSettings() },
    mappings: {
      properties: {
        meta: { properties: { title: { type: 'text' }, author: { type: 'keyword' } } },
        body: { type: 'text' },
        link: { type: 'keyword' },
        published: { type: 'date' },
        tag: { type: 'keyword' },
        views: { type: 'long' },
      },
    },
  })
  const operations: object[] = []
  for (const [id, doc] of CORPUS) operations.push({ index: { _index: index, _id: id } }, doc)
  const res = await client.bulk({ operations, refresh: true })
  expect(res.errors).toBe(false)
  return index
}

/** Every document of an index: id → { source, version, seqNo }. */
async function readAll(index: string): Promise<Map<string, { source: Record<string, unknown>; version: number; seqNo: number }>> {
  await client.indices.refresh({ index })
  const res = await client.search<Record<string, unknown>>({ index, size: 1000, version: true, seq_no_primary_term: true, query: { match_all: {} } })
  return new Map(res.hits.hits.map((h) => [h._id!, { source: h._source!, version: h._version!, seqNo: h._seq_no! }]))
}

/**
 * Each document's sequence number, by id. Not in hit order: a search may read a shard's primary or
 * its replica, which hold the same documents (and sequence numbers) in another order.
 */
function seqNos(all: Map<string, { seqNo: number }>): [string, number][] {
  return [...all].map(([id, d]): [string, number] => [id, d.seqNo]).sort((a, b) => (a[0] < b[0] ? -1 : 1))
}

type DedupView = { cluster_id: string; duplicate_of: string | null; layer: string | null; distance: number | null; simhash: string }

/** The decision part of each document's `dedup` object (what must not depend on how the job ran). */
function decisions(all: Map<string, { source: Record<string, unknown> }>): Map<string, DedupView | null> {
  const out = new Map<string, DedupView | null>()
  for (const [id, d] of all) {
    const x = d.source.dedup as Record<string, unknown> | undefined
    out.set(id, x === undefined ? null : { cluster_id: x.cluster_id as string, duplicate_of: x.duplicate_of as string | null, layer: x.layer as string | null, distance: x.distance as number | null, simhash: x.simhash as string })
  }
  return out
}

function withoutDedup(source: Record<string, unknown>): Record<string, unknown> {
  const { dedup: _dedup, ...rest } = source
  return rest
}

const base = (over: Partial<ReindexOptions>): ReindexOptions => ({
  node: es.url,
  source: 'unset',
  fields: FIELDS,
  batchSize: BATCH,
  checkpointFile: join(dir, `cp-${++n}.json`),
  dedup: { analyzer },
  ...over,
})

/**
 * The oracle: the same engine over the same documents in `published` order, in batches of the
 * same size, against the in-memory store. The reindex must decide exactly like it.
 */
async function oracle(): Promise<Map<string, Decision>> {
  const dedup = createDeduplicator({ store: await openMemoryStore(), analyzer })
  const sorted = [...CORPUS].sort((a, b) => a[1].published - b[1].published)
  const out = new Map<string, Decision>()
  for (let i = 0; i < sorted.length; i += BATCH) {
    const batch = sorted.slice(i, i + BATCH).map(([id, doc]) => mapHit(id, doc, FIELDS, '_id').item)
    for (const d of await dedup.process(batch)) if (d.id !== null) out.set(d.id, d)
  }
  return out
}

// ---- pure parts ----

describe('pieces', () => {
  test('sort values merge in Elasticsearch order: numbers, UTF-8 bytes, missing last', () => {
    expect(compareSortValues([1, 5], [1, 7])).toBeLessThan(0)
    expect(compareSortValues([2, 0], [1, 7])).toBeGreaterThan(0)
    expect(compareSortValues(['b', 1], [null, 0])).toBeLessThan(0)
    // U+FF5E (BMP, 3 UTF-8 bytes EF BD 9E) sorts before U+1F600 (F0 …) in UTF-8, after it in UTF-16.
    expect(compareSortValues(['\uff5e'], ['\u{1f600}'])).toBeLessThan(0)
    expect('\uff5e' < '\u{1f600}').toBe(false)
  })

  test('field paths reach nested objects, dotted keys and arrays', () => {
    expect(getPath({ meta: { title: 't' } }, 'meta.title')).toBe('t')
    expect(getPath({ 'meta.title': 't' }, 'meta.title')).toBe('t')
    expect(getPath({ parts: [{ text: '甲' }, { text: '乙' }] }, 'parts.text')).toEqual(['甲', '乙']) // 甲, 乙 = first, second
    expect(mapHit('1', { parts: [{ text: '甲' }, { text: '乙' }] }, { title: null, content: 'parts.text', url: null }, '_id').item).toEqual({ value: { id: '1', content: '甲\n乙' } })
    expect(mapHit('1', { n: 7, body: '正文' }, { title: null, content: 'body', url: null }, 'n').id).toBe('7') // 正文 = body text
    expect(mapHit('1', {}, { title: null, content: 'body', url: null }, '_id').item).toMatchObject({ rejected: expect.stringMatching(/`body`.*missing/) })
  })

  test('option combinations are checked before anything is touched', () => {
    const ok = { node: 'http://127.0.0.1:9200', source: 'news' }
    expect(() => resolveReindexOptions({ ...ok })).toThrow(/exactly one of `dest`.*or `inPlace: true`, got neither/)
    expect(() => resolveReindexOptions({ ...ok, dest: 'news' })).toThrow(/`dest` to differ from `source`/)
    expect(() => resolveReindexOptions({ ...ok, dest: 'd', windowMs: DAY })).toThrow(/requires `sort`/)
    expect(() => resolveReindexOptions({ ...ok, inPlace: true, idField: 'uid' })).toThrow(/`idField` to be `_id` in place/)
    expect(() => parseFieldList('title,,url')).toThrow(/content field/)
    expect(resolveReindexOptions({ ...ok, dest: 'd' })).toMatchObject({ checkpointFile: '.simdup/reindex-news-d.json', rejectsFile: '.simdup/reindex-news-d.rejects.jsonl', batchSize: 500 })
  })
})

// ---- against the node ----

describe('reindex --dest', () => {
  test('copies every document with its source, adds dedup fields equal to the in-memory oracle, earliest by sort represents', async () => {
    const source = await makeSource(1)
    const dest = name('dest')
    const result = await reindex(base({ source, dest, sort: 'published' }))
    expect(result).toMatchObject({ status: 'done', resumed: null, reader: 'pit', total: CORPUS.size, target: dest })
    expect(result.counts).toMatchObject({ docs: CORPUS.size, rejected: 3, copied: CORPUS.size, skipped: 0 })
    expect(result.counts.byLayer.url).toBe([...PLANTED.layerOf.values()].filter((l) => l === 'url').length)

    const copied = await readAll(dest)
    expect([...copied.keys()].sort()).toEqual([...CORPUS.keys()].sort())
    for (const [id, doc] of CORPUS) expect(withoutDedup(copied.get(id)!.source)).toEqual(doc)

    // Same decisions as the engine over the same order in memory.
    const want = await oracle()
    const got = decisions(copied)
    for (const [id, d] of want) {
      if (d.status === 'rejected') expect(got.get(id)).toBeNull()
      else expect(got.get(id)).toEqual({ cluster_id: d.clusterId, duplicate_of: d.duplicateOf, layer: d.layer, distance: d.distance, simhash: d.simhash })
    }
    // The planted structure, independently of the oracle.
    for (const [id, rep] of PLANTED.clusterOf) expect([id, got.get(id)?.cluster_id]).toEqual([id, rep])
    for (const [id, layer] of PLANTED.layerOf) expect([id, got.get(id)?.layer]).toEqual([id, layer])
    for (const [id, d] of got) if (!PLANTED.clusterOf.has(id) && d !== null) expect([id, d.cluster_id]).toEqual([id, id])
    expect(result.counts.unique).toBe([...got.values()].filter((d) => d !== null && d.layer === null).length)

    // Largest clusters: the four fixture articles, three copies each.
    expect(result.topClusters.slice(0, 4)).toEqual(['A', 'B', 'C', 'D'].map((x) => ({ clusterId: `z-early-${x}`, size: 3 })))

    // Rejects: counted, written to the rejects file naming the source field, copied without dedup fields.
    const rejects = readFileSync(result.rejectsFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { _id: string; reason: string })
    expect(rejects.map((x) => x._id).sort()).toEqual([...PLANTED.rejected].sort())
    expect(rejects.find((x) => x._id === 'bad-missing')!.reason).toMatch(/`body`.*missing/)
    expect(rejects.find((x) => x._id === 'bad-empty')!.reason).toMatch(/source field `body`.*empty/)

    // dest: the source's mapping plus the dedup object.
    const mapping = (await client.indices.getMapping({ index: dest }))[dest]!.mappings.properties!
    expect(mapping.tag).toEqual({ type: 'keyword' })
    expect((mapping.meta as { properties: Record<string, unknown> }).properties.author).toEqual({ type: 'keyword' })
    expect((mapping.dedup as { properties: Record<string, unknown> }).properties.cluster_id).toEqual({ type: 'keyword' })

    // Each document written exactly once as a copy and once with its dedup fields.
    for (const [id, d] of copied) expect([id, d.version]).toEqual([id, PLANTED.rejected.includes(id) ? 1 : 2])

    // A second run of the finished job changes nothing: same sequence numbers, nothing new.
    const again = await reindex(base({ source, dest, sort: 'published', checkpointFile: result.checkpointFile }))
    expect(again.status).toBe('already-done')
    expect(again.counts).toEqual(result.counts)
    const after = await readAll(dest)
    expect(seqNos(after)).toEqual(seqNos(copied))
  })

  test('refuses an existing dest that no checkpoint continues, and a checkpoint of another job', async () => {
    const source = await makeSource()
    const dest = name('dest')
    await client.indices.create({ index: dest, settings: testIndexSettings() })
    await expect(reindex(base({ source, dest }))).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/already exists.*`restart`/) })
    const cp = join(dir, 'other-job.json')
    await expect(reindex(base({ source, dest, restart: true, checkpointFile: cp, maxBatches: 1 }))).resolves.toMatchObject({ status: 'stopped' })
    await expect(reindex(base({ source, dest, checkpointFile: cp, sort: 'published' }))).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/another job.*sort \(checkpoint null, now "published"\)/),
    })
  })

  test('slices read in parallel but decide in the unsliced order: identical results', async () => {
    const source = await makeSource()
    const one = name('dest1')
    const three = name('dest3')
    await reindex(base({ source, dest: one }))
    const r3 = await reindex(base({ source, dest: three, slices: 3 }))
    expect(r3.counts.docs).toBe(CORPUS.size)
    const a = decisions(await readAll(one))
    const b = decisions(await readAll(three))
    expect(b).toEqual(a)
    // Whatever the index order, planted near-duplicates share their base's cluster.
    for (const [id, rep] of PLANTED.clusterOf) expect([id, a.get(id)?.cluster_id]).toEqual([id, a.get(rep)?.cluster_id])
  })

  test('worker threads (the job runner\'s pool) decide exactly as this thread, stopped and resumed included', async () => {
    const source = await makeSource()
    const here = name('here')
    const pooled = name('pooled')
    const checkpointFile = join(dir, 'pooled.json')
    await reindex(base({ source, dest: here, sort: 'published' }))
    // Workers rebuild the analyzer from options (`dedup: {}`: the default one, as `base`'s).
    expect(await reindex(base({ source, dest: pooled, sort: 'published', workers: 2, dedup: {}, checkpointFile, maxBatches: 2 }))).toMatchObject({ status: 'stopped', batches: 2 })
    const r = await reindex(base({ source, dest: pooled, sort: 'published', workers: 2, dedup: {}, checkpointFile }))
    expect(r).toMatchObject({ status: 'done', resumed: 'exact' })
    expect(r.counts).toMatchObject({ docs: CORPUS.size, rejected: 3 })
    expect(decisions(await readAll(pooled))).toEqual(decisions(await readAll(here)))
  })

  test('scroll reader (clusters without point in time) gives the same result in --sort order', async () => {
    const source = await makeSource()
    const viaPit = name('pit')
    const viaScroll = name('scroll')
    await reindex(base({ source, dest: viaPit, sort: 'published' }))
    const r = await reindex(base({ source, dest: viaScroll, sort: 'published', reader: 'scroll' }))
    expect(r.reader).toBe('scroll')
    expect(decisions(await readAll(viaScroll))).toEqual(decisions(await readAll(viaPit)))
  })

  test('--window: documents further apart by the sort field than the window do not match', async () => {
    const source = await makeSource()
    const plain = name('plain')
    const windowed = name('window')
    await reindex(base({ source, dest: plain, sort: 'published' }))
    await reindex(base({ source, dest: windowed, sort: 'published', windowMs: 7 * DAY }))
    const a = decisions(await readAll(plain))
    const b = decisions(await readAll(windowed))
    for (const x of ['A', 'B', 'C', 'D']) {
      expect(b.get(`m-mid-${x}`)?.cluster_id).toBe(`z-early-${x}`) // 3 days apart: within 7 d
      expect(b.get(`a-late-${x}`)).toMatchObject({ cluster_id: `a-late-${x}`, duplicate_of: null }) // 28+ days after both
      b.delete(`a-late-${x}`)
      a.delete(`a-late-${x}`)
    }
    expect(b).toEqual(a)
  })
})

describe('a red source', () => {
  /**
   * A source that is red from the start, on any topology: one shard more than there are data
   * nodes, at most one shard per node and no replica, so one primary stays unassigned. The
   * documents are routed to an assigned shard (found with _search_shards, before any write).
   */
  async function makeRedSource(): Promise<{ source: string; allocateAll: () => Promise<void> }> {
    const source = name('red-src')
    const nodes = (await client.cluster.health()).number_of_data_nodes
    await client.indices.create({
      index: source,
      settings: { ...testIndexSettings(), number_of_shards: nodes + 1, number_of_replicas: 0, 'index.routing.allocation.total_shards_per_node': 1 },
      mappings: { properties: { published: { type: 'date' } } },
      wait_for_active_shards: 0,
    })
    await client.cluster.health({ index: source, wait_for_active_shards: nodes, timeout: '60s' })
    // _search_shards lists no copy for a routing value that lands on the unassigned shard.
    let routing = 0
    while ((await client.searchShards({ index: source, routing: String(routing) })).shards[0]!.length === 0) routing++
    const operations: object[] = []
    for (const [id, doc] of CORPUS) operations.push({ index: { _index: source, _id: id, routing: String(routing) } }, doc)
    const res = await client.bulk({ operations, refresh: true })
    expect(res.errors).toBe(false)
    expect((await client.cluster.health({ index: source })).status).toBe('red')
    const allocateAll = async () => {
      await client.indices.putSettings({ index: source, settings: { 'index.routing.allocation.total_shards_per_node': -1 } })
    }
    return { source, allocateAll }
  }

  // With `node`, opening the job's store on the source already waited (the store's own reads wait
  // for a red index); with a `client` of the caller's, the job's first read is its own `_count`.
  test('is waited for, as `index` waits (cluster health yellow, up to 60 s a retry): the job runs once its primaries are back and decides as the oracle', async () => {
    const { source, allocateAll } = await makeRedSource()
    const dest = name('dest')
    // Every read of the source answers partially (1 shard of n+1 missing) until its last primary
    // is allocated, 3 s into the job: more than the three back-offs (0.2 + 0.4 + 0.8 s) alone.
    const { node: _node, ...options } = base({ source, dest, sort: 'published' })
    const job = reindex({ ...options, client })
    job.catch(() => undefined) // awaited below; a rejection before then is not unhandled
    await new Promise((resolve) => setTimeout(resolve, 3000))
    await allocateAll()
    const result = await job
    expect(result.counts).toMatchObject({ docs: CORPUS.size, copied: CORPUS.size, rejected: PLANTED.rejected.length })
    const want = await oracle()
    const got = decisions(await readAll(dest))
    for (const [id, d] of want) {
      if (d.status === 'rejected') expect(got.get(id)).toBeNull()
      else expect([id, got.get(id)]).toEqual([id, { cluster_id: d.clusterId, duplicate_of: d.duplicateOf, layer: d.layer, distance: d.distance, simhash: d.simhash }])
    }
  })
})

describe('reindex --in-place', () => {
  test('writes only the dedup object; every other field and the decisions match the copy', async () => {
    const source = await makeSource()
    const before = await readAll(source)
    const result = await reindex(base({ source, inPlace: true, sort: 'published' }))
    expect(result.counts).toMatchObject({ docs: CORPUS.size, rejected: 3, copied: 0 })
    const after = await readAll(source)
    for (const [id, d] of after) expect([id, withoutDedup(d.source)]).toEqual([id, before.get(id)!.source])
    const dest = name('dest')
    await reindex(base({ source, dest, sort: 'published' }))
    expect(decisions(after)).toEqual(decisions(await readAll(dest)))
    for (const id of PLANTED.rejected) expect(after.get(id)!.version).toBe(1)

    const again = await reindex(base({ source, inPlace: true, sort: 'published', checkpointFile: result.checkpointFile }))
    expect(again.status).toBe('already-done')
    expect(seqNos(await readAll(source))).toEqual(seqNos(after))
  })

  test('a document deleted while the job runs stays deleted: its write is rejected, not an upsert', async () => {
    const source = await makeSource()
    const checkpointFile = join(dir, 'deleted.json')
    const first = await reindex(base({ source, inPlace: true, sort: 'published', checkpointFile, maxBatches: 1 }))
    expect(first.status).toBe('stopped')
    // The newest document is in a later batch; the job's point in time still shows it.
    const gone = [...CORPUS].filter(([id]) => !PLANTED.rejected.includes(id)).sort((a, b) => a[1].published - b[1].published).at(-1)![0]
    await client.delete({ index: source, id: gone, refresh: true })
    const second = await reindex(base({ source, inPlace: true, sort: 'published', checkpointFile }))
    expect(second).toMatchObject({ status: 'done', resumed: 'exact' })
    expect(second.counts).toMatchObject({ docs: CORPUS.size, rejected: PLANTED.rejected.length + 1 })
    expect((await client.exists({ index: source, id: gone }))).toBe(false)
    const rejects = readFileSync(second.rejectsFile!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; reason: string })
    expect(rejects.find((r) => r.id === gone)?.reason).toMatch(/status 404.*document_missing/)
  })
})

describe('resume', () => {
  /** An uninterrupted run's decisions, to compare resumed runs with. */
  async function reference(source: string): Promise<Map<string, DedupView | null>> {
    const dest = name('ref')
    await reindex(base({ source, dest, sort: 'published' }))
    return decisions(await readAll(dest))
  }

  test('stopped after 2 batches, then continued on the same point in time: same result, each document written once', async () => {
    const source = await makeSource()
    const dest = name('dest')
    const checkpointFile = join(dir, 'stop.json')
    const first = await reindex(base({ source, dest, sort: 'published', checkpointFile, maxBatches: 2 }))
    expect(first).toMatchObject({ status: 'stopped', batches: 2 })
    expect(first.counts.docs).toBe(2 * BATCH)
    const cp = JSON.parse(readFileSync(checkpointFile, 'utf8')) as ReindexCheckpoint
    expect(cp).toMatchObject({ done: false, reader: 'pit' })
    expect(cp.counts.docs).toBe(2 * BATCH)

    const second = await reindex(base({ source, dest, sort: 'published', checkpointFile }))
    expect(second).toMatchObject({ status: 'done', resumed: 'exact' })
    expect(second.counts.docs).toBe(CORPUS.size)
    const all = await readAll(dest)
    expect(all.size).toBe(CORPUS.size)
    for (const [id, d] of all) expect([id, d.version]).toEqual([id, PLANTED.rejected.includes(id) ? 1 : 2])
    expect(decisions(all)).toEqual(await reference(source))
  })

  test('killed after a batch was written but before its checkpoint: the batch is redone, same result', async () => {
    const source = await makeSource()
    const dest = name('dest')
    const checkpointFile = join(dir, 'kill.json')
    const saved = join(dir, 'kill-after-2.json')
    // Keep the checkpoint of batch 2, let batch 3 be written, then put batch 2's checkpoint back:
    // the state of a process killed between batch 3's writes and its checkpoint.
    await reindex(base({ source, dest, sort: 'published', checkpointFile, maxBatches: 3, onProgress: (p) => p.batches === 2 && copyFileSync(checkpointFile, saved) }))
    copyFileSync(saved, checkpointFile)
    // A rejects line past the length the checkpoint covers (as a killed batch could leave) is cut.
    appendFileSync(checkpointFile.replace(/\.json$/, '.rejects.jsonl'), JSON.stringify({ _index: source, _id: 'from-the-killed-batch', reason: 'x' }) + '\n')
    const done = await reindex(base({ source, dest, sort: 'published', checkpointFile }))
    expect(done).toMatchObject({ status: 'done', resumed: 'exact' })
    expect(done.counts).toMatchObject({ docs: CORPUS.size, rejected: 3 })
    const all = await readAll(dest)
    expect(all.size).toBe(CORPUS.size)
    expect(decisions(all)).toEqual(await reference(source))
    const rejects = readFileSync(done.rejectsFile!, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { _id: string })._id)
    expect(rejects.sort()).toEqual([...PLANTED.rejected].sort())
  })

  test('in place, point in time gone (new PIT, re-read + skip what is done): same result', async () => {
    const source = await makeSource()
    const checkpointFile = join(dir, 'rescan.json')
    const saved = join(dir, 'rescan-after-2.json')
    await reindex(base({ source, inPlace: true, sort: 'published', checkpointFile, maxBatches: 3, onProgress: (p) => p.batches === 2 && copyFileSync(checkpointFile, saved) }))
    copyFileSync(saved, checkpointFile)
    const cp = JSON.parse(readFileSync(checkpointFile, 'utf8')) as ReindexCheckpoint
    await client.closePointInTime({ id: cp.pitId! })
    const done = await reindex(base({ source, inPlace: true, sort: 'published', checkpointFile }))
    expect(done).toMatchObject({ status: 'done', resumed: 'rescan' })
    expect(done.counts).toMatchObject({ docs: CORPUS.size, rejected: 3 })
    // Re-reading starts at the checkpoint's sort value: its document is read again and skipped.
    expect(done.counts.skipped).toBe(1)
    const copy = name('copy')
    const all = await readAll(source)
    await reindex(base({ source, dest: copy, sort: 'published' }))
    expect(decisions(all)).toEqual(decisions(await readAll(copy)))
  })

  test('no sort, point in time gone: the re-read skips every decided document, nothing is decided twice', async () => {
    const source = await makeSource()
    const dest = name('dest')
    const checkpointFile = join(dir, 'rescan-nosort.json')
    const first = await reindex(base({ source, dest, checkpointFile, maxBatches: 2 }))
    const cp = JSON.parse(readFileSync(checkpointFile, 'utf8')) as ReindexCheckpoint
    await client.closePointInTime({ id: cp.pitId! })
    const done = await reindex(base({ source, dest, checkpointFile }))
    expect(done).toMatchObject({ status: 'done', resumed: 'rescan' })
    expect(done.counts.skipped).toBe(first.counts.docs)
    expect(done.counts.docs).toBe(CORPUS.size)
    const all = await readAll(dest)
    for (const [id, d] of all) expect([id, d.version]).toEqual([id, PLANTED.rejected.includes(id) ? 1 : 2])
    const got = decisions(all)
    for (const [id, rep] of PLANTED.clusterOf) expect([id, got.get(id)?.cluster_id]).toEqual([id, got.get(rep)?.cluster_id])
  })
})

describe('resume with a window', () => {
  test('the trailing window is rebuilt on resume, exactly and after a re-read: same result as one run', async () => {
    const source = await makeSource()
    const once = name('once')
    const dest = name('dest')
    const checkpointFile = join(dir, 'window.json')
    const opts = { source, sort: 'published', windowMs: 7 * DAY }
    await reindex(base({ ...opts, dest: once }))
    expect(await reindex(base({ ...opts, dest, checkpointFile, maxBatches: 2 }))).toMatchObject({ status: 'stopped' })
    expect(await reindex(base({ ...opts, dest, checkpointFile, maxBatches: 2 }))).toMatchObject({ status: 'stopped', resumed: 'exact' })
    const cp = JSON.parse(readFileSync(checkpointFile, 'utf8')) as ReindexCheckpoint
    await client.closePointInTime({ id: cp.pitId! })
    expect(await reindex(base({ ...opts, dest, checkpointFile }))).toMatchObject({ status: 'done', resumed: 'rescan', counts: { docs: CORPUS.size } })
    const got = decisions(await readAll(dest))
    expect(got).toEqual(decisions(await readAll(once)))
    // The fixture articles' near-copies two days later still found their originals across the resumes.
    for (const x of ['A', 'B', 'C', 'D']) expect(got.get(`m-mid-${x}`)?.cluster_id).toBe(`z-early-${x}`)
  })
})

describe('simdup reindex (CLI)', () => {
  test('usage errors exit 2 without touching Elasticsearch', async () => {
    const f = fakeIO(dir)
    expect(await run(['reindex', '--es', es.url, '--source', 'a', '--dest', 'b', '--in-place'], f.io)).toBe(2)
    expect(f.stderr()).toMatch(/exactly one of --dest INDEX or --in-place/)
    const g = fakeIO(dir)
    expect(await run(['reindex', '--es', es.url, '--source', 'a', '--dest', 'b', '--fields', 'title'], g.io)).toBe(2)
    expect(g.stderr()).toMatch(/title,content\[,url\]/)
  })

  test('draws a progress bar on a TTY and prints a summary; a second run says it is already done', async () => {
    const source = await makeSource(1)
    const dest = name('dest')
    const args = ['reindex', '--es', es.url, '--source', source, '--dest', dest, '--fields', 'meta.title,body,link', '--sort', 'published', '--batch', '50', '--checkpoint', 'cli.json']
    const f = fakeIO(dir, '', true)
    expect(await run(args, f.io)).toBe(0)
    const text = f.stderr()
    // The bar is redrawn in place: carriage return, erase line (ESC [2K), then the bar.
    expect(text).toContain('\r\u001b[2K[')
    // Counts are en-US grouped ("1,234 docs/s" on a fast run) and the ETA is formatSeconds' form.
    expect(text).toMatch(/\[#*-*\] \d+\.\d% reindexed \d{1,3}(,\d{3})* docs, \d{1,3}(,\d{3})* docs\/s, ETA (\d+s|\d+m\d{2}s|\d+h\d{2}m)/)
    expect(text).toMatch(new RegExp(`docs ${CORPUS.size} +unique \\d+ +duplicates \\d+ \\(url 11, exact \\d+(, (simhash|short-text|minhash) \\d+)+\\) +clusters \\d+ +rejected 3`))
    expect(text).toMatch(/largest clusters: z-early-A \(3\), z-early-B \(3\)/)
    expect(text).toMatch(new RegExp(`rejects: ${join(dir, 'cli.rejects.jsonl').replace(/[.\\/]/g, '\\$&')}`))
    expect(text).toMatch(/docs\/s/)
    const g = fakeIO(dir)
    expect(await run(args, g.io)).toBe(0)
    expect(g.stderr()).toMatch(/already done/)
    // One message for one fact (issue 29.6): the summary's, not also the library's log line.
    expect(g.stderr().match(/finished/g)).toHaveLength(1)
  })

  test('SIGKILL mid-run, then the same command again: same result as an uninterrupted run', async () => {
    const source = await makeSource()
    const dest = name('dest')
    const checkpoint = join(dir, 'sigkill.json')
    const script = fileURLToPath(new URL('../../scripts/reindex', import.meta.url))
    const args = ['--es', es.url, '--source', source, '--dest', dest, '--fields', 'meta.title,body,link', '--sort', 'published', '--batch', '10', '--checkpoint', checkpoint, '--quiet']
    const child = spawn(script, args, { stdio: 'ignore' })
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    // Kill as soon as a few batches are checkpointed: wherever the kill lands (mid-copy,
    // mid-decide, between writes and checkpoint), the resumed result must be the same.
    for (let waited = 0; ; waited += 50) {
      const cp = existsSync(checkpoint) ? (JSON.parse(readFileSync(checkpoint, 'utf8')) as ReindexCheckpoint) : null
      if (cp !== null && cp.counts.docs >= 30) break
      if (waited > 60_000) throw new Error('the reindex child made no progress in 60 s')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    child.kill('SIGKILL')
    await exited
    const killedAt = (JSON.parse(readFileSync(checkpoint, 'utf8')) as ReindexCheckpoint).counts.docs
    expect(killedAt).toBeLessThan(CORPUS.size)
    const f = fakeIO(dir)
    expect(await run(['reindex', ...args], f.io)).toBe(0)
    const cp = JSON.parse(readFileSync(checkpoint, 'utf8')) as ReindexCheckpoint
    expect(cp).toMatchObject({ done: true, counts: { docs: CORPUS.size, rejected: 3 } })
    const all = await readAll(dest)
    expect(all.size).toBe(CORPUS.size)
    const ref = name('ref')
    await reindex(base({ source, dest: ref, sort: 'published', batchSize: 10 }))
    expect(decisions(all)).toEqual(decisions(await readAll(ref)))
  }, 120_000)
})

describe('simdup reindex takes the analysis flags of simdup index (issue 24)', () => {
  // A site whose chrome (a plain-div blurb and footer, larger than each page's one sentence) no
  // structural rule sees: the template layer is what keeps its pages apart; and an article with
  // its last sentence cut, found by the MinHash route only.
  const blurb = '本站是一个面向社区居民的公益资讯平台，由志愿者团队负责日常维护与内容审核，所有文章均可免费转载但须注明出处。' + // "a non-profit community news site run by volunteers"
    '我们欢迎读者通过电子邮件投稿，也欢迎对本站的栏目设置与服务质量提出宝贵意见，编辑部会在三个工作日内回复。' // "submissions by e-mail welcome"
  const footer = '本站内容仅供参考，转载请保留原文链接与作者信息，违者必究。' // "for reference only; keep the link when reposting"
  const sentencesOf = (a: string) => a.split(/(?<=。)/).filter((s) => s.length > 0)
  const SENTENCES = [ARTICLE_A, ARTICLE_B, ARTICLE_C].flatMap(sentencesOf)
  const page = (text: string) => `<html><head><title>资讯</title></head><body><div class="intro"><p>${blurb}</p></div><div class="post"><p>${text}</p></div><div class="end"><p>${footer}</p></div></body></html>`
  const docs: [string, { body: string; link: string; published: number }][] = [
    ...SENTENCES.slice(0, 20).map((s, i): [string, { body: string; link: string; published: number }] => [`p${String(i).padStart(2, '0')}`, { body: page(s), link: `https://news.example/a/${i}.html`, published: T0 + i * MIN }]),
    ['d-full', { body: ARTICLE_D, link: 'https://other.example/d', published: T0 + 30 * MIN }],
    // Its last sentence cut: both stay above the short route's 150 characters (a copy cut below
    // it is decided on another route than its original, the short-text boundary of docs/DESIGN.md).
    ['d-cut', { body: sentencesOf(ARTICLE_D).slice(0, -1).join(''), link: 'https://third.example/d', published: T0 + 31 * MIN }],
  ]
  const fields = parseFieldList(',body,link')

  async function source(): Promise<string> {
    const index = name('src')
    await client.indices.create({ index, settings: { number_of_shards: 1, number_of_replicas: 0, ...testIndexSettings() }, mappings: { properties: { body: { type: 'text' }, link: { type: 'keyword' }, published: { type: 'date' } } } })
    const operations: object[] = []
    for (const [id, doc] of docs) operations.push({ index: { _index: index, _id: id } }, doc)
    expect((await client.bulk({ operations, refresh: true })).errors).toBe(false)
    return index
  }

  /** The in-memory engine with the same options over the same order: what reindex must decide. */
  async function expected(options: { templates?: boolean; minhash?: boolean }): Promise<Map<string, string | null>> {
    const dedup = createDeduplicator({ store: await openMemoryStore(), analyzer, ...options })
    const decided = await dedup.process(docs.map(([id, doc]) => mapHit(id, doc, fields, '_id').item))
    return new Map(decided.map((d) => [d.id!, d.duplicateOf]))
  }

  test('--no-templates and --no-minhash decide as index does with them', async () => {
    const src = await source()
    const runWith = async (flags: string[]): Promise<Map<string, string | null>> => {
      const dest = name('dest')
      const f = fakeIO(dir)
      expect(await run(['reindex', '--es', es.url, '--source', src, '--dest', dest, '--fields', ',body,link', '--sort', 'published', '--checkpoint', `flags-${dest}.json`, '--quiet', ...flags], f.io), f.stderr()).toBe(0)
      return new Map([...decisions(await readAll(dest))].map(([id, d]) => [id, d?.duplicate_of ?? null]))
    }
    const byDefault = await expected({})
    const noTemplates = await expected({ templates: false })
    const noMinhash = await expected({ minhash: false })
    // The corpus is one where each flag changes decisions (else the test would prove nothing).
    expect(noTemplates).not.toEqual(byDefault)
    expect(noMinhash).not.toEqual(byDefault)
    expect(byDefault.get('d-cut')).toBe('d-full')
    expect(noMinhash.get('d-cut')).toBeNull()
    expect(await runWith([])).toEqual(byDefault)
    expect(await runWith(['--no-templates'])).toEqual(noTemplates)
    expect(await runWith(['--no-minhash'])).toEqual(noMinhash)
  }, 60_000)
})
