/**
 * More short-text kinds (issue 24), each its own labelled stream:
 *
 * - `short-quotes`: short Tang and Song poems (a whole poem of 20–80 Han characters, or the first
 *   four lines of a longer one) and sayings of `fortunes-zh` as the fortune files lay them out
 *   (`《题》` / `作者：…` lines, or the quote with its `-- 出处` line). Copies: the same text under
 *   another heading (【每日一诗】题, 题（唐·作者）, 作者《题》, …), lines joined or punctuation
 *   changed, 1–3 variant characters (Unihan: 峰/峯, 回/迴), sometimes a promo line. Negatives:
 *   the other poems (many share a title such as 无题, or a poet), a numeral changed (三千 → 五千),
 *   a negation flipped in a saying.
 * - `short-titles`: Debian package short descriptions in Chinese (`Translation-zh_CN`): full of real
 *   templated near-misses (古代战争实时策略游戏（数据文件）/（通用数据文件）). Copies: a site suffix or
 *   tag added, punctuation / width changed, variant characters. Negatives: a number changed.
 * - `short-descriptions`: the long descriptions of the same list of ≤ 300 Han characters
 *   (related packages share paragraphs: the oracle decides). Copies: the title as a heading, a
 *   promo line, punctuation / width, variants, the last clause dropped. Negatives: negation, number.
 *
 * The oracle compares a poem's or quote's text without its heading / attribution (known metadata),
 * a title without the added site suffix, a description without the promo line.
 */
import type { KindStream } from './kinds.js'
import { loadFortunes, stripAnsi } from './kinds.js'
import type { Rng } from './prng.js'
import { addPromo, changeChineseNumeral, dropLastClause, flipNegation, punctWidth, variantChars, type Edit } from './short-edits.js'
import { charLen, deriveShort, finishShort, han, lengthBucket, type ShortContext, type ShortDraft } from './short-kinds.js'
import { loadPackageDescriptions } from './short-sources.js'

interface Poem {
  title: string
  author: string
  /** Poem lines (or the quote's lines). */
  lines: string[]
  /** The entry as the fortune file lays it out (colours removed). */
  shipped: string
  kind: 'poem' | 'saying'
  /** Dynasty for poems, the source line for sayings. */
  extra: string
}

