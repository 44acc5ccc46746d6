/**
 * Eval kind (a): raw HTML manual pages with their real chrome intact, as Debian ships them.
 *
 * - `lo-page`: every zh-CN LibreOffice help page (`libreoffice-help-zh-cn`), the file as shipped:
 *   header with the product name and module menu, the (script-filled) contents and index asides,
 *   and the footer with its debug block.
 * - `debref-section`: Debian Reference (`debian-reference-zh-cn`) ships one page per chapter. A
 *   crawler of a site that chunks it (as DocBook's chunked output does) sees one page per
 *   top-level section; each chunk here keeps the chapter's real chrome: the `navheader`, the
 *   chapter's title page and table of contents (which lists every section of the chapter), and
 *   the `navfooter`. Only the section between them changes.
 * - `rewrapped-*`: copies of some pages with their main part moved into the other site's real
 *   chrome (a LibreOffice page inside a Debian Reference chunk's chrome and TOC; a Debian Reference
 *   section inside a LibreOffice page's header, asides and footer). They are true duplicates of
 *   their source: only the chrome changed.
 *
 * - the extra sites of real-html-sites.ts (Publican, DocBook, texinfo, Doxygen, Asciidoctor,
 *   Sphinx, MkDocs), each with pages re-wrapped into a page of another site (`<site>-rewrapped`),
 *   in the all-sites stream; the stream of the two sites above alone stays as it was for a seed.
 *
 * Labels come from an oracle independent of simdup: the main text of each page is cut by the
 * site's known structure (LibreOffice's `#DisplayArea`, the Debian Reference section element),
 * read with the corpus extractor, and two pages are the same when their character 5-gram Jaccard
 * is ≥ 0.6 (exact all-pairs, oracle.ts). Natural near-duplicates between real pages (LibreOffice
 * repeats many pages per module) are labelled the same way.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { htmlToText, type HtmlTextOptions } from '../corpus/html.js'
import { CORPUS_CACHE_DIR } from '../corpus/paths.js'
import type { LabelledRef } from './metrics.js'
import { similarityGroups } from './oracle.js'
import { Rng } from './prng.js'
import type { EvalDoc } from './systems.js'
import { elementSpans, EXTRA_SITES, MIN_MAIN_CHARS, MORE_SITES, sitePages, walk, type SiteSpec, type SitePage } from './real-html-sites.js'

/** Oracle settings of this kind: character 5-grams, Jaccard ≥ 0.6. */
export const REAL_HTML_ORACLE = { k: 5, threshold: 0.6 } as const

/** One page of the stream with its labels. */
export interface RealHtmlDoc extends LabelledRef {
  /** The raw HTML page, as a crawler fetches it. */
  html: string
  /** URL the page would have on its site. */
  url: string
  /** The oracle's main text (`content` holds it too, for reading examples). */
  main: string
}

/** The stream of kind (a). */
export interface RealHtmlDataset {
  docs: RealHtmlDoc[]
  composition: Record<string, number>
}

/** Options of {@link buildRealHtmlDataset}. */
export interface RealHtmlOptions {
  seed: number
  /** LibreOffice pages re-wrapped in Debian Reference chrome. @default 60 */
  loRewrapped?: number
  /** Debian Reference sections re-wrapped in LibreOffice chrome. @default 30 */
  debrefRewrapped?: number
  /** Root of the unpacked packages. @default .cache/corpus/pkgs */
  pkgsDir?: string
  /** `'old'`: LibreOffice and Debian Reference only (the stream before the extra sites). @default 'all' */
  sites?: 'old' | 'all'
  /** Pages of each extra site re-wrapped into another site's chrome (at most a quarter of its pages). @default 20 */
  extraRewrapped?: number
  /** Notices (package downloads). */
  log?: (s: string) => void
}

const LO_TEXT = (pkgs: string) => join(pkgs, 'libreoffice-help-zh-cn/usr/share/libreoffice/help/zh-CN/text')
const DEBREF_DIR = (pkgs: string) => join(pkgs, 'debian-reference-zh-cn/usr/share/debian-reference')

const joinSections = (t: ReturnType<typeof htmlToText>): string =>
  t.sections.map((s) => (s.heading !== '' ? `${s.heading}\n${s.text}` : s.text)).join('\n').trim()

