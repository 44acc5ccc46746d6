import { hex32 } from '../bits.js'
import { labelOnly } from '../engine/line-shape.js'
import { MINHASH_SKETCH_CHARS } from './minhash.js'

/**
 * The figure and negation veto for short articles (issue 24: "in a short text a number is
 * content"; a negation flips the news). A text of more content characters than the exact short
 * route takes (`SHORT_GRAM_MAX_CHARS`) and at most {@link FIGURE_VETO_MAX_CHARS} is decided by
 * SimHash and MinHash, which are blind to one figure or one character: two bulletins of one
 * template ("…同比上涨1.2%" / "…2.1%", "1月14日" / "1月84日"), or an item and its negation
 * ("日供水量仅有…" / "仅没有…"), are within k. Such a text's sketch carries a few facts of its
 * lines after its MinHash bits, and a SimHash or MinHash match is vetoed when
 *
 * - **a figure changed:** each side has a figure the other lacks, as multisets (a figure changed
 *   into one the text holds elsewhere, "f—61 … f—16" / "f—16 … f—16", still counts); a figure
 *   only added or dropped on one side (a dateline dropped, a heading number) is no veto;
 * - **a negation inserted or removed:** the sentences' numbers of negation characters
 *   (不 没 无 非 未 别 勿 莫 否) differ, and their numbers of content characters differ by exactly
 *   as much: the negation is the only change of length ("是" / "不是"). A sentence dropped or added,
 *   or a word replaced by another ("不会" / "绝不"), changes the length otherwise. A word replaced
 *   by its negation of the same length ("已" / "未") is not seen;
 * - **a clause negated** (`clauseNegated`, simdup-fp/15): a clause of at least
 *   {@link CLAUSE_MIN_CHARS} content characters besides its negations is in both texts with
 *   another number of negation characters, whatever else changed ("…而且是可脚本化的" + a promo
 *   line / "…而且不是可脚本化的"; the whole-text counts above miss it when the lengths moved otherwise).
 *
 * **Which lines count.** A figure is a run of ASCII digits (a `.` between two digits inside it:
 * `0.3` and `3.0` differ) on any line but page chrome (`chromeFigures`): a labelled line
 * (`labelOnly`: "发布时间：2024-05-02 09:39 来源：…"), a footer (ICP numbers, ©), or a line of
 * nothing but counters, dates and times ("阅读 68.9万 · 点赞 412 · 评论 37", "2024-05-02 09:39").
 * So a repost on another page, or the page crawled again, keeps its match; a sub-heading's figure
 * ("(附图片5张)") is the item's. A number of the text's structure is no figure either
 * (`numbersStructure`: 5.4.4, a line's leading `4.6.`, `第 7.8 节`, `表 5.3`): two editions of one
 * manual number their sections differently. Characters and negations are counted on lines that are sentences
 * (with a sentence mark), so a button or heading left on one page only does not spoil the count.
 *
 * **Where it does not apply.** The url layer's content check (two versions of one page with a
 * figure corrected are one document: `contentAgreement`), texts of the short route (their gram
 * sets carry their own veto, short-grams.ts), and longer texts (a figure is a small part of a
 * long article; measured in docs/notes/2026-11-27-short-news-veto-fp13.md).
 *
 * **Format.** After the MinHash sketch's bits, 8 hex digits each: the number of content
 * characters, the number of negations, the number of figures, then each figure (a 32-bit FNV-1a
 * hash of its characters), ascending; then the number of clauses and each clause (`clauseFacts`), ascending. Still one run of hex digits after `m:`, so both stores keep
 * it as bytes; `minhashPart` gives the MinHash sketch back.
 */

/** Largest number of content characters of a long-route text whose sketch carries its veto facts. */
export const FIGURE_VETO_MAX_CHARS = 400

/**
 * Counters a page prints beside an article (阅读 68.9万 · 点赞 412 · 评论 37), with or without a
 * colon: the word, then the figure and its unit.
 */
