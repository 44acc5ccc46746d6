import { describe, expect, test, beforeAll } from 'vitest'
import { Converter } from 'opencc-js'
import { createDeduplicator, openMemoryStore, createAnalyzer, hamming, type Analyzer, type Decision, type FingerprintStore } from '../../../src/index.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../../fixtures/articles.js'
import { TIED_SEQ_SEQUENTIAL, tiedSeqCopies } from '../../helpers/tied-seq.js'
import { bruteForceDuplicates } from '../../helpers/brute-force.js'

let analyzer: Analyzer
beforeAll(() => {
  analyzer = createAnalyzer()
})

async function dedup(options: Record<string, unknown> = {}) {
  const store: FingerprintStore = await openMemoryStore()
  return createDeduplicator({ store, analyzer, ...options })
}

const toTraditional = Converter({ from: 'cn', to: 'tw' })
const toFullWidth = (s: string) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).replace(/ /g, '\u3000')

describe('Deduplicator layers', () => {
  test('distinct articles are all unique, each its own cluster', async () => {
    const d = await dedup()
    const out = await d.add([
      { id: 'a', content: ARTICLE_A },
      { id: 'b', content: ARTICLE_B },
      { id: 'c', content: ARTICLE_C },
      { id: 'd', content: ARTICLE_D },
    ])
    expect(out.map((x) => [x.status, x.clusterId])).toEqual([
      ['unique', 'a'],
      ['unique', 'b'],
      ['unique', 'c'],
      ['unique', 'd'],
    ])
    expect(out.every((x) => /^[0-9a-f]{16}$/.test(x.simhash!))).toBe(true)
  })

  test('url layer: same canonical URL (tracking params, case, port, slash) and agreeing content ⇒ duplicate', async () => {
    const d = await dedup()
    await d.add([{ id: 'a', content: ARTICLE_A, url: 'https://News.example.com/2024/lib?id=7' }])
    const [x] = await d.add([{ id: 'b', content: `${ARTICLE_A}\n（本文转载请注明出处）`, url: 'https://news.example.com:443/2024/lib/?utm_source=wx&id=7' }])
    expect(x).toMatchObject({ status: 'duplicate', layer: 'url', duplicateOf: 'a', clusterId: 'a' })
    expect(x!.supersedes).toBeUndefined()
  })

  // Issue 15, failure mode 2: the url layer called any later document of one URL a duplicate.
  test('url layer: same URL, other content ⇒ a new version (supersedes), not a duplicate', async () => {
    const d = await dedup()
    await d.add([{ id: 'v1', content: ARTICLE_A, url: 'https://news.example.com/lib' }])
    const [v2] = await d.add([{ id: 'v2', content: ARTICLE_B, url: 'https://news.example.com/lib?utm_source=wx' }])
    expect(v2).toMatchObject({ status: 'unique', duplicateOf: null, clusterId: 'v2', supersedes: 'v1' })
    // Within one batch too, and a third version supersedes the newest one.
    const [, , v3] = await d.add([
      { id: 'c1', content: ARTICLE_C, url: 'https://other.example.com/x' },
      { id: 'c2', content: ARTICLE_D, url: 'https://other.example.com/x' },
      { id: 'c3', content: ARTICLE_B, url: 'https://other.example.com/x' },
    ])
    expect(v3).toMatchObject({ status: 'duplicate', layer: 'exact', duplicateOf: 'v2', supersedes: 'c2' })
  })

  test('url layer: re-indexing the same versions gives the same decisions (a version never supersedes a later one)', async () => {
    const store = await openMemoryStore()
    const runs: (string | undefined)[][] = []
    for (let run = 0; run < 2; run++) {
      const d = createDeduplicator({ store, analyzer }) // a re-run: a new process on the same store
      const out: (string | undefined)[] = []
      // Three versions of one page, crawled in three batches.
      for (const [id, content] of [['p1', ARTICLE_A], ['p2', ARTICLE_B], ['p3', ARTICLE_C]] as const) {
        const [x] = await d.add([{ id, content, url: 'https://news.example.com/page' }])
        out.push(`${x!.status} ${x!.supersedes ?? '-'}`)
      }
      runs.push(out)
    }
    expect(runs[0]).toEqual(['unique -', 'unique p1', 'unique p2'])
    expect(runs[1]).toEqual(runs[0])
  })

  test('url layer: fragment-keyed sections of one page are separate documents unless their contents agree', async () => {
    const d = await dedup()
    const out = await d.add([
      { id: 's5', content: ARTICLE_A, url: 'https://site.example/ch06.html#s5' },
      { id: 's6', content: ARTICLE_B, url: 'https://site.example/ch06.html#s6' },
      { id: 's7', content: ARTICLE_C, url: 'https://site.example/ch06.html#s7' },
      { id: 's5b', content: ARTICLE_A, url: 'https://site.example/ch06.html#s6-copy' },
    ])
    expect(out.map((x) => [x.status, x.duplicateOf, x.supersedes])).toEqual([
      ['unique', null, undefined],
      ['unique', null, undefined],
      ['unique', null, undefined],
      ['duplicate', 's5', undefined],
    ])
  })

  test('exact layer: full-width / Traditional / extra whitespace copies normalise to the same content', async () => {
    const d = await dedup()
    await d.add([{ id: 'a', content: `${ARTICLE_D} ABC 2024` }])
    const out = await d.add([
      { id: 'fw', content: toFullWidth(`${ARTICLE_D} ABC 2024`) },
      { id: 'ws', content: `  ${ARTICLE_D}\n\n  ABC   2024 ` },
    ])
    for (const x of out) expect(x).toMatchObject({ status: 'duplicate', duplicateOf: 'a', layer: 'exact', distance: 0 })
  })

  test('Traditional copy is a duplicate of the Simplified original', async () => {
    const d = await dedup()
    await d.add([{ id: 'a', content: ARTICLE_B }])
    const [x] = await d.add([{ id: 't', content: toTraditional(ARTICLE_B) }])
    expect(x).toMatchObject({ status: 'duplicate', duplicateOf: 'a' })
    expect(['exact', 'simhash']).toContain(x!.layer)
  })

  test('an inserted ad line: a near-duplicate by SimHash or, past k, by the MinHash route', async () => {
    const d = await dedup()
    await d.add([{ id: 'a', content: ARTICLE_A }])
    const [x] = await d.add([{ id: 'ad', content: `${ARTICLE_A}关注公众号，领取福利。` }]) // "follow our account for gifts"
    expect(x).toMatchObject({ status: 'duplicate', duplicateOf: 'a', layer: 'simhash' })
    if (x!.distance! > 3) expect(x!.rule).toBe('minhash')
    else expect(x!.rule).toBe('simhash')
  })

  test('a copy with its last sixth cut off is caught by the MinHash route; off without it', async () => {
    const cut = ARTICLE_B.slice(0, Math.floor((ARTICLE_B.length * 5) / 6))
    const on = await dedup()
    await on.add([{ id: 'b', content: ARTICLE_B }])
    const [x] = await on.add([{ id: 'cut', content: cut }])
    expect(x).toMatchObject({ status: 'duplicate', duplicateOf: 'b', layer: 'simhash' })
    const off = await dedup({ minhash: false })
    await off.add([{ id: 'b', content: ARTICLE_B }])
    const [y] = await off.add([{ id: 'cut', content: cut }])
    if (y!.status === 'duplicate') expect(y!.distance).toBeLessThanOrEqual(3)
    else expect(x!.rule).toBe('minhash')
  })

  test('HTML chrome around a copy is dropped', async () => {
    const d = await dedup()
    await d.add([{ id: 'a', content: ARTICLE_C }])
    const html = `<html><head><title>农业新闻</title><script>var x = 1;</script><style>p{color:red}</style></head><body>
      <nav><a href="/">首页</a> <a href="/news">新闻</a> <a href="/about">关于我们</a></nav>
      <article><p>${ARTICLE_C}</p></article>
      <footer>版权所有 © 2024 某某网 京ICP备12345678号</footer></body></html>`
    const [x] = await d.add([{ id: 'h', content: html }])
    expect(x).toMatchObject({ status: 'duplicate', duplicateOf: 'a' })
  })

  test('title layer is off by default, on when asked; generic titles never match', async () => {
    const off = await dedup()
    const o1 = await off.add([{ id: 'a', content: ARTICLE_A, title: '图书馆夜间开放' }, { id: 'b', content: ARTICLE_B, title: '图书馆夜间开放' }])
    expect(o1[1]!.status).toBe('unique')
    const on = await dedup({ layers: { title: true } })
    const o2 = await on.add([
      { id: 'a', content: ARTICLE_A, title: '图书馆夜间开放' }, // "library opens at night"
      { id: 'b', content: ARTICLE_B, title: '圖書館夜間開放' }, // same, Traditional
      { id: 'c', content: ARTICLE_C, title: '首页' }, // "home page": generic
      { id: 'd', content: ARTICLE_D, title: '首页' },
    ])
    expect(o2.map((x) => [x.status, x.layer])).toEqual([
      ['unique', null],
      ['duplicate', 'title'],
      ['unique', null],
      ['unique', null],
    ])
  })
})

