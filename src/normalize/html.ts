/**
 * HTML → text with a real (streaming, forgiving) parser: htmlparser2's callbacks, no DOM built.
 */
import { Parser } from 'htmlparser2'
import { DedupError, describeValue } from '../errors.js'
import { solidLength } from '../unicode.js'

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
  /**
   * Drop link-dense blocks, whatever their names: a container (list, list item, non-data table,
   * `div`, `section` …; never `body`/`main`/`article`, nor a prose unit such as `p`) holding at least {@link LINK_DENSE_MIN_LINKS} links whose
   * link text is at least {@link LINK_DENSE_RATIO} of its text. Tables of contents, menus, tag
   * clouds and "see also" lists are such blocks; prose with links in it is not. A block is judged
   * on what is left of it once its link-dense children are gone, so a page's wrapper is never
   * dropped for the sidebar inside it. Needs `dropChrome`.
   * @default true
   */
  linkDensity?: boolean
}

/** Share of a block's (non-space) characters that are link text from which it is link-dense. */
export const LINK_DENSE_RATIO = 0.5
/** Links a block needs before it can be link-dense (a sentence with one link is prose). */
export const LINK_DENSE_MIN_LINKS = 3

/**
 * Words that mark an `id` or `class` token as site chrome. A token is split into words at `-`,
 * `_`, `:`, `.` and camelCase humps; it is chrome when its first or last word is in the list
 * (`site-footer`, `navBar`, `share-buttons`, `ad`), or when that word is `nav` run together with
 * another (`navheader`, `navfooter`, `topnav`; with `nav` in the list), but not when it starts with a state word
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
/** Phrasing elements: a chrome word in their class names a kind of text, not a part of the page. */
const INLINE_TAGS = new Set(['span', 'a', 'em', 'strong', 'b', 'i', 'u', 's', 'small', 'big', 'font', 'code', 'kbd', 'samp', 'var', 'tt', 'sup', 'sub', 'abbr', 'cite', 'q', 'mark', 'time', 'label', 'bdi', 'bdo', 'del', 'ins', 'dfn'])
const STATE_WORDS = new Set(['has', 'have', 'no', 'not', 'is', 'with', 'without', 'show', 'hide', 'js'])
const MAIN_ONLY_KEPT = new Set(['header', 'masthead'])

const FRAME_SKIP = 1
const FRAME_CHROME = 2
const FRAME_MAIN = 4
const FRAME_CHROME_IN_MAIN = 8
const FRAME_PRE = 16
const FRAME_TITLE = 32
/** Named as a sidebar only (see ASIDE_NAMES): kept as text while open, judged at its close. */
const FRAME_ASIDE = 64

/**
 * Chrome words that also name a boxed aside of the text itself: DocBook's `sidebar` (DocBook XSL
 * and Publican write `<div class="sidebar">`), Sphinx's `sidebar` directive. A page's sidebar
 * column is links, forms and labels once its link-dense blocks are gone; an aside of the text is
 * prose. So a block named only by these words stays when what is left of it reads as prose
 * (ASIDE_PROSE_MIN_CHARS, a sentence end, links under ASIDE_MAX_LINK_SHARE of it).
 */
const ASIDE_NAMES = new Set(['sidebar', 'side'])
const ASIDE_PROSE_MIN_CHARS = 40
const ASIDE_MAX_LINK_SHARE = 0.25
/**
 * A `main`/`article` region left with less than half the text its link-dense blocks
 * held is a page whose content is a list of links (a module index, a link collection): its
 * region is then taken with those blocks.
 */
const MAIN_LIST_SHARE = 0.5

interface Frame {
  name: string
  kind: number
  /** Lengths of `content` and `main` when the element opened: dropping it truncates back to them. */
  contentAt: number
  mainAt: number
  /** Non-space characters of kept text inside, of them inside links, and links (kept children only). */
  chars: number
  linkChars: number
  links: number
  /** A `table` that has a header, caption or column groups: data, never link-dense. */
  dataTable?: boolean
  /** Non-space characters of link-dense children dropped from it. */
  dropped?: number
}

