/**
 * More real documentation sites for eval kind (a) (real-html.ts), each from another HTML
 * generator, each as Debian ships it (fetched like the corpus packages: `apt-get download` +
 * `dpkg-deb -x` under `.cache/corpus/pkgs/`, scripts/corpus/packages.ts):
 *
 * | site | package | generator | chrome around the main text |
 * |---|---|---|---|
 * | `publican-handbook` | `debian-handbook` (zh-CN) | Publican (DocBook) | banner, prev/home/next bars, the chapter's TOC |
 * | `docbook-install` | `installation-guide-amd64` (zh_CN) | DocBook XSL, chunked | navheader/navfooter tables, chapter TOCs |
 * | `docbook-install-arm64` | `installation-guide-arm64` (zh_CN) | the same guide built for arm64: real near-duplicates of the amd64 pages (27 files identical, 58 differ) | as above |
 * | `docbook-faq` | `debian-faq-zh-cn` | DocBook XSL, chunked | navheader/navfooter, chapter TOC |
 * | `docbook-maint` | `maint-guide-zh-cn` | DocBook XSL, chunked | navheader/navfooter, chapter TOC |
 * | `texinfo-lilypond` | `lilypond-doc-html-zh` | texi2html (LilyPond's) | nav tables, node menus, footer, a TOC frame listing the whole manual |
 * | `doxygen-opencc` | `libopencc-doc` | Doxygen | title area, menu bar, search, breadcrumbs, footer |
 * | `sphinx-requests` | `python-requests-doc` | Sphinx (alabaster) | sidebar with the manual's TOC, relations, search, footer |
 * | `mkdocs-mkdocs` | `mkdocs-doc` | MkDocs (mkdocs theme) | navbar with the whole manual's menu, page-TOC sidebar, search modals, footer |
 * | `asciidoctor-kicad` | `kicad-doc-zh` | Asciidoctor (`toc2 toc-left`), one page per manual, chunked per level-2 section | header and a left TOC sidebar listing the whole manual, footer |
 *
 * The last three are in English: there Latin words are the content (a minority of the kind).
 * Each site's oracle main text is cut by the generator's known structure: the main element
 * (`main`), minus the navigation the generator puts inside it (`skip`). Pages whose main text is
 * under 30 characters (chapter title pages whose body is a menu) carry too little to label.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { Parser } from 'htmlparser2'
import { htmlToText } from '../corpus/html.js'
import { ensurePackageRoot } from '../corpus/packages.js'
import type { Rng } from './prng.js'

type Match = (name: string, attribs: Readonly<Record<string, string>>, depth: number) => boolean

/** How a site is laid out and where its main text is. */
export interface SiteSpec {
  /** Part label of the site's pages; copies re-wrapped from it are `<name>-rewrapped`. */
  name: string
  pkg: string
  /** Folder of the pages inside the unpacked package. */
  dir: string
  /** Pages to take (path relative to `dir`). */
  accept: (rel: string) => boolean
  /** URL of a page on its site. */
  url: (rel: string) => string
  /** The main element (the first, outermost one matched). `depth` 2 is a child of `body`. */
  main: Match
  /** Navigation inside the main element (dropped from the main text, and from copies). */
  skip?: Match
  /** Pages sampled (seeded) when the site has more. @default all */
  sample?: number
  /**
   * A one-page manual served in chunks, as a chunked build of it or a section crawler sees it:
   * each `part` element inside the `container` becomes a page of its own, with everything around
   * the container (header, the whole manual's TOC sidebar, footer) kept. `main` is then unused.
   */
  chunk?: { container: Match; part: Match }
}

const cls = (a: Readonly<Record<string, string>>): string[] => (a.class ?? '').split(/\s+/)
const hasClass = (a: Readonly<Record<string, string>>, ...names: string[]): boolean => cls(a).some((c) => names.includes(c))

/** DocBook XSL chunked output: the page's one body-level `div` besides navheader/navfooter. */
const DOCBOOK_MAIN: Match = (n, a, depth) => n === 'div' && depth === 2 && !hasClass(a, 'navheader', 'navfooter')
const DOCBOOK_SKIP: Match = (n, a) => n === 'div' && hasClass(a, 'toc', 'navheader', 'navfooter', 'list-of-tables', 'list-of-figures', 'list-of-examples')

