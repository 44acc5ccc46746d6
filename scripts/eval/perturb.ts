/**
 * The edits that turn an original into a labelled near-duplicate copy. Levels are mild and meant
 * to be realistic (what reposting, scraping, converting or light editing does to a page):
 *
 * | perturbation      | what it does |
 * |-------------------|--------------|
 * | `traditional`     | opencc-js cn→tw (characters) or cn→twp (characters + Taiwan vocabulary), 50/50 |
 * | `fullwidth`       | every printable ASCII character → its full-width form, space → U+3000 |
 * | `html-chrome`     | published inside a web page (see chrome.ts), the body as `<p>` per line |
 * | `ad-lines`        | 1–3 advertisement lines inserted at random line breaks |
 * | `sentence-delete` | ~10% of the sentences deleted (at least 1; needs ≥ 3 sentences) |
 * | `sentence-swap`   | 2–4 disjoint pairs of adjacent sentences swapped (needs ≥ 4 sentences) |
 * | `typos`           | 1–2% of Han characters replaced by a frequent Han character (Latin docs: 1–2% of words get one letter changed) |
 * | `truncate`        | the last 10–20% of the characters dropped |
 * | `mixed`           | two or three of the above (content edits first, then script, then chrome) |
 */
import { Converter } from 'opencc-js'
import { wrapInChrome, type ChromeLang } from './chrome.js'
import type { Rng } from './prng.js'

/** Perturbations applied to long documents. */
export const LONG_PERTURBATIONS = [
  'traditional', 'fullwidth', 'html-chrome', 'ad-lines', 'sentence-delete', 'sentence-swap', 'typos', 'truncate', 'mixed',
] as const

/** One long-document perturbation. */
export type LongPerturbation = (typeof LONG_PERTURBATIONS)[number]

/** A document as it is perturbed: the copy keeps (an edited) title and gets its own URL. */
export interface Page {
  content: string
  title: string
  url?: string
}

/** What a perturbation needs besides the page. */
export interface PerturbContext {
  rng: Rng
  /** Language of inserted chrome and ads. */
  lang: ChromeLang
  /** Titles of other documents (sidebar links of the chrome). */
  otherTitles: readonly string[]
  /** Frequency-weighted Han characters to draw typos from. */
  hanPool: readonly string[]
}

/** A perturbed page, or null when the perturbation does not apply (too few sentences, no change). */
export interface Perturbed extends Page {
  /** Details for the labels, e.g. `twp` or `3 of 31 sentences`. */
  note: string
}

const toTw = Converter({ from: 'cn', to: 'tw' })
const toTwp = Converter({ from: 'cn', to: 'twp' })

/** ASCII → full-width forms (U+FF01–U+FF5E), space → ideographic space U+3000. */
export function toFullwidth(s: string): string {
  let out = ''
  for (const ch of s) {
    const c = ch.charCodeAt(0)
    if (c >= 0x21 && c <= 0x7e) out += String.fromCharCode(c + 0xfee0)
    else if (ch === ' ') out += '\u3000'
    else out += ch
  }
  return out
}

/** cn → Taiwan standard characters (`tw`) or with Taiwan phrases too (`twp`). */
export function toTraditional(s: string, variant: 'tw' | 'twp'): string {
  return variant === 'tw' ? toTw(s) : toTwp(s)
}

const CLOSERS = new Set(['”', '’', '」', '』', '）', ')', '"', "'", '】', '》'])

/**
 * Split text into sentences without losing a character: each piece ends after 。！？!?；; (and
 * any closing quotes/brackets), after a newline, or after a '.' followed by white space.
 * @example splitSentences('一。二！three. four') // → ['一。', '二！', 'three. ', 'four']
 */
export function splitSentences(text: string): string[] {
  const out: string[] = []
  let start = 0
  const chars = text
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] as string
    let end = -1
    if ('。！？!?；;'.includes(c)) {
      end = i + 1
      while (end < chars.length && ('。！？!?'.includes(chars[end] as string) || CLOSERS.has(chars[end] as string))) end++
    } else if (c === '\n') {
      end = i + 1
      while (end < chars.length && chars[end] === '\n') end++
    } else if (c === '.' && /\s/.test(chars[i + 1] ?? '')) {
      end = i + 1
      while (end < chars.length && (chars[end] === ' ' || chars[end] === '\t')) end++
    }
    if (end > 0) {
      out.push(chars.slice(start, end))
      start = end
      i = end - 1
    }
  }
  if (start < chars.length) out.push(chars.slice(start))
  return out
}

