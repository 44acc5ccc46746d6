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

/** A line of prose holds one of these (full-width forms are ASCII after normalisation). */
const SENTENCE_MARK = /[,;!?，。；、！？]|\.(?!\d)/u

/** The figures (32-bit hashes, ascending, repeats kept) of the prose lines of a normalised text. */
export function proseFigures(normalized: string): number[] {
  const out: number[] = []
  for (const line of normalized.split('\n')) {
    if (!hasDigit(line) || !SENTENCE_MARK.test(line) || labelOnly(line)) continue
    for (let i = 0; i < line.length; i++) {
      if (!isDigit(line.charCodeAt(i))) continue
      let h = 0x811c9dc5
      let j = i
      for (; j < line.length; j++) {
        const c = line.charCodeAt(j)
        if (!isDigit(c) && !(c === 0x2e && j + 1 < line.length && isDigit(line.charCodeAt(j + 1)))) break
        h = Math.imul(h ^ c, 0x01000193)
      }
      out.push(h >>> 0)
      i = j
    }
  }
  return out.sort((a, b) => a - b)
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39

function hasDigit(line: string): boolean {
  for (let i = 0; i < line.length; i++) if (isDigit(line.charCodeAt(i))) return true
  return false
}

/**
 * A MinHash sketch with the text's prose figures after its bits (see the module comment).
 * @example withFigures(minhashSketch(text).sketch, text).length > MINHASH_SKETCH_CHARS // true
 */
export function withFigures(minhash: string, normalized: string): string {
  const figures = proseFigures(normalized)
  let out = minhash + hex32(figures.length)
  for (const f of figures) out += hex32(f)
  return out
}

/** The figures a sketch carries (`withFigures`), ascending, or null for a sketch without them. */
export function figurePart(sketch: string | null | undefined): Uint32Array | null {
  if (sketch == null || sketch.length < MINHASH_SKETCH_CHARS + 8 || !sketch.startsWith('m:')) return null
  const n = parseInt(sketch.slice(MINHASH_SKETCH_CHARS, MINHASH_SKETCH_CHARS + 8), 16)
  if (!(n >= 0) || sketch.length !== MINHASH_SKETCH_CHARS + 8 * (n + 1)) return null
  const out = new Uint32Array(n)
  for (let i = 0, p = MINHASH_SKETCH_CHARS + 8; i < n; i++, p += 8) out[i] = parseInt(sketch.slice(p, p + 8), 16)
  return out
}

/**
 * Whether both sketches carry their figures and each holds a figure (counted with its repeats)
 * that the other lacks: a figure changed.
 * @example figuresChanged(withFigures(m1, '上涨1.2%。'), withFigures(m2, '上涨2.1%。')) // true
 */
export function figuresChanged(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = figurePart(a)
  if (x === null || x.length === 0) return false
  const y = figurePart(b)
  if (y === null || y.length === 0) return false
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
