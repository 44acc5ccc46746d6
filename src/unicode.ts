/** Unicode helpers shared across stages: UTF-16 well-formedness (input validation, the stores' record checks), how much text a string holds. */

/**
 * Index of the first lone (unpaired) UTF-16 surrogate in `s`, or -1 when `s` is well-formed
 * (`String.prototype.isWellFormed`, which the ES2023 lib does not type).
 * @example loneSurrogateAt('a\ud800') // 1
 */
export function loneSurrogateAt(s: string): number {
  // The native check first: nearly every string is well-formed, and ids are checked on every put.
  if ((s as string & { isWellFormed(): boolean }).isWellFormed()) return -1
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xd800 || c > 0xdfff) continue
    if (c <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++
        continue
      }
    }
    return i
  }
  return -1
}

/**
 * Characters of a string that are not white space (control characters ≤ U+0020, no-break and
 * ideographic spaces): how much text a block or a line holds, whatever its layout.
 * @example solidLength(' 正文 a ') // 3
 */
export function solidLength(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c > 32 && c !== 0xa0 && c !== 0x3000) n++
  }
  return n
}