const COUNTER = /(?:阅读|点赞|评论|浏览|点击|收藏|转发|分享|回复|访问|人气|热度|播放|关注|粉丝|在看)(?:量|数|次数)?\s*[:：]?\s*\d+(?:\.\d+)?\s*[万千亿]?[次人条]?/gu
/** A date with its year, or a time of day. */
const DATE_TIME = /\d{2,4}[-/.年]\d{1,2}[-/.月]\d{1,2}日?|\d{1,2}:\d{2}(?::\d{2})?/gu
/** Footer lines: copyright and registration numbers. */
const FOOTER = /icp|©|copyright|版权所有/iu
const WORD = /[\p{L}]/u
/** A sentence holds one of these (full-width forms are ASCII after normalisation; a point before a digit is a decimal point). */
const SENTENCE_MARK = /[,;!?，。；、！？]|\.(?!\d)/u

/**
 * Whether a line's figures are page chrome: a labelled line (`labelOnly`), a footer line, or a
 * line of nothing but counters, dates and times.
 * @example chromeFigures('阅读 68.9万 · 点赞 412 · 评论 37') // true
 */
export function chromeFigures(line: string): boolean {
  if (FOOTER.test(line) || labelOnly(line)) return true
  return !WORD.test(line.replace(COUNTER, '').replace(DATE_TIME, ''))
}

/** What the veto reads of a text's prose lines. */
export interface ProseFacts {
  /**
   * Figures, two 32-bit hashes each: the figure with the characters beside it, and those
   * characters alone (its slot); by the first, ascending, repeats kept.
   */
  figures: Uint32Array
  /** Content characters (letters and digits). */
  chars: number
  /** Negation characters among them (不 没 无 非 未 别 勿 莫 否). */
  negations: number
  /**
   * The clauses (`clauseFacts`): each a hash of its content characters without its negation
   * characters (top 28 bits) and its number of negation characters (low 4 bits), ascending, distinct.
   */
  clauses: Uint32Array
}

/** Marks that end a clause: sentence marks and the comma (a point before a digit is a decimal point). */
const CLAUSE_MARK = /[,;!?:，。；、！？：]|\.(?!\d)/u
/** Fewest content characters (negations left out) of a clause the veto reads: shorter ones ("是", "对") say little. */
export const CLAUSE_MIN_CHARS = 4
const NEGATION_BITS = 4

/**
 * The clauses of a text's lines but page chrome, each as its content characters without the
 * negation characters (hashed) and the number of negation characters it held: two texts holding
 * one clause with another number of negations ("它们不但快捷,而且是可脚本化的" / "…而且不是…")
 * disagree on it whatever else differs between them (a promo line added, another last paragraph).
 * @example clauseFacts('它是可脚本化的。').length // 1
 */
export function clauseFacts(normalized: string): Uint32Array {
  const out = new Set<number>()
  for (const line of normalized.split('\n')) {
    if (chromeFigures(line)) continue
    for (const clause of line.split(CLAUSE_MARK)) {
      let h = 0x811c9dc5
      let n = 0
      let negs = 0
      for (let i = 0; i < clause.length; i++) {
        const c = clause.charCodeAt(i)
        if (!((c >= 0x4e00 && c <= 0x9fff) || isDigit(c) || (c < 0xd800 && LETTER.test(clause[i]!)))) continue
        if (NEGATIONS.has(c)) {
          negs++
          continue
        }
        h = Math.imul(h ^ c, 0x01000193)
        n++
      }
      if (n >= CLAUSE_MIN_CHARS) out.add(((h & ~((1 << NEGATION_BITS) - 1)) | Math.min(negs, (1 << NEGATION_BITS) - 1)) >>> 0)
    }
  }
  return Uint32Array.from([...out].sort((x, y) => x - y))
}

/**
 * Whether one clause holds another number of negations in the two texts: its negation-free text is
 * in both clause lists, and each side has a count for it the other lacks ("是" / "不是"; a clause
 * written twice, once negated, on one side and once on the other is a clause dropped, no flip).
 */
export function clauseNegated(a: Uint32Array, b: Uint32Array): boolean {
  const mask = ~((1 << NEGATION_BITS) - 1) >>> 0
  let j = 0
  for (let i = 0; i < a.length; ) {
    const key = (a[i]! & mask) >>> 0
    let ia = i
    while (ia < a.length && ((a[ia]! & mask) >>> 0) === key) ia++
    while (j < b.length && ((b[j]! & mask) >>> 0) < key) j++
    let jb = j
    while (jb < b.length && ((b[jb]! & mask) >>> 0) === key) jb++
    if (jb > j) {
      const xa = a.subarray(i, ia)
      const xb = b.subarray(j, jb)
      if (xa.some((x) => !xb.includes(x)) && xb.some((x) => !xa.includes(x))) return true
    }
    i = ia
    j = jb
  }
  return false
}

