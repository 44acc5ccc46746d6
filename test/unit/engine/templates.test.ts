import { describe, expect, it } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, type InputDocument } from '../../../src/index.js'
import { HostTemplates, TEMPLATE_FIRST_EPOCH, hostOf, textLines } from '../../../src/engine/templates.js'
import { htmlSiteKey } from '../../../src/normalize/html.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../../fixtures/articles.js'
import { decided, runInBatches } from '../../helpers/rerun.js'
import { mulberry32 } from '../../helpers/random.js'

const analyzer = createAnalyzer()
/** The decision of the i-th of a row of different documents. */
const unique = (i: number) => ({ clusterId: `d${i}`, duplicate: false })
/** 32 different sentences of the fixture articles (each ~40 characters). */
const SENTENCES = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D].flatMap((a) => a.split(/(?<=。)/)).filter((s) => s.length > 0)

// A site whose chrome no structural rule sees: a plain <div> blurb and a plain footer paragraph,
// not link-dense, no chrome class, larger than each page's own text (one sentence).
const BLURB_A =
  '本站是一个面向社区居民的公益资讯平台，由志愿者团队负责日常维护与内容审核，所有文章均可免费转载但须注明出处。' + // "a non-profit community news site run by volunteers; free to repost with attribution"
  '我们欢迎读者通过电子邮件投稿，也欢迎对本站的栏目设置与服务质量提出宝贵意见，编辑部会在三个工作日内回复。' + // "submissions by e-mail welcome; the editors reply within three working days"
  '本站不接受任何形式的商业广告投放，也从未委托任何机构或个人以本站名义开展收费活动，请读者注意甄别。' // "no advertising; nobody collects fees in our name"
const FOOTER_A = '本站内容仅供参考，转载请保留原文链接与作者信息，违者必究。' // "for reference only; keep the link and author when reposting"
const BLURB_B =
  '农业科技服务中心网站提供种植技术、政策解读与市场行情信息，服务全省各地的种植大户、合作社和基层农技人员。' + // "an agricultural extension site: techniques, policy, markets"
  '如需现场技术指导，请在工作日拨打服务热线预约，我们将安排就近的农技专家上门服务，并提供全程跟踪回访。' // "call the hotline for an expert visit"

function page(blurb: string, footer: string, text: string, css: string): string {
  return `<!DOCTYPE html><html><head><title>资讯</title><link rel="stylesheet" href="../${css}"></head>` +
    `<body><div class="intro"><p>${blurb}</p></div><div class="post"><p>${text}</p></div><div class="end"><p>${footer}</p></div></body></html>`
}

