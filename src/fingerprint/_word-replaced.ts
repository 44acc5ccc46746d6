/**
 * The word-replacement veto of the short-text rules (issue 24, short kinds): in a text of title or
 * UI-string length, one word replaced by another makes another text ("…aptitude 的英语手册" /
 * "…的荷兰语手册", "tcp 包装库" / "tcp 包装工具", "bt 客户端(gtk+ 界面)" / "(终端界面)"), however much
 * of the rest the two share. The eval's oracle says the same (scripts/eval/short-oracle.ts, flag
 * `word`: texts of at most 40 characters); a longer text with a word replaced is an edit of the same text.
 *
 * Read from the two gram sets alone (the order of the text is not stored): the grams each set has
 * and the other lacks (its own grams). A replacement at one place shows as an anchor unit `p`
 * (both texts hold it) followed in each text by a unit the other text lacks (`p a` own to one,
 * `p b` own to the other), at least one side going on with a second such unit (`a a2`): at least
 * two units replaced on one side, one on the other; and the mirror image after it (`a s` / `b s`
 * before an anchor `s`): a word inside the text. A line replaced at the start or the end (a
 * heading over a poem, one promo line for another) is chrome, not a word of the text.
 * One character for one (a variant character the fold does not know, 很多 / 许多) is no veto, nor
 * text inserted or removed (an insertion leaves the other side no unit of its own), nor a word
 * replaced in one place and a character in another.
 */

/** Largest gram set (of either text) the veto applies to: a text of about 40 content units. */
export const WORD_REPLACED_MAX_GRAMS = 40

/** Grams as sorted keys `a << 16 | b` with their count. */
export interface KeyList {
  keys: Uint32Array
  n: number
}

/** Whether `u` is a unit of some gram of `a` or `b`. */
function holds(a: KeyList, b: KeyList, u: number): boolean {
  for (const list of [a, b]) {
    for (let i = 0; i < list.n; i++) {
      const k = list.keys[i]!
      if (k >>> 16 === u || (k & 0xffff) === u) return true
    }
  }
  return false
}

/** Whether `own` holds a gram `u v` (`first`) or `v u` (`!first`) with `v` a unit the other text (`other`, `shared`) lacks. */
function goesOn(own: KeyList, other: KeyList, shared: KeyList, u: number, first: boolean): boolean {
  for (let i = 0; i < own.n; i++) {
    const k = own.keys[i]!
    const x = k >>> 16
    const y = k & 0xffff
    if (first ? x === u && !holds(other, shared, y) : y === u && !holds(other, shared, x)) return true
  }
  return false
}

/**
 * Whether the own grams of two short texts (`ownA`, `ownB`) show one word replaced by another at
 * one place (see the file comment); `shared` are the grams both have.
 * @example wordReplaced(ownGrams('…的英语手册'), ownGrams('…的荷兰语手册'), sharedGrams) // true
 */
export function wordReplaced(ownA: KeyList, ownB: KeyList, shared: KeyList): boolean {
  if (ownA.n === 0 || ownB.n === 0) return false
  return replacedNext(ownA, ownB, shared, true, true) && replacedNext(ownA, ownB, shared, false, false)
}

/**
 * Whether an anchor unit both texts hold is followed (`before`; else preceded) in each by a unit
 * the other text lacks, and (`long`) one side goes on with a second such unit.
 */
function replacedNext(ownA: KeyList, ownB: KeyList, shared: KeyList, before: boolean, long: boolean): boolean {
  for (let i = 0; i < ownA.n; i++) {
    const ka = ownA.keys[i]!
    const anchor = before ? ka >>> 16 : ka & 0xffff
    const a = before ? ka & 0xffff : ka >>> 16
    if (holds(ownB, shared, a) || !holds(ownB, shared, anchor)) continue
    for (let j = 0; j < ownB.n; j++) {
      const kb = ownB.keys[j]!
      if ((before ? kb >>> 16 : kb & 0xffff) !== anchor) continue
      const b = before ? kb & 0xffff : kb >>> 16
      if (holds(ownA, shared, b)) continue
      if (!long || goesOn(ownA, ownB, shared, a, before) || goesOn(ownB, ownA, shared, b, before)) return true
    }
  }
  return false
}
