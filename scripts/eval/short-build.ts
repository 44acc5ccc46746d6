/**
 * Builds the short-text kinds' streams (issue 24): `short-kinds.ts`, `short-kinds-more.ts`, `short-news.ts`.
 */
import type { KindStream } from './kinds.js'
import { Rng } from './prng.js'
import { variantTable } from './short-edits.js'
import { descriptionsKind, quotesKind, titlesKind } from './short-kinds-more.js'
import { newsKind } from './short-news.js'
import { reviewsKind, uiKind, type ShortContext } from './short-kinds.js'
import { variantFold } from './short-oracle.js'
import { loadUnihanInUse, loadUnihanVariants } from './short-sources.js'

/** Names of the short kinds, in run order. */
export const SHORT_KINDS = ['short-reviews', 'short-quotes', 'short-titles', 'short-descriptions', 'short-ui', 'short-news'] as const

const BUILDERS: Record<(typeof SHORT_KINDS)[number], (ctx: ShortContext) => KindStream | null> = {
  'short-reviews': reviewsKind,
  'short-quotes': quotesKind,
  'short-titles': titlesKind,
  'short-descriptions': descriptionsKind,
  'short-ui': uiKind,
  'short-news': newsKind,
}

/**
 * The short kinds' streams for a seed (only those in `only`, when given).
 * @example buildShortKinds(1, console.error, new Set(['short-ui']))[0].name // → 'short-ui'
 */
export function buildShortKinds(seed: number, log: (s: string) => void, only?: ReadonlySet<string>): KindStream[] {
  const wanted = SHORT_KINDS.filter((k) => only === undefined || only.has(k))
  if (wanted.length === 0) return []
  const unihan = loadUnihanVariants(log)
  const fold = variantFold(unihan)
  const variants = variantTable(unihan, loadUnihanInUse(log))
  const root = new Rng(seed)
  const ctx = (label: string): ShortContext => ({ rng: root.fork(label), fold, variants, log })
  const out: KindStream[] = []
  for (const k of wanted) {
    const s = BUILDERS[k](ctx(k))
    if (s !== null) out.push(s)
  }
  return out
}