/** Indexes of sentences with some content (not just white space or punctuation). */
function contentSentences(sentences: readonly string[]): number[] {
  const idx: number[] = []
  sentences.forEach((s, i) => {
    if (/[\p{L}\p{N}]/u.test(s)) idx.push(i)
  })
  return idx
}

/** Delete ~`fraction` of the content sentences (at least one); null with fewer than 3. */
export function deleteSentences(text: string, rng: Rng, fraction = 0.1): { text: string; note: string } | null {
  const sentences = splitSentences(text)
  const idx = contentSentences(sentences)
  if (idx.length < 3) return null
  const k = Math.max(1, Math.round(idx.length * fraction))
  const drop = new Set(rng.sample(idx, k))
  return { text: sentences.filter((_, i) => !drop.has(i)).join(''), note: `${k} of ${idx.length} sentences` }
}

/**
 * Swap `swaps` disjoint pairs of adjacent content sentences; null with fewer than 4 sentences.
 * A sentence keeps its own terminator, so a swap moves whole sentences; a line break that ended
 * a sentence moves with it.
 */
export function swapSentences(text: string, rng: Rng, swaps: number): { text: string; note: string } | null {
  const sentences = splitSentences(text)
  const idx = contentSentences(sentences)
  if (idx.length < 4) return null
  const used = new Set<number>()
  let done = 0
  for (const p of rng.shuffle(idx.slice(0, -1).map((_, k) => k))) {
    if (done >= swaps) break
    if (used.has(p) || used.has(p + 1)) continue
    const a = idx[p] as number
    const b = idx[p + 1] as number
    const tmp = sentences[a] as string
    sentences[a] = sentences[b] as string
    sentences[b] = tmp
    used.add(p)
    used.add(p + 1)
    done++
  }
  return { text: sentences.join(''), note: `${done} swaps of ${idx.length} sentences` }
}

/** Replace `rate` of the Han characters by other Han characters from `pool`; null without Han. */
export function hanTypos(text: string, rng: Rng, rate: number, pool: readonly string[]): { text: string; note: string } | null {
  const chars = Array.from(text)
  const han = chars.flatMap((c, i) => (/\p{Script=Han}/u.test(c) ? [i] : []))
  if (han.length === 0) return null
  const k = Math.max(1, Math.round(han.length * rate))
  for (const i of rng.sample(han, k)) {
    let r = rng.pick(pool)
    while (r === chars[i]) r = rng.pick(pool)
    chars[i] = r
  }
  return { text: chars.join(''), note: `${k} of ${han.length} Han chars` }
}

/** Change one letter in `rate` of the Latin words (of 3+ letters); null without such words. */
export function latinTypos(text: string, rng: Rng, rate: number): { text: string; note: string } | null {
  const words = [...text.matchAll(/[A-Za-z]{3,}/g)]
  if (words.length === 0) return null
  const k = Math.max(1, Math.round(words.length * rate))
  const chars = text.split('')
  for (const m of rng.sample(words, k)) {
    const pos = (m.index ?? 0) + rng.int(0, (m[0]?.length ?? 1) - 1)
    const old = chars[pos] as string
    let r = old
    while (r.toLowerCase() === old.toLowerCase()) r = String.fromCharCode(97 + rng.int(0, 25))
    chars[pos] = old === old.toUpperCase() ? r.toUpperCase() : r
  }
  return { text: chars.join(''), note: `${k} of ${words.length} words` }
}

/** Drop the last `fraction` of the characters. */
export function truncateText(text: string, fraction: number): { text: string; note: string } {
  const chars = Array.from(text)
  const keep = Math.max(1, Math.round(chars.length * (1 - fraction)))
  return { text: chars.slice(0, keep).join('').trimEnd(), note: `kept ${keep} of ${chars.length} chars` }
}