// Prose units: their links count towards an enclosing block's link density only when the unit is
// nothing but links (a paragraph holding one link, as in a footer row or a "see also" list); a
// sentence with links in it is text, so a section of such sentences is never link-dense.
const PROSE_UNITS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'figcaption', 'caption', 'address', 'pre'])
const LINK_ONLY_RATIO = 0.9
/**
 * A block left with at most this many characters once a link-dense child went, at most
 * LABEL_MAX_SHARE of what went, and no sentence in it, was that child's label. Labels of tables of
 * contents and menus ("目录", "Contents", "On this page") are a word or a short phrase.
 */
const LABEL_MAX_CHARS = 24
const LABEL_MAX_SHARE = 0.1
/** A label is a word or a phrase; text with a sentence's end in it is prose, however short. */
const SENTENCE_END_RE = /[。！？!?；;]|\.(?:\s|$)/u

// Parts only data tables have (Readability marks data tables by them too): a table holding one is
// content, however many links its cells carry (package lists, reference tables).
const DATA_TABLE_PARTS = new Set(['thead', 'tfoot', 'caption', 'colgroup', 'th'])

// Containers judged by link density: lists, tables and generic blocks, where menus and tables of
// contents live. Not prose units (`p`, headings, quotes): a sentence dense with links is text.
const LINK_DENSE_CANDIDATES = new Set([
  'div', 'section', 'nav', 'aside', 'header', 'footer', 'ul', 'ol', 'dl', 'dd', 'dt', 'li', 'menu',
  'table', 'tbody', 'tr', 'td', 'th', 'center', 'details', 'form', 'fieldset',
])

/** Characters of `s` that are not white space (ASCII, no-break and ideographic spaces). */
function words(token: string): string[] {
  return token.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase().split(/[-_:.]+/).filter((w) => w !== '')
}

function isChromeToken(token: string, names: ReadonlySet<string>, inMain: boolean): boolean {
  const w = words(token)
  const first = w[0]
  const last = w[w.length - 1]
  if (first === undefined || last === undefined || STATE_WORDS.has(first)) return false
  const hit = (word: string) => names.has(word) && !(inMain && MAIN_ONLY_KEPT.has(word))
  // Names written as one word: `navheader`, `navfooter` (DocBook), `navlinks`, `topnav`, `sidenav`.
  const compound = (word: string) => names.has('nav') && word.length >= 6 && (word.startsWith('nav') || word.endsWith('nav')) && !/^navig|^navy|^canva/.test(word)
  return hit(first) || hit(last) || compound(first) || compound(last)
}

/** Not chrome; chrome; named chrome only by ASIDE_NAMES (judged at its close). */
const NOT_CHROME = 0
const CHROME = 1
const ASIDE = 2

function chromeKind(name: string, attribs: Record<string, string>, names: ReadonlySet<string>, asideFree: ReadonlySet<string>, inMain: boolean, inPre: boolean): number {
  if (CHROME_TAGS.has(name)) return inMain && name === 'header' ? NOT_CHROME : CHROME
  const role = attribs.role?.trim().toLowerCase()
  if (role !== undefined && CHROME_ROLES.includes(role)) return CHROME
  if (attribs['aria-hidden'] === 'true') return CHROME
  // Names mark parts of a page, which are blocks: inside a line or a code listing a class names
  // a kind of text (Doxygen and highlighters mark code comments `<span class="comment">`).
  if (inPre || INLINE_TAGS.has(name)) return NOT_CHROME
  let aside = false
  for (const attr of [attribs.id, attribs.class]) {
    if (attr === undefined || attr === '') continue
    for (const token of attr.split(/\s+/)) {
      if (token === '' || !isChromeToken(token, names, inMain)) continue
      if (!isChromeToken(token, asideFree, inMain)) aside = true
      else return CHROME
    }
  }
  return aside ? ASIDE : NOT_CHROME
}

