import { readFileSync } from 'node:fs'
import { hex32 } from '../bits.js'
import { gramRank } from './_gram-order.js'
import { WORD_REPLACED_MAX_GRAMS, wordReplaced } from './_word-replaced.js'
import { slotChanged, textFigures } from './figure-veto.js'

/**
 * The exact route for short texts (issue 24): below `SHORT_GRAM_MAX_CHARS` content characters a
 * text keeps its whole set of character bigrams and is decided by exact resemblance (Jaccard or
 * containment) instead of SimHash or a MinHash estimate. Measured by
 * scripts/measure-short-length.ts on windows of real corpus text: with either route (SimHash
 * k = 3 or the 512-bit MinHash rule), pairs of exact 5-gram resemblance ≥ 0.7 are missed 19 % of
 * the time at 20 characters, 9 % at 40, 3.4 % at 60, 1.6 % at 80–100, 1.2 % at 120 and never from
 * 150 on (1,000 pairs a length); so texts of at most 150 content characters take this route.
 *
 * **Grams.** The content units of the normalised text (letters and digits; a `.` between two
 * digits stays, so `0.3` and `3.0` stay apart) in overlapping pairs: each gram is the two UTF-16
 * units in one 32-bit key (`a << 16 | b`), exact, no hash collisions. Bigrams and not trigrams:
 * most Chinese words are two characters, and a text of 10 characters has 9 bigrams but 8
 * trigrams, of which one variant character spoils three instead of two. Normalisation has mapped
 * Traditional to Simplified (迴→回, 裡→里) and full-width to ASCII already, when the text holds a
 * Traditional-only character; the grams fold variant characters besides (異體字, whatever the
 * rest of the text: 於→于, 壹→一, 仝→同, 峯→峰; `data/variant-fold.txt`, built from Unihan by
 * scripts/build-variant-fold.ts), so a copy with a few variant characters keeps its grams.
 *
 * **Meaning kept.** Two texts are never short duplicates, whatever their resemblance, when a
 * figure was *changed* (each has a gram with a digit the other lacks: "上涨1.2%" / "上涨2.1%"; a
 * figure only added on one side, as a date or heading number, is no veto; a Chinese numeral
 * replaced by another next to the same character: "二十载" / "三十载") or a negation
 * character (不 没 无 非 未 别 勿 莫 否) was *inserted or removed*: one text has the grams
 * `p n` (the other lacks it) and `n c` where the other has `p c` ("我喜欢" / "我不喜欢"), or starts with `n c` where
 * the other has a gram starting with `c` ("推荐" / "不推荐"). A negation character inside an
 * ordinary word that was replaced (特别 → 晚上, 非常, 未来) is no veto.
 * A text without content units ("。", "————", ":(") is only ever an exact duplicate. A text of one
 * content unit has one pseudo-gram (the unit and 0, which no content unit is), and a text of one
 * gram or pseudo-gram matches only a text of the same one ("漂亮" / "漂亮！", "好" / "好！"; never
 * "错误" / "栈错误"): the similarity rules need `MIN_GRAMS` grams of the smaller set.
 *
 * **Candidates: prefix filtering** (AllPairs, Bayardo et al. 2007; PPJoin, Xiao et al. 2008). In
 * one global order of grams (rarest first, by the shipped frequency table, ties by a hash of the
 * gram; grams the table lacks are rarest), two sets that share at least α grams share one among
 * their first |x| − α + 1 and |y| − α + 1. Each text indexes and asks the prefix that covers every
 * threshold down to the floors (`SHORT_GRAM_FLOOR`), so candidates are exactly the pairs that can
 * reach them; the length and positional filters (`gramBound`) drop the rest before the merge.
 */

/** Largest number of content characters of a text decided by the exact short-text route. */
export const SHORT_GRAM_MAX_CHARS = 150
/** Fewest grams of the smaller set for the similarity rules (fewer: only an equal set matches). */
export const MIN_GRAMS = 2
/**
 * The loosest thresholds the indexed prefixes serve: `jaccard`, `containment`, and the largest
 * ratio of the two set sizes for containment. User thresholds below them are refused.
 */
export const SHORT_GRAM_FLOOR = Object.freeze({ jaccard: 0.5, containment: 0.75, ratio: 2 })
/** Prefix of a gram-set sketch (`t:` term sets, `m:` MinHash). */
export const GRAM_SET_PREFIX = 's:'
/**
 * Separates a gram set from the figures of its text (`figure-veto.ts` `textFigures`, 8 hex digits
 * each): `s:<grams>|<figures>`, only for a text holding a figure (simdup-fp/15). Not a hex digit,
 * so such a sketch is never taken for a bare gram set.
 */