// The corpus build's reading of each site (scripts/corpus/extract.ts).
const LO_READ: HtmlTextOptions = {
  root: (name, a) => name === 'div' && a.id === 'DisplayArea',
  keepHidden: true,
  skip: (_name, a) => a.class === 'MAC',
}
const DEBREF_READ: HtmlTextOptions = {
  splitAt: ['h2', 'h3'],
  skip: (name, a) => name === 'div' && /^(navheader|navfooter|toc|list-of-tables|list-of-figures)$/.test(a.class ?? ''),
}

type Source = Omit<SitePage, 'wrap'>

function loPages(pkgs: string): Source[] {
  const base = LO_TEXT(pkgs)
  if (!existsSync(base)) return []
  const out: Source[] = []
  for (const file of walk(base, (p) => p.endsWith('.html'))) {
    const html = readFileSync(file, 'utf8')
    const main = joinSections(htmlToText(html, LO_READ))
    if (main.length < MIN_MAIN_CHARS) continue
    const span = elementSpans(html, (n, a) => n === 'div' && a.id === 'DisplayArea')[0]
    if (span === undefined) continue
    const rel = relative(base, file)
    out.push({
      id: `lo/${rel.replace(/\.html$/, '')}`,
      url: `https://help.libreoffice.org/7.4/zh-CN/text/${rel}`,
      html,
      main,
      label: 'lo-page',
      mainHtml: html.slice(span.inner.start, span.inner.end),
    })
  }
  return out
}

/** A Debian Reference chapter cut into chunks around its top-level sections. */
interface Chapter {
  name: string
  /** Everything up to the end of the chapter's TOC (head, navheader, title page, TOC). */
  prefix: string
  /** The chapter's closing tag and what follows (navfooter); the chapter's footnotes, which belong to its sections, are left out. */
  suffix: string
  /** The chunk bodies: the first holds the chapter's intro text too. */
  bodies: string[]
  /** Each top-level section's own HTML (without the intro). */
  sections: string[]
}

function debrefChapters(pkgs: string): Chapter[] {
  const dir = DEBREF_DIR(pkgs)
  if (!existsSync(dir)) return []
  const out: Chapter[] = []
  for (const file of readdirSync(dir).sort()) {
    if (!/^(ch\d+|apa|pr01)\.zh-cn\.html$/.test(file)) continue
    const html = readFileSync(join(dir, file), 'utf8')
    const body = elementSpans(html, (n, a) => n === 'div' && /^(chapter|appendix|preface)$/.test(a.class ?? ''))[0]
    if (body === undefined) continue
    const inner = html.slice(0, body.inner.end)
    // Top-level sections: `div.section` directly inside the chapter (depth of the chapter + 1).
    let chapterDepth = -1
    const sections = elementSpans(inner, (n, a, depth) => {
      if (n === 'div' && /^(chapter|appendix|preface)$/.test(a.class ?? '')) chapterDepth = depth
      return chapterDepth >= 0 && depth === chapterDepth + 1 && n === 'div' && a.class === 'section'
    })
    const toc = elementSpans(inner, (n, a) => n === 'div' && a.class === 'toc')[0]
    if (sections.length === 0 || toc === undefined) continue
    out.push({
      name: file.replace('.zh-cn.html', ''),
      prefix: html.slice(0, toc.outer.end),
      suffix: html.slice(body.inner.end),
      bodies: sections.map((s, i) => html.slice(i === 0 ? toc.outer.end : s.outer.start, s.outer.end)),
      sections: sections.map((s) => html.slice(s.outer.start, s.outer.end)),
    })
  }
  return out
}

function debrefPages(chapters: readonly Chapter[]): Source[] {
  const out: Source[] = []
  for (const ch of chapters) {
    ch.bodies.forEach((body, i) => {
      const main = joinSections(htmlToText(`<html><body>${body}</body></html>`, DEBREF_READ))
      if (main.length < MIN_MAIN_CHARS) return
      out.push({
        id: `debref/${ch.name}/s${i + 1}`,
        url: `https://www.debian.org/doc/manuals/debian-reference/${ch.name}.zh-cn/s${i + 1}.html`,
        html: ch.prefix + body + ch.suffix,
        main,
        label: 'debref-section',
        mainHtml: ch.sections[i]!,
      })
    })
  }
  return out
}

