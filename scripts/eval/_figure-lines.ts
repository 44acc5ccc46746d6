/** Shared by the figure-veto diagnostics (veto-diff.ts, veto-refused.ts): the lines holding figures only one text has. */
import { chromeFigures, proseFacts } from '../../src/fingerprint/figure-veto.js'

/** Figures of one line, as the veto hashes them (with neighbours). */
export const lineFigures = (line: string): number[] => [...proseFacts(line).figures].filter((_, i) => i % 2 === 0)

/**
 * The lines of `x` holding a figure `y` lacks (counted as a multiset), each cut to `width`
 * characters; `[chrome] ` marks the lines the veto skips.
 */
export function figureLines(x: string, y: string, width: number): string[] {
  const fy = new Map<number, number>()
  for (const l of y.split('\n')) for (const f of lineFigures(l)) fy.set(f, (fy.get(f) ?? 0) + 1)
  const out: string[] = []
  for (const l of x.split('\n')) {
    const only = lineFigures(l).filter((f) => {
      const n = fy.get(f) ?? 0
      if (n === 0) return true
      fy.set(f, n - 1)
      return false
    })
    if (only.length > 0) out.push(`${chromeFigures(l) ? '[chrome] ' : ''}${l.slice(0, width)}`)
  }
  return out
}
