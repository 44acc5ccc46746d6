/**
 * Attribution and signature lines: "—— 李白《将进酒》", "--《论语》为政", "出自《增广贤文》",
 * "(杜甫《春望》)", "李白·《将进酒》". They say who wrote a text, not what it says: the same
 * quote is attributed many ways (and to different collections), and different quotes of one
 * source share the line. On a short quote the line is a large share of the words, so it would
 * make different quotes of one source alike and keep the same quote apart. The analysis
 * fingerprints the text without it.
 */

/** Longest line (in characters) taken for an attribution. */
const MAX_ATTRIBUTION_CHARS = 40

// On normalised text: full-width folded (－－ → --, （ → (, ： → :), lower-cased, one \n per line break.
/** A line led by a dash (--, —, ——, ―, ─, ~; not a command-line option such as `--help`) or an attribution word. */
const LED = /^(?:-{2,}(?![a-z0-9-])|[—―─]+|~+|(?:出自|摘自|选自|引自|语出|出处|来源|作者)(?:[:\s]|[《(]|$)|(?:出自|摘自|选自|引自|语出))/u
/** A whole line in brackets naming a work: "(杜甫《春望》)". */
const BRACKETED = /^\([^()]*《[^》]+》[^()]*\)$/u
/** An author and/or a work and nothing else: "李白·《将进酒》", "《论语·为政》". No sentence punctuation. */
const WORK = /^[^\s,.;:!?。!?;]{0,12}[·‧・]?《[^》]{1,30}》[^,.;:!?。!?;《]{0,12}$/u
/**
 * A tail after a quote's closing mark on the same line: "…矣。” ——《论语》", "…矣。 出自《论语》",
 * "…矣。 (《论语》)", "…矣。” 《论语》·里仁".
 */
const INLINE = /([。!?!?”」』"'])\s*(?:(?:-{2,}(?![a-z0-9-])|[—―]+|出自|语出)\s*[^。!?!?\n]{1,30}|\([^()\n]*《[^》\n]+》[^()\n]*\)|[^\s,.;:!?。!?;]{0,12}[·‧・]?《[^》\n]{1,30}》[^,.;:!?。!?;《\n]{0,12})$/u

/** Whether one line is an attribution line. */
export function isAttributionLine(line: string): boolean {
  const l = line.trim()
  if (l.length === 0 || [...l].length > MAX_ATTRIBUTION_CHARS) return false
  return LED.test(l) || BRACKETED.test(l) || WORK.test(l)
}

/**
 * The text without a trailing attribution: a last line that is one (when other lines remain),
 * or a dash/出自 tail after the closing punctuation of the last line. The text itself when
 * nothing is left otherwise. Pure, idempotent on its output's last line only in the sense that
 * one attribution is removed per call.
 * @example stripAttribution('不读一家书,不识一家字。\n--《谚语》') // '不读一家书,不识一家字。'
 */
export function stripAttribution(normalized: string): string {
  const cut = normalized.lastIndexOf('\n')
  if (cut > 0 && isAttributionLine(normalized.slice(cut + 1))) return normalized.slice(0, cut).trimEnd()
  const m = INLINE.exec(normalized.slice(cut + 1))
  if (m !== null) {
    const at = cut + 1 + m.index + m[1]!.length
    const body = normalized.slice(0, at).trimEnd()
    if (body.length > 0) return body
  }
  return normalized
}