/** The sites of kind (a) besides LibreOffice help and Debian Reference. */
export const EXTRA_SITES: readonly SiteSpec[] = [
  {
    name: 'publican-handbook',
    pkg: 'debian-handbook',
    dir: 'usr/share/doc/debian-handbook/html/zh-CN',
    accept: (rel) => /^[^/]+\.html$/.test(rel),
    url: (rel) => `https://debian-handbook.info/browse/zh-CN/stable/${rel}`,
    // The body-level chapter/section/appendix/preface div between the two docnav bars.
    main: (n, a, depth) => n === 'div' && depth === 2 && a.id !== 'banner',
    skip: (n, a) => (n === 'div' && hasClass(a, 'toc')) || (n === 'ul' && hasClass(a, 'docnav')),
  },
  {
    name: 'docbook-install',
    pkg: 'installation-guide-amd64',
    dir: 'usr/share/doc/installation-guide-amd64/zh_CN',
    accept: (rel) => rel.endsWith('.html'),
    url: (rel) => `https://www.debian.org/releases/stable/amd64/${rel.replace(/\.html$/, '.zh-cn.html')}`,
    main: DOCBOOK_MAIN,
    skip: DOCBOOK_SKIP,
  },
  {
    // The same guide built for another architecture: its own real near-duplicates of the amd64 pages.
    name: 'docbook-install-arm64',
    pkg: 'installation-guide-arm64',
    dir: 'usr/share/doc/installation-guide-arm64/zh_CN',
    accept: (rel) => rel.endsWith('.html'),
    url: (rel) => `https://www.debian.org/releases/stable/arm64/${rel.replace(/\.html$/, '.zh-cn.html')}`,
    main: DOCBOOK_MAIN,
    skip: DOCBOOK_SKIP,
  },
  {
    name: 'docbook-faq',
    pkg: 'debian-faq-zh-cn',
    dir: 'usr/share/doc/debian/FAQ/zh-cn',
    accept: (rel) => rel.endsWith('.html'),
    url: (rel) => `https://www.debian.org/doc/manuals/debian-faq/${rel}`,
    main: DOCBOOK_MAIN,
    skip: DOCBOOK_SKIP,
  },
  {
    name: 'docbook-maint',
    pkg: 'maint-guide-zh-cn',
    dir: 'usr/share/doc/maint-guide-zh-cn/html',
    accept: (rel) => rel.endsWith('.html'),
    url: (rel) => `https://www.debian.org/doc/manuals/maint-guide/${rel}`,
    main: DOCBOOK_MAIN,
    skip: DOCBOOK_SKIP,
  },
  {
    name: 'texinfo-lilypond',
    pkg: 'lilypond-doc-html-zh',
    dir: 'usr/share/doc/lilypond/html/Documentation',
    // Split manuals only: the one-page "big page" variants hold every node at once.
    accept: (rel) => rel.endsWith('.zh.html') && rel.includes('/'),
    url: (rel) => `https://lilypond.org/doc/v2.24/Documentation/${rel.replace(/\.zh\.html$/, '.zh.html')}`,
    main: (n, a) => n === 'div' && a.id === 'main',
    skip: (n, a) => (n === 'table' && hasClass(a, 'nav_table', 'menu')) || (n === 'div' && a.id === 'footer'),
  },
  {
    name: 'doxygen-opencc',
    pkg: 'libopencc-doc',
    dir: 'usr/share/doc/opencc/html',
    accept: (rel) => /^[^/]+\.html$/.test(rel),
    url: (rel) => `https://byvoid.github.io/OpenCC/1.1.6/${rel}`,
    main: (n, a) => n === 'div' && hasClass(a, 'contents'),
    sample: 80,
  },
  {
    name: 'sphinx-requests',
    pkg: 'python-requests-doc',
    dir: 'usr/share/doc/python-requests-doc/html',
    accept: (rel) => rel.endsWith('.html') && !/^(genindex|search|py-modindex)\.html$/.test(rel),
    url: (rel) => `https://requests.readthedocs.io/en/latest/${rel}`,
    main: (n, a) => n === 'div' && a.role === 'main',
    skip: (n, a) => n === 'a' && hasClass(a, 'headerlink'),
  },
  {
    name: 'mkdocs-mkdocs',
    pkg: 'mkdocs-doc',
    dir: 'usr/share/doc/mkdocs/html',
    accept: (rel) => rel.endsWith('.html') && !/^(404|search)/.test(rel),
    url: (rel) => `https://www.mkdocs.org/${rel.replace(/(index)?\.html$/, '')}`,
    main: (n, a) => n === 'div' && a.role === 'main',
    skip: (n, a) => n === 'a' && hasClass(a, 'headerlink'),
  },
  {
    name: 'asciidoctor-kicad',
    pkg: 'kicad-doc-zh',
    dir: 'usr/share/doc/kicad/help/zh',
    accept: (rel) => rel.endsWith('.html'),
    url: (rel) => `https://docs.kicad.org/6.0/zh/${rel.replace(/\.html$/, '')}/`,
    main: () => false,
    chunk: { container: (n, a) => n === 'div' && a.id === 'content', part: (n, a) => n === 'div' && hasClass(a, 'sect2') },
    sample: 120,
  },
]

