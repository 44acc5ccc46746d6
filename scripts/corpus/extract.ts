import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { htmlToText } from './html.js'
import { roffToText } from './roff.js'
import type { CorpusDoc, CorpusLang } from './types.js'

/** Documents shorter than this (characters of content) carry too little text to be kept. */
export const MIN_DOC_CHARS = 30

function walk(dir: string, accept: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return []
  const found: string[] = []
  const visit = (d: string): void => {
    for (const entry of readdirSync(d).sort()) {
      const p = join(d, entry)
      const st = lstatSync(p)
      if (st.isDirectory()) visit(p)
      // Symlinked pages are aliases of another file that is read anyway.
      else if (st.isFile() && accept(p)) found.push(p)
    }
  }
  visit(dir)
  return found
}

/**
 * Man pages of manpages-zh under `root`: one document per page file (links and `.so` pages skipped).
 * @example extractManPages('/') // → [{ id: 'man/zh_CN/man1/ls.1', title: 'ls - 列出目录内容', … }, …]
 */
export function extractManPages(root: string): CorpusDoc[] {
  const docs: CorpusDoc[] = []
  for (const lang of ['zh_CN', 'zh_TW'] as const) {
    const base = join(root, 'usr/share/man', lang)
    for (const file of walk(base, (p) => /\/man\d\w*\/[^/]+$/.test(p))) {
      const raw = readFileSync(file)
      const src = (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString('utf8')
      const page = roffToText(src)
      if (page === null || page.text.length < MIN_DOC_CHARS) continue
      const rel = relative(base, file).replace(/\.gz$/, '')
      const fallback = `${(page.name ?? basename(rel)).toLowerCase()}${page.section !== null ? `(${page.section})` : ''}`
      docs.push({
        id: `man/${lang}/${rel}`,
        source: 'manpages-zh',
        lang,
        title: (page.nameLine ?? fallback).slice(0, 200),
        content: page.text,
      })
    }
  }
  return docs
}

/**
 * LibreOffice help pages under `root`: one document per HTML page, the text of its display area.
 * @example extractLibreOfficeHelp('/work/main/.cache/corpus/pkgs/libreoffice-help-zh-cn', 'zh_CN')
 */
export function extractLibreOfficeHelp(root: string, lang: CorpusLang): CorpusDoc[] {
  const locale = lang === 'zh_CN' ? 'zh-CN' : 'zh-TW'
  const base = join(root, 'usr/share/libreoffice/help', locale)
  const docs: CorpusDoc[] = []
  for (const file of walk(join(base, 'text'), (p) => p.endsWith('.html'))) {
    const page = htmlToText(readFileSync(file, 'utf8'), {
      root: (name, a) => name === 'div' && a.id === 'DisplayArea',
      // Every platform variant is `hidden` until a script picks one: keep the default variant.
      keepHidden: true,
      skip: (_name, a) => a.class === 'MAC',
    })
    const content = page.sections.map((s) => (s.heading !== '' ? `${s.heading}\n${s.text}` : s.text)).join('\n')
    if (content.length < MIN_DOC_CHARS) continue
    docs.push({
      id: `lo/${lang}/${relative(base, file).replace(/\.html$/, '')}`,
      source: 'libreoffice-help',
      lang,
      title: page.title,
      content,
    })
  }
  return docs
}

/**
 * Debian Reference chapters under `root`, split into one document per section (h2/h3).
 * @example extractDebianReference('/', 'zh_CN') // → [{ id: 'debref/zh_CN/ch01#_the_shell_prompt', title: '1.1.1. shell 提示符', … }, …]
 */
export function extractDebianReference(root: string, lang: CorpusLang): CorpusDoc[] {
  const suffix = lang === 'zh_CN' ? 'zh-cn' : 'zh-tw'
  const base = join(root, 'usr/share/debian-reference')
  const docs: CorpusDoc[] = []
  const files = walk(base, (p) => p.endsWith(`.${suffix}.html`) && !basename(p).startsWith('index.'))
  for (const file of files) {
    const chapter = basename(file).replace(`.${suffix}.html`, '')
    const page = htmlToText(readFileSync(file, 'utf8'), {
      splitAt: ['h2', 'h3'],
      skip: (name, a) => name === 'div' && /^(navheader|navfooter|toc|list-of-tables|list-of-figures)$/.test(a.class ?? ''),
    })
    page.sections.forEach((s, i) => {
      if (s.text.length < MIN_DOC_CHARS) return
      docs.push({
        id: `debref/${lang}/${chapter}#${s.anchor ?? `part${i}`}`,
        source: 'debian-reference',
        lang,
        title: s.heading !== '' ? s.heading : page.title,
        content: s.text,
      })
    })
  }
  return docs
}
