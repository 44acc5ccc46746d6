/**
 * Eval kinds of real-world shapes (issue 15), each its own labelled stream, scored on its own:
 *
 * - `url`: every section of Debian Reference (zh_CN) as its own document keyed
 *   `…/chNN.zh-cn.html#<anchor>` (the way section crawlers and RAG chunkers key documents), after
 *   a first crawl of the same URLs holding an **older release** of those sections: the old
 *   Debian Reference sections that Debian's `fortunes-zh` ships (real edits of real text,
 *   matched by heading). A re-crawled section is a duplicate when the oracle says the two texts
 *   agree, else a new version (scored as a distinct document, and `supersedes` is counted).
 * - `ansi`: quotes, poems and tips from `fortunes-zh` as shipped, with their ANSI SGR colours, and
 *   copies without colours or in another colour scheme.
 * - `quotes`: short quotes of `fortunes-zh` with an attribution line, copies with that line
 *   written another way (——, --, 《》, 出自, ·, in brackets, none), the file's own repeated quotes,
 *   and many different quotes of one source (《谚语》, 《论语》, …) as negatives.
 *
 * Oracle (shares nothing with simdup): the text without ANSI sequences (its own regex) and, for
 * quotes, without the attribution line as the fortune files lay it out; character bigram
 * (quotes, ANSI texts) or 5-gram (sections) Jaccard ≥ 0.5, connected groups.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { CorpusDoc } from '../corpus/types.js'
import { ensurePackageRoot } from '../corpus/packages.js'
import { similarityGroups } from './oracle.js'
import type { LabelledRef } from './metrics.js'
import type { EvalDoc } from './systems.js'
import { Rng } from './prng.js'
import { renderTerminal, terminalDrafts, type TerminalDraft } from './terminal.js'
import { moreTerminalDrafts } from './terminal-more.js'
import { attributionDrafts } from './attributions.js'
import { normalizeContent } from '../../src/normalize/content.js'
import { jaccard, shingleSet } from './oracle.js'

/** A document of a kind's stream: what the system sees plus its labels. */
export interface KindDoc extends EvalDoc, LabelledRef {
  /** For a new version of a page: the id of the earlier version it replaces. */
  previous?: string
  /** How a copy was made. */
  note?: string
}

/** One kind's labelled stream. */
export interface KindStream {
  name: string
  docs: KindDoc[]
  notes: string[]
}

// The oracle's own ANSI parser: CSI sequences (SGR colours and the like), nothing else.
// eslint-disable-next-line no-control-regex -- ANSI sequences start with ESC
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g
/** Text without ANSI CSI sequences. */
export const stripAnsi = (s: string): string => s.replace(ANSI, '')

/** Box-drawing characters: tables of a text dump, not words. */
const BOX = /[\u2500-\u257f]/g

/** An attribution line as the fortune files lay them out: `-- 李白《…》`, `作者：…`, `《title》`. */
const ATTRIBUTION_LINE = /^\s*(?:--|——|作者[:：]|題目[:：]|题目[:：]|《[^》]*》\s*$)/

/** The quote without its attribution / header lines (oracle side). */
export function quoteBody(text: string): string {
  return stripAnsi(text).split('\n').filter((l) => !ATTRIBUTION_LINE.test(l)).join('\n').trim()
}

/** Entries of a fortune file (`%` lines separate them). */
export function fortuneEntries(text: string): string[] {
  return text.split(/\n%\n/).map((e) => e.replace(/^\n+|\n+$/g, '')).filter((e) => e.trim() !== '' && e.trim() !== '%')
}

export function loadFortunes(log: (s: string) => void): Map<string, string[]> | null {
  const root = ensurePackageRoot('fortunes-zh', log)
  if (root === null) return null
  const dir = join(root, 'usr/share/games/fortunes')
  const out = new Map<string, string[]>()
  for (const f of ['chinese', 'tang300', 'song100']) out.set(f, fortuneEntries(readFileSync(join(dir, f), 'utf8')))
  return out
}

/** Places each draft after its source: sort keys in (sourceKey, 1). */
function ordered<T extends { key: number }>(drafts: T[]): T[] {
  return drafts.sort((a, b) => a.key - b.key)
}

