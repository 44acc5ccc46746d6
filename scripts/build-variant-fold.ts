/**
 * Builds data/variant-fold.txt: the variant characters (異體字) the short-text route folds before
 * taking bigrams (src/fingerprint/short-grams.ts), from the Unihan database of Debian's
 * unicode-data (`Unihan_Variants.txt`, `kFrequency` of `Unihan_DictionaryLikeData.txt`). One line
 * per folded character: the character, a tab, the character it becomes.
 *
 * - A character with a Simplified form (kSimplifiedVariant) other than itself becomes it (於 → 于,
 *   麵 → 面, 攪 → 搅): a mixed text is not always converted by the normaliser, which converts only
 *   text holding Traditional-only characters (and 於 is none).
 * - A rare character (Unihan kFrequency absent or 4–5) that is no Simplified form, with a
 *   semantic or Z variant ten times as frequent in the Debian corpus (data/gram-freq.txt.gz), or
 *   as frequent there and more frequent by kFrequency, becomes the most frequent such variant (壹 → 一, 仝 → 同, 荳 → 豆, 肆 → 四, 峯 → 峰). Two
 *   characters in common use, or two Simplified forms, are never folded together (他 / 她,
 *   叶 / 协, 于 / 於): they are different words of today's text.
 * Chains are followed to their end (a variant of a Traditional form lands on its Simplified one).
 * Run once; the file is shipped. Changing it changes gram sets: bump FINGERPRINT_ALGORITHM.
 *
 *   npx tsx scripts/build-variant-fold.ts
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { ensurePackageRoot } from './corpus/packages.js'

/** Characters the fold covers: CJK Unified Ideographs and Extension A, compatibility ideographs (BMP: one UTF-16 unit). */
const inRange = (c: number): boolean => (c >= 0x3400 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff)
/** kFrequency of a common character (1–3); rarer or absent counts as 6. */
const COMMON = 3
/** How many times as frequent in Simplified text a variant must be to take a rare character's place. */
const RATIO = 10

function unihan(root: string, name: string): string {
  const bz = join(root, 'usr/share/unicode', `${name}.bz2`)
  return existsSync(bz) ? execFileSync('bzip2', ['-dc', bz], { encoding: 'utf8', maxBuffer: 64 << 20 }) : readFileSync(join(root, 'usr/share/unicode', name), 'utf8')
}

// Lines of the Debian corpus holding each character (its grams' counts summed: an upper bound, enough for a ratio).
const counts = new Map<number, number>()
for (const line of gunzipSync(readFileSync(new URL('../data/gram-freq.txt.gz', import.meta.url))).toString('utf8').split('\n')) {
  if (line.indexOf('\t') !== 2) continue
  const n = Number(line.slice(3))
  for (const c of [line.charCodeAt(0), line.charCodeAt(1)]) counts.set(c, (counts.get(c) ?? 0) + n)
}
const corpus = (c: number): number => counts.get(c) ?? 0
const root = ensurePackageRoot('unicode-data', (s) => console.error(s))
if (root === null) throw new Error('unicode-data is not available from apt')
const freq = new Map<number, number>()
for (const line of unihan(root, 'Unihan_DictionaryLikeData.txt').split('\n')) {
  const [cp, field, value] = line.split('\t')
  if (field === 'kFrequency' && cp !== undefined) freq.set(parseInt(cp.slice(2), 16), Number(value))
}
const f = (c: number): number => freq.get(c) ?? 6
const simplified = new Map<number, number>()
/** Characters that are a Simplified form (a kSimplifiedVariant value, itself included: 于, 着). */
const standard = new Set<number>()
const variants = new Map<number, number[]>()
for (const line of unihan(root, 'Unihan_Variants.txt').split('\n')) {
  const [cp, field, values] = line.split('\t')
  if (cp === undefined || values === undefined) continue
  const a = parseInt(cp.slice(2), 16)
  const all = values.split(' ').map((v) => parseInt(v.split('<')[0]!.slice(2), 16))
  if (field === 'kSimplifiedVariant') for (const b of all) standard.add(b)
  const vs = all.filter((b) => b !== a && inRange(b))
  if (!inRange(a) || vs.length === 0) continue
  // Also a character that is its own Simplified form in some words (乾: 干 and 乾; 於, 著, 瞭):
  // both texts of a pair are folded alike, so only two texts differing in that character alone meet.
  if (field === 'kSimplifiedVariant') simplified.set(a, vs[0]!)
  // Either side may list the relation: both directions.
  if (field === 'kSemanticVariant' || field === 'kZVariant') {
    for (const b of vs) {
      variants.set(a, [...(variants.get(a) ?? []), b])
      variants.set(b, [...(variants.get(b) ?? []), a])
    }
  }
}
const fold = new Map<number, number>(simplified)
for (const [a, vs] of variants) {
  // kFrequency counts Traditional text (于 is 4 there, 於 1, 峰 4): the variant must also be
  // RATIO times as frequent in Simplified text (the corpus counts of data/gram-freq.txt.gz).
  if (fold.has(a) || standard.has(a) || f(a) <= COMMON) continue
  // Both rare in the corpus (荳 / 豆, 峯 / 峰): the variant Unihan finds more frequent, unless the corpus says otherwise.
  const best = vs.filter((b) => corpus(b) >= RATIO * Math.max(1, corpus(a)) || (corpus(b) >= corpus(a) && f(b) < f(a)))
    .sort((x, y) => corpus(y) - corpus(x) || f(x) - f(y) || x - y)[0]
  if (best !== undefined) fold.set(a, best)
}
// Follow chains to their end (at most a few steps; a cycle stops where it closes).
const out = new Map<number, number>()
for (const a of fold.keys()) {
  let b = fold.get(a)!
  const seen = new Set([a])
  while (fold.has(b) && !seen.has(b)) {
    seen.add(b)
    b = fold.get(b)!
  }
  if (b !== a) out.set(a, b)
}
const lines = [...out].sort((x, y) => x[0] - y[0]).map(([a, b]) => `${String.fromCharCode(a)}\t${String.fromCharCode(b)}`)
writeFileSync(new URL('../data/variant-fold.txt', import.meta.url), lines.join('\n') + '\n')
console.log(`${out.size} characters folded (${simplified.size} to a Simplified form, ${out.size - simplified.size} rare variants)`)
