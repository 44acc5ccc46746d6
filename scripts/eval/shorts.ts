/**
 * Short texts (10–80 characters) for the evaluation: titles, one-line man page descriptions and
 * single sentences from the corpus; their perturbed copies (`short-traditional`,
 * `short-fullwidth`, `short-punct`); and near-miss negatives (`short-near-miss`) that differ from
 * a short text of at most 30 characters in one meaningful word or number, e.g.
 * 版本 1.2 已发布 (version 1.2 released) vs 版本 1.3 已发布 — distinct documents, not copies.
 */
import { tag } from 'jieba-wasm'
import type { CorpusDoc } from '../corpus/types.js'
import { splitSentences, toFullwidth, toTraditional } from './perturb.js'
import type { Rng } from './prng.js'

/** Length range of a short text, in characters (code points). */
export const SHORT_MIN_CHARS = 10
/** @see SHORT_MIN_CHARS */
export const SHORT_MAX_CHARS = 80
/** Near-misses are made only from texts this short: in a longer one a single changed word is an edit, not a different text. */
export const NEAR_MISS_MAX_CHARS = 30

/** A short text and where it came from. */
export interface ShortText {
  text: string
  /** `title:<doc id>` or `sentence:<doc id>`. */
  from: string
}

const hanCount = (s: string): number => (s.match(/\p{Script=Han}/gu) ?? []).length
const charCount = (s: string): number => Array.from(s).length

/** Key under which two short texts count as the same text: NFKC, lower case, letters and digits only. */
export function shortKey(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')
}

function acceptable(s: string): boolean {
  const n = charCount(s)
  if (n < SHORT_MIN_CHARS || n > SHORT_MAX_CHARS) return false
  const han = hanCount(s)
  const visible = s.replace(/\s/g, '').length
  return han >= 4 && han / visible >= 0.4
}

/**
 * Candidate short texts of the documents: each title, and up to `perDoc` sentences per document.
 * @example shortCandidates(docs, rng, 2)[0] // → { text: '加载/保存选项 指定加载和保存的通用设置。', from: 'sentence:lo/zh_CN/…' }
 */
export function shortCandidates(docs: readonly CorpusDoc[], rng: Rng, perDoc: number): ShortText[] {
  const out: ShortText[] = []
  for (const d of docs) {
    const title = d.title.trim()
    if (acceptable(title)) out.push({ text: title, from: `title:${d.id}` })
    const sentences = splitSentences(d.content)
      .map((s) => s.replace(/\s+/g, ' ').trim())
      .filter(acceptable)
    for (const s of rng.sample(sentences, perDoc)) out.push({ text: s, from: `sentence:${d.id}` })
  }
  return out
}

const PUNCT_TO_ASCII: Readonly<Record<string, string>> = {
  '，': ',', '。': '.', '：': ':', '；': ';', '（': '(', '）': ')', '！': '!', '？': '?', '、': ',',
}
const PUNCT_TO_CJK: Readonly<Record<string, string>> = {
  ',': '，', '.': '。', ':': '：', ';': '；', '(': '（', ')': '）', '!': '！', '?': '？',
}

/**
 * Change the punctuation of a short text the way reposts and different input methods do:
 * CJK ↔ ASCII punctuation, a changed or removed final mark, other quote marks, spaces around
 * Latin words. Null when nothing changed.
 * @example punctuationVariant('打开文件，然后保存。', rng) // e.g. '打开文件,然后保存.'
 */