const NEGATIONS = new Set([...'不没无非未别勿莫否'].map((c) => c.charCodeAt(0)))
const LETTER = /[\p{L}\p{N}]/u

/** The figures of a normalised text (`ProseFacts.figures`: page chrome and structure numbers left out). */
export function textFigures(normalized: string): Uint32Array {
  return proseFacts(normalized, false).figures
}

/** The figures, content characters and negations of the prose lines of a normalised text (and its clauses, unless `clauses` is false). */
export function proseFacts(normalized: string, clauses = true): ProseFacts {
  const figures: [number, number][] = []
  let chars = 0
  let negations = 0
  for (const line of normalized.split('\n')) {
    if (chromeFigures(line)) continue
    // Characters and negations are counted in sentences only (a line with a sentence mark): a
    // button or heading left on one page ("关注") would spoil the count.
    const prose = SENTENCE_MARK.test(line)
    for (let i = 0; i < line.length; i++) {
      const c = line.charCodeAt(i)
      if (isDigit(c)) {
        // The figure in its slot: the nearest characters before and after it on its line (spaces
        // skipped; 0 at the line's ends) hashed with it, and without it.
        const before = neighbour(line, i, -1)
        let h = Math.imul(0x811c9dc5 ^ before, 0x01000193)
        let j = i
        for (; j < line.length; j++) {
          const d = line.charCodeAt(j)
          if (!isDigit(d) && !(d === 0x2e && j + 1 < line.length && isDigit(line.charCodeAt(j + 1)))) break
          if (prose && isDigit(d)) chars++
          h = Math.imul(h ^ d, 0x01000193)
        }
        const after = neighbour(line, j - 1, 1)
        if (!numbersStructure(line, i, j, before, after)) {
          figures.push([Math.imul(h ^ after, 0x01000193) >>> 0, Math.imul(Math.imul(0x811c9dc5 ^ before, 0x01000193) ^ after, 0x01000193) >>> 0])
        }
        i = j - 1
      } else if ((c >= 0x4e00 && c <= 0x9fff) || (c < 0xd800 && LETTER.test(line[i]!))) {
        // Han (the unified block first, no regular expression) and other letters of the BMP.
        if (!prose) continue
        chars++
        if (NEGATIONS.has(c)) negations++
      }
    }
  }
  figures.sort((x, y) => x[0] - y[0] || x[1] - y[1])
  return { figures: Uint32Array.from(figures.flat()), chars, negations, clauses: clauses ? clauseFacts(normalized) : new Uint32Array(0) }
}

/** Characters that name a numbered part before its number: 第 7.8 节, 表 5.3, 图 2.1, 例 4.2. */
const PART_BEFORE = new Set([...'第表图例'].map((c) => c.charCodeAt(0)))
/** Characters that name a numbered part after its number: 7.8 节, 3.4 章. */
const PART_AFTER = new Set([...'节章'].map((c) => c.charCodeAt(0)))
/** What follows a line's leading enumeration: 4.6. 验证…, 1. 手册, 3、, 2), 2）. */
const ENUMERATION_END = new Set([0x2e, 0x3001, 0x29, 0xff09])

/**
 * Whether the figure `line[from, to)` numbers the text's structure rather than saying a fact of
 * it: a number of two points or more (a section or release number: 5.4.4, 2.6.32), a line's
 * leading enumeration (`4.6. 自动化安装`, `1. …`, `3、…`), or a dotted number naming a part
 * (`第 7.8 节`, `表 5.3.`). Two copies of one text in two editions of a manual or site number
 * their sections, tables and cross-references differently; a quantity (`3.5亿元`, `第3名`,
 * `1.2%`) is none of these and stays a figure.
 */
