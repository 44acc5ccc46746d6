import { hex32 } from '../bits.js'
import { labelOnly } from '../engine/line-shape.js'
import { MINHASH_SKETCH_CHARS } from './minhash.js'

/**
 * The figure veto for short articles (issue 24: "in a short text a number is content"). A text of
 * more content characters than the exact short route takes (`SHORT_GRAM_MAX_CHARS`) and at most
 * {@link FIGURE_VETO_MAX_CHARS} is decided by SimHash and MinHash, which are blind to one figure:
 * two bulletins from one template ("…同比上涨1.2%" / "…2.1%", "1月14日" / "1月84日") are within k.
 * Such a text's sketch carries the figures of its prose after its MinHash bits, and a SimHash or
 * MinHash match is vetoed when each side has a figure the other lacks (as multisets: a figure
 * changed into one the text holds elsewhere, "f—61 … f—16" / "f—16 … f—16", still counts).
 *
 * **What counts as a figure.** A run of ASCII digits (a `.` between two digits inside it:
 * `0.3` and `3.0` differ) in a line of prose: a line with a sentence mark (，。；、！？ or their
 * ASCII forms after normalisation; a point before a digit is a decimal point) that is not page chrome by its shape (`labelOnly`:
 * "发布时间：2024-05-02 09:39 来源：…"). Counters, dates and bylines a portal prints beside an
 * article ("阅读 68.9万 · 点赞 412 · 评论 37", "浏览次数：1234", a footer's ICP number) are no
 * sentences, so a repost on another page, or the same page crawled again, keeps its match; a
 * figure added or dropped on one side only (a dateline dropped, a heading number) is no veto.
 *
 * **Where it does not apply.** The url layer's content check (two versions of one page with a
 * figure corrected are one document, a new version: `contentAgreement`), and texts of the short
 * route (their gram sets carry their own veto, short-grams.ts) or of more characters (a figure in
 * a long article is a small part of it).
 *
 * **Format.** After the MinHash sketch's bits: 8 hex digits of the number of figures, then 8 hex
 * digits per figure (a 32-bit FNV-1a hash of its characters), ascending. Still one run of hex
 * digits after `m:`, so both stores keep it as bytes; `minhashPart` gives the MinHash sketch back.
 */

/** Largest number of content characters of a long-route text whose sketch carries its figures. */
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
  /** Figures: 32-bit hashes of their characters, ascending, repeats kept. */
  figures: Uint32Array
  /** Content characters (letters and digits). */
  chars: number
  /** Negation characters among them (不 没 无 非 未 别 勿 莫 否). */
  negations: number
}

const NEGATIONS = new Set([...'不没无非未别勿莫否'].map((c) => c.charCodeAt(0)))
const LETTER = /[\p{L}\p{N}]/u

/** The figures, content characters and negations of the prose lines of a normalised text. */
export function proseFacts(normalized: string): ProseFacts {
  const figures: number[] = []
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
        let h = 0x811c9dc5
        let j = i
        for (; j < line.length; j++) {
          const d = line.charCodeAt(j)
          if (!isDigit(d) && !(d === 0x2e && j + 1 < line.length && isDigit(line.charCodeAt(j + 1)))) break
          if (prose && isDigit(d)) chars++
          h = Math.imul(h ^ d, 0x01000193)
        }
        figures.push(h >>> 0)
        i = j - 1
      } else if ((c >= 0x4e00 && c <= 0x9fff) || (c < 0xd800 && LETTER.test(line[i]!))) {
        // Han (the unified block first, no regular expression) and other letters of the BMP.
        if (!prose) continue
        chars++
        if (NEGATIONS.has(c)) negations++
      }
    }
  }
  return { figures: Uint32Array.from(figures).sort(), chars, negations }
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39

/**
 * A MinHash sketch with the text's prose facts after its bits (see the module comment).
 * @example withFigures(minhashSketch(text).sketch, text).length > MINHASH_SKETCH_CHARS // true
 */
export function withFigures(minhash: string, normalized: string): string {
  const f = proseFacts(normalized)
  let out = minhash + hex32(f.chars) + hex32(f.negations) + hex32(f.figures.length)
  for (const x of f.figures) out += hex32(x)
  return out
}

/** The prose facts a sketch carries (`withFigures`), or null for a sketch without them. */
export function figurePart(sketch: string | null | undefined): ProseFacts | null {
  const at = MINHASH_SKETCH_CHARS
  if (sketch == null || sketch.length < at + 24 || !sketch.startsWith('m:')) return null
  const n = parseInt(sketch.slice(at + 16, at + 24), 16)
  if (!(n >= 0) || sketch.length !== at + 24 + 8 * n) return null
  const figures = new Uint32Array(n)
  for (let i = 0, p = at + 24; i < n; i++, p += 8) figures[i] = parseInt(sketch.slice(p, p + 8), 16)
  return { figures, chars: parseInt(sketch.slice(at, at + 8), 16), negations: parseInt(sketch.slice(at + 8, at + 16), 16) }
}

/**
 * Whether both sketches carry their figures and each holds a figure (counted with its repeats)
 * that the other lacks: a figure changed.
 * @example figuresChanged(withFigures(m1, '上涨1.2%。'), withFigures(m2, '上涨2.1%。')) // true
 */
export function figuresChanged(a: string | null | undefined, b: string | null | undefined): boolean {
  const fa = figurePart(a)
  if (fa === null) return false
  const fb = figurePart(b)
  if (fb === null) return false
  const dn = fa.negations - fb.negations
  if (dn !== 0 && fa.chars - fb.chars === dn) return true
  const x = fa.figures
  const y = fb.figures
  let i = 0
  let j = 0
  let onlyX = false
  let onlyY = false
  while (i < x.length && j < y.length) {
    if (x[i] === y[j]) {
      i++
      j++
    } else if (x[i]! < y[j]!) {
      onlyX = true
      i++
    } else {
      onlyY = true
      j++
    }
  }
  if (i < x.length) onlyX = true
  if (j < y.length) onlyY = true
  return onlyX && onlyY
}