export const GRAM_FIGURES_MARK = '|'
/** Prefix of a prefix-filter term (kept among the record's band terms; `m<i>_` are MinHash bands). */
export const GRAM_TERM_PREFIX = 's_'

const NEGATIONS = '不没无非未别勿莫否'
/** Chinese numerals: a figure written in words (二十载, 三月二日, 两个). */
const NUMERALS = '零一二三四五六七八九十百千万亿两'

let FOLD: Uint16Array | null = null
/** The variant fold (`data/variant-fold.txt`: a character, a tab, what it becomes) as a unit → unit table, 0 = kept; loaded on first use. */
function variantFold(): Uint16Array {
  if (FOLD !== null) return FOLD
  const t = new Uint16Array(0x10000)
  for (const line of readFileSync(new URL('../../data/variant-fold.txt', import.meta.url), 'utf8').split('\n')) {
    if (line.length === 3 && line.charCodeAt(1) === 9) t[line.charCodeAt(0)] = line.charCodeAt(2)
  }
  FOLD = t
  return t
}

let CONTENT: Uint8Array | null = null
/** 1 for a UTF-16 unit that is content (letters, digits, surrogates), 2 for a digit, 3 for a negation, 4 for a Chinese numeral; built on first use. */
function unitClass(): Uint8Array {
  if (CONTENT !== null) return CONTENT
  const t = new Uint8Array(0x10000)
  const re = /[\p{L}\p{N}]/u
  for (let c = 0; c < 0x10000; c++) t[c] = (c >= 0xd800 && c <= 0xdfff) || re.test(String.fromCharCode(c)) ? 1 : 0
  for (let c = 0x30; c <= 0x39; c++) t[c] = 2
  for (const ch of NEGATIONS) t[ch.charCodeAt(0)] = 3
  for (const ch of NUMERALS) t[ch.charCodeAt(0)] = 4
  CONTENT = t
  return t
}

let units = new Uint16Array(1024)

/** Fills `units` with the content units of `text` (ASCII lower-cased, variant characters folded); returns their number. */
function loadUnits(text: string): number {
  const cls = unitClass()
  const fold = variantFold()
  if (units.length < text.length) units = new Uint16Array(Math.max(text.length, units.length * 2))
  let n = 0
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i)
    const f = fold[c]!
    if (f !== 0) c = f
    const k = cls[c]!
    if (k === 0) {
      // A decimal point between two digits is part of the number.
      if (c === 0x2e && n > 0 && cls[units[n - 1]!] === 2 && i + 1 < text.length && cls[text.charCodeAt(i + 1)] === 2) units[n++] = c
      continue
    }
    if (c >= 0x41 && c <= 0x5a) c += 0x20
    units[n++] = c
  }
  return n
}

/** Whether `text` has at most `max` content characters (UTF-16 units, as `gramSet` takes them): stops counting past `max`. */
export function fitsShortRoute(text: string, max = SHORT_GRAM_MAX_CHARS): boolean {
  const cls = unitClass()
  let n = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (cls[c] !== 0 || (c === 0x2e && i > 0 && cls[text.charCodeAt(i - 1)] === 2 && i + 1 < text.length && cls[text.charCodeAt(i + 1)] === 2)) {
      if (++n > max) return false
    }
  }
  return true
}

/** Whether a gram key holds a digit, a decimal point or a negation character (`u` its two units). */
function isVeto(key: number): boolean {
  const cls = unitClass()
  const a = key >>> 16
  const b = key & 0xffff
  return cls[a]! >= 2 || cls[b]! >= 2 || a === 0x2e || b === 0x2e
}

const DIGIT = 1
const NEGATION = 2
const NUMERAL = 4

/** Which veto a gram key carries: DIGIT (a digit or decimal point), NEGATION, or both. */
function vetoKind(key: number): number {
  const cls = unitClass()
  const a = key >>> 16
  const b = key & 0xffff
  let k = 0
  if (cls[a] === 2 || cls[b] === 2 || a === 0x2e || b === 0x2e) k |= DIGIT
  if (cls[a] === 3 || cls[b] === 3) k |= NEGATION
  if (cls[a] === 4 || cls[b] === 4) k |= NUMERAL
  return k
}