function resolveHtmlOptions(options: HtmlToTextOptions) {
  for (const key of ['includeTitle', 'dropChrome', 'preferMain', 'linkDensity'] as const) {
    const value: unknown = options[key]
    if (value !== undefined && typeof value !== 'boolean') {
      throw new DedupError('INVALID_OPTION', `Expected \`${key}\` to be a boolean, got ${describeValue(value)}.`)
    }
  }
  const chromeNames: unknown = options.chromeNames
  if (chromeNames !== undefined && (!Array.isArray(chromeNames) || !chromeNames.every((n) => typeof n === 'string'))) {
    throw new DedupError('INVALID_OPTION', `Expected \`chromeNames\` to be an array of strings, got ${describeValue(chromeNames)}.`)
  }
  const names = chromeNames === undefined ? DEFAULT_CHROME_SET : new Set((chromeNames as string[]).map((n) => n.toLowerCase()))
  return {
    includeTitle: options.includeTitle ?? false,
    dropChrome: options.dropChrome ?? true,
    preferMain: options.preferMain ?? true,
    linkDensity: (options.dropChrome ?? true) && (options.linkDensity ?? true),
    chromeNames: names,
    asideFree: names === DEFAULT_CHROME_SET ? DEFAULT_ASIDE_FREE : withoutAsides(names),
  }
}

const withoutAsides = (names: ReadonlySet<string>): ReadonlySet<string> => new Set([...names].filter((n) => !ASIDE_NAMES.has(n)))
const DEFAULT_CHROME_SET: ReadonlySet<string> = new Set(DEFAULT_CHROME_NAMES)
const DEFAULT_ASIDE_FREE = withoutAsides(DEFAULT_CHROME_SET)

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
  let skip = 0
  let inLink = 0
  let inDataTable = 0
  let chrome = 0
  let inMain = 0
  let chromeInMain = 0
  let pre = 0
  let inTitle = 0
  const stack: Frame[] = []
  const root: Frame = { name: '#root', kind: 0, contentAt: 0, mainAt: 0, chars: 0, linkChars: 0, links: 0 }
  let mainDropped = 0 // characters of link-dense blocks dropped inside main/article

  const brk = (s: string) => {
    visible.push(s)
    content.push(s)
    main.push(s)
  }

  const close = (frame: Frame) => {
    const k = frame.kind
    if (frame.name === 'a') inLink--
    const parent = stack[stack.length - 1] ?? root
    if (frame.dataTable === true) {
      // Its cells' links are the table's content: they count as text for the blocks around it.
      inDataTable--
      frame.linkChars = 0
      frame.links = 0
    }
    if (PROSE_UNITS.has(frame.name) && frame.linkChars < LINK_ONLY_RATIO * frame.chars) {
      frame.linkChars = 0
      frame.links = 0
    }
    const linkDense = o.linkDensity && inDataTable === 0 && LINK_DENSE_CANDIDATES.has(frame.name) &&
      frame.links >= LINK_DENSE_MIN_LINKS && frame.linkChars >= LINK_DENSE_RATIO * frame.chars
    // What is left of a block whose link-dense child was dropped may be only that child's label
    // ("目录", "Contents", "On this page" above a table of contents): it goes with it.
    const hasSentence = () => SENTENCE_END_RE.test(content.slice(frame.contentAt).join(''))
    const label = o.linkDensity && inDataTable === 0 && LINK_DENSE_CANDIDATES.has(frame.name) && frame.dropped !== undefined &&
      frame.chars <= LABEL_MAX_CHARS && frame.chars <= LABEL_MAX_SHARE * frame.dropped && !hasSentence()
    // A block named a sidebar that is not prose once its link-dense children went: chrome after all.
    const asideChrome = (k & FRAME_ASIDE) !== 0 &&
      !(frame.chars >= ASIDE_PROSE_MIN_CHARS && frame.linkChars < ASIDE_MAX_LINK_SHARE * frame.chars && hasSentence())
    if (linkDense || label || asideChrome) {
      // Its text goes, and its parent is judged without it.
      content.length = frame.contentAt
      main.length = Math.min(main.length, frame.mainAt)
      if (linkDense) {
        parent.dropped = (parent.dropped ?? 0) + frame.chars
        if (inMain > 0 && chromeInMain === 0) mainDropped += frame.chars
      }
    } else {
      parent.chars += frame.chars
      parent.linkChars += frame.linkChars
      parent.links += frame.links
    }
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
        if (SKIP_TAGS.has(name)) kind |= FRAME_SKIP
        else if (name === 'title') kind |= FRAME_TITLE
        else if (MAIN_TAGS.has(name) || attribs.role === 'main') kind |= FRAME_MAIN
        else if (o.dropChrome && !NEVER_CHROME_TAGS.has(name)) {
          const c = chromeKind(name, attribs, o.chromeNames, o.asideFree, inMain > 0, pre > 0)
          if (c === CHROME) kind |= inMain > 0 ? FRAME_CHROME | FRAME_CHROME_IN_MAIN : FRAME_CHROME
          else if (c === ASIDE && chrome === 0) kind |= FRAME_ASIDE
        }
        if (name === 'pre' || name === 'textarea' || name === 'listing') kind |= FRAME_PRE
        if (kind & FRAME_SKIP) skip++
        if (kind & FRAME_CHROME) chrome++
        if (kind & FRAME_MAIN) inMain++
        if (kind & FRAME_CHROME_IN_MAIN) chromeInMain++
        if (kind & FRAME_PRE) pre++
        if (kind & FRAME_TITLE) inTitle++
        if (o.linkDensity && DATA_TABLE_PARTS.has(name)) {
          for (let i = stack.length - 1; i >= 0; i--) {
            const f = stack[i]!
            if (f.name !== 'table') continue
            if (f.dataTable !== true) {
              f.dataTable = true
              inDataTable++
            }
            break
          }
        }
        if (name === 'a') {
          inLink++
          if (attribs.href !== undefined && chrome === 0 && skip === 0) (stack[stack.length - 1] ?? root).links++
        }
        stack.push({ name, kind, contentAt: content.length, mainAt: main.length, chars: 0, linkChars: 0, links: 0 })
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
        content.push(text)
        if (inMain > 0 && chromeInMain === 0) main.push(text)
        if (o.linkDensity) {
          const top = stack[stack.length - 1] ?? root
          const n = solidLength(text)
          top.chars += n
          if (inLink > 0) top.linkChars += n
        }
      },
    },
    { decodeEntities: true },
  )
  parser.write(typeof html === 'string' ? html : String(html ?? ''))
  parser.end()

  let mainText = o.preferMain ? tidy(main) : ''
  if (mainText !== '' && mainDropped > 0 && solidLength(mainText) < MAIN_LIST_SHARE * mainDropped) {
    // The region is a list of links: its text with them (the rest of the page is not needed).
    mainText = htmlToText(html, { ...options, linkDensity: false, includeTitle: false })
  }
  const body = mainText !== '' ? mainText : (tidy(content) || tidy(visible))
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