export function punctuationVariant(s: string, rng: Rng): { text: string; note: string } | null {
  const ops: [string, (t: string) => string][] = [
    ['cjk→ascii', (t) => t.replace(/[，。：；（）！？、]/g, (c) => PUNCT_TO_ASCII[c] ?? c)],
    ['ascii→cjk', (t) => t.replace(/([\p{Script=Han}])([,.:;!?])(?=\s|$|\p{Script=Han})/gu, (_m, h: string, p: string) => h + (PUNCT_TO_CJK[p] ?? p))],
    ['final mark', (t) => (/[。！？.!?]$/.test(t) ? t.slice(0, -1) : `${t}${rng.pick(['。', '！', '…'])}`)],
    ['quotes', (t) => (/[“”]/.test(t) ? t.replace(/“/g, '「').replace(/”/g, '」') : /[「」]/.test(t) ? t.replace(/「/g, '“').replace(/」/g, '”') : t.replace(/"([^"]*)"/g, '「$1」'))],
    ['spacing', (t) => (/ /.test(t) ? t.replace(/(\p{Script=Han}) | (\p{Script=Han})/gu, '$1$2') : t.replace(/(\p{Script=Han})([A-Za-z0-9])/gu, '$1 $2').replace(/([A-Za-z0-9])(\p{Script=Han})/gu, '$1 $2'))],
  ]
  const chosen = rng.sample(ops, rng.int(1, 2))
  let t = s
  for (const [, op] of chosen) t = op(t)
  if (t === s) {
    // The chosen edits had nothing to act on: fall back to the final mark, which always changes.
    const fallback = ops[2]
    if (fallback === undefined) return null
    t = fallback[1](s)
    return t === s ? null : { text: t, note: 'final mark' }
  }
  return { text: t, note: chosen.map(([n]) => n).join(' + ') }
}

/** The short-text copies: script conversion, full-width ASCII, punctuation. */
export const SHORT_PERTURBATIONS = ['short-traditional', 'short-fullwidth', 'short-punct'] as const

/** One short-text perturbation. */
export type ShortPerturbation = (typeof SHORT_PERTURBATIONS)[number]

/** Apply a short perturbation; null when it does not change the text. */
export function perturbShort(s: string, kind: ShortPerturbation, rng: Rng): { text: string; note: string } | null {
  if (kind === 'short-traditional') {
    const variant = rng.next() < 0.5 ? 'tw' : 'twp'
    const t = toTraditional(s, variant)
    return t === s ? null : { text: t, note: `opencc cn→${variant}` }
  }
  if (kind === 'short-fullwidth') {
    const t = toFullwidth(s)
    return t === s ? null : { text: t, note: 'ASCII→full-width' }
  }
  return punctuationVariant(s, rng)
}

const NOUN_TAGS = new Set(['n', 'nr', 'ns', 'nt', 'nz'])
const isNounWord = (word: string, t: string): boolean => NOUN_TAGS.has(t) && /^\p{Script=Han}{2,4}$/u.test(word)

/** Segment and tag with jieba (HMM off: dictionary words only, so a replaced word is a real word). */
export function taggedWords(s: string): { word: string; tag: string }[] {
  return tag(s, false)
}

/**
 * Han nouns of 2–4 characters seen at least `minCount` times in `texts`, by length: the
 * replacements a near-miss draws from. Nouns only, so that a near-miss changes what the text is
 * about (制表符 → 词汇表, tab stop → glossary) rather than a function word (一个 → 单个, one → single).
 */
export function vocabulary(texts: readonly string[], minCount = 3): Map<number, string[]> {
  const counts = new Map<string, number>()
  for (const t of texts) {
    for (const w of taggedWords(t)) {
      if (isNounWord(w.word, w.tag)) counts.set(w.word, (counts.get(w.word) ?? 0) + 1)
    }
  }
  const byLength = new Map<number, string[]>()
  for (const [w, c] of counts) {
    if (c < minCount) continue
    const n = w.length
    const list = byLength.get(n) ?? []
    list.push(w)
    byLength.set(n, list)
  }
  for (const list of byLength.values()) list.sort()
  return byLength
}

/**
 * A near-miss of `s`: one number changed (when `s` has digits) or one Han noun replaced by
 * another noun of the same length. Null when `s` is too long or has neither.
 * @example nearMiss('版本 1.2 已发布', rng, vocab) // → { text: '版本 1.3 已发布', note: 'number 2→3' } (for example)
 */
export function nearMiss(s: string, rng: Rng, vocab: ReadonlyMap<number, readonly string[]>): { text: string; note: string } | null {
  if (charCount(s) > NEAR_MISS_MAX_CHARS) return null
  // Digits of a leading outline number (9.5.8. 关闭屏幕保护, "turn off the screen saver") only
  // say where a heading sits, not what it says: changing them is no meaningful difference.
  const outline = /^\s*\d+(?:\.\d+)*\.?\s/.exec(s)?.[0].length ?? 0
  const numbers = [...s.matchAll(/\d+/g)].filter((m) => (m.index ?? 0) >= outline)
  if (numbers.length > 0) {
    const m = rng.pick(numbers)
    const old = m[0]
    let n = old
    while (n === old) {
      n = old.length === 1 ? String(rng.int(0, 9)) : String(Number(old) + rng.int(1, 9) * (rng.next() < 0.5 ? -1 : 1))
      if (n.startsWith('-')) n = String(Number(old) + rng.int(1, 9))
    }
    const at = m.index ?? 0
    return { text: s.slice(0, at) + n + s.slice(at + old.length), note: `number ${old}→${n}` }
  }
  const tokens = taggedWords(s)
  const candidates = tokens.flatMap((w, i) => (isNounWord(w.word, w.tag) && (vocab.get(w.word.length)?.length ?? 0) > 1 ? [i] : []))
  if (candidates.length === 0) return null
  const i = rng.pick(candidates)
  const old = (tokens[i] as { word: string }).word
  const pool = vocab.get(old.length) ?? []
  let replacement = old
  while (replacement === old) replacement = rng.pick(pool)
  const out = tokens.map((t) => t.word)
  out[i] = replacement
  return { text: out.join(''), note: `noun ${old}→${replacement}` }
}