interface Item {
  id: string
  url: string
  html: string
  main: string
  label: string
  after?: string
}

/** The LibreOffice and Debian Reference part, the same for a seed as before the extra sites came. */
function oldItems(options: RealHtmlOptions, pkgs: string, rng: Rng): { items: Item[]; hosts: SitePage[] } {
  const lo = loPages(pkgs)
  const chapters = debrefChapters(pkgs)
  const debref = debrefPages(chapters)
  if (lo.length === 0 || debref.length === 0) {
    throw new Error(`real-html: needs the unpacked libreoffice-help-zh-cn and debian-reference-zh-cn under ${pkgs} (npm run corpus)`)
  }
  const items: Item[] = [...lo, ...debref].map((s) => ({ id: s.id, url: s.url, html: s.html, main: s.main, label: s.label }))

  // LibreOffice pages in a Debian Reference chunk's chrome (its navheader, title page, TOC, navfooter).
  for (const src of rng.sample(lo, Math.min(options.loRewrapped ?? 60, lo.length))) {
    const ch = rng.pick(chapters)
    items.push({
      id: `rewrapped-into-debref/${src.id}`,
      url: `https://www.debian.org/doc/manuals/debian-reference/${ch.name}.zh-cn/${basename(src.id)}.html`,
      html: `${ch.prefix}<div class="section">${src.mainHtml}</div>${ch.suffix}`,
      main: src.main,
      label: 'rewrapped-into-debref',
      after: src.id,
    })
  }
  // Debian Reference sections in a LibreOffice page's chrome (its DisplayArea's content replaced).
  const loWrap = (host: Source) => {
    const span = elementSpans(host.html, (n, a) => n === 'div' && a.id === 'DisplayArea')[0]!
    return (x: string): string => host.html.slice(0, span.inner.start) + x + host.html.slice(span.inner.end)
  }
  for (const src of rng.sample(debref, Math.min(options.debrefRewrapped ?? 30, debref.length))) {
    const host = rng.pick(lo)
    items.push({
      id: `rewrapped-into-lo/${src.id}`,
      url: `${host.url.replace(/\.html$/, '')}-${src.id.replace(/\//g, '-')}.html`,
      html: loWrap(host)(src.mainHtml),
      main: src.main,
      label: 'rewrapped-into-lo',
      after: src.id,
    })
  }
  // As hosts for the extra sites' copies (drawn from their own generator).
  const chapterOf = new Map(chapters.map((c) => [c.name, c]))
  const hosts: SitePage[] = [
    ...lo.map((s) => ({ ...s, wrap: loWrap(s) })),
    ...debref.map((s) => {
      const ch = chapterOf.get(s.id.split('/')[1]!)!
      return { ...s, wrap: (x: string) => `${ch.prefix}<div class="section">${x}</div>${ch.suffix}` }
    }),
  ]
  return { items, hosts }
}

/** Site of a host page: the label without `-section`/`-page`. */
const siteOf = (p: SitePage): string => p.label.replace(/-(page|section)$/, '')

/**
 * The extra sites' pages (real-html-sites.ts) and their re-wrapped copies: `rewrapped` pages of each
 * site moved into the chrome of a page of another site (any of all sites).
 */