describe('a text inside a much longer one', () => {
  test('SimHash within k but 5-gram sets of very different sizes: not a duplicate (J ≤ min/max < minResemblance)', async () => {
    // The page = the article + a long table of symbols and codes that carries no term weight
    // (punctuation and single Latin letters): SimHash sees the article alone, 5-grams see a text
    // three times longer. By the resemblance definition the article is at most a third of it.
    let noise = ''
    let seed = 7
    const marks = '，。、；：？！…—·《》「」『』（）【】'
    for (let i = 0; i < 2 * ARTICLE_A.length; i++) noise += marks[(seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % marks.length]
    const page = `${ARTICLE_A}\n${noise}`
    const a = analyzer.analyze(ARTICLE_A)
    const p = analyzer.analyze(page)
    expect(hamming(a.fingerprint, p.fingerprint)).toBeLessThanOrEqual(3)
    const d = await dedup()
    const out = await d.add([{ id: 'article', content: ARTICLE_A }, { id: 'page', content: page }])
    expect(out.map((x) => x.status)).toEqual(['unique', 'unique'])
  })
})

describe('Deduplicator clusters and batches', () => {
  test('within a batch each document is checked against the earlier ones', async () => {
    const d = await dedup()
    const out = await d.add([
      { id: 'a', content: ARTICLE_A },
      { id: 'b', content: ARTICLE_B },
      { id: 'a2', content: `${ARTICLE_A}（完）` }, // "(end)"
    ])
    expect(out[2]).toMatchObject({ status: 'duplicate', duplicateOf: 'a', clusterId: 'a' })
  })

  test('prepareBatch prepares like prepare, in order, and lets other callbacks run between slices', async () => {
    const d = await dedup()
    const items = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D, '', ARTICLE_A].map((content, i) => ({ value: { id: `d${i}`, content }, line: i + 1 }))
    let ranDuring = false
    const batch = d.prepareBatch(items, 2)
    setImmediate(() => (ranDuring = true))
    const prepared = await batch
    // A callback queued after the first slice ran before the last one was prepared.
    expect(ranDuring).toBe(true)
    expect(prepared).toEqual(items.map((item) => d.prepare(item)))
  })

  test('a duplicate joins the cluster of its match: chains keep the first-seen id', async () => {
    const d = await dedup()
    await d.add([{ id: 'first', content: ARTICLE_C }])
    await d.add([{ id: 'second', content: `${ARTICLE_C}本报记者报道。` }]) // "reported by our correspondent"
    const [third] = await d.add([{ id: 'third', content: `${ARTICLE_C}本报记者报道。` }])
    expect(third).toMatchObject({ status: 'duplicate', clusterId: 'first' })
  })

  test('re-indexing an id replaces it: never a duplicate of itself', async () => {
    const d = await dedup()
    await d.add([{ id: 'a', content: ARTICLE_A }])
    const [again] = await d.add([{ id: 'a', content: ARTICLE_A }])
    expect(again).toMatchObject({ status: 'unique', clusterId: 'a' })
    expect(await d.options.store.count()).toBe(1)
    const [changed] = await d.add([{ id: 'a', content: ARTICLE_B }])
    expect(changed!.status).toBe('unique')
    const [copyOfOld] = await d.add([{ id: 'x', content: ARTICLE_A }])
    expect(copyOfOld!.status).toBe('unique') // the old content of `a` is gone
  })

  test('a later record that shares the document\'s seq (concurrent writers) takes no band slot: a re-run decides as one sequential run', async () => {
    // a (seq 1), r and x (seq 2, so r before x), one record per band term: re-indexing r (it keeps
    // seq 2) must find a, as one sequential run and reconcile do; x comes after r and is no match.
    const store = await openMemoryStore({ maxPerBand: 1, maxPerCluster: 0 })
    expect((await store.put(await tiedSeqCopies(analyzer))).written).toBe(3)
    const d = createDeduplicator({ store, analyzer })
    const [r] = await d.add([{ id: 'r', content: ARTICLE_A }])
    // Before the fix x filled r's one slot per band term and r came out unique.
    expect(r).toMatchObject({ status: 'duplicate', duplicateOf: TIED_SEQ_SEQUENTIAL.r[0], clusterId: TIED_SEQ_SEQUENTIAL.r[1] })
    expect((await store.get(['r'])).get('r')!.seq).toBe(2)
  })

  test('window: documents older than the window are not matched', async () => {
    let now = 1_000_000_000_000
    const d = await dedup({ windowMs: 60_000, now: () => now })
    await d.add([{ id: 'a', content: ARTICLE_A }])
    now += 30_000
    expect((await d.add([{ id: 'b', content: ARTICLE_A }]))[0]!.status).toBe('duplicate')
    now += 120_000
    expect((await d.add([{ id: 'c', content: ARTICLE_A }]))[0]!.status).toBe('unique')
  })
})

