import type { Layer, Rule } from '../internal.js'

/**
 * Duplicates by what decided them, as a person reads it: the url, exact and title layers by name,
 * the simhash layer by its rule (simhash within k, short-text, minhash), the names the decisions'
 * `rule` field uses. `url 1, simhash 2, minhash 5`; counts without rules (a reindex checkpoint
 * written before they were counted) fall back to `simhash N`.
 */
export function decidedBy(byLayer: Readonly<Record<Layer, number>>, byRule?: Readonly<Record<Rule, number>>): string {
  const parts: string[] = []
  const rules = byRule === undefined ? [] : (Object.entries(byRule) as [Rule, number][]).filter(([, n]) => n > 0)
  const ruled = rules.reduce((sum, [, n]) => sum + n, 0)
  for (const [layer, n] of Object.entries(byLayer) as [Layer, number][]) {
    if (n === 0) continue
    if (layer === 'simhash' && ruled === n) parts.push(...rules.map(([rule, m]) => `${rule} ${m}`))
    else parts.push(`${layer} ${n}`)
  }
  return parts.join(', ')
}
