/**
 * HTML → text with a real (streaming, forgiving) parser: htmlparser2's callbacks, no DOM built.
 */
import { Parser } from 'htmlparser2'
import { DedupError, describeValue } from '../errors.js'

/** Options of {@link htmlToText}. */
export interface HtmlToTextOptions {
  /** Put the `<title>` text first, on its own line. @default false */
  includeTitle?: boolean
  /**
   * Drop site chrome: `nav`, `header` (outside `main`/`article`), `footer`, `aside`, `form`,
   * buttons and selects, elements with a chrome role, and elements whose id/class names chrome
   * ({@link DEFAULT_CHROME_NAMES}). If that leaves no text, the chrome is kept after all.
   * @default true
   */
  dropChrome?: boolean
  /** When `main`/`article`/`[role=main]` holds text, return only that. @default true */
  preferMain?: boolean
  /** Words that mark an id/class as chrome, matched as described at {@link DEFAULT_CHROME_NAMES}. @default DEFAULT_CHROME_NAMES */
  chromeNames?: readonly string[]
}

/**
 * Words that mark an `id` or `class` token as site chrome. A token is split into words at `-`,
 * `_`, `:`, `.` and camelCase humps; it is chrome when its first or last word is in the list
 * (`site-footer`, `navBar`, `share-buttons`, `ad`) but not when it starts with a state word
 * (`has-sidebar`, `no-header`, `is-menu-open`), which styles a page rather than marks a part of
 * it. Inside `main`/`article`, `header` and `masthead` name the article's own header and are kept.
 */
export const DEFAULT_CHROME_NAMES: readonly string[] = Object.freeze([
  'nav', 'navbar', 'navigation', 'menu', 'menubar', 'submenu', 'breadcrumb', 'breadcrumbs', 'crumb',
  'crumbs', 'sidebar', 'side', 'footer', 'foot', 'header', 'masthead', 'banner', 'ad', 'ads', 'advert',
  'adverts', 'advertisement', 'adsbygoogle', 'sponsor', 'sponsored', 'share', 'sharing', 'social',
  'comment', 'comments', 'related', 'copyright', 'cookie', 'cookies', 'popup', 'modal', 'toolbar',
  'pagination', 'pager', 'newsletter', 'subscribe', 'disqus',
])

/** Roles (`role="…"`) that mark an element as chrome. */
export const CHROME_ROLES: readonly string[] = Object.freeze([
  'navigation', 'banner', 'contentinfo', 'complementary', 'menu', 'menubar', 'search', 'toolbar', 'dialog',
])

// Never text: code, styling, embedded documents, fallback content.
const SKIP_TAGS = new Set(['script', 'style', 'noscript', 'template', 'svg', 'iframe', 'object', 'embed', 'canvas', 'audio', 'video', 'frameset'])
const CHROME_TAGS = new Set(['nav', 'header', 'footer', 'aside', 'form', 'button', 'select', 'textarea', 'dialog', 'menu'])
const MAIN_TAGS = new Set(['main', 'article'])
// Never chrome whatever their class says (`<body class="has-sidebar">` must not drop the page).
const NEVER_CHROME_TAGS = new Set(['html', 'body', 'main', 'article'])
const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'center', 'dd', 'details', 'dialog',
  'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5',
  'h6', 'header', 'hgroup', 'hr', 'html', 'legend', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section',
  'summary', 'table', 'tbody', 'tfoot', 'thead', 'title', 'tr', 'ul',
])
const CELL_TAGS = new Set(['td', 'th'])
const STATE_WORDS = new Set(['has', 'have', 'no', 'not', 'is', 'with', 'without', 'show', 'hide', 'js'])
const MAIN_ONLY_KEPT = new Set(['header', 'masthead'])

const FRAME_SKIP = 1
const FRAME_CHROME = 2
const FRAME_MAIN = 4
const FRAME_CHROME_IN_MAIN = 8
const FRAME_PRE = 16
const FRAME_TITLE = 32

interface Frame {
  name: string
  kind: number
}

function words(token: string): string[] {
  return token.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().split(/[-_:.]+/).filter((w) => w !== '')
}

function isChromeToken(token: string, names: ReadonlySet<string>, inMain: boolean): boolean {
  const w = words(token)
  const first = w[0]
  const last = w[w.length - 1]
  if (first === undefined || last === undefined || STATE_WORDS.has(first)) return false
  const hit = (word: string) => names.has(word) && !(inMain && MAIN_ONLY_KEPT.has(word))
  return hit(first) || hit(last)
}