describe('short texts', () => {
  test('a changed version number is not a duplicate; punctuation/width changes are', async () => {
    const d = await dedup()
    const out = await d.add([
      { id: 'v12', content: '版本 1.2 已发布' }, // "version 1.2 released"
      { id: 'v13', content: '版本 1.3 已发布' }, // "version 1.3 released"
      { id: 'v12b', content: '版本１.２已发布！' }, // same as v12, full-width digits and "!"
    ])
    expect(out[1]!.status).toBe('unique')
    expect(out[2]).toMatchObject({ status: 'duplicate', duplicateOf: 'v12' })
  })
  test('short texts are flagged and decided by the short-text rule', async () => {
    const d = await dedup()
    const out = await d.add([
      { id: 's1', content: '今天北京天气晴朗，气温二十度。' }, // "Beijing sunny today, 20 degrees."
      { id: 's2', content: '今天北京天气晴朗，气温二十度啊' },
    ])
    expect(out[1]).toMatchObject({ status: 'duplicate', duplicateOf: 's1' })
    expect(['exact', 'simhash']).toContain(out[1]!.layer)
    if (out[1]!.layer === 'simhash') expect(out[1]!.rule).toBe('short-text')
  })
  test('an English document still gets a meaningful fingerprint', async () => {
    const en = 'Elasticsearch is a distributed search and analytics engine built on Apache Lucene. ' +
      'It stores documents in indices, shards them across nodes, and answers full-text queries with relevance scoring. '
    const d = await dedup()
    const out = await d.add([
      { id: 'en', content: en.repeat(2) },
      { id: 'en2', content: en.repeat(2) + 'Subscribe to our newsletter.' },
      { id: 'zh', content: ARTICLE_A },
    ])
    expect(out[1]).toMatchObject({ status: 'duplicate', duplicateOf: 'en' })
    expect(out[2]!.status).toBe('unique')
  })
})

