/**
 * The shape of a line, for the site-template learner (templates.ts): what a line of a site's
 * chrome keeps from page to page when its values change. A portal prints
 * "发布时间：2024-05-02 09:39 来源：某某日报 作者：某某", "【字体：大 中 小】", "分享到：微信 微博",
 * "首页 > 新闻 > 国内" on every page with other dates, sources, authors and sections: masked, each
 * is one shape across the site's pages and can be learned as one line.
 *
 * - **Labelled values.** The value after a label of page chrome (来源, 作者, 编辑, 责任编辑, 记者,
 *   发布时间, 时间, 字体, 分享到, …, followed by a colon) is masked up to the next label or the
 *   end of the bracket or line. A label only counts at the start of the line or after a space or
 *   a bracket (not inside a sentence: "资金来源：…" in a paragraph is not chrome), and a value longer
 *   than {@link MAX_LABEL_VALUE} characters, or one with a colon of its own or a full stop, is content, not masked.
 * - **Breadcrumbs.** Three or more short parts joined by `>`, `›`, `»`, `＞` or `→`: all but the first.
 * - **Dates, times, numbers.** Runs of digits (with their separators and 年月日时分秒) become `#`,
 *   but only in a line that keeps at least {@link MIN_WORD_CHARS} other letters: a line that is
 *   mostly figures (a table row, "同比上涨1.2%") is content and keeps them. A line that is only a
 *   date and time is one shape.
 * - Punctuation and spaces are dropped last: a comma more or less is the same line.
 *
 * A line that is nothing but labelled values, dates and short bracketed tool words
 * ("发布时间：… 来源：… 作者：…", "（记者：…）", "责任编辑：…", "【字体：大 中 小】 【打印本页】")
 * is page chrome by its shape alone (`labelOnly`): it says nothing about the text it stands by.
 */

/** Labels of page chrome whose value (after a colon) changes from page to page. */
export const CHROME_LABELS = [
  '责任编辑', '编辑', '责编', '信息来源', '文章来源', '新闻来源', '消息来源', '来源', '稿源', '出处', '作者', '记者', '通讯员', '摄影', '供稿', '校对', '审核', '发布者',
  '发布时间', '发布日期', '发表时间', '更新时间', '时间', '日期', '字体', '字号', '分享到', '分享',
  '浏览次数', '浏览量', '浏览', '阅读量', '阅读', '点击数', '点击量', '点击', '评论', '上一篇', '下一篇',
  '当前位置', '您的位置', '你的位置', '所在位置', '位置', '关键词', '标签', 'tags', '楼主', '回复',
] as const
/** A labelled value longer than this (characters) is content: not masked. */
export const MAX_LABEL_VALUE = 30
/** Least letters (Han or Latin, not digits) a line keeps for its figures to be masked. */
export const MIN_WORD_CHARS = 6
/** The longest part of a breadcrumb (characters). */
const MAX_CRUMB = 16
/** The longest line (characters) that can be a list heading after a section name. */
const MAX_LIST_HEADING = 20

const LABEL = new RegExp(`(^|[\\s【\\[（(|丨｜·])(${[...CHROME_LABELS].sort((a, b) => b.length - a.length).join('|')})\\s*[:：]`, 'giu')
const CLOSE = /[】\]）)]/u
const CRUMB_SEP = /\s*[>›»＞→]\s*/u
const FIGURES = /\d+(?:[.,:：/\-年月日号时点分秒]\d+)*[年月日号时分秒%％]?/gu
const DATE_ONLY = /^[\s#年月日号时点分秒星期周一二三四五六七天:：\-/.,()（）]*$/u
const NOT_WORD = /[^\p{L}\p{N}#◇]/gu
const LETTER = /[\p{L}]/gu

const LABEL_SET = new Set<string>(CHROME_LABELS)
const LABEL_MAX = Math.max(...CHROME_LABELS.map((l) => l.length))

/**
 * Whether some line of a text may be labelled chrome (a quick test before cutting it into lines):
 * a colon right after a chrome label. One pass over the colons, no regular expression.
 */
export function mayHaveLabels(text: string): boolean {
  for (let i = text.indexOf(':'); ; i = text.indexOf(':', i + 1)) {
    if (i < 0) break
    if (labelEndsAt(text, i)) return true
  }
  for (let i = text.indexOf('：'); i >= 0; i = text.indexOf('：', i + 1)) if (labelEndsAt(text, i)) return true
  return false
}

/** The last code units of the labels (lower-cased): most colons follow none of them. */
const LABEL_LAST = new Set(CHROME_LABELS.map((l) => l.charCodeAt(l.length - 1)))

/** Whether a chrome label (then white space) ends just before position `colon`. */
function labelEndsAt(text: string, colon: number): boolean {
  let end = colon
  while (end > 0 && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 0x3000)) end--
  if (end === 0 || !LABEL_LAST.has(text.charCodeAt(end - 1) | (text.charCodeAt(end - 1) < 0x80 ? 0x20 : 0))) return false
  for (let n = 2; n <= LABEL_MAX && n <= end; n++) if (LABEL_SET.has(text.slice(end - n, end).toLowerCase())) return true
  return false
}

const LABEL_WORD = new RegExp(`(${[...CHROME_LABELS].sort((a, b) => b.length - a.length).join('|')})\\s*[:：]`, 'giu')
const TOOL_WORDS = /[【[][^】\]]{1,8}[】\]]/gu

