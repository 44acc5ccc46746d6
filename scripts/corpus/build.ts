/**
 * Builds the evaluation corpus `.cache/corpus/docs.jsonl` from Chinese text in Debian packages:
 * manpages-zh (zh_CN + zh_TW man pages), LibreOffice help (zh-CN, zh-TW) and the Debian
 * Reference (zh-cn, zh-tw). Cached: does nothing when the file exists, unless `--force`.
 *
 *   npx tsx scripts/corpus/build.ts [--force]
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import { extractDebianReference, extractLibreOfficeHelp, extractManPages } from './extract.js'
import { CORPUS_PACKAGES, ensurePackageRoot } from './packages.js'
import { CORPUS_DOCS_PATH } from './paths.js'
import type { CorpusDoc } from './types.js'

/** Options of `buildCorpus`. */
export interface BuildCorpusOptions {
  /** Rebuild even when `docs.jsonl` exists. @default false */
  force?: boolean
  /** Progress lines. @default console.error */
  log?: (line: string) => void
}

/** What `buildCorpus` did. */
export interface BuildCorpusResult {
  path: string
  /** False when the cached file was kept. */
  built: boolean
  /** Documents written; null when the cached file was kept (it is not read). */
  docs: number | null
}

/** One row of the corpus summary: documents and characters of one source and language. */
export interface CorpusStatsRow {
  source: string
  lang: string
  docs: number
  chars: number
  medianChars: number
}

/**
 * Documents and characters per source and language, plus a total row.
 * @example corpusStats(docs)[0] // → { source: 'debian-reference', lang: 'zh_CN', docs: 431, chars: 612345, medianChars: 980 }
 */
export function corpusStats(docs: readonly CorpusDoc[]): CorpusStatsRow[] {
  const groups = new Map<string, number[]>()
  for (const d of docs) {
    const key = `${d.source}\t${d.lang}`
    const list = groups.get(key) ?? []
    list.push(d.content.length)
    groups.set(key, list)
  }
  const row = (source: string, lang: string, lengths: number[]): CorpusStatsRow => {
    const sorted = [...lengths].sort((a, b) => a - b)
    return {
      source,
      lang,
      docs: lengths.length,
      chars: lengths.reduce((a, b) => a + b, 0),
      medianChars: sorted[Math.floor(sorted.length / 2)] ?? 0,
    }
  }
  const rows = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, lengths]) => {
      const [source = '', lang = ''] = key.split('\t')
      return row(source, lang, lengths)
    })
  rows.push(row('total', '', docs.map((d) => d.content.length)))
  return rows
}

/** Format `corpusStats` as an aligned text table. */
export function formatCorpusStats(rows: readonly CorpusStatsRow[]): string {
  const lines = rows.map((r) =>
    `${r.source.padEnd(18)} ${r.lang.padEnd(6)} ${String(r.docs).padStart(6)} docs ${String(r.chars).padStart(10)} chars  median ${r.medianChars}`,
  )
  return lines.join('\n')
}

/**
 * Extract every corpus document from the packages (fetching them when missing).
 * Throws when a required package cannot be had.
 */
export function extractCorpus(log: (line: string) => void): CorpusDoc[] {
  const roots = new Map<string, string | null>()
  for (const pkg of CORPUS_PACKAGES) {
    const root = ensurePackageRoot(pkg.name, log)
    if (root === null) {
      if (pkg.required) throw new Error(`Debian package ${pkg.name} is not known to apt; the corpus needs it.`)
      log(`skipping ${pkg.name}: apt has no candidate for it`)
    }
    roots.set(pkg.name, root)
  }
  const docs: CorpusDoc[] = []
  const man = roots.get('manpages-zh')
  if (man) docs.push(...extractManPages(man))
  const loCn = roots.get('libreoffice-help-zh-cn')
  if (loCn) docs.push(...extractLibreOfficeHelp(loCn, 'zh_CN'))
  const loTw = roots.get('libreoffice-help-zh-tw')
  if (loTw) docs.push(...extractLibreOfficeHelp(loTw, 'zh_TW'))
  const drCn = roots.get('debian-reference-zh-cn')
  if (drCn) docs.push(...extractDebianReference(drCn, 'zh_CN'))
  const drTw = roots.get('debian-reference-zh-tw')
  if (drTw) docs.push(...extractDebianReference(drTw, 'zh_TW'))

  const seen = new Set<string>()
  for (const d of docs) {
    if (seen.has(d.id)) throw new Error(`Two corpus documents share the id ${d.id}`)
    seen.add(d.id)
  }
  return docs
}

/**
 * Build `.cache/corpus/docs.jsonl` unless it exists (or `force`).
 * @example await buildCorpus({ force: true }) // → { path: '…/docs.jsonl', built: true, docs: 9876 }
 */
export async function buildCorpus(options: BuildCorpusOptions = {}): Promise<BuildCorpusResult> {
  const log = options.log ?? ((line: string) => console.error(line))
  if (existsSync(CORPUS_DOCS_PATH) && options.force !== true) {
    return { path: CORPUS_DOCS_PATH, built: false, docs: null }
  }
  const started = performance.now()
  const docs = extractCorpus(log)
  mkdirSync(dirname(CORPUS_DOCS_PATH), { recursive: true })
  // Write then rename, so an interrupted build never leaves a truncated file that looks cached.
  const tmp = `${CORPUS_DOCS_PATH}.${process.pid}.tmp`
  writeFileSync(tmp, docs.map((d) => JSON.stringify(d)).join('\n') + '\n')
  renameSync(tmp, CORPUS_DOCS_PATH)
  log(`corpus: ${docs.length} documents written to ${CORPUS_DOCS_PATH} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  log(formatCorpusStats(corpusStats(docs)))
  return { path: CORPUS_DOCS_PATH, built: true, docs: docs.length }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const force = process.argv.includes('--force')
  const result = await buildCorpus({ force })
  if (!result.built) {
    const { loadCorpus } = await import('./load.js')
    const docs = await loadCorpus()
    console.error(`corpus: cached at ${result.path} (use --force to rebuild)`)
    console.error(formatCorpusStats(corpusStats(docs)))
  }
}