function extraItems(rng: Rng, oldHosts: readonly SitePage[], rewrapped: number, log: (s: string) => void, specs: readonly SiteSpec[] = EXTRA_SITES): { items: Item[]; hosts: SitePage[] } {
  const sites: SitePage[][] = []
  for (const spec of specs) {
    const pages = sitePages(spec, rng.fork(spec.name), log)
    if (pages !== null && pages.length > 0) sites.push(pages)
  }
  const items: Item[] = sites.flat().map((s) => ({ id: s.id, url: s.url, html: s.html, main: s.main, label: s.label }))
  const hostsBySite = new Map<string, SitePage[]>()
  const hosts = [...oldHosts, ...sites.flat()]
  for (const h of hosts) hostsBySite.set(siteOf(h), [...(hostsBySite.get(siteOf(h)) ?? []), h])
  for (const pages of sites) {
    const site = siteOf(pages[0]!)
    const others = [...hostsBySite.keys()].filter((k) => k !== site)
    for (const src of rng.sample(pages, Math.min(rewrapped, Math.ceil(pages.length / 4)))) {
      const hostSite = rng.pick(others)
      const host = rng.pick(hostsBySite.get(hostSite)!)
      items.push({
        id: `rewrapped-into-${hostSite}/${src.id}`,
        url: `${host.url.replace(/\.html$/, '')}-${src.id.replace(/\//g, '-')}.html`,
        html: host.wrap(src.mainHtml),
        main: src.main,
        label: `${site}-rewrapped`,
        after: src.id,
      })
    }
  }
  return { items, hosts }
}

/** Originals shuffled; each copy inserted at a random place after its source; oracle groups. */
function assemble(items: readonly Item[], rng: Rng): RealHtmlDataset {
  const originals = rng.shuffle(items.filter((x) => x.after === undefined))
  const order: Item[] = [...originals]
  for (const copy of items.filter((x) => x.after !== undefined)) {
    const at = order.findIndex((x) => x.id === copy.after)
    order.splice(rng.int(at + 1, order.length), 0, copy)
  }
  const groups = similarityGroups(order.map((x) => x.main), REAL_HTML_ORACLE.k, REAL_HTML_ORACLE.threshold)
  const composition: Record<string, number> = {}
  for (const x of order) composition[x.label] = (composition[x.label] ?? 0) + 1
  return {
    composition,
    docs: order.map((x, i) => ({
      id: x.id,
      group: order[groups[i]!]!.id,
      perturbation: x.label,
      content: x.main,
      main: x.main,
      html: x.html,
      url: x.url,
    })),
  }
}

/**
 * Builds the kind-(a) stream: real pages in a seeded shuffle, each re-wrapped copy right after a
 * random later position than its source; labels by the oracle on main text. `sites: 'old'` gives
 * the LibreOffice + Debian Reference stream alone, the same for a seed as before the extra sites.
 * @example const { docs } = buildRealHtmlDataset({ seed: 1 }); docs[0].html.startsWith('<')
 */
export function buildRealHtmlDataset(options: RealHtmlOptions): RealHtmlDataset {
  const both = buildRealHtmlDatasets({ ...options, oldOnly: options.sites === 'old' })
  return options.sites === 'old' ? both.old : both.all!
}

/**
 * Both streams of kind (a) from one reading of the pages: `old` (LibreOffice + Debian Reference,
 * the figures before the extra sites) and `all` (with the extra sites of real-html-sites.ts).
 */
export function buildRealHtmlDatasets(options: RealHtmlOptions & { oldOnly?: boolean }): { old: RealHtmlDataset; all?: RealHtmlDataset; more?: RealHtmlDataset } {
  const pkgs = options.pkgsDir ?? join(CORPUS_CACHE_DIR, 'pkgs')
  const rng = new Rng(options.seed).fork('real-html')
  const old = oldItems(options, pkgs, rng)
  const oldDs = assemble(old.items, rng)
  if (options.oldOnly === true) return { old: oldDs }
  const log = options.log ?? (() => {})
  const extraRng = new Rng(options.seed).fork('real-html-sites')
  const extra = extraItems(extraRng, old.hosts, options.extraRewrapped ?? 20, log)
  const all = assemble([...old.items, ...extra.items], extraRng.fork('order'))
  // MORE_SITES alone, their copies re-wrapped into pages of any site (old, extra or more).
  const moreRng = new Rng(options.seed).fork('real-html-more-sites')
  const more = extraItems(moreRng, extra.hosts, options.extraRewrapped ?? 20, log, MORE_SITES)
  return { old: oldDs, all, more: assemble(more.items, moreRng.fork('order')) }
}

/** The stream as the systems see it: raw HTML, no labels, no URL (the url layer is another kind). */
export function toRealHtmlEvalDocs(docs: readonly RealHtmlDoc[]): EvalDoc[] {
  return docs.map((d) => ({ id: d.id, content: d.html }))
}
