/** A half-open range `[start, end)` of UTF-16 offsets into a text. */
export type Span = [number, number]

/** Characters a passage must have in common at least: 8 Chinese characters is about two words. */
export const PASSAGE_CHARS = 8

/**
 * The passages two texts share, for highlighting side by side: every run of at least `n`
 * characters that occurs in both, as merged spans of each text. Character n-grams, so it works
 * the same without word breaks (Chinese); whitespace-only n-grams do not count.
 * @example sharedPassages('今天北京天气很好我们去公园', '明天北京天气很好我们去爬山', 4) // { a: [[1, 11]], b: [[1, 11]] }
 */
export function sharedPassages(a: string, b: string, n = PASSAGE_CHARS): { a: Span[]; b: Span[] } {
  const gramsB = grams(b, n)
  const gramsA = grams(a, n)
  return { a: covered(a, n, gramsB), b: covered(b, n, gramsA) }
}

function grams(text: string, n: number): Set<string> {
  const out = new Set<string>()
  for (let i = 0; i + n <= text.length; i++) out.add(text.slice(i, i + n))
  return out
}

function covered(text: string, n: number, other: Set<string>): Span[] {
  const spans: Span[] = []
  for (let i = 0; i + n <= text.length; i++) {
    const g = text.slice(i, i + n)
    if (!other.has(g) || g.trim() === '') continue
    const last = spans[spans.length - 1]
    if (last !== undefined && i <= last[1]) last[1] = Math.max(last[1], i + n)
    else spans.push([i, i + n])
  }
  return spans
}