/**
 * Five more sites, first run as a held-out test of the extraction (issue 15: docs/EVAL.md, "Held-out
 * sites"), then kept as their own stream (`more-sites`) so the all-sites figure stays comparable:
 *
 * | site | package | generator | chrome around the main text |
 * |---|---|---|---|
 * | `docbook-gimp` | `gimp-help-zh-cn` | DocBook XSL chunked, GIMP's stylesheets; zh with untranslated English paragraphs | navheader/navfooter tables with image links |
 * | `docbook-edu` | `debian-edu-doc-zh-cn` | DocBook XSL, one page per manual (bookworm and bullseye: real near-duplicates across releases), chunked per top-level section | navheader, the manual's title page and its whole TOC, navfooter |
 * | `sphinx-devref` | `developers-reference` (English) | Sphinx, `nature` theme, chunked per second-level section | related bars, sidebar with the chapter's local TOC, search box, footer |
 * | `asciidoc-git` | `git-doc` (English) | AsciiDoc (Python) xhtml11, manual pages and guides | header with the NAME line, footer; shared option lists included in many pages |
 * | `javadoc-jsoup` | `libjsoup-java-doc` (English) | javadoc (JDK 11) | top/bottom nav bars, skip links, package/class index pages |
 */
export const MORE_SITES: readonly SiteSpec[] = [
  {
    name: 'docbook-gimp',
    pkg: 'gimp-help-zh-cn',
    dir: 'usr/share/gimp/2.0/help/zh_CN',
    accept: (rel) => /^[^/]+\.html$/.test(rel),
    url: (rel) => `https://docs.gimp.org/2.10/zh_CN/${rel}`,
    main: DOCBOOK_MAIN,
    skip: DOCBOOK_SKIP,
    sample: 150,
  },
  {
    name: 'docbook-edu',
    pkg: 'debian-edu-doc-zh-cn',
    dir: 'usr/share/doc/debian-edu-doc-zh-cn',
    accept: (rel) => /^debian-edu-[a-z]+-manual\.html$/.test(rel),
    url: (rel) => `https://jenkins.debian.net/userContent/debian-edu-doc/debian-edu-doc-zh-CN/${rel.replace(/\.html$/, '')}/`,
    main: () => false,
    chunk: { container: (n, a, depth) => n === 'div' && depth === 2 && hasClass(a, 'article', 'book'), part: (n, a) => n === 'div' && hasClass(a, 'section') },
    skip: DOCBOOK_SKIP,
  },
  {
    name: 'sphinx-devref',
    pkg: 'developers-reference',
    dir: 'usr/share/developers-reference',
    accept: (rel) => rel.endsWith('.html') && !/^(genindex|search|index|developers-reference)\.html$/.test(rel),
    url: (rel) => `https://www.debian.org/doc/manuals/developers-reference/${rel.replace(/\.html$/, '')}/`,
    main: () => false,
    // Second-level sections of the chapter's one top-level section.
    chunk: { container: (n, a) => n === 'div' && a.role === 'main', part: (n, _a, depth) => n === 'section' && depth === 1 },
    skip: (n, a) => n === 'a' && hasClass(a, 'headerlink'),
  },
  {
    name: 'asciidoc-git',
    pkg: 'git-doc',
    dir: 'usr/share/doc/git-doc',
    accept: (rel) => rel.endsWith('.html') && rel !== 'user-manual.html',
    url: (rel) => `https://git-scm.com/docs/${rel.replace(/\.html$/, '')}`,
    main: (n, a) => n === 'div' && a.id === 'content',
    sample: 150,
  },
  {
    name: 'javadoc-jsoup',
    pkg: 'libjsoup-java-doc',
    dir: 'usr/share/doc/libjsoup-java/api',
    accept: (rel) => rel.endsWith('.html') && !/^(index|search)\.html$/.test(rel),
    url: (rel) => `https://jsoup.org/apidocs/${rel}`,
    main: (n) => n === 'main',
    sample: 120,
  },
]