/**
 * Whether a line holds only labelled values, dates, figures and short bracketed tool words: chrome
 * whatever the page (see the module comment).
 * @example labelOnly('发布时间：2024-05-02 09:39 来源：某某日报 作者：某某') // true
 */
export function labelOnly(line: string): boolean {
  const colon = line.includes(':') || line.includes('：')
  const dated = DATED.test(line)
  if (!colon && !dated) return false
  let s = colon ? maskLabels(line.trim()) : line.trim()
  if (!s.includes('◇') && !dated) return false
  s = s.replace(FIGURES, '#').replace(TOOL_WORDS, '').replace(LABEL_WORD, '')
  const left = s.replace(NOT_WORD, '').replace(/[#◇]/gu, '')
  // A byline: a dated line with a few Han words beside its labelled values (a source name,
  // 发表于, 只看楼主): "央视网 2023-03-06 22:19", "楼主：… 发表于 2018-04-22 16:18 只看楼主".
  return left.length === 0 || (dated && left.length <= BYLINE_MAX_WORDS && HAN_ONLY.test(left))
}

/** A date with its year: 2024-05-02, 2024/5/2, 2024.05.02, 2024年5月2日. */
const DATED = /(?:^|\D)(?:19|20)\d\d(?:[-/.]\d{1,2}[-/.]\d{1,2}|年\d{1,2}月\d{1,2}日)(?!\d)/u
const HAN_ONLY = /^\p{Script=Han}*$/u
/** Most Han characters a dated line keeps beside its labelled values and figures to be a byline. */
export const BYLINE_MAX_WORDS = 12

/** Whether a text holds a date with its year (a quick test: a byline may be among its lines). */
export function mayHaveBylines(text: string): boolean {
  return DATED.test(text)
}

/**
 * The shape of a (normalised) line, or the line itself without punctuation when nothing varies.
 * @example lineShape('发布时间：2024-05-02 09:39 来源：某某日报') === lineShape('发布时间：2023-11-30 17:02 来源：新华社')
 */
export function lineShape(line: string): string {
  let out = ''
  for (const ch of masked(line)) if (isWordUnit(ch.charCodeAt(0))) out += ch
  return out
}

/** The line with its varying parts masked, punctuation kept. */
function masked(line: string): string {
  let s = line.trim()
  const f = features(s)
  if (f & COLON) s = maskListHeading(s)
  if (f & COLON && mayHaveLabels(s)) s = maskLabels(s)
  if (f & CRUMB) s = maskCrumbs(s)
  if (f & DIGIT) s = maskFigures(s)
  return s
}

const COLON = 1
const DIGIT = 2
const CRUMB = 4

/** Which maskings may apply to a line: colons, digits, breadcrumb separators (one pass over its code units). */
function features(line: string): number {
  let f = 0
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i)
    if (c === 0x3a || c === 0xff1a) f |= COLON
    else if (c >= 0x30 && c <= 0x39) f |= DIGIT
    else if (c === 0x3e || c === 0x203a || c === 0xbb || c === 0xff1e || c === 0x2192) f |= CRUMB
  }
  return f
}

/**
 * 52 bits of the shape of a line (see {@link lineShape}), or null when the shape is empty. A line
 * with nothing to mask (most lines of prose) is keyed in one pass over its code units, without a
 * regular expression or a new string: its letters and digits, punctuation and spaces skipped.
 */
export function lineShapeKey(line: string): number | null {
  return wordKey(features(line) === 0 ? line : masked(line))
}

/** FNV-1a, two 32-bit lanes, over the word characters of a string (letters, digits, `#`, `◇`); null for none. */
function wordKey(s: string): number | null {
  let h1 = 0x811c9dc5
  let h2 = 0x9747b28c
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (!isWordUnit(c)) continue
    n++
    h1 = Math.imul(h1 ^ c, 0x01000193)
    h2 = Math.imul(h2 ^ c, 0x5bd1e995)
    h2 ^= h2 >>> 15
  }
  if (n === 0) return null
  return (h1 >>> 0) * 0x100000 + (h2 >>> 12)
}

/**
 * Whether a UTF-16 code unit is part of a word for {@link wordKey}: ASCII letters and digits, `#`,
 * and everything above U+00BF but the punctuation and space blocks (general punctuation, CJK
 * symbols and punctuation, full-width punctuation, CJK compatibility forms). Surrogates count
 * (letters outside the BMP).
 */