/** Poems (title, author, lines) and attributed sayings of fortunes-zh with 20–80 Han characters. */
function loadPoems(log: (s: string) => void): Poem[] | null {
  const fortunes = loadFortunes(log)
  if (fortunes === null) return null
  const out: Poem[] = []
  for (const [file, dynasty] of [['tang300', '唐'], ['song100', '宋']] as const) {
    for (const e of fortunes.get(file) ?? []) {
      const lines = stripAnsi(e).split('\n').map((l) => l.trim()).filter((l) => l !== '')
      const title = lines.map((l) => /^(?:题目[:：])?《([^》]+)》/.exec(l)).find((m) => m !== null)
      const author = lines.map((l) => /^作者[:：]\s*([^（(]+)/.exec(l)).find((m) => m !== null)
      if (title == null || author == null) continue
      let body = lines.filter((l) => !/^(?:题目[:：])?《|^作者[:：]/.test(l) && /\p{Script=Han}/u.test(l))
      if (han(body.join('')) > 80) body = body.slice(0, 4)
      if (han(body.join('')) < 20 || han(body.join('')) > 80) continue
      const head = lines.filter((l) => /^(?:题目[:：])?《|^作者[:：]/.test(l))
      out.push({ title: title[1]!.trim(), author: author[1]!.trim(), lines: body, shipped: [...head, ...body].join('\n'), kind: 'poem', extra: dynasty })
    }
  }
  for (const e of fortunes.get('chinese') ?? []) {
    const lines = stripAnsi(e).split('\n')
    const last = lines[lines.length - 1] ?? ''
    const m = /^\s*--\s*([^《]*?)\s*(?:《([^》]+)》\s*(.*))?$/.exec(last)
    if (m === null || /Osamu Aoki|Debian/.test(last) || /[\u2500-\u257f]/.test(e)) continue
    const body = lines.slice(0, -1).map((l) => l.trim()).filter((l) => l !== '')
    const n = han(body.join(''))
    if (n < 20 || n > 80) continue
    out.push({ title: (m[2] ?? '').trim(), author: (m[1] ?? '').trim(), lines: body, shipped: `${body.join('\n')}\n    ${last.trim()}`, kind: 'saying', extra: (m[3] ?? '').trim() })
  }
  return out
}

/** Headings another site puts over a poem. */
const POEM_HEADINGS: readonly ((p: Poem, rng: Rng) => string)[] = [
  (p) => `【每日一诗】${p.title}`,
  (p) => `${p.title}（${p.extra}·${p.author}）`,
  (p) => `${p.author}《${p.title}》`,
  (p) => `古诗词鉴赏｜${p.title} ${p.author}`,
  (p) => `${p.title}\n${p.extra}代：${p.author}`,
  (p, rng) => `${rng.pick(['经典古诗', '唐诗宋词', '诗词赏析', '古诗文网'])}：《${p.title}》`,
]

/** Headings over a saying. */
const SAYING_HEADINGS: readonly ((p: Poem, rng: Rng) => string)[] = [
  () => '【每日一句】',
  (p) => (p.title === '' ? '名言警句' : `《${p.title}》名句`),
  (p) => (p.author === '' ? '古人云：' : `${p.author}说：`),
  (_p, rng) => rng.pick(['经典语录', '今日金句', '人生感悟', '国学经典']),
]

/** How the lines of a poem are laid out on another site. */
function relayout(lines: readonly string[], rng: Rng): { text: string; note: string } {
  const r = rng.int(0, 3)
  if (r === 0) return { text: lines.join(''), note: 'lines joined' }
  if (r === 1) return { text: lines.join(' '), note: 'lines joined by spaces' }
  if (r === 2) return { text: lines.map((l) => l.replace(/[，。；！？、]/g, ' ').trim()).join('\n'), note: 'punctuation as spaces' }
  return { text: lines.join('\n'), note: 'same lines' }
}

/** `short-quotes`. */
export function quotesKind(ctx: ShortContext): KindStream | null {
  const poems = loadPoems(ctx.log)
  if (poems === null) return null
  const rng = ctx.rng.fork('quotes')
  const drafts: ShortDraft[] = poems.map((p) => ({ content: p.shipped, oracle: p.lines.join('\n'), label: p.kind === 'poem' ? 'poem' : 'saying', bucket: p.kind }))
  const n = drafts.length
  for (const i of rng.sample([...Array(n).keys()], Math.min(700, n))) {
    const p = poems[i]!
    const heading = rng.pick(p.kind === 'poem' ? POEM_HEADINGS : SAYING_HEADINGS)(p, rng)
    let body = p.lines
    const notes: string[] = []
    const v = rng.next() < 0.6 ? variantChars(body.join('\n'), ctx.variants, rng) : null
    if (v !== null) {
      body = v.text.split('\n')
      notes.push(v.note)
    }
    const layout = relayout(body, rng)
    notes.push(layout.note)
    let text = `${heading}\n${layout.text}`
    const attribution = p.kind === 'saying' && rng.next() < 0.5 ? `——${p.author}${p.title === '' ? '' : `《${p.title}》`}` : ''
    if (attribution !== '') text += `\n${attribution}`
    let label = v === null ? 'heading' : 'heading+variants'
    if (rng.next() < 0.15) {
      const promo = addPromo(text, rng)
      text = promo.text
      label += '+promo'
      notes.push(promo.note)
    }
    drafts.push({ content: text, oracle: layout.text, label, source: i, note: `${heading.split('\n')[0]}; ${notes.join('; ')}`, bucket: p.kind })
  }
  // Hard negatives: a numeral changed in a poem, a negation flipped in a saying, each under the
  // shipped layout (a real misquotation is another text).
  let numerals = 0
  let negations = 0
  for (const i of rng.sample([...Array(n).keys()], Math.min(400, n))) {
    const p = poems[i]!
    const body = p.lines.join('\n')
    const e: Edit | null = changeChineseNumeral(body, rng) ?? flipNegation(body, rng)
    if (e === null) continue
    const label = e.note.startsWith('numeral') ? 'neg-number' : 'neg-negation'
    if (label === 'neg-number') numerals++
    else negations++
    drafts.push({ content: p.shipped.replace(body, e.text), oracle: e.text, label, source: i, note: e.note, bucket: p.kind })
  }
  const titles = new Map<string, number>()
  for (const p of poems) if (p.kind === 'poem') titles.set(p.title, (titles.get(p.title) ?? 0) + 1)
  const shared = [...titles].filter(([, c]) => c > 1)
  return finishShort('short-quotes', drafts, ctx, [
    `${poems.filter((p) => p.kind === 'poem').length} poems (tang300, song100) and ${poems.filter((p) => p.kind === 'saying').length} sayings (chinese) of fortunes-zh, 20–80 Han characters, as laid out there; ${shared.length} poem titles shared by several poems (${shared.slice(0, 4).map(([t, c]) => `${t} ${c}`).join(', ')})`,
    `negatives: ${numerals} with a numeral changed, ${negations} with a negation flipped`,
  ])
}

/** Decorations a title gets on another site (known chrome: the oracle leaves them out). */
const TITLE_DECORATIONS: readonly ((t: string, rng: Rng) => string)[] = [
  (t, rng) => `${t} - ${rng.pick(['Debian 软件包', '软件下载', '开源中国', 'Linux 中国', '软件百科'])}`,
  (t, rng) => `【${rng.pick(['软件推荐', '开源', '工具', '新软件'])}】${t}`,
  (t, rng) => `${t}_${rng.pick(['软件介绍', '下载安装', '使用教程'])}`,
  (t, rng) => `${rng.pick(['推荐一款', '分享：', '今日软件：'])}${t}`,
]

/** `short-titles`. */
export function titlesKind(ctx: ShortContext): KindStream {
  const descriptions = loadPackageDescriptions(ctx.log)
  const titles = [...new Set(descriptions.map((d) => d.title))].filter((t) => han(t) >= 2)
  const drafts: ShortDraft[] = titles.map((t) => ({ content: t, label: 'title', bucket: lengthBucket(t) }))
  deriveShort(drafts, drafts.length, ctx, 450, 150, [
    ['decorated', (t, r) => ({ text: r.pick(TITLE_DECORATIONS)(t, r), note: 'site suffix or tag', chrome: true })],
    ['punct-width', (t, r) => punctWidth(t, r)],
    ['variants', (t, r) => variantChars(t, ctx.variants, r)],
  ])
  return finishShort('short-titles', drafts, ctx, [`${titles.length} distinct Chinese package short descriptions of Debian's Translation-zh_CN (${descriptions.length} packages)`])
}

/** `short-descriptions`. */
export function descriptionsKind(ctx: ShortContext): KindStream {
  const descriptions = loadPackageDescriptions(ctx.log)
  const seen = new Set<string>()
  const picked = descriptions.filter((d) => {
    const n = han(d.body)
    if (n < 20 || n > 300 || seen.has(d.body)) return false
    seen.add(d.body)
    return true
  })
  const drafts: ShortDraft[] = picked.map((d) => ({ content: d.body, label: 'description', bucket: han(d.body) <= 100 ? '≤100 Han' : han(d.body) <= 200 ? '101–200 Han' : '201–300 Han', note: d.pkg }))
  const titleOf = new Map(picked.map((d) => [d.body, d.title]))
  // The heading is the source's title, whatever the text became by an earlier edit.
  deriveShort(drafts, drafts.length, ctx, 400, 150, [
    ['titled', (t, _r, src) => ({ text: `${titleOf.get(src.content) ?? ''}\n${t}`, note: 'title as heading', chrome: true })],
    ['promo', (t, r) => addPromo(t, r)],
    ['punct-width', (t, r) => punctWidth(t, r)],
    ['variants', (t, r) => variantChars(t, ctx.variants, r)],
    ['clause-dropped', (t) => (charLen(t) > 30 ? dropLastClause(t) : null)],
  ])
  return finishShort('short-descriptions', drafts, ctx, [`${picked.length} distinct Chinese package long descriptions of 20–300 Han characters (Translation-zh_CN)`])
}