describe('rejections', () => {
  test('bad documents get a rejected decision naming the field; the batch goes on', async () => {
    const d = await dedup()
    const out: Decision[] = await d.process([
      { value: { id: 'ok', content: ARTICLE_A }, line: 1 },
      { value: { content: 'x' }, line: 2 },
      { value: { id: 5.5, content: 'x' }, line: 3 },
      { value: { id: 'e', content: '   ' }, line: 4 },
      { value: { id: 'n', content: 42 }, line: 5 },
      { value: { id: 'bin', content: 'a\u0000b' }, line: 6 },
      { value: { id: 'emoji', content: '😀😀🎉' }, line: 7 },
      { value: [1, 2], line: 8 },
      { rejected: 'invalid JSON: Unexpected token', line: 9 },
      { value: { id: 'ok2', content: ARTICLE_B }, line: 10 },
    ])
    expect(out.map((x) => x.status)).toEqual(['unique', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'rejected', 'unique'])
    expect(out[1]!.reason).toMatch(/^line 2: .*`id`/)
    expect(out[2]!.reason).toMatch(/`id`.*5\.5/)
    expect(out[3]!.reason).toMatch(/`content` is empty/)
    expect(out[4]).toMatchObject({ id: 'n', reason: expect.stringMatching(/`content`.*42/) })
    expect(out[5]!.reason).toMatch(/NUL/)
    expect(out[6]!.reason).toMatch(/empty after normalisation/)
    expect(out[8]).toMatchObject({ id: null, line: 9, reason: 'line 9: invalid JSON: Unexpected token' })
    expect(d.summary()).toMatchObject({ docs: 10, unique: 2, rejected: 8 })
  })
  test('content over maxContentLength is rejected with the limit named', async () => {
    const d = await dedup({ maxContentLength: 100 })
    const [x] = await d.add([{ id: 'big', content: '字'.repeat(101) }])
    expect(x).toMatchObject({ status: 'rejected', reason: expect.stringMatching(/101 characters, more than the limit of 100/) })
  })
})