function finish(name: string, drafts: (Omit<KindDoc, 'id' | 'group'> & { key: number; groupOf: number; prevIndex?: number })[], notes: string[]): KindStream {
  const sorted = ordered(drafts)
  const idOf = new Map<(typeof drafts)[number], string>()
  sorted.forEach((d, i) => idOf.set(d, `${name}-${String(i).padStart(5, '0')}`))
  const docs = sorted.map((d): KindDoc => {
    const { key: _key, groupOf, prevIndex, ...rest } = d
    const doc: KindDoc = { ...rest, id: idOf.get(d)!, group: `${name}-g${groupOf}` }
    if (prevIndex !== undefined) doc.previous = idOf.get(drafts[prevIndex]!)!
    return doc
  })
  return { name, docs, notes }
}

const DEBREF_URL = 'https://www.debian.org/doc/manuals/debian-reference/'

/** Kind (b): section-keyed URLs and re-crawled changed sections. */
function urlKind(corpus: readonly CorpusDoc[], fortunes: Map<string, string[]>): KindStream {
  const sections = corpus.filter((d) => d.source === 'debian-reference' && d.lang === 'zh_CN')
  const urlOf = (d: CorpusDoc): string => {
    const m = /^debref\/zh_CN\/([^#]+)#(.*)$/.exec(d.id)
    return `${DEBREF_URL}${m?.[1] ?? 'x'}.zh-cn.html#${m?.[2] ?? ''}`
  }
  const heading = (t: string): string => t.replace(/^[A-Z0-9.]+\s*/u, '').trim()
  const byHeading = new Map<string, CorpusDoc[]>()
  for (const d of sections) byHeading.set(heading(d.title), [...(byHeading.get(heading(d.title)) ?? []), d])
  // Old sections in fortunes-zh: a bold white "N.N.N. heading" line, the text, then "-- Osamu Aoki …".
  const old: { text: string; current: CorpusDoc }[] = []
  for (const e of fortunes.get('chinese') ?? []) {
    // eslint-disable-next-line no-control-regex -- the section heading's colour
    const m = /^\x1b\[37;1m[0-9.]+\u00a0(.*?)\x1b\[;m/.exec(e)
    const same = m === null ? undefined : byHeading.get(m[1]!.trim())
    if (same === undefined || same.length !== 1) continue
    // Text only: the heading line (the current section's title, not its content), the signature
    // and the box-drawing of tables as a text dump renders them go.
    const text = stripAnsi(e).split('\n').slice(1).filter((l) => !/^\s*-- Osamu Aoki/.test(l)).join('\n').replace(BOX, ' ').trim()
    old.push({ text, current: same[0]! })
  }
  const texts = [...old.map((o) => o.text), ...sections.map((s) => s.content)]
  const groups = similarityGroups(texts, 5, 0.5)
  const drafts: Parameters<typeof finish>[1] = []
  const oldIndex = new Map<CorpusDoc, number>()
  old.forEach((o, i) => {
    oldIndex.set(o.current, i)
    drafts.push({ content: o.text, url: urlOf(o.current), perturbation: 'section-old-release', key: i, groupOf: groups[i]!, bucket: 'all' })
  })
  let edited = 0
  let changed = 0
  sections.forEach((s, j) => {
    const g = groups[old.length + j]!
    const oi = oldIndex.get(s)
    let label = 'section'
    let prevIndex: number | undefined
    if (oi !== undefined) {
      if (groups[oi] === g) {
        label = 'recrawl-edited'
        edited++
      } else {
        label = 'recrawl-new-version'
        prevIndex = oi
        changed++
      }
    }
    const draft: (typeof drafts)[number] = { content: s.content, url: urlOf(s), perturbation: label, key: old.length + j, groupOf: g, bucket: 'all' }
    if (prevIndex !== undefined) draft.prevIndex = prevIndex
    drafts.push(draft)
  })
  return finish('url', drafts, [
    `${sections.length} Debian Reference zh_CN sections keyed <page>.html#<anchor>, after ${old.length} sections of an older release (from fortunes-zh) under the same URLs`,
    `re-crawled: ${edited} agree with their older text (oracle: duplicates), ${changed} changed (new versions, not duplicates)`,
  ])
}

/** Realistic SGR colour schemes another terminal theme or tool would use. */
const RECOLOURS: readonly ((s: string, rng: Rng) => string)[] = [
  (s) => s.replace(ANSI, (m) => (m === '\x1b[m' || m === '\x1b[0m' || m === '\x1b[;m' ? '\x1b[0m' : '\x1b[1;36m')),
  (s) => s.replace(ANSI, (m) => (m === '\x1b[m' || m === '\x1b[0m' || m === '\x1b[;m' ? '\x1b[39;49m' : '\x1b[38;5;208m')),
  (s, rng) => s.split('\n').map((l) => (l.trim() === '' ? l : `\x1b[3${rng.int(1, 7)}m${stripAnsi(l)}\x1b[0m`)).join('\n'),
]

/** Kind (c): ANSI-coloured texts as shipped, and copies without or with other colours. */
function ansiKind(fortunes: Map<string, string[]>, rng: Rng): KindStream {
  const all = [...(fortunes.get('chinese') ?? []), ...(fortunes.get('tang300') ?? []), ...(fortunes.get('song100') ?? [])]
  const coloured = all.filter((e) => e.includes('\x1b[') && quoteBody(e).replace(/\s/g, '').length >= 6 && stripAnsi(e).length <= 2000)
  const originals = rng.sample(coloured, Math.min(1500, coloured.length))
  const groups = similarityGroups(originals.map((o) => quoteBody(o).replace(BOX, '')), 2, 0.5)
  const drafts: Parameters<typeof finish>[1] = originals.map((o, i) => ({ content: o, perturbation: 'ansi-original', key: i / originals.length, groupOf: groups[i]!, bucket: 'all' }))
  const copyOf = (label: string, n: number, make: (s: string) => string): void => {
    for (const i of rng.sample(originals.map((_, k) => k), n)) {
      const key = i / originals.length
      drafts.push({ content: make(originals[i]!), perturbation: label, key: key + (1 - key) * rng.next(), groupOf: groups[i]!, bucket: 'all' })
    }
  }
  copyOf('ansi-plain', 300, (s) => stripAnsi(s))
  copyOf('ansi-recolour', 300, (s) => rng.pick(RECOLOURS)(s, rng))
  return finish('ansi', drafts, [`${originals.length} of ${coloured.length} coloured fortunes-zh entries (chinese, tang300, song100) as shipped; copies: colours stripped, or another SGR scheme`])
}

interface Attribution {
  author: string
  book: string
  rest: string
}

/** `-- 李白《将进酒》`, `--《论语》为政`, `-- 钱钟书`; null for other lines. */
function parseAttribution(line: string): Attribution | null {
  const m = /^\s*--\s*([^《]*?)\s*(?:《([^》]+)》\s*(.*))?$/.exec(line)
  if (m === null) return null
  const a = { author: (m[1] ?? '').trim(), book: (m[2] ?? '').trim(), rest: (m[3] ?? '').trim() }
  return a.author === '' && a.book === '' ? null : a
}

const SAYING_COLLECTIONS = ['谚语', '俗语', '增广贤文', '古训']

/** Ways people write an attribution: each gives the new last line (or '' for none, or inline). */
const ATTRIBUTION_STYLES: readonly [string, (a: Attribution, rng: Rng) => string | null][] = [
  ['em-dash', (a) => `——${a.author}${a.book === '' ? '' : `《${a.book}》`}${a.rest}`],
  ['comma', (a) => (a.book === '' ? null : `-- ${a.author === '' ? '' : `${a.author}，`}${a.book}${a.rest === '' ? '' : `，${a.rest}篇`}`)],
  ['chuzi', (a) => (a.book === '' ? null : `出自${a.author}《${a.book}${a.rest === '' ? '' : `·${a.rest}`}》`)],
  ['dot', (a) => `${a.author === '' ? '' : `${a.author}·`}${a.book === '' ? '' : `《${a.book}》`}${a.rest === '' ? '' : `·${a.rest}`}`],
  ['brackets', (a) => `（${a.author}${a.book === '' ? '' : `《${a.book}》`}${a.rest}）`],
  ['none', () => ''],
  ['other-collection', (a, rng) => (SAYING_COLLECTIONS.includes(a.book) ? `--《${rng.pick(SAYING_COLLECTIONS.filter((c) => c !== a.book))}》` : null)],
]

/** Kind (d): short quotes with their attribution written other ways; same-source quotes as negatives. */
function quotesKind(fortunes: Map<string, string[]>, rng: Rng): KindStream {
  const entries: { body: string; attribution: Attribution; text: string }[] = []
  for (const e of fortunes.get('chinese') ?? []) {
    const lines = stripAnsi(e).split('\n')
    const last = lines[lines.length - 1] ?? ''
    const a = parseAttribution(last)
    // Quotes only: not the Debian Reference excerpts and tips the file also holds.
    if (a === null || /Osamu Aoki|Debian/.test(last) || /[\u2500-\u257f]/.test(e)) continue
    const body = lines.slice(0, -1).join('\n').trim()
    const chars = [...body.replace(/\s/g, '')].length
    if (chars < 6 || chars > 80 || !/\p{Script=Han}/u.test(body)) continue
    entries.push({ body, attribution: a, text: `${body}\n    ${last.trim()}` })
  }
  const groups = similarityGroups(entries.map((e) => quoteBody(e.text)), 2, 0.5)
  const firstOfGroup = new Set<number>()
  const drafts: Parameters<typeof finish>[1] = entries.map((e, i) => {
    const label = firstOfGroup.has(groups[i]!) ? 'quote-repeated' : 'quote-original'
    firstOfGroup.add(groups[i]!)
    return { content: e.text, perturbation: label, key: i / entries.length, groupOf: groups[i]!, bucket: 'short' }
  })
  let made = 0
  for (const i of rng.sample(entries.map((_, k) => k), Math.min(600, entries.length))) {
    const e = entries[i]!
    const [style, make] = rng.pick(ATTRIBUTION_STYLES)
    const line = make(e.attribution, rng)
    if (line === null) continue
    const content = line === '' ? e.body : rng.next() < 0.3 && !e.body.includes('\n') ? `${e.body} ${line}` : `${e.body}\n${line}`
    const key = i / entries.length
    drafts.push({ content, perturbation: 'quote-attribution', key: key + (1 - key) * rng.next(), groupOf: groups[i]!, bucket: 'short', note: style })
    made++
  }
  const perSource = new Map<string, number>()
  for (const e of entries) perSource.set(e.attribution.book || e.attribution.author, (perSource.get(e.attribution.book || e.attribution.author) ?? 0) + 1)
  const top = [...perSource].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([s, n]) => `${s} ${n}`).join(', ')
  return finish('quotes', drafts, [`${entries.length} short attributed quotes of fortunes-zh (6–80 characters); ${made} copies with the attribution rewritten; largest sources: ${top}`])
}

/** The first place two texts differ, with a little context on each side. */
function firstDiff(a: string, b: string): { engine: string; oracle: string } {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return { engine: a.slice(Math.max(0, i - 15), i + 25), oracle: b.slice(Math.max(0, i - 15), i + 25) }
}

/** Kind (c), real terminal output (terminal.ts): man pages, grep, full-screen, progress bars, ls. */
function terminalKind(
  fortunes: Map<string, string[]>, rng: Rng, log: (s: string) => void, name = 'terminal',
  make: (texts: readonly string[], rng: Rng, log: (s: string) => void) => { drafts: TerminalDraft[]; groups: number[] } = terminalDrafts,
): KindStream {
  const all = [...(fortunes.get('chinese') ?? []), ...(fortunes.get('tang300') ?? []), ...(fortunes.get('song100') ?? [])]
  const plain = [...new Set(all.map((e) => stripAnsi(e).trim()))].filter((t) => {
    const n = t.replace(/\s/g, '').length
    return n >= 6 && n <= 400 && !/[\u2500-\u257f]/.test(t)
  })
  const texts = rng.fork('texts').sample(plain, Math.min(500, plain.length))
  const { drafts, groups } = make(texts, rng.fork('drafts'), log)
  const keys = copyKeys(drafts, rng.fork('order'))
  const strayed = drafts.filter((d, i) => d.source !== undefined && groups[i] !== groups[d.source]).length
  const counts = new Map<string, number>()
  for (const d of drafts) counts.set(d.label, (counts.get(d.label) ?? 0) + 1)
  // What the engine's normaliser makes of each shape, against its plain source and the oracle's stripper.
  const shapes = new Map<string, { n: number; same: number; j: number; leftover: number; example?: string }>()
  drafts.forEach((d) => {
    if (d.source === undefined) return
    const got = normalizeContent(d.content)
    const want = normalizeContent(drafts[d.source]!.content)
    const viaOracle = normalizeContent(renderTerminal(d.content))
    const row = shapes.get(d.label) ?? { n: 0, same: 0, j: 0, leftover: 0 }
    row.n++
    if (got === viaOracle) row.same++
    else row.example ??= JSON.stringify(firstDiff(got, viaOracle))
    row.j += jaccard(shingleSet(got, 5), shingleSet(want, 5))
    // eslint-disable-next-line no-control-regex -- escape remnants: a CSI/OSC body without its ESC
    if (/\[[0-9;]*m|\]8;;|\]0;|[\x00-\x08\x1b]/.test(got)) row.leftover++
    shapes.set(d.label, row)
  })
  const shapeNotes = [...shapes].map(([label, r]) => `engine normaliser on ${label}: ${r.same}/${r.n} equal to the oracle stripper's text, 5-gram Jaccard with the plain source ${(r.j / r.n).toFixed(3)}, ${r.leftover} with escape remnants${r.example === undefined ? '' : `; e.g. ${r.example}`}`)
  return finish(name, drafts.map((d, i) => ({
    content: d.content, perturbation: d.label, key: keys[i]!, groupOf: groups[i]!, bucket: d.family,
  })), [
    `real terminal output: ${[...counts].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `oracle on the text with escapes removed by the eval's own stripper; ${strayed} copies the oracle does not find alike their source (labelled distinct)`,
    ...shapeNotes,
  ])
}

/** Sort keys: originals uniformly, each copy at a random place after its source. */
function copyKeys(drafts: readonly { source?: number }[], rng: Rng): number[] {
  const keys: number[] = drafts.map((d) => (d.source === undefined ? rng.next() : NaN))
  drafts.forEach((d, i) => {
    if (d.source !== undefined) keys[i] = keys[d.source]! + (1 - keys[d.source]!) * rng.next()
  })
  return keys
}

/** Kind (d), more attribution shapes (attributions.ts): poem couplets, Chinese and English quotes. */
function attributionsKind(rng: Rng, log: (s: string) => void): KindStream {
  const { drafts, groups, counts } = attributionDrafts(rng.fork('drafts'), log)
  const keys = copyKeys(drafts, rng.fork('order'))
  const styles = new Map<string, number>()
  for (const d of drafts) if (d.source !== undefined) styles.set(d.note, (styles.get(d.note) ?? 0) + 1)
  // Originals whose attribution an earlier original with a different quote already carries.
  const attributionGroups = new Map<string, Set<number>>()
  let siblings = 0
  drafts.forEach((d, i) => {
    if (d.source !== undefined) return
    const line = d.content.replace(d.body, '').trim()
    const seen = attributionGroups.get(line) ?? new Set<number>()
    if (seen.size > 0 && !seen.has(groups[i]!)) siblings++
    seen.add(groups[i]!)
    attributionGroups.set(line, seen)
  })
  return finish('attributions', drafts.map((d, i) => ({
    content: d.content, perturbation: d.label, key: keys[i]!, groupOf: groups[i]!, bucket: d.lang, note: d.note,
  })), [
    `real quotes: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `attribution layouts of the copies: ${[...styles].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `${siblings} originals share their exact attribution line with a different earlier quote (same poem / author / work)`,
  ])
}

/**
 * The kinds' streams for a seed, or [] (with a notice) when fortunes-zh cannot be had.
 * @example buildKinds(corpus, 1, console.error).map((k) => k.name) // ['url', 'ansi', 'quotes']
 */
export function buildKinds(corpus: readonly CorpusDoc[], seed: number, log: (s: string) => void): KindStream[] {
  const fortunes = loadFortunes(log)
  if (fortunes === null) {
    log('fortunes-zh is not available from apt: the url/ansi/quotes kinds are skipped.')
    return []
  }
  const rng = new Rng(seed)
  return [urlKind(corpus, fortunes), ansiKind(fortunes, rng.fork('ansi')), terminalKind(fortunes, rng.fork('terminal'), log), quotesKind(fortunes, rng.fork('quotes')), attributionsKind(rng.fork('attributions'), log),
    terminalKind(fortunes, rng.fork('terminal-more'), log, 'terminal-more', moreTerminalDrafts)]
}