/** Whether sorted `keys[0..n)` holds `key` (binary search). */
function hasKey(s: { keys: Uint32Array; n: number }, key: number): boolean {
  let lo = 0
  let hi = s.n - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = s.keys[mid]!
    if (v === key) return true
    if (v < key) lo = mid + 1
    else hi = mid - 1
  }
  return false
}

/** The first index of sorted `s.keys` holding a key ≥ `key`. */
function lowerBound(s: { keys: Uint32Array; n: number }, key: number): number {
  let lo = 0
  let hi = s.n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (s.keys[mid]! < key) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Whether `s` holds a gram whose first unit is `u`. */
function hasGramFrom(s: { keys: Uint32Array; n: number }, u: number): boolean {
  const lo = lowerBound(s, (u << 16) >>> 0)
  return lo < s.n && s.keys[lo]! >>> 16 === u
}

/**
 * Whether `x` has a negation character where `y` has the text without it: a gram `p n` of `x`
 * that `y` lacks and a gram `n c` of `x` with `p c` in `y` (the gram `n c` may be in `y` too,
 * elsewhere: "…没有卡…的没有3G" / "…没有卡…的有3G"; sets do not count repeats); or the mirror
 * image, a gram `n c` of `x` that `y` lacks and a gram `p n` of `x` (perhaps in `y` too) with
 * `p c` in `y` only; or a gram `n c` of `x` that `y` lacks, no gram of `x` ending in `n` (it
 * starts the text), and a gram of `y` starting with `c`.
 */
function negationInserted(x: { keys: Uint32Array; n: number }, y: { keys: Uint32Array; n: number }): boolean {
  const cls = unitClass()
  for (let i = 0; i < x.n; i++) {
    const h = x.keys[i]!
    const n = h & 0xffff
    if (cls[n] !== 3 || hasKey(y, h)) continue
    // `p n` in x only: is there an `n c` of x with `p c` in y?
    const p = h >>> 16
    const from = (n << 16) >>> 0
    for (let j = lowerBound(x, from); j < x.n && x.keys[j]! >>> 16 === n; j++) {
      if (hasKey(y, ((p << 16) | (x.keys[j]! & 0xffff)) >>> 0)) return true
    }
  }
  for (let i = 0; i < x.n; i++) {
    const g = x.keys[i]!
    const n = g >>> 16
    if (cls[n] !== 3 || hasKey(y, g)) continue
    // `n c` in x only, `p n` in x (perhaps in both: "…买的,不过…买的不是" / "…买的,不过…买的是") and
    // `p c` in y only: the negation went in between `p` and `c`.
    const c = g & 0xffff
    for (let j = 0; j < x.n; j++) {
      const h = x.keys[j]!
      if ((h & 0xffff) !== n) continue
      const pc = (((h >>> 16) << 16) | c) >>> 0
      if (hasKey(y, pc) && !hasKey(x, pc)) return true
    }
    let before = false
    for (let j = 0; j < x.n && !before; j++) before = (x.keys[j]! & 0xffff) === n
    if (!before && hasGramFrom(y, g & 0xffff)) return true
  }
  return false
}

/** A short text's gram set: sorted distinct keys, and its prefix-filter terms. */
export interface GramSet {
  /** `s:` + 8 hex digits per gram key, ascending. */
  sketch: string
  /** Prefix-filter terms (`s_` + 8 hex digits), rarest first; empty for a text without content units. */
  terms: string[]
}

/**
 * The gram set of a normalised short text.
 * @example gramSet('我不喜欢').terms.length // 3 grams: 我不 不喜 喜欢
 */
export function gramSet(normalized: string): GramSet {
  const distinct = gramKeys(normalized)
  let sketch = GRAM_SET_PREFIX
  for (const k of distinct) sketch += hex32(k)
  // The figures with their repeats and neighbours: a set of grams does not count repeats
  // ("55555555" / "55555535", "iso-2022" / "iso-2202" have one bigram set).
  const figures = distinct.length === 0 ? null : textFigures(normalized)
  if (figures !== null && figures.length > 0) {
    sketch += GRAM_FIGURES_MARK
    for (const f of figures) sketch += hex32(f)
  }
  return { sketch, terms: distinct.length === 0 ? [] : prefixTerms(distinct) }
}

/** The distinct gram keys (`a << 16 | b`) of a normalised text, ascending; one content unit `a` gives `a << 16`. */
export function gramKeys(normalized: string): Uint32Array {
  const n = loadUnits(normalized)
  if (n === 1) return Uint32Array.of((units[0]! << 16) >>> 0)
  const keys = new Uint32Array(Math.max(0, n - 1))
  for (let i = 0; i + 1 < n; i++) keys[i] = ((units[i]! << 16) | units[i + 1]!) >>> 0
  keys.sort()
  let d = 0
  for (let i = 0; i < keys.length; i++) if (d === 0 || keys[i] !== keys[d - 1]) keys[d++] = keys[i]!
  return keys.subarray(0, d)
}

/** Number of grams a set of `n` must index so that every pair reaching a floor threshold shares one. */
export function prefixLength(n: number): number {
  const f = SHORT_GRAM_FLOOR
  // Jaccard ≥ t ⇒ overlap ≥ ⌈t·n⌉ (the other set is at least as large, or J ≤ |y|/|x|… either way ≥ t·|x|).
  const jaccard = n - Math.ceil(f.jaccard * n - 1e-9) + 1
  // Containment ≥ c of the smaller, sizes within `ratio` ⇒ overlap ≥ ⌈c·n/ratio⌉ when this is the larger.
  const containment = n - Math.ceil((f.containment * n) / f.ratio - 1e-9) + 1
  return Math.min(n, Math.max(jaccard, containment))
}

function prefixTerms(keys: Uint32Array): string[] {
  const n = keys.length
  const order = Array.from(keys)
  const ranks = new Map<number, number>()
  for (const k of order) ranks.set(k, gramRank(k))
  order.sort((a, b) => ranks.get(a)! - ranks.get(b)! || a - b)
  const p = prefixLength(n)
  const out = new Array<string>(p)
  for (let i = 0; i < p; i++) out[i] = GRAM_TERM_PREFIX + hex32(order[i]!)
  return out
}

/** Thresholds of the short-text rules (`ShortTextOptions`, resolved). */
export interface GramThresholds {
  minGramJaccard: number
  /** Jaccard threshold when the larger set has more than `TITLE_GRAMS` grams; `minGramJaccard` when unset. */
  minLongGramJaccard?: number
  minContainment: number
  /** Fewest grams of the smaller text for a containment match. */
  minContainedGrams: number
}

/**
 * Title length in grams: a set of at most this many is a title, a UI string, a saying; the
 * replaced-word rule reads only such sets, and `minGramJaccard` decides them. Beyond it the larger
 * set is a sentence or more, and `minLongGramJaccard` decides.
 */
export const TITLE_GRAMS = WORD_REPLACED_MAX_GRAMS

/**
 * The Jaccard threshold for two sets whose larger has `large` grams: `minGramJaccard` up to title
 * length, `minLongGramJaccard` beyond (when set). One word changed in m bigrams leaves
 * J = (m − 3)/(m + 3): 0.81 at 30 characters, where 0.85 keeps two titles apart, but a longer
 * text that shares all but a clause or a line with another stays below 0.85 too.
 * @example gramJaccardThreshold({ minGramJaccard: 0.85, minLongGramJaccard: 0.75, minContainment: 0.9, minContainedGrams: 6 }, 41) // 0.75
 */
export function gramJaccardThreshold(t: GramThresholds, large: number): number {
  return large > TITLE_GRAMS && t.minLongGramJaccard !== undefined ? t.minLongGramJaccard : t.minGramJaccard
}

/** What the short-text rules say of two gram sets. */
export interface GramVerdict {
  jaccard: number
  containment: number
  /** The two sets differ in a gram with a digit or a negation. */
  veto: boolean
  /** Texts of title length with one word replaced inside (`wordReplaced`; asked only of pairs sharing half the smaller set). */
  replaced: boolean
  /** Which rule accepts: 'short-text' (Jaccard), 'containment', or null. */
  rule: 'short-text' | 'containment' | null
  /** The accepting rule's evidence (or the Jaccard when none accepts). */
  resemblance: number
}

const A = { keys: new Uint32Array(256), n: 0 }
const B = { keys: new Uint32Array(256), n: 0 }

function parse(sketch: string, into: { keys: Uint32Array; n: number }): void {
  const n = sketchGrams(sketch)
  if (into.keys.length < n) into.keys = new Uint32Array(n * 2)
  for (let i = 0, p = GRAM_SET_PREFIX.length; i < n; i++, p += 8) into.keys[i] = parseInt(sketch.slice(p, p + 8), 16)
  into.n = n
}

/** Grams with a Chinese numeral that only one text of the pair being verified has. */
const NUM_A = { keys: new Uint32Array(64), n: 0 }
const NUM_B = { keys: new Uint32Array(64), n: 0 }
/** Of two small sets (`WORD_REPLACED_MAX_GRAMS`): the grams only the first has, only the second, both. */
const OWN_A = { keys: new Uint32Array(64), n: 0 }
const OWN_B = { keys: new Uint32Array(64), n: 0 }
const SHARED = { keys: new Uint32Array(64), n: 0 }

function push(list: { keys: Uint32Array; n: number }, key: number): number {
  if (list.n === list.keys.length) {
    const grown = new Uint32Array(list.keys.length * 2)
    grown.set(list.keys)
    list.keys = grown
  }
  list.keys[list.n] = key
  return list.n + 1
}

/**
 * Whether a figure written in Chinese numerals was changed (`NUM_A`, `NUM_B` filled): a numeral
 * replaced by another next to the same character, each gram in one text only ("三月二日" /
 * "三月三日", "二十载" / "三十载"). A word replaced next to a numeral ("一直" / "一起") is no change.
 */
function numeralChanged(): boolean {
  const cls = unitClass()
  for (let i = 0; i < NUM_A.n; i++) {
    const a = NUM_A.keys[i]!
    for (let j = 0; j < NUM_B.n; j++) {
      const b = NUM_B.keys[j]!
      const hi = a >>> 16
      const lo = a & 0xffff
      if (hi === b >>> 16 && lo !== (b & 0xffff) && cls[lo] === 4 && cls[b & 0xffff] === 4) return true
      if (lo === (b & 0xffff) && hi !== b >>> 16 && cls[hi] === 4 && cls[b >>> 16] === 4) return true
    }
  }
  return false
}

/**
 * Whether two gram-set sketches show one word replaced inside a text (`wordReplaced`), whatever
 * their sizes and overlap (`gramVerdict` asks it only of pairs that could match).
 * @example wordReplacedIn(gramSet('包管理器的英语手册').sketch, gramSet('包管理器的荷兰语手册').sketch) // true
 */
export function wordReplacedIn(a: string, b: string): boolean {
  parse(a, A)
  parse(b, B)
  return replacedWord()
}

/** `wordReplaced` on the sets in `A` and `B` (their own and shared grams gathered first). */
function replacedWord(): boolean {
  OWN_A.n = 0
  OWN_B.n = 0
  SHARED.n = 0
  let i = 0
  let j = 0
  while (i < A.n || j < B.n) {
    const x = i < A.n ? A.keys[i]! : 0x100000000
    const y = j < B.n ? B.keys[j]! : 0x100000000
    if (x === y) {
      SHARED.n = push(SHARED, x)
      i++
      j++
    } else if (x < y) {
      OWN_A.n = push(OWN_A, x)
      i++
    } else {
      OWN_B.n = push(OWN_B, y)
      j++
    }
  }
  return wordReplaced(OWN_A, OWN_B, SHARED)
}

/**
 * The exact short-text verdict of two gram-set sketches (`s:`): Jaccard ≥ `minGramJaccard`
 * (`minLongGramJaccard` when the larger set is longer than a title, `gramJaccardThreshold`), or
 * containment (shared grams over the smaller set's) ≥ `minContainment` with the smaller set of at
 * least `minContainedGrams` grams and the larger at most `SHORT_GRAM_FLOOR.ratio` times it; never
 * when the sets differ in a veto gram, or either is empty; a set of fewer than `MIN_GRAMS` only
 * when both are equal.
 * @example gramVerdict(gramSet('usb接口只有两个').sketch, gramSet('usb接口只有两个少了点').sketch, t).rule // 'containment'
 */
export function gramVerdict(a: string, b: string, t: GramThresholds): GramVerdict {
  parse(a, A)
  parse(b, B)
  const na = A.n
  const nb = B.n
  let i = 0
  let j = 0
  let both = 0
  let onlyA = 0
  let onlyB = 0
  NUM_A.n = 0
  NUM_B.n = 0
  while (i < na || j < nb) {
    const x = i < na ? A.keys[i]! : 0x100000000
    const y = j < nb ? B.keys[j]! : 0x100000000
    if (x === y) {
      both++
      i++
      j++
    } else if (x < y) {
      if (isVeto(x)) {
        const k = vetoKind(x)
        onlyA |= k
        if ((k & NUMERAL) !== 0) NUM_A.n = push(NUM_A, x)
      }
      i++
    } else {
      if (isVeto(y)) {
        const k = vetoKind(y)
        onlyB |= k
        if ((k & NUMERAL) !== 0) NUM_B.n = push(NUM_B, y)
      }
      j++
    }
  }
  // A changed figure: each side has a digit gram the other lacks. A flipped negation: checked
  // against the other set only when a side has a negation gram the other lacks.
  let veto = ((onlyA & DIGIT) !== 0 && (onlyB & DIGIT) !== 0) || ((onlyA & onlyB & NUMERAL) !== 0 && numeralChanged())
  // A figure changed into one the other text holds elsewhere: the grams cannot see it, the
  // figures with their repeats and neighbours can (both texts hold figures).
  if (!veto && a.includes(GRAM_FIGURES_MARK) && b.includes(GRAM_FIGURES_MARK)) veto = slotChanged(sketchFigures(a), sketchFigures(b))
  if (!veto && (onlyA & NEGATION) !== 0) veto = negationInserted(A, B)
  if (!veto && (onlyB & NEGATION) !== 0) veto = negationInserted(B, A)
  const lesser = Math.min(na, nb)
  const large = Math.max(na, nb)
  const jaccard = na + nb === 0 ? 0 : both / (na + nb - both)
  const containment = lesser === 0 ? 0 : both / lesser
  // A word replaced in a text of title length (_word-replaced.ts), asked only of pairs sharing half
  // the smaller set at least: no rule accepts fewer, and most candidates share less.
  const replaced = !veto && 2 * both >= lesser && both > 0 && large <= WORD_REPLACED_MAX_GRAMS && replacedWord()
  let rule: GramVerdict['rule'] = null
  if (!veto && !replaced && (lesser >= MIN_GRAMS || (lesser > 0 && both === large))) {
    if (jaccard >= gramJaccardThreshold(t, large)) rule = 'short-text'
    else if (containment >= t.minContainment && lesser >= t.minContainedGrams && large <= SHORT_GRAM_FLOOR.ratio * lesser) rule = 'containment'
  }
  return { jaccard, containment, veto, replaced, rule, resemblance: rule === 'containment' ? containment : jaccard }
}

/**
 * The largest Jaccard and containment two sets of sizes `na`, `nb` can have when the first gram
 * they share is at position `i` of the first's prefix and `j` of the second's (positional
 * filter, PPJoin): every shared gram comes at or after both, so overlap ≤ min(na − i, nb − j).
 */
export function gramBound(na: number, nb: number, i: number, j: number): { jaccard: number; containment: number } {
  const overlap = Math.min(na - i, nb - j)
  return { jaccard: overlap / (na + nb - overlap), containment: overlap / Math.min(na, nb) }
}

/** The gram set of a sketch: an `s:` sketch itself, else null. */
export function gramPart(sketch: string | null | undefined): string | null {
  if (sketch == null) return null
  return sketch.startsWith(GRAM_SET_PREFIX) ? sketch : null
}

/** Whether a band term is a prefix-filter term (`s_…`). */
export function isGramTerm(term: string): boolean {
  return term.startsWith(GRAM_TERM_PREFIX)
}

/** Whether a sketch is a short text's gram set alone (`s:`). */
export function isGramSketch(sketch: string | null | undefined): boolean {
  return sketch != null && sketch.startsWith(GRAM_SET_PREFIX)
}

/** The number of grams in a gram-set sketch. */
export function sketchGrams(sketch: string): number {
  const end = sketch.indexOf(GRAM_FIGURES_MARK)
  return ((end < 0 ? sketch.length : end) - GRAM_SET_PREFIX.length) >>> 3
}

/** The figures a gram-set sketch carries after `GRAM_FIGURES_MARK` (empty when none). */
export function sketchFigures(sketch: string): Uint32Array {
  const end = sketch.indexOf(GRAM_FIGURES_MARK)
  if (end < 0) return new Uint32Array(0)
  const n = (sketch.length - end - 1) >>> 3
  const out = new Uint32Array(n)
  for (let i = 0, p = end + 1; i < n; i++, p += 8) out[i] = parseInt(sketch.slice(p, p + 8), 16)
  return out
}