describe('options', () => {
  test('maxDistance is validated against the block scheme', async () => {
    const store = await openMemoryStore()
    expect(() => createDeduplicator({ store, analyzer, maxDistance: 5 })).toThrow(/`maxDistance` to be an integer from 0 to 3, got `5`/)
    expect(() => createDeduplicator({ store, analyzer, maxDistance: 4, blockScheme: { blocks: 6, minMatch: 2 } })).not.toThrow()
    expect(() => createDeduplicator({ store, analyzer, layers: { url: false, exact: false, simhash: false } })).toThrow(/at least one of/)
    expect(() => createDeduplicator({ store, analyzer, windowMs: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }))
  })
  test('the caller\'s options object is not modified', async () => {
    const store = await openMemoryStore()
    const options = { store, analyzer, layers: { title: true } }
    createDeduplicator(options)
    expect(options).toEqual({ store, analyzer, layers: { title: true } })
  })
})

describe('engine vs brute force', () => {
  test('every decision equals a linear scan over all earlier documents', async () => {
    // Documents built from shuffled sentences of the four articles: many near and far pairs.
    const sentences = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D].flatMap((a) => a.split('。').filter(Boolean))
    let seed = 42
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
    const docs = Array.from({ length: 120 }, (_, i) => {
      const n = 6 + Math.floor(rand() * 6)
      const start = Math.floor(rand() * (sentences.length - n))
      const picked = sentences.slice(start, start + n)
      if (rand() < 0.5) picked.splice(Math.floor(rand() * picked.length), 1) // drop one
      return { id: `d${i}`, content: picked.join('。') + '。' }
    })
    const d = await dedup({ layers: { url: false } })
    const out = await d.add(docs.slice(0, 60))
    out.push(...(await d.add(docs.slice(60))))
    // The oracle: the documented rules, applied to every earlier document (no index, no blocks).
    const expected = bruteForceDuplicates(docs.map((x) => analyzer.analyze(x.content)))
    out.forEach((decision, i) => {
      expect(decision.status, `doc ${i}`).toBe(expected[i] ? 'duplicate' : 'unique')
    })
  })
})

// Issue 15, failure mode 4: short quotes with an attribution line (real entries of Debian's fortunes-zh).
describe('short quotes with an attribution line', () => {
  // Two different lines of one poem, same attribution ("the dog barks at the wicket gate…" / "at dusk the blue hills are far…").
  const POEM_A = '柴门闻犬吠，风雪夜归人。\n    -- 刘长卿《逢雪宿芙蓉山主人》'
  const POEM_B = '日暮苍山远，天寒白屋贫。\n    -- 刘长卿《逢雪宿芙蓉山主人》'
  const POEM_C = '北风卷地白草折，胡天八月即飞雪。\n    -- 岑参《白雪歌送武判官归京》'
  const POEM_D = '山回路转不见君，雪上空留马行处。\n    -- 岑参《白雪歌送武判官归京》'

  test('different quotes of one source are not duplicates', async () => {
    const d = await dedup()
    const out = await d.add([POEM_A, POEM_B, POEM_C, POEM_D].map((content, i) => ({ id: `q${i}`, content })))
    expect(out.map((x) => x.status)).toEqual(['unique', 'unique', 'unique', 'unique'])
  })

  test('without attribution stripping, too few shingles give no MinHash match either', async () => {
    const d = await dedup({ analyzer: createAnalyzer({ stripAttribution: false }) })
    const out = await d.add([POEM_A, POEM_B, POEM_C, POEM_D].map((content, i) => ({ id: `q${i}`, content })))
    expect(out.map((x) => x.status)).toEqual(['unique', 'unique', 'unique', 'unique'])
  })

  test('the same quote with its attribution written another way is a duplicate', async () => {
    const d = await dedup()
    const out = await d.add([
      { id: 'a', content: '求人须求大丈夫，济人须济急时无。\n    --《增广贤文》' }, // the same saying credited to two collections
      { id: 'b', content: '求人须求大丈夫，济人须济急时无。\n    --《谚语》' },
      { id: 'c', content: '子曰：“古者言之不出，耻躬之不逮也。”\n    --《论语》里仁' },
      { id: 'd', content: '子曰：“古者言之不出，耻躬之不逮也。” ——《论语·里仁》' },
      { id: 'e', content: '子曰：“古者言之不出，耻躬之不逮也。”\n出自孔子《论语》' },
    ])
    expect(out.map((x) => [x.id, x.duplicateOf])).toEqual([['a', null], ['b', 'a'], ['c', null], ['d', 'c'], ['e', 'c']])
  })
})
