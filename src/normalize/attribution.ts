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
/** An author and a work without title marks: "杜甫·月夜", "韩愈・石鼓歌" (a Han name of 1–6, a middle dot, a short title). */
const NAME_DOT_TITLE = /^\p{Script=Han}{1,6}[·‧・][^\s,.;:!?。!?;《》()]{1,20}$/u
/**
 * A tail after a quote's closing mark on the same line: "…矣。” ——《论语》", "…矣。 出自《论语》",
 * "…矣。 (《论语》)", "…矣。” 《论语》·里仁".
 */
const INLINE = /([。!?!?”」』"'.])\s*(?:\([a-z][a-z .,'-]{1,30}\)|(?:-{2,}(?![a-z0-9-])|[—―]+|出自|语出)\s*[^。!?!?\n]{1,30}|\([^()\n]*《[^》\n]+》[^()\n]*\)|[^\s,.;:!?。!?;]{0,12}[·‧・]?《[^》\n]{1,30}》[^,.;:!?。!?;《\n]{0,12})$/u

/** Whether one line is an attribution line. */
export function isAttributionLine(line: string): boolean {
  const l = line.trim()
  if (l.length === 0 || [...l].length > MAX_ATTRIBUTION_CHARS) return false
  return LED.test(l) || BRACKETED.test(l) || WORK.test(l) || NAME_DOT_TITLE.test(l)
}

/** Whether a first line is a heading naming the work and/or author ("《石鼓歌》韩愈", "杜甫·月夜"). */
function isAttributionHeading(line: string): boolean {
  const l = line.trim()
  if (l.length === 0 || [...l].length > MAX_ATTRIBUTION_CHARS) return false
  return BRACKETED.test(l) || WORK.test(l) || NAME_DOT_TITLE.test(l)
}

/**
 * The text without its attribution: a first line that names the work or author (a heading), a
 * last line that is one (when other lines remain), or a dash/出自/bracketed tail after the closing
 * punctuation of the last line ("… — author", "… (john muir)" in English too). The text itself when
 * nothing is left otherwise. Pure, idempotent on its output's last line only in the sense that
 * one attribution is removed per call.
 * @example stripAttribution('不读一家书,不识一家字。\n--《谚语》') // '不读一家书,不识一家字。'
 */
export function stripAttribution(normalized: string): string {
  // A heading line naming the work leads some copies ("《石鼓歌》韩愈\n…"): it goes too.
  const first = normalized.indexOf('\n')
  if (first > 0 && normalized.slice(first + 1).trim() !== '' && isAttributionHeading(normalized.slice(0, first))) {
    normalized = normalized.slice(first + 1).trimStart()
  }
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