function isChromeElement(name: string, attribs: Record<string, string>, names: ReadonlySet<string>, inMain: boolean): boolean {
  if (CHROME_TAGS.has(name)) return !(inMain && name === 'header')
  const role = attribs.role?.trim().toLowerCase()
  if (role !== undefined && CHROME_ROLES.includes(role)) return true
  if (attribs['aria-hidden'] === 'true') return true
  for (const attr of [attribs.id, attribs.class]) {
    if (attr === undefined || attr === '') continue
    for (const token of attr.split(/\s+/)) if (token !== '' && isChromeToken(token, names, inMain)) return true
  }
  return false
}

function resolveHtmlOptions(options: HtmlToTextOptions) {
  for (const key of ['includeTitle', 'dropChrome', 'preferMain'] as const) {
    const value: unknown = options[key]
    if (value !== undefined && typeof value !== 'boolean') {
      throw new DedupError('INVALID_OPTION', `Expected \`${key}\` to be a boolean, got ${describeValue(value)}.`)
    }
  }
  const chromeNames: unknown = options.chromeNames
  if (chromeNames !== undefined && (!Array.isArray(chromeNames) || !chromeNames.every((n) => typeof n === 'string'))) {
    throw new DedupError('INVALID_OPTION', `Expected \`chromeNames\` to be an array of strings, got ${describeValue(chromeNames)}.`)
  }
  return {
    includeTitle: options.includeTitle ?? false,
    dropChrome: options.dropChrome ?? true,
    preferMain: options.preferMain ?? true,
    chromeNames: chromeNames === undefined ? DEFAULT_CHROME_SET : new Set((chromeNames as string[]).map((n) => n.toLowerCase())),
  }
}

const DEFAULT_CHROME_SET: ReadonlySet<string> = new Set(DEFAULT_CHROME_NAMES)

function tidy(parts: string[]): string {
  return parts.join('').replace(/[ \t\f\v\r\u00a0]+/g, ' ').replace(/ ?\n[ \n]*/g, '\n').trim()
}

/**
 * Extracts the readable text of an HTML document or fragment. Drops scripts, styles, embedded
 * objects and (by default) site chrome; prefers the text of `main`/`article` when there is some;
 * block elements and `<br>` become line breaks, table cells spaces; entities are decoded. Source
 * line breaks outside `<pre>` are spaces, as a browser shows them. Never throws on broken HTML.
 *
 * @example htmlToText('<nav>首页</nav><article><p>正文&amp;内容</p></article>') // '正文&内容' ("body & content"; "home" dropped)
 */
export function htmlToText(html: string, options: HtmlToTextOptions = {}): string {
  const o = resolveHtmlOptions(options)
  const visible: string[] = [] // everything not skipped: the last resort
  const content: string[] = [] // without chrome
  const main: string[] = [] // inside main/article, without chrome below it
  const title: string[] = []
  let mainHasText = false
  let contentHasText = false
  let skip = 0
  let chrome = 0
  let inMain = 0
  let chromeInMain = 0
  let pre = 0
  let inTitle = 0
  const stack: Frame[] = []

  const brk = (s: string) => {
    visible.push(s)
    content.push(s)
    main.push(s)
  }

  const close = (frame: Frame) => {
    const k = frame.kind
    if (k & FRAME_SKIP) skip--
    if (k & FRAME_CHROME) chrome--
    if (k & FRAME_MAIN) inMain--
    if (k & FRAME_CHROME_IN_MAIN) chromeInMain--
    if (k & FRAME_PRE) pre--
    if (k & FRAME_TITLE) inTitle--
    if (BLOCK_TAGS.has(frame.name)) brk('\n')
  }

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        let kind = 0
        if (SKIP_TAGS.has(name) || attribs.hidden !== undefined) kind |= FRAME_SKIP
        else if (name === 'title') kind |= FRAME_TITLE
        else if (MAIN_TAGS.has(name) || attribs.role === 'main') kind |= FRAME_MAIN
        else if (o.dropChrome && !NEVER_CHROME_TAGS.has(name) && isChromeElement(name, attribs, o.chromeNames, inMain > 0)) {
          kind |= inMain > 0 ? FRAME_CHROME | FRAME_CHROME_IN_MAIN : FRAME_CHROME
        }
        if (name === 'pre' || name === 'textarea' || name === 'listing') kind |= FRAME_PRE
        if (kind & FRAME_SKIP) skip++
        if (kind & FRAME_CHROME) chrome++
        if (kind & FRAME_MAIN) inMain++
        if (kind & FRAME_CHROME_IN_MAIN) chromeInMain++
        if (kind & FRAME_PRE) pre++
        if (kind & FRAME_TITLE) inTitle++
        stack.push({ name, kind })
        if (BLOCK_TAGS.has(name)) brk('\n')
        else if (CELL_TAGS.has(name)) brk(' ')
      },
      onclosetag(name) {
        // htmlparser2 reports implied closes in stack order; still search, so a stray close
        // cannot leave a skip or chrome counter raised.
        for (let i = stack.length - 1; i >= 0; i--) {
          if (stack[i]!.name !== name) continue
          while (stack.length > i) close(stack.pop()!)
          return
        }
      },
      ontext(raw) {
        if (skip > 0) return
        if (inTitle > 0) {
          title.push(raw)
          return
        }
        const text = pre > 0 ? raw : raw.replace(/[\r\n]+/g, ' ')
        visible.push(text)
        if (chrome > 0) return
        const nonBlank = /\S/.test(text)
        content.push(text)
        if (nonBlank) contentHasText = true
        if (inMain > 0 && chromeInMain === 0) {
          main.push(text)
          if (nonBlank) mainHasText = true
        }
      },
    },
    { decodeEntities: true },
  )
  parser.write(typeof html === 'string' ? html : String(html ?? ''))
  parser.end()

  const body = tidy(o.preferMain && mainHasText ? main : contentHasText ? content : visible)
  if (!o.includeTitle) return body
  const head = tidy(title)
  return head === '' ? body : body === '' ? head : `${head}\n${body}`
}

