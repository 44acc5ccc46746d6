/**
 * Eval kind (d), second stream `attributions`: more real short quotes with attribution lines,
 * written the ways people write them. All quotes and attributions are real (Debian's fortune
 * files); only the attribution's layout changes between copies.
 *
 * - `couplet`: a couplet (one line) of a Tang or Song poem (`fortunes-zh` tang300, song100) with
 *   its poet and title, the way people quote a poem. Other couplets of the same poem carry the very
 *   same attribution: the hardest "same source, different quote" negatives.
 * - `zh-quote`: the short attributed quotes of `fortunes-zh/chinese` (as the `quotes` kind), with
 *   the attribution in layouts that stream does not use: `-- 论语·为政`, `——《论语·为政》`,
 *   `（《论语·为政》）`, `出处：《论语》`, and in English for the classics (`— Confucius`).
 * - `en-quote`: short English quotes of Debian's `fortunes` / `fortunes-min` with their
 *   `-- Author, "Work"` line (many per author: Ambrose Bierce, Lao Tse, Oscar Wilde, …); copies
 *   with `— Author` inline, in quotation marks, `(Author)`, `~ Author`, or without it.
 *
 * Oracle: the quote's own text (the attribution is known, it is never part of it), character
 * bigram (Chinese) or 5-gram (English) Jaccard ≥ 0.5, connected groups.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ensurePackageRoot } from '../corpus/packages.js'
import { similarityGroups } from './oracle.js'
import type { Rng } from './prng.js'

/** A quote (text and attribution parts) before it is laid out. */
interface Quote {
  body: string
  author: string
  work: string
  /** Chapter / section of the work (论语 为政), or ''. */
  part: string
  lang: 'zh' | 'en'
}

/** A draft document of the stream. */
export interface AttributionDraft {
  content: string
  label: string
  /** Index of the draft this is a copy of. */
  source?: number
  note: string
  body: string
  lang: 'zh' | 'en'
}

// eslint-disable-next-line no-control-regex -- the oracle's own SGR/CSI parser
const stripCsi = (s: string): string => s.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]/g, '')

function fortuneEntries(text: string): string[] {
  return text.split(/\n%\n/).map((e) => e.replace(/^\n+|\n+$/g, '')).filter((e) => e.trim() !== '' && e.trim() !== '%')
}