export function numbersStructure(line: string, from: number, to: number, before: number, after: number): boolean {
  let points = 0
  for (let k = from; k < to; k++) if (line.charCodeAt(k) === 0x2e) points++
  if (points >= 2) return true
  if (before === 0 && ENUMERATION_END.has(line.charCodeAt(to))) return true
  return points === 1 && (PART_BEFORE.has(before) || PART_AFTER.has(after))
}

/** The nearest code unit to `at` in direction `step` that is not a space, or 0 at the line's end. */
function neighbour(line: string, at: number, step: number): number {
  for (let k = at + step; k >= 0 && k < line.length; k += step) {
    const c = line.charCodeAt(k)
    if (c !== 0x20 && c !== 0x3000 && c !== 0x09) return c
  }
  return 0
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39

/**
 * A MinHash sketch with the text's prose facts after its bits (see the module comment).
 * @example withFigures(minhashSketch(text).sketch, text).length > MINHASH_SKETCH_CHARS // true
 */
export function withFigures(minhash: string, normalized: string): string {
  const f = proseFacts(normalized)
  let out = minhash + hex32(f.chars) + hex32(f.negations) + hex32(f.figures.length >>> 1)
  for (const x of f.figures) out += hex32(x)
  out += hex32(f.clauses.length)
  for (const x of f.clauses) out += hex32(x)
  return out
}

/** The prose facts a sketch carries (`withFigures`), or null for a sketch without them. */
export function figurePart(sketch: string | null | undefined): ProseFacts | null {
  const at = MINHASH_SKETCH_CHARS
  if (sketch == null || sketch.length < at + 24 || !sketch.startsWith('m:')) return null
  const n = parseInt(sketch.slice(at + 16, at + 24), 16)
  const c = at + 24 + 16 * n
  if (!(n >= 0) || sketch.length < c + 8) return null
  const m = parseInt(sketch.slice(c, c + 8), 16)
  if (!(m >= 0) || sketch.length !== c + 8 + 8 * m) return null
  const figures = new Uint32Array(2 * n)
  for (let i = 0, p = at + 24; i < 2 * n; i++, p += 8) figures[i] = parseInt(sketch.slice(p, p + 8), 16)
  const clauses = new Uint32Array(m)
  for (let i = 0, p = c + 8; i < m; i++, p += 8) clauses[i] = parseInt(sketch.slice(p, p + 8), 16)
  return { figures, chars: parseInt(sketch.slice(at, at + 8), 16), negations: parseInt(sketch.slice(at + 8, at + 16), 16), clauses }
}

/**
 * Whether both sketches carry their veto facts and a figure changed (each holds a figure, counted
 * with its repeats, that the other lacks) or a negation was inserted or removed (see the module comment).
 * @example figuresChanged(withFigures(m1, '上涨1.2%。'), withFigures(m2, '上涨2.1%。')) // true
 */
export function figuresChanged(a: string | null | undefined, b: string | null | undefined): boolean {
  const fa = figurePart(a)
  if (fa === null) return false
  const fb = figurePart(b)
  if (fb === null) return false
  const dn = fa.negations - fb.negations
  if (dn !== 0 && fa.chars - fb.chars === dn) return true
  if (clauseNegated(fa.clauses, fb.clauses)) return true
  return slotChanged(fa.figures, fb.figures)
}

/**
 * Whether a figure changed in its slot: the multisets of figures-with-neighbours (`proseFacts`'
 * `figures`) differ on both sides, and a figure only one side has sits beside the same characters
 * as one only the other has. ("1月14日" / "1月84日"; not a dateline dropped on one side and a promo
 * line's figure added on the other, nor a headline cut inside a figure: "突破30" / "突破300亿元".)
 * @example slotChanged(textFigures('上涨1.2%'), textFigures('上涨2.1%')) // true
 */
export function slotChanged(x: Uint32Array, y: Uint32Array): boolean {
  let i = 0
  let j = 0
  const onlyX = new Set<number>()
  const onlyY: number[] = []
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      i += 2
      j += 2
    } else if (j >= y.length || (i < x.length && x[i]! < y[j]!)) {
      onlyX.add(x[i + 1]!)
      i += 2
    } else {
      onlyY.push(y[j + 1]!)
      j += 2
    }
  }
  return onlyY.some((slot) => onlyX.has(slot))
}