/** Character span `[start, end)` of an element in the source. */
export interface Span {
  start: number
  end: number
}

/** An element found by {@link elementSpans}: its outer and inner spans and its depth. */
export interface ElementSpan {
  outer: Span
  inner: Span
  depth: number
}

/**
 * Spans of the elements `match` selects, outermost only, in document order of their closing.
 * `depth` is the element's depth (`html` 0, `body` 1).
 * @example elementSpans('<div id="x">a</div>', (n, a) => a.id === 'x') // → [{ outer: {start:0,end:18}, inner: {start:12,end:13}, depth: 0 }]
 */
export function elementSpans(html: string, match: Match): ElementSpan[] {
  const out: ElementSpan[] = []
  const stack: { name: string; hit: boolean; start: number; innerStart: number }[] = []
  let inside = 0
  const parser = new Parser({
    onopentag(name, attribs) {
      const hit = inside === 0 && match(name, attribs, stack.length)
      if (hit) inside++
      stack.push({ name, hit, start: parser.startIndex, innerStart: parser.endIndex + 1 })
    },
    onclosetag(name) {
      const top = stack.pop()
      if (top === undefined || top.name !== name) return
      if (!top.hit) return
      inside--
      out.push({ outer: { start: top.start, end: parser.endIndex + 1 }, inner: { start: top.innerStart, end: parser.startIndex }, depth: stack.length })
    },
  }, { decodeEntities: true, lowerCaseTags: true, recognizeSelfClosing: true })
  parser.write(html)
  parser.end()
  return out
}

/** `html` without the (outermost) elements `match` selects. */
export function cutElements(html: string, match: Match): string {
  const spans = elementSpans(html, match).map((s) => s.outer).sort((a, b) => a.start - b.start)
  let out = ''
  let at = 0
  for (const s of spans) {
    if (s.start < at) continue
    out += html.slice(at, s.start)
    at = s.end
  }
  return out + html.slice(at)
}

/** Plain text of an HTML fragment by the corpus reader (independent of simdup's). */
export function fragmentText(fragment: string): string {
  return htmlToText(`<html><body>${fragment}</body></html>`).sections
    .map((s) => (s.heading !== '' ? `${s.heading}\n${s.text}` : s.text)).join('\n').trim()
}

/** A real page of a site, ready for the stream. */
export interface SitePage {
  id: string
  url: string
  html: string
  /** The oracle's main text. */
  main: string
  label: string
  /** The main part's HTML without the generator's navigation: what a copy carries to other chrome. */
  mainHtml: string
  /** This page's chrome around other main HTML (a re-wrapped copy). */
  wrap: (mainHtml: string) => string
}

/** Regular files under `dir` (symlinks not followed), sorted, that `accept` takes. */
export function walk(dir: string, accept: (path: string) => boolean = () => true): string[] {
  const out: string[] = []
  const visit = (d: string): void => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e)
      const st = lstatSync(p)
      if (st.isDirectory()) visit(p)
      else if (st.isFile() && accept(p)) out.push(p)
    }
  }
  visit(dir)
  return out
}

