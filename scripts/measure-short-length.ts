/**
 * Where SimHash and the 512-bit MinHash sketch stop being reliable, by text length (issue 24).
 *
 * Pairs of real text: two windows of the same length cut from one Debian corpus document
 * (normalised by the default analyzer), the second shifted by s characters, so their true overlap
 * spans ~0.4–1 as s grows (s up to 40 % of the length); and windows of two different documents (unrelated pairs). For each length
 * it reports, against the EXACT resemblance of the pair:
 * - MinHash: RMS error of the 5-gram estimate, and how often the minhash rule (estimate ≥ 0.6 plus
 *   the sparse-sketch margin, as engine/match.ts asks) misses a pair of exact 5-gram J ≥ 0.7 or
 *   accepts one of J < 0.45;
 * - SimHash: how often a pair of exact character-bigram J ≥ 0.8 lies beyond k = 3 (miss), and how
 *   often a pair of bigram J < 0.4 lies within it (false accept).
 *
 *   SIMDUP_CORPUS_DIR=… npx tsx scripts/measure-short-length.ts [pairsPerLength]
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAnalyzer } from '../src/fingerprint/analyzer.js'
import { hamming } from '../src/fingerprint/hamming.js'
import { minhashSimilarity, minhashSketch, sparseSketchMargin } from '../src/fingerprint/minhash.js'

const dir = process.env.SIMDUP_CORPUS_DIR ?? '.cache/corpus'
const perLength = Number(process.argv[2] ?? 300)
const analyzer = createAnalyzer()

let seed = 24
const rand = (): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
  return seed / 2 ** 32
}

// Normalised texts of the Chinese documents, white space out (shingles skip it anyway).
const texts: string[] = []
for (const line of readFileSync(join(dir, 'docs.jsonl'), 'utf8').split('\n')) {
  if (line === '') continue
  const d = JSON.parse(line) as { content: string }
  const t = analyzer.analyze(d.content).normalized.replace(/\s+/g, '')
  const han = (t.match(/\p{Script=Han}/gu) ?? []).length
  if (t.length >= 1200 && han / t.length > 0.3) texts.push(t)
}

const grams = (s: string, n: number): Set<string> => {
  const u = s.toLowerCase()
  const out = new Set<string>()
  if (u.length < n) out.add(u)
  for (let i = 0; i + n <= u.length; i++) out.add(u.slice(i, i + n))
  return out
}
const jaccard = (a: Set<string>, b: Set<string>): number => {
  let both = 0
  for (const x of a) if (b.has(x)) both++
  const all = a.size + b.size - both
  return all === 0 ? 1 : both / all
}

interface Row { len: number; bothMiss: number; rmse: number; mhPairs: number; mhMiss: number; mhHigh: number; mhFalse: number; mhLow: number; shMiss: number; shHigh: number; shFalse: number; shLow: number }
const rows: Row[] = []
for (const len of [10, 15, 20, 30, 40, 60, 80, 100, 120, 150, 200, 300, 500]) {
  const r: Row = { len, bothMiss: 0, rmse: 0, mhPairs: 0, mhMiss: 0, mhHigh: 0, mhFalse: 0, mhLow: 0, shMiss: 0, shHigh: 0, shFalse: 0, shLow: 0 }
  let se = 0
  for (let k = 0; k < perLength; k++) {
    const t = texts[Math.floor(rand() * texts.length)]!
    const at = Math.floor(rand() * (t.length - 2 * len))
    const a = t.slice(at, at + len)
    // Half the pairs overlap (shift 0–60 % of the length), half are windows of another document.
    let b: string
    if (k % 2 === 0) {
      const shift = Math.floor(rand() * 0.4 * len)
      b = t.slice(at + shift, at + shift + len)
    } else {
      const u = texts[Math.floor(rand() * texts.length)]!
      const bt = Math.floor(rand() * (u.length - len))
      b = u.slice(bt, bt + len)
    }
    const x = analyzer.analyzeNormalized(a)
    const y = analyzer.analyzeNormalized(b)
    const j5 = jaccard(grams(a, 5), grams(b, 5))
    const j2 = jaccard(grams(a, 2), grams(b, 2))
        const sa = minhashSketch(a)?.sketch
    const sb = minhashSketch(b)?.sketch
    if (sa !== undefined && sb !== undefined) {
      const est = minhashSimilarity(sa, sb)
      se += (est - j5) ** 2
      r.mhPairs++
      const accept = est >= 0.6 && est >= 0.6 + sparseSketchMargin(sa, sb, est, 0.6)
      if (j5 >= 0.7) {
        r.mhHigh++
        if (!accept) r.mhMiss++
      } else if (j5 < 0.45) {
        r.mhLow++
        if (accept) r.mhFalse++
      }
    }
    const d = hamming(x.fingerprint, y.fingerprint)
    // Both routes of a long text: SimHash within k, or the MinHash rule.
    if (j5 >= 0.7 && sa !== undefined && sb !== undefined) {
      const est = minhashSimilarity(sa, sb)
      if (d > 3 && !(est >= 0.6 && est >= 0.6 + sparseSketchMargin(sa, sb, est, 0.6))) r.bothMiss++
    }
    if (j2 >= 0.8) {
      r.shHigh++
      if (d > 3) r.shMiss++
    } else if (j2 < 0.4) {
      r.shLow++
      if (d <= 3) r.shFalse++
    }
  }
  r.rmse = r.mhPairs === 0 ? NaN : Math.sqrt(se / r.mhPairs)
  rows.push(r)
}
const pct = (a: number, b: number): string => (b === 0 ? '   –  ' : `${((100 * a) / b).toFixed(1).padStart(5)}%`)
console.log(`${texts.length} texts, ${perLength} pairs per length (half overlapping windows, half unrelated)`)
console.log('chars | MinHash: sketches  RMSE  miss(J5≥.7)  false(J5<.45) either-route miss(J5≥.7) | SimHash k=3: miss(J2≥.8)  false(J2<.4)')
for (const r of rows) {
  console.log(
    `${String(r.len).padStart(5)} | ${String(r.mhPairs).padStart(16)} ${Number.isNaN(r.rmse) ? '  –  ' : r.rmse.toFixed(3)} ${pct(r.mhMiss, r.mhHigh)} (${r.mhHigh}) ${pct(r.mhFalse, r.mhLow)} (${r.mhLow}) ${pct(r.bothMiss, r.mhHigh)} | ${pct(r.shMiss, r.shHigh)} (${r.shHigh}) ${pct(r.shFalse, r.shLow)} (${r.shLow})`,
  )
}