describe('cross-document templates (issue 15: real chrome that extraction does not see)', () => {
  it('pages whose shared chrome outweighs their text stop being duplicates once the chrome is learned; a real copy is still found', async () => {
    const docs: InputDocument[] = SENTENCES.slice(0, 24).map((s, i) => ({ id: `p${i}`, content: page(BLURB_A, FOOTER_A, s, 'site-a.css'), url: `https://news.example/a/${i}.html` }))
    // The same article as p15 re-published later on the site (another URL): a true duplicate.
    docs.push({ id: 'copy-of-p15', content: page(BLURB_A, FOOTER_A, SENTENCES[15]!, 'site-a.css'), url: 'https://news.example/reprint/15.html' })
    const store = await openMemoryStore()
    const decisions = await createDeduplicator({ store, analyzer }).add(docs)
    await store.close()
    const flagged = decisions.filter((d) => d.status === 'duplicate').map((d) => d.id)
    // The first pages teach the learner (their chrome makes them look alike until then); after
    // the first epoch no page is a duplicate through the chrome.
    const afterEpoch = decisions.slice(TEMPLATE_FIRST_EPOCH, 24)
    expect(afterEpoch.filter((d) => d.status === 'duplicate').map((d) => `${d.id}→${d.duplicateOf}`)).toEqual([])
    expect(decisions.at(-1)).toMatchObject({ id: 'copy-of-p15', status: 'duplicate', duplicateOf: 'p15' })
    // Without the layer, every page after the first is a "duplicate" through the chrome.
    const off = await openMemoryStore()
    const without = await createDeduplicator({ store: off, analyzer, templates: false }).add(docs)
    await off.close()
    expect(without.slice(1, 24).filter((d) => d.status === 'unique').map((d) => d.id)).toEqual([])
    expect(flagged.length).toBeLessThan(TEMPLATE_FIRST_EPOCH + 1)
  })

  it('learns from HTML pages sent without a URL, by the stylesheets in their head', async () => {
    const docs: InputDocument[] = SENTENCES.slice(0, 20).map((s, i) => ({ id: `p${i}`, content: page(BLURB_B, FOOTER_A, s, i % 2 === 0 ? 'agri.css' : '../agri.css') }))
    const store = await openMemoryStore()
    const decisions = await createDeduplicator({ store, analyzer }).add(docs)
    await store.close()
    expect(decisions.slice(TEMPLATE_FIRST_EPOCH).filter((d) => d.status === 'duplicate').map((d) => d.id)).toEqual([])
  })

  it('a text reposted on one host stays a duplicate: exact copies do not teach, and a text left with too little is kept whole', async () => {
    const article = ARTICLE_C
    const docs: InputDocument[] = [{ id: 'orig', content: article, url: 'https://repost.example/0' }]
    for (let i = 1; i <= 12; i++) docs.push({ id: `r${i}`, content: article, url: `https://repost.example/${i}` })
    docs.push({ id: 'edited', content: article + '\n点击关注，获取更多精彩资讯。', url: 'https://repost.example/13' }) // + "follow us for more news"
    const store = await openMemoryStore()
    const decisions = await createDeduplicator({ store, analyzer }).add(docs)
    await store.close()
    expect(decisions.slice(1).map((d) => `${d.status} ${d.clusterId}`)).toEqual(docs.slice(1).map(() => 'duplicate orig'))
  })

  test.prop([fc.integer(), fc.integer({ min: 1, max: 40 })], { numRuns: 8 })(
    'decisions do not depend on the batch size, and a second run repeats the first',
    async (seed, maxBatch) => {
      const docs = templatedStream(seed, 90)
      const decide = async (batch: number, runSeed: number) => {
        const store = await openMemoryStore()
        const out = decided(await runInBatches(createDeduplicator({ store, analyzer }), docs, runSeed, batch))
        const again = decided(await runInBatches(createDeduplicator({ store, analyzer }), docs, runSeed + 1, batch))
        await store.close()
        return { out, again }
      }
      const one = await decide(1, seed)
      const other = await decide(maxBatch, seed + 7)
      expect(other.out).toEqual(one.out)
      expect(one.again).toEqual(one.out)
      expect(other.again).toEqual(one.out)
    },
  )
})

describe('HostTemplates', () => {
  it('a line becomes template at an epoch when most of a host\'s documents hold it, and is then left out of every host\'s documents', () => {
    const t = new HostTemplates()
    const shared = '本站内容仅供参考，转载请保留原文链接。' // "for reference only; keep the link"
    for (let i = 0; i < TEMPLATE_FIRST_EPOCH - 1; i++) t.observe('a.example', textLines(`${SENTENCES[i]}\n${shared}`), unique(i))
    expect(t.filter(textLines(`${SENTENCES[20]}\n${shared}`))).toBeNull() // not before the epoch
    t.observe('a.example', textLines(`${SENTENCES[8]}\n${shared}`), unique(8))
    expect(t.filter(textLines(`${SENTENCES[20]}\n${shared}`))).toBe(SENTENCES[20])
    // Sentences seen once stay content.
    expect(t.filter(textLines(`${SENTENCES[0]}\n${SENTENCES[1]}`))).toBeNull()
  })

  it('a line on fewer than half of the pages is not template', () => {
    const t = new HostTemplates()
    const some = '本节介绍如何配置网络代理服务器。' // "how to configure a proxy" (on 3 of 8 pages)
    for (let i = 0; i < TEMPLATE_FIRST_EPOCH; i++) t.observe('a.example', textLines(i < 3 ? `${SENTENCES[i]}\n${some}` : SENTENCES[i]!), unique(i))
    expect(t.filter(textLines(`${SENTENCES[20]}\n${some}`))).toBeNull()
  })

  it('hostOf: host name, lower-cased, without www.; null without a URL', () => {
    expect(hostOf('https://WWW.Example.org/a#b')).toBe('example.org')
    expect(hostOf('https://docs.example.org/x')).toBe('docs.example.org')
    expect(hostOf(null)).toBeNull()
  })

  it('htmlSiteKey: the same for pages at any depth of one site, null for a page naming no stylesheet or generator', () => {
    const a = htmlSiteKey('<html><head><link rel="stylesheet" href="../../default.css?v=2"><meta name="generator" content="DocBook XSL"></head></html>')
    const b = htmlSiteKey('<html><head><meta name="generator" content="DocBook XSL"><link href="default.css" rel="Stylesheet"></head></html>')
    expect(a).toBe(b)
    expect(a).toBe('html:default.css|DocBook XSL')
    expect(htmlSiteKey('<html><head><link rel="icon" href="x.ico"></head><body><p>正文</p></body></html>')).toBeNull()
  })
})