/** How far into a page {@link htmlSiteKey} looks: the head, where pages name their stylesheets. */
const SITE_SCAN_CHARS = 32_768
const LINK_TAG_RE = /<link\b[^>]*>/gi
const META_GENERATOR_RE = /<meta\b[^>]*\bname\s*=\s*["']?generator\b[^>]*>/i
const ATTR_RE = (name: string) => new RegExp(`\\b${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, 'i')
const HREF_RE = ATTR_RE('href')
const REL_RE = ATTR_RE('rel')
const CONTENT_RE = ATTR_RE('content')

function attr(tag: string, re: RegExp): string | null {
  const m = re.exec(tag)
  return m === null ? null : (m[1] ?? m[2] ?? m[3] ?? '')
}

/**
 * A signature of the site an HTML page belongs to, from its head: the stylesheets it links (paths
 * without `../` and `./` steps, query or fragment, so pages at every depth of one site agree) and
 * its `generator` meta. Pages of one site share them; the template layer uses it as the page's
 * host when no URL comes with the document. Null for a page that names neither.
 *
 * @example htmlSiteKey('<link rel="stylesheet" href="../../default.css">') // 'html:default.css|'
 */
export function htmlSiteKey(html: string): string | null {
  const head = html.length > SITE_SCAN_CHARS ? html.slice(0, SITE_SCAN_CHARS) : html
  const sheets = new Set<string>()
  for (const m of head.matchAll(LINK_TAG_RE)) {
    const tag = m[0]
    if (!/\bstylesheet\b/i.test(attr(tag, REL_RE) ?? '')) continue
    const href = (attr(tag, HREF_RE) ?? '').replace(/[?#].*$/s, '').replace(/^(?:\.{1,2}\/)+/, '').trim()
    if (href !== '') sheets.add(href)
  }
  const generatorTag = META_GENERATOR_RE.exec(head)?.[0]
  const generator = generatorTag === undefined ? '' : (attr(generatorTag, CONTENT_RE) ?? '').trim()
  if (sheets.size === 0 && generator === '') return null
  return `html:${[...sheets].sort().join(' ')}|${generator}`
}