/** Advertisement lines of the kind content farms and reposting accounts add. */
export const AD_LINES: Readonly<Record<ChromeLang, readonly string[]>> = {
  zh: [
    '关注公众号「技术干货铺」，回复“资料”免费领取福利！',
    '本文来源于网络，如有侵权请联系删除。',
    '扫码加入技术交流群，获取更多学习资源。',
    '【广告】限时特惠：云服务器新用户首年仅需 99 元，点击立即抢购！',
    '更多精彩内容，请关注我们的微信公众号。',
    '转载请注明出处，谢谢合作！',
    '觉得文章有用？点个赞再走吧～',
    '点击下方“阅读原文”，免费领取 Linux 学习资料大礼包。',
    '广告：零基础学编程，30 天入门，报名即送价值 1999 元课程！',
    '本站提供各类软件免费下载，欢迎收藏本站。',
    '推荐阅读：程序员必备的 100 个命令行技巧',
    '文章未经授权禁止转载，违者必究。',
    '长按识别二维码，关注我们获取最新资讯。',
    '如果本文对你有帮助，欢迎打赏支持作者。',
  ],
  en: [
    'Subscribe to our newsletter for more tips like this!',
    'Advertisement: Get 50% off cloud hosting today — click here.',
    'This article was originally published elsewhere; all rights belong to the original author.',
    'Follow us on social media for daily updates.',
    'Sponsored: Learn Linux in 30 days — enroll now!',
    'Found this useful? Share it with your friends.',
    'Download our free e-book: 100 command line tricks.',
  ],
}

/** Insert `count` advertisement lines at random line breaks (or the start and end). */
export function insertAdLines(text: string, rng: Rng, count: number, lang: ChromeLang): { text: string; note: string } {
  const lines = text.split('\n')
  const ads = rng.sample(AD_LINES[lang], count)
  for (const ad of ads) lines.splice(rng.int(0, lines.length), 0, ad)
  return { text: lines.join('\n'), note: `${ads.length} ad lines` }
}

type Step = (page: Page, ctx: PerturbContext) => Perturbed | null

const STEPS: Readonly<Record<Exclude<LongPerturbation, 'mixed'>, Step>> = {
  traditional(page, { rng, lang }) {
    if (lang !== 'zh') return null
    const variant = rng.next() < 0.5 ? 'tw' : 'twp'
    const content = toTraditional(page.content, variant)
    if (content === page.content) return null
    return { ...page, content, title: toTraditional(page.title, variant), note: `opencc cn→${variant}` }
  },
  fullwidth(page) {
    const content = toFullwidth(page.content)
    if (content === page.content) return null
    return { ...page, content, title: toFullwidth(page.title), note: 'ASCII→full-width' }
  },
  'html-chrome'(page, ctx) {
    const wrapped = wrapInChrome(page.content, page.title, ctx)
    return { content: wrapped.html, title: wrapped.title, url: wrapped.url, note: wrapped.note }
  },
  'ad-lines'(page, { rng, lang }) {
    const r = insertAdLines(page.content, rng, rng.int(1, 3), lang)
    return { ...page, content: r.text, note: r.note }
  },
  'sentence-delete'(page, { rng }) {
    const r = deleteSentences(page.content, rng, 0.1)
    return r === null ? null : { ...page, content: r.text, note: r.note }
  },
  'sentence-swap'(page, { rng }) {
    const r = swapSentences(page.content, rng, rng.int(2, 4))
    return r === null ? null : { ...page, content: r.text, note: r.note }
  },
  typos(page, { rng, lang, hanPool }) {
    const rate = rng.float(0.01, 0.02)
    const r = lang === 'zh' ? hanTypos(page.content, rng, rate, hanPool) : latinTypos(page.content, rng, rate)
    return r === null ? null : { ...page, content: r.text, note: r.note }
  },
  truncate(page, { rng }) {
    const r = truncateText(page.content, rng.float(0.1, 0.2))
    return { ...page, content: r.text, note: r.note }
  },
}

/** Order of the steps inside `mixed`: edit the text, then convert the script, then publish it. */
const MIXED_ORDER: readonly Exclude<LongPerturbation, 'mixed'>[] = [
  'sentence-delete', 'sentence-swap', 'typos', 'truncate', 'ad-lines', 'traditional', 'fullwidth', 'html-chrome',
]

/**
 * Apply one perturbation; null when it does not apply to this page (the caller picks another).
 * @example perturb({ content: '一。二。三。四。', title: '数' }, 'sentence-swap', ctx)?.content // e.g. '二。一。四。三。'
 */
export function perturb(page: Page, kind: LongPerturbation, ctx: PerturbContext): Perturbed | null {
  if (kind !== 'mixed') return STEPS[kind](page, ctx)
  const usable = MIXED_ORDER.filter((k) => ctx.lang === 'zh' || k !== 'traditional')
  const chosen = new Set(ctx.rng.sample(usable, ctx.rng.int(2, 3)))
  let current: Page = page
  const notes: string[] = []
  for (const k of MIXED_ORDER) {
    if (!chosen.has(k)) continue
    const r = STEPS[k](current, ctx)
    if (r === null) return null
    notes.push(`${k}(${r.note})`)
    current = r
  }
  return { ...current, note: notes.join(' + ') }
}
