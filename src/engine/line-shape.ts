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
  '责任编辑', '编辑', '责编', '来源', '稿源', '出处', '作者', '记者', '通讯员', '摄影', '供稿', '校对', '审核', '发布者',
  '发布时间', '发布日期', '发表时间', '更新时间', '时间', '日期', '字体', '字号', '分享到', '分享',
  '浏览次数', '浏览量', '浏览', '阅读量', '阅读', '点击数', '点击量', '点击', '评论', '上一篇', '下一篇',
  '当前位置', '您的位置', '你的位置', '所在位置', '位置', '关键词', '标签', 'tags',
] as const
/** A labelled value longer than this (characters) is content: not masked. */
export const MAX_LABEL_VALUE = 30
/** Least letters (Han or Latin, not digits) a line keeps for its figures to be masked. */
export const MIN_WORD_CHARS = 6
/** The longest part of a breadcrumb (characters). */
const MAX_CRUMB = 16

const LABEL = new RegExp(`(^|[\\s【\\[（(|丨｜·])(${[...CHROME_LABELS].sort((a, b) => b.length - a.length).join('|')})\\s*[:：]`, 'giu')
const CLOSE = /[】\]）)]/u
const CRUMB_SEP = /\s*[>›»＞→]\s*/u
const FIGURES = /\d+(?:[.,:：/\-年月日号时点分秒]\d+)*[年月日号时分秒%％]?/gu
const DATE_ONLY = /^[\s#年月日号时点分秒星期周一二三四五六七天:：\-/.,()（）]*$/u
const NOT_WORD = /[^\p{L}\p{N}#◇]/gu
const LETTER = /[\p{L}]/gu

/** Whether some line of a text may be labelled chrome (a quick test before cutting it into lines). */
export function mayHaveLabels(text: string): boolean {
  LABEL.lastIndex = 0
  const found = LABEL.test(text)
  LABEL.lastIndex = 0
  return found
}

const LABEL_WORD = new RegExp(`(${[...CHROME_LABELS].sort((a, b) => b.length - a.length).join('|')})\\s*[:：]`, 'giu')
const TOOL_WORDS = /[【[][^】\]]{1,8}[】\]]/gu

/**
 * Whether a line holds only labelled values, dates, figures and short bracketed tool words: chrome
 * whatever the page (see the module comment).
 * @example labelOnly('发布时间：2024-05-02 09:39 来源：某某日报 作者：某某') // true
 */
export function labelOnly(line: string): boolean {
  let s = maskLabels(line.trim())
  if (!s.includes('◇')) return false
  s = s.replace(FIGURES, '#').replace(TOOL_WORDS, '').replace(LABEL_WORD, '')
  return s.replace(NOT_WORD, '').replace(/[#◇]/gu, '').length === 0
}

/**
 * The shape of a (normalised) line, or the line itself without punctuation when nothing varies.
 * @example lineShape('发布时间：2024-05-02 09:39 来源：某某日报') === lineShape('发布时间：2023-11-30 17:02 来源：新华社')
 */
export function lineShape(line: string): string {
  let s = maskLabels(line.trim())
  s = maskCrumbs(s)
  s = maskFigures(s)
  return s.replace(NOT_WORD, '')
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
  if (parts.length < 3 || parts.some((p) => p.length === 0 || p.length > MAX_CRUMB)) return line
  return `${parts[0]}>◇`
}

function maskFigures(line: string): string {
  FIGURES.lastIndex = 0
  if (!FIGURES.test(line)) return line
  const masked = line.replace(FIGURES, '#')
  if (DATE_ONLY.test(masked) && /[年\-/]/u.test(line)) return '#date'
  const letters = masked.match(LETTER)?.length ?? 0
  return letters >= MIN_WORD_CHARS ? masked : line
}