/**
 * The part of the main element that content fills: its inner HTML without the leading and trailing
 * runs of navigation children (LilyPond's nav tables and footer stay around a copy's content).
 */
function contentSlot(html: string, main: ElementSpan, skip: Match | undefined): Span {
  const inner = html.slice(main.inner.start, main.inner.end)
  // Children of the main element open and close in the same order, so flags line up with spans.
  const flags: boolean[] = []
  const children = elementSpans(inner, (n, a, depth) => {
    if (depth !== 0) return false
    flags.push(skip?.(n, a, depth) === true)
    return true
  }).sort((a, b) => a.outer.start - b.outer.start)
  const aligned = flags.length === children.length
  const isSkip = (c: ElementSpan): boolean => aligned && flags[children.indexOf(c)] === true
  let start = 0
  let end = inner.length
  for (const c of children) {
    if (!isSkip(c) || inner.slice(start, c.outer.start).trim() !== '') break
    start = c.outer.end
  }
  for (const c of [...children].reverse()) {
    if (c.outer.start < start || !isSkip(c) || inner.slice(c.outer.end, end).trim() !== '') break
    end = c.outer.start
  }
  return { start: main.inner.start + start, end: main.inner.start + end }
}

/** The chunks of a one-page manual (`SiteSpec.chunk`), each with the page's chrome around it. */
function chunkPages(site: SiteSpec, rel: string, html: string): SitePage[] {
  const container = elementSpans(html, site.chunk!.container)[0]
  if (container === undefined) return []
  const before = html.slice(0, container.inner.start)
  const after = html.slice(container.inner.end)
  const wrap = (x: string): string => before + x + after
  const inner = html.slice(container.inner.start, container.inner.end)
  return elementSpans(inner, site.chunk!.part).flatMap((part, k) => {
    const partHtml = inner.slice(part.outer.start, part.outer.end)
    const mainHtml = site.skip === undefined ? partHtml : cutElements(partHtml, site.skip)
    const text = fragmentText(mainHtml)
    if (text.replace(/\s/g, '').length < MIN_MAIN_CHARS) return []
    const name = `${rel.replace(/\.html$/, '')}/s${k + 1}`
    return [{ id: `${site.name}/${name}`, url: `${site.url(rel)}s${k + 1}.html`, html: wrap(partHtml), main: text, label: site.name, mainHtml, wrap }]
  })
}

/** Pages whose main text is shorter than this carry too little to label. */
export const MIN_MAIN_CHARS = 30

/**
 * The pages of one extra site, or null when its package cannot be had (with a notice).
 * @example sitePages(EXTRA_SITES[0], rng, console.error)?.length // → 120
 */
export function sitePages(site: SiteSpec, rng: Rng, log: (s: string) => void): SitePage[] | null {
  const root = ensurePackageRoot(site.pkg, log)
  const base = root === null ? '' : join(root, site.dir)
  if (root === null || !existsSync(base)) {
    log(`real-html: ${site.pkg} is not available from apt: site ${site.name} skipped`)
    return null
  }
  const out: SitePage[] = []
  for (const file of walk(base)) {
    const rel = relative(base, file)
    if (!site.accept(rel)) continue
    const html = readFileSync(file, 'utf8')
    if (site.chunk !== undefined) {
      out.push(...chunkPages(site, rel, html))
      continue
    }
    const main = elementSpans(html, site.main)[0]
    if (main === undefined) continue
    const inner = html.slice(main.inner.start, main.inner.end)
    const mainHtml = site.skip === undefined ? inner : cutElements(inner, site.skip)
    const text = fragmentText(mainHtml)
    if (text.replace(/\s/g, '').length < MIN_MAIN_CHARS) continue
    const slot = contentSlot(html, main, site.skip)
    out.push({
      id: `${site.name}/${rel.replace(/\.html$/, '')}`,
      url: site.url(rel),
      html,
      main: text,
      label: site.name,
      mainHtml,
      wrap: (x) => html.slice(0, slot.start) + x + html.slice(slot.end),
    })
  }
  return site.sample !== undefined && out.length > site.sample ? rng.sample(out, site.sample).sort((a, b) => a.id.localeCompare(b.id)) : out
}