/** Pages of two sites with their chrome, plain texts, exact and edited copies, in a random order. */
function templatedStream(seed: number, n: number): InputDocument[] {
  const rnd = mulberry32(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const docs: InputDocument[] = []
  for (let i = 0; i < n; i++) {
    const r = rnd()
    const text = rnd() < 0.5 ? pick(SENTENCES) : pick(SENTENCES) + pick(SENTENCES)
    let doc: InputDocument
    if (r < 0.4) doc = { id: `a${i}`, content: page(BLURB_A, FOOTER_A, text, 'a.css'), url: `https://a.example/${i}` }
    else if (r < 0.7) doc = { id: `b${i}`, content: page(BLURB_B, FOOTER_A, text, 'b.css') }
    else if (r < 0.85 || docs.length === 0) doc = { id: `t${i}`, content: text }
    else {
      const base = pick(docs)
      doc = { ...base, id: `c${i}`, content: rnd() < 0.5 ? base.content : base.content.replace('</body>', '<p>点击关注，获取更多精彩资讯。</p></body>') }
    }
    docs.push(doc)
  }
  return docs
}

describe('HostTemplates: different documents only (issue 24)', () => {
  const chrome = '本站内容仅供参考，转载请保留原文链接。' // "for reference only; keep the link"
  it('copies of one document never make its lines template, however many and whatever their decision', () => {
    const t = new HostTemplates()
    const article = `${SENTENCES[0]}\n${SENTENCES[1]}\n${SENTENCES[2]}`
    t.observe('a.example', textLines(article), unique(0))
    // 64 copies: exact, and with the commas dropped (lines are keyed by shape, without punctuation).
    for (let k = 1; k <= 8 * TEMPLATE_FIRST_EPOCH; k++) {
      const copy = k % 2 === 0 ? article : article.replace(/，/g, '')
      t.observe('a.example', textLines(copy), { clusterId: 'd0', duplicate: true })
    }
    for (let i = 3; i < 3 + TEMPLATE_FIRST_EPOCH; i++) t.observe('a.example', textLines(SENTENCES[i]!), unique(i))
    expect(t.filter(textLines(`${SENTENCES[0]}\n${SENTENCES[20]}`))).toBeNull()
  })

  it('a duplicate that brings a line its cluster did not have is a different page (chrome that outweighed its text)', () => {
    const t = new HostTemplates()
    for (let i = 0; i < TEMPLATE_FIRST_EPOCH; i++) t.observe('a.example', textLines(`${chrome}\n${SENTENCES[i]}`), i === 0 ? unique(0) : { clusterId: 'd0', duplicate: true })
    expect(t.filter(textLines(`${chrome}\n${SENTENCES[20]}`))).toBe(SENTENCES[20])
  })

  it('lines that vary only in dates, sources and authors are learned as one shape', () => {
    const t = new HostTemplates()
    const meta = (i: number) => `发布时间：2024-05-${String(i + 1).padStart(2, '0')} 09:${10 + i} 来源：${['新华社', '人民日报', '本报'][i % 3]} 作者：${['张三', '李四'][i % 2]}`
    for (let i = 0; i < TEMPLATE_FIRST_EPOCH; i++) t.observe('a.example', textLines(`${meta(i)}\n【字体：大 中 小】\n${SENTENCES[i]}`), unique(i))
    expect(t.filter(textLines(`发布时间：2025-01-31 17:02 来源：中新网 作者：王五\n【字体：大 中 小】\n${SENTENCES[20]}`))).toBe(SENTENCES[20])
  })

  it('a block of two or more other pages\' headlines is left out; a text\'s own headline is kept', () => {
    const t = new HostTemplates()
    const titles = ['全市图书馆延长夜间开放时间', '山区宽带入户工程全面完工', '平原地区农民抢种早稻', '小微企业税收优惠政策解读']
    titles.forEach((title, i) => t.observe('a.example', textLines(`${title}\n${SENTENCES[i]}`), unique(i)))
    const page = `${titles[0]}\n${SENTENCES[0]}\n相关信息\n${titles[1]}\n${titles[2]}\n${titles[3]}`
    expect(t.filter(textLines(page))).toBe(`${titles[0]}\n${SENTENCES[0]}\n相关信息`)
    // One headline alone (an editor's note above a reposted article's headline) is not a block.
    expect(t.filter(textLines(`编者按：本文经授权转载。\n${titles[1]}\n${SENTENCES[1]}`))).toBeNull()
  })
})