function isWordUnit(c: number): boolean {
  if (c < 0x80) return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x23
  if (c <= 0xbf) return false
  if (c >= 0x2000 && c <= 0x206f) return false
  if (c >= 0x3000 && c <= 0x303f) return false
  if (c >= 0xfe30 && c <= 0xfe4f) return false
  if (c >= 0xff00 && c <= 0xff0f) return false
  if (c >= 0xff1a && c <= 0xff20) return false
  if (c >= 0xff3b && c <= 0xff40) return false
  if (c >= 0xff5b && c <= 0xff65) return false
  return true
}

function maskLabels(line: string): string {
  LABEL.lastIndex = 0
  const hits: { start: number; end: number }[] = []
  for (let m = LABEL.exec(line); m !== null; m = LABEL.exec(line)) {
    const start = m.index + m[1]!.length
    hits.push({ start, end: m.index + m[0].length })
  }
  if (hits.length === 0) return line
  let out = line.slice(0, hits[0]!.start)
  hits.forEach((h, i) => {
    const next = i + 1 < hits.length ? hits[i + 1]!.start : line.length
    const rest = line.slice(h.end, next)
    const close = rest.search(CLOSE)
    const value = close < 0 ? rest : rest.slice(0, close)
    const tail = close < 0 ? '' : rest.slice(close)
    // A value holding a colon of its own ("5月2日 地点：图书馆") or a sentence's end is content, not chrome.
    const masked = value.trim() !== '' && value.trim().length <= MAX_LABEL_VALUE && !/[:：。！？!?]/u.test(value)
    out += line.slice(h.start, h.end) + (masked ? '◇' : value) + tail
  })
  return out
}

function maskCrumbs(line: string): string {
  const parts = line.split(CRUMB_SEP)
  if (parts.length < 2 || parts.some((p) => p.length === 0 || p.length > MAX_CRUMB)) return line
  return `${parts[0]}>◇`
}

/**
 * A list heading after a section name ("天涯杂谈 相关帖子：", "国内新闻 相关新闻:"): a short line
 * ending in a colon whose words before the last change with the page's section. Its shape is its
 * last word.
 */
function maskListHeading(line: string): string {
  if (line.length > MAX_LIST_HEADING || !/[:：]$/u.test(line)) return line
  const cut = line.search(/\s\S+$/u)
  return cut < 0 ? line : line.slice(cut).trim()
}

function maskFigures(line: string): string {
  FIGURES.lastIndex = 0
  if (!FIGURES.test(line)) return line
  const masked = line.replace(FIGURES, '#')
  if (DATE_ONLY.test(masked) && /[年\-/]/u.test(line)) return '#date'
  const letters = masked.match(LETTER)?.length ?? 0
  return letters >= MIN_WORD_CHARS ? masked : line
}

/**
 * Headings of a portal's list of other pages' headlines (related, recommended, most read): the
 * closed vocabulary portals print above such a list, with or without a section name before it
 * ("天涯杂谈 相关帖子：").
 */
export const RELATED_HEADINGS = [
  '相关推荐', '相关新闻', '相关阅读', '相关文章', '相关链接', '相关帖子', '相关报道', '相关资讯', '热点推荐', '热门推荐', '热门文章',
  '热门新闻', '推荐阅读', '延伸阅读', '猜你喜欢', '为你推荐', '更多新闻', '更多阅读', '最新文章', '精彩推荐', '今日推荐',
] as const
const RELATED_SET = new Set<string>(RELATED_HEADINGS)
const RELATED_GATE = /相关|推荐|阅读|喜欢|热门|更多|最新/u
/** The longest item (non-space characters) of a related-headline list. */
export const RELATED_ITEM_MAX = 40

/**
 * Related-headline lists by their shape alone: a heading of {@link RELATED_HEADINGS} (its own
 * line) and the run of headline-like lines after it (at most {@link RELATED_ITEM_MAX} non-space
 * characters, no full stop), up to the first line that is not one. null: none.
 * @example relatedLists(['正文。', '相关推荐', '甲地发生某事', '乙地召开某会']) // [false, true, true, true]
 */
export function relatedLists(lines: readonly string[]): boolean[] | null {
  let out: boolean[] | null = null
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line.length > MAX_LIST_HEADING || !RELATED_GATE.test(line)) continue
    if (!RELATED_SET.has(lineShape(line))) continue
    out ??= lines.map(() => false)
    out[i] = true
    let j = i + 1
    for (; j < lines.length; j++) {
      const item = lines[j]!.trim()
      if (item === '') continue
      const n = item.replace(/\s/gu, '').length
      if (n > RELATED_ITEM_MAX || /[。！？!?]/u.test(item)) break
      out[j] = true
    }
    i = j - 1
  }
  return out
}

/** Whether a text may hold a related-headline list (a quick test before cutting it into lines). */
export function mayHaveRelatedLists(text: string): boolean {
  return RELATED_GATE.test(text)
}
