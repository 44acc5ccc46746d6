import { Parser } from 'htmlparser2'

/** A part of an HTML page that starts at a splitting heading (or at the top). */
export interface HtmlSection {
  /** Text of the heading that opened the section; '' for the part before the first one. */
  heading: string
  /** `id` of the heading or of an anchor inside it, when present. */
  anchor: string | null
  text: string
}

/** What to keep of a page. */
export interface HtmlTextOptions {
  /** Only text inside the first element for which this is true counts; default: the whole page. */
  root?: (name: string, attribs: Readonly<Record<string, string>>) => boolean
  /** Elements whose whole subtree is dropped (besides script, style, noscript, head). */
  skip?: (name: string, attribs: Readonly<Record<string, string>>) => boolean
  /** Heading elements that start a new section, e.g. `['h2', 'h3']`; default: none (one section). */
  splitAt?: readonly string[]
  /**
   * Keep elements with a `hidden` attribute. LibreOffice help hides every platform variant and
   * lets a script reveal one; there the caller keeps hidden text and skips the macOS variant.
   * @default false
   */
  keepHidden?: boolean
}

/** The page's `<title>` and its text, split into sections. */
export interface HtmlText {
  title: string
  sections: HtmlSection[]
}

const BLOCK = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav',
  'ol', 'p', 'pre', 'section', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'caption',
])
const CELL = new Set(['td', 'th'])
const ALWAYS_SKIP = new Set(['script', 'style', 'noscript', 'head', 'template', 'svg'])
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr'])

/**
 * Plain text of an HTML page, as a reader sees it: no script/style, no `hidden` elements,
 * block elements on their own lines, table cells separated by a space.
 * @example htmlToText('<title>T</title><p>一</p><h2 id="a">二</h2><p>三</p>', { splitAt: ['h2'] })
 * // → { title: 'T', sections: [{ heading: '', anchor: null, text: '一' }, { heading: '二', anchor: 'a', text: '三' }] }
 */
export function htmlToText(html: string, options: HtmlTextOptions = {}): HtmlText {
  const splitAt = new Set(options.splitAt ?? [])
  let title = ''
  let inTitle = false
  let depth = 0
  let skipDepth = -1 // depth of the element being skipped, -1 when none
  let rootDepth = options.root === undefined ? 0 : -1 // depth of the root element, -1 before it
  let rootDone = false
  let preDepth = 0
  let headingDepth = -1
  let heading = ''
  let anchor: string | null = null
  const sections: HtmlSection[] = []
  let current: HtmlSection = { heading: '', anchor: null, text: '' }

  const inRoot = (): boolean => rootDepth >= 0 && !rootDone
  const newline = (): void => {
    if (current.text !== '' && !current.text.endsWith('\n')) current.text += '\n'
  }

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const isVoid = VOID.has(name)
        if (!isVoid) depth++
        if (name === 'title' && skipDepth < 0) inTitle = true
        if (skipDepth >= 0) return
        if (ALWAYS_SKIP.has(name) || (options.keepHidden !== true && 'hidden' in attribs) || options.skip?.(name, attribs) === true) {
          if (name === 'head') return // <title> lives in <head>; skipping is by the inTitle flag
          if (!isVoid) skipDepth = depth
          return
        }
        if (rootDepth < 0 && !rootDone && options.root?.(name, attribs) === true) rootDepth = depth
        if (!inRoot()) return
        if (splitAt.has(name)) {
          newline()
          headingDepth = depth
          heading = ''
          anchor = attribs.id ?? null
          return
        }
        if (headingDepth >= 0 && anchor === null && (attribs.id !== undefined || attribs.name !== undefined)) {
          anchor = attribs.id ?? attribs.name ?? null
        }
        if (name === 'pre') preDepth++
        if (BLOCK.has(name)) newline()
        else if (CELL.has(name) && current.text !== '' && !/[\s]$/.test(current.text)) current.text += ' '
      },
      ontext(data) {
        if (inTitle) {
          title += data
          return
        }
        if (skipDepth >= 0 || !inRoot()) return
        const text = preDepth > 0 ? data : data.replace(/\s+/g, ' ')
        if (headingDepth >= 0) {
          heading += text
          return
        }
        if (preDepth === 0 && (current.text === '' || current.text.endsWith('\n') || current.text.endsWith(' '))) {
          current.text += text.replace(/^ /, '')
        } else {
          current.text += text
        }
      },
      onclosetag(name) {
        const isVoid = VOID.has(name)
        if (name === 'title') inTitle = false
        if (!isVoid) {
          if (skipDepth === depth) skipDepth = -1
          else if (skipDepth < 0 && inRoot()) {
            if (depth === headingDepth) {
              headingDepth = -1
              sections.push(current)
              current = { heading: heading.replace(/\s+/g, ' ').trim(), anchor, text: '' }
            } else {
              if (name === 'pre') preDepth = Math.max(0, preDepth - 1)
              if (BLOCK.has(name)) newline()
            }
            if (depth === rootDepth && options.root !== undefined) rootDone = true
          }
          depth--
        } else if (skipDepth < 0 && inRoot() && BLOCK.has(name)) {
          newline()
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  )
  parser.write(html)
  parser.end()
  sections.push(current)

  const clean = (s: string): string =>
    s
      .split('\n')
      .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
      .filter((l) => l !== '')
      .join('\n')
  return {
    title: title.replace(/\s+/g, ' ').trim(),
    sections: sections
      .map((s) => ({ ...s, text: clean(s.text) }))
      .filter((s, i) => i > 0 || s.text !== '' || s.heading !== ''),
  }
}