const HTML_TAG_RE = /<(?:!doctype\s+html|(?:html|head|body|p|div|br|hr|span|a|table|tr|td|th|li|ul|ol|dl|dt|dd|h[1-6]|article|section|main|nav|header|footer|aside|script|style|img|meta|link|title|strong|em|b|i|u|pre|code|blockquote|form|input|iframe|font|center)(?:\s[^<>]*)?\/?|\/(?:html|head|body|p|div|span|a|table|tr|td|li|ul|ol|h[1-6]|article|section|main|b|i|u|strong|em|pre|code|title|font|center|script|style))>/i

/**
 * Cheap guess whether `text` is HTML: true when it holds a common HTML tag (`<p>`, `<div …>`,
 * `<br/>`, `</span>`, `<!DOCTYPE html>` …). `a < b` or `<file>` placeholders do not count.
 *
 * @example looksLikeHtml('<p>你好</p>') // true ("hello")
 */
export function looksLikeHtml(text: string): boolean {
  return typeof text === 'string' && text.includes('<') && HTML_TAG_RE.test(text)
}

/**
 * The title of an HTML document: its first non-empty `<title>`, else its `og:title`, else its
 * first `<h1>`; whitespace collapsed, entities decoded; `null` when there is none. Parsing stops
 * once a `<title>` is complete.
 *
 * @example extractTitle('<title>新闻 &amp; 公告</title>') // '新闻 & 公告' ("news & notices")
 */
export function extractTitle(html: string): string | null {
  let title: string | null = null
  let ogTitle: string | null = null
  let h1: string | null = null
  let where: 'title' | 'h1' | null = null
  let buffer = ''
  let skip = 0
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (SKIP_TAGS.has(name)) skip++
        else if (name === 'meta' && ogTitle === null && (attribs.property ?? attribs.name) === 'og:title') {
          const content = attribs.content?.replace(/\s+/g, ' ').trim()
          if (content) ogTitle = content
        } else if ((name === 'title' && title === null) || (name === 'h1' && h1 === null)) {
          where = name
          buffer = ''
        }
      },
      ontext(text) {
        if (where !== null && skip === 0) buffer += text
      },
      onclosetag(name) {
        if (SKIP_TAGS.has(name)) skip--
        else if (name === where) {
          const value = buffer.replace(/\s+/g, ' ').trim()
          where = null
          if (value === '') return
          if (name === 'title') {
            title = value
            parser.pause()
          } else h1 = value
        }
      },
    },
    { decodeEntities: true },
  )
  parser.write(typeof html === 'string' ? html : String(html ?? ''))
  if (title === null) parser.end()
  return title ?? ogTitle ?? h1
}