/** Tang/Song poems: `《title》` line, `作者：name（dates）` line, then the poem. */
function poemCouplets(dir: string): Quote[] {
  const out: Quote[] = []
  for (const file of ['tang300', 'song100']) {
    for (const e of fortuneEntries(readFileSync(join(dir, file), 'utf8'))) {
      const lines = stripCsi(e).split('\n').map((l) => l.trim()).filter((l) => l !== '')
      const title = lines.map((l) => /^(?:题目[:：])?《([^》]+)》(.*)$/.exec(l)).find((m) => m !== null)
      const author = lines.map((l) => /^作者[:：]\s*([^（(]+)/.exec(l)).find((m) => m !== null)
      if (title == null || author == null) continue
      const body = lines.filter((l) => !/^(?:题目[:：])?《|^作者[:：]/.test(l) && /\p{Script=Han}/u.test(l))
      for (const line of body) {
        const n = [...line.replace(/\s/g, '')].length
        if (n >= 10 && n <= 40) out.push({ body: line, author: author[1]!.trim(), work: `${title[1]!.trim()}${title[2]!.trim()}`, part: '', lang: 'zh' })
      }
    }
  }
  return out
}

/** `--《论语》为政`, `-- 钱钟书《围城》`: the short attributed quotes of fortunes-zh/chinese. */
function chineseQuotes(dir: string): Quote[] {
  const out: Quote[] = []
  for (const e of fortuneEntries(readFileSync(join(dir, 'chinese'), 'utf8'))) {
    const lines = stripCsi(e).split('\n')
    const last = lines[lines.length - 1]!
    const m = /^\s*--\s*([^《]*?)\s*(?:《([^》]+)》\s*(.*))?$/.exec(last)
    if (m === null || /Osamu Aoki|Debian/.test(last) || /[\u2500-\u257f]/.test(e)) continue
    const body = lines.slice(0, -1).join('\n').trim()
    const n = [...body.replace(/\s/g, '')].length
    if (n < 6 || n > 80 || !/\p{Script=Han}/u.test(body)) continue
    const q = { body, author: (m[1] ?? '').trim(), work: (m[2] ?? '').trim(), part: (m[3] ?? '').trim(), lang: 'zh' as const }
    if (q.author !== '' || q.work !== '') out.push(q)
  }
  return out
}

/** English quotes ending in a `-- Author[, "Work"]` line. */
function englishQuotes(dirs: readonly string[]): Quote[] {
  const out: Quote[] = []
  const seen = new Set<string>()
  for (const [dir, file] of dirs.flatMap((d) => ['wisdom', 'people', 'humorists', 'politics', 'tao', 'literature', 'education', 'love', 'work', 'science', 'fortunes'].map((f) => [d, f] as const))) {
    let text: string
    try {
      text = readFileSync(join(dir, file), 'utf8')
    } catch {
      continue
    }
    for (const e of fortuneEntries(text)) {
      const lines = e.split('\n')
      const m = /^\s+--\s*([^,"]+?)\s*(?:,\s*"([^"]+)"\s*(.*))?$/.exec(lines[lines.length - 1]!)
      if (m === null) continue
      const body = lines.slice(0, -1).map((l) => l.trim()).join('\n').trim()
      if (body.length < 30 || body.length > 240 || seen.has(body) || /[^\x20-\x7e\n]/.test(body)) continue
      seen.add(body)
      out.push({ body, author: m[1]!.trim(), work: (m[2] ?? '').trim(), part: (m[3] ?? '').replace(/^,\s*/, '').trim(), lang: 'en' })
    }
  }
  return out
}

/** Authors of the classics as English quotations name them. */
const ENGLISH_NAMES: Record<string, string> = { 论语: 'Confucius', 孟子: 'Mencius', 道德经: 'Laozi', 老子: 'Laozi', 庄子: 'Zhuangzi', 孙子兵法: 'Sun Tzu', 大学: 'Confucius', 中庸: 'Confucius' }

type Layout = (q: Quote, rng: Rng) => string | null

/** How the shipped files lay each family out (the originals). */
const SHIPPED: Record<'couplet' | 'zh-quote' | 'en-quote', Layout> = {
  couplet: (q) => `${q.body}\n—— ${q.author}《${q.work}》`,
  'zh-quote': (q) => `${q.body}\n    -- ${q.author}${q.work === '' ? '' : `《${q.work}》`}${q.part}`,
  'en-quote': (q) => `${q.body}\n\t\t-- ${q.author}${q.work === '' ? '' : `, "${q.work}"`}${q.part === '' ? '' : `, ${q.part}`}`,
}

/** Other layouts of the same attribution; `null` when a layout does not fit the quote. */
const LAYOUTS: Record<'couplet' | 'zh-quote' | 'en-quote', readonly [string, Layout][]> = {
  couplet: [
    ['brackets', (q) => `${q.body}（${q.author}《${q.work}》）`],
    ['dash-author', (q) => `${q.body}\n-- ${q.author}`],
    ['dot', (q) => `${q.body}\n${q.author}·${q.work}`],
    ['chuzi', (q) => `${q.body}\n出自${q.author}的《${q.work}》`],
    ['title-first', (q) => `《${q.work}》${q.author}\n${q.body}`],
    ['none', (q) => q.body],
  ],
  'zh-quote': [
    ['dash-dot', (q) => (q.work === '' || q.part === '' ? null : `${q.body}\n-- ${q.work}·${q.part}`)],
    ['emdash-dot', (q) => (q.work === '' || q.part === '' ? null : `${q.body}\n——《${q.work}·${q.part}》`)],
    ['brackets', (q) => (q.work === '' ? null : `${q.body}（${q.author}《${q.work}${q.part === '' ? '' : `·${q.part}`}》）`)],
    ['chuchu', (q) => (q.work === '' ? null : `${q.body}\n出处：《${q.work}》`)],
    ['english', (q) => (ENGLISH_NAMES[q.work] === undefined ? null : `${q.body}\n— ${ENGLISH_NAMES[q.work]}`)],
    ['author-only', (q) => (q.author === '' ? null : `${q.body}\n——${q.author}`)],
  ],
  'en-quote': [
    ['emdash-inline', (q) => `${q.body.replace(/\n/g, ' ')} — ${q.author}`],
    ['quoted', (q) => `“${q.body.replace(/\n/g, ' ')}”\n— ${q.author}${q.work === '' ? '' : `, ${q.work}`}`],
    ['parens', (q) => `${q.body} (${q.author})`],
    ['tilde', (q) => `${q.body}\n\n~ ${q.author}`],
    ['none', (q) => q.body],
  ],
}

/**
 * The drafts of the attributions stream and the oracle's group of each (index of its group's
 * first draft). Empty when fortunes-zh is missing; the English part only when `fortunes` is there.
 */
export function attributionDrafts(rng: Rng, log: (s: string) => void): { drafts: AttributionDraft[]; groups: number[]; counts: Record<string, number> } {
  const zhRoot = ensurePackageRoot('fortunes-zh', log)
  if (zhRoot === null) return { drafts: [], groups: [], counts: {} }
  const zhDir = join(zhRoot, 'usr/share/games/fortunes')
  const enDirs = ['fortunes', 'fortunes-min'].map((p) => ensurePackageRoot(p, log)).filter((r): r is string => r !== null).map((r) => join(r, 'usr/share/games/fortunes'))
  const families: [keyof typeof SHIPPED, Quote[], number, number][] = [
    ['couplet', poemCouplets(zhDir), 1200, 300],
    ['zh-quote', chineseQuotes(zhDir), 1500, 300],
    ['en-quote', englishQuotes(enDirs), 1200, 250],
  ]
  const drafts: AttributionDraft[] = []
  const counts: Record<string, number> = {}
  for (const [family, all, originals, copies] of families) {
    const r = rng.fork(family)
    // Couplets keep their poem's order, so that sibling couplets stay in the sample together.
    const quotes = family === 'couplet' ? all.slice(0, originals) : r.sample(all, Math.min(originals, all.length))
    const offset = drafts.length
    quotes.forEach((q) => drafts.push({ content: SHIPPED[family](q, r)!, label: family, note: 'shipped', body: q.body, lang: q.lang }))
    counts[family] = quotes.length
    let made = 0
    for (const i of r.sample(quotes.map((_, k) => k), copies * 2)) {
      if (made >= copies) break
      const [style, layout] = r.pick(LAYOUTS[family])
      const content = layout(quotes[i]!, r)
      if (content === null) continue
      drafts.push({ content, label: `${family}-attribution`, source: offset + i, note: style, body: quotes[i]!.body, lang: quotes[i]!.lang })
      made++
    }
    counts[`${family}-attribution`] = made
  }
  // One oracle run per language: the chinese file quotes poems too (the same couplet in two families).
  const groups = drafts.map((_, i) => i)
  for (const [lang, k] of [['zh', 2], ['en', 5]] as const) {
    const members = drafts.map((d, i) => (d.lang === lang ? i : -1)).filter((i) => i >= 0)
    const g = similarityGroups(members.map((i) => drafts[i]!.body), k, 0.5)
    members.forEach((i, n) => (groups[i] = members[g[n]!]!))
  }
  return { drafts, groups, counts }
}
