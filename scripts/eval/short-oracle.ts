/**
 * The labelling oracle of the short-text kinds (issue 24). Shares nothing with simdup: its own
 * normalisation (NFKC, lower case, variant characters folded by the Unicode Unihan table,
 * letters and digits only), exact character-bigram sets, and an exact diff for the flags.
 *
 * Two short texts are the same text when, after folding,
 * - their bigram Jaccard is ≥ 0.5, or the smaller set (≥ 8 bigrams) is ≥ 0.9 contained in the
 *   larger (an item with a promo line or a heading added), and
 * - they are not FLAGGED as a meaning change (`shortFlags`): a negation inserted, deleted or
 *   replaced (我喜欢 / 我不喜欢), a number replaced (上涨1.2% / 2.1%, 三成 / 四成), or, for texts of
 *   ≤ 40 folded characters, one word replaced in the same template (无法打开文件 / 无法保存文件).
 * A text with no letters or digits ("。", "————", ":(") is only the same as an identical text;
 * one of ≤ 4 folded characters only the same as one that folds to the same (错误 / 栈错误 differ).
 * Groups are connected components of that relation.
 */
/** Folds each Han character to the representative of its Unihan variant class. */
export type VariantFold = ReadonlyMap<number, number>

/**
 * Variant classes of the Unihan database (`Unihan_Variants.txt` of Debian's unicode-data):
 * characters joined by kSemanticVariant, kZVariant, kSimplifiedVariant or kTraditionalVariant,
 * each mapped to the smallest code point of its class (回/迴/囘 → 回, 峯/峰 → 峯).
 * @example variantFold('U+56DE\tkTraditionalVariant\tU+56DE U+8FF4\n').get(0x8ff4) // → 0x56de
 */
export function variantFold(unihanVariants: string): VariantFold {
  const parent = new Map<number, number>()
  const find = (x: number): number => {
    let r = x
    while (parent.get(r) !== undefined && parent.get(r) !== r) r = parent.get(r)!
    parent.set(x, r)
    return r
  }
  const union = (a: number, b: number): void => {
    if (!parent.has(a)) parent.set(a, a)
    if (!parent.has(b)) parent.set(b, b)
    const ra = find(a)
    const rb = find(b)
    if (ra !== rb) parent.set(Math.max(ra, rb), Math.min(ra, rb))
  }
  for (const line of unihanVariants.split('\n')) {
    const [cp, field, values] = line.split('\t')
    if (cp === undefined || values === undefined || !/^k(Semantic|Z|Simplified|Traditional)Variant$/.test(field ?? '')) continue
    const a = parseInt(cp.slice(2), 16)
    for (const v of values.split(' ')) {
      const b = parseInt(v.split('<')[0]!.slice(2), 16)
      if (Number.isFinite(a) && Number.isFinite(b)) union(a, b)
    }
  }
  const out = new Map<number, number>()
  for (const x of parent.keys()) {
    const r = find(x)
    if (r !== x) out.set(x, r)
  }
  return out
}

/**
 * The oracle's normal form: NFKC (full-width → ASCII), lower case, variant characters folded,
 * then only letters and digits (punctuation, spaces, symbols and emoticons are not content).
 * @example foldShort('我喜歡ＵＳＢ！', fold) // → '我喜欢usb' (when the table joins 歡/欢)
 */
export function foldShort(text: string, fold: VariantFold): string {
  let out = ''
  for (const ch of text.normalize('NFKC').toLowerCase()) {
    if (!/[\p{L}\p{N}]/u.test(ch)) continue
    const c = ch.codePointAt(0)!
    const f = fold.get(c)
    out += f === undefined ? ch : String.fromCodePoint(f)
  }
  return out
}

const NUMBER = /\d+(?:[.,]\d+)*/g
const CHINESE_NUMERAL = /^[〇零一二三四五六七八九十百千万亿两]+$/u

/** One difference of two strings: `a` deleted and `b` inserted at the same place (either may be ''). */
export interface Hunk {
  a: string
  b: string
}

/**
 * The differences of two strings (code points), from a longest common subsequence.
 * @example diffHunks('我喜欢', '我不喜欢') // → [{ a: '', b: '不' }]
 */
export function diffHunks(x: string, y: string): Hunk[] {
  const a = Array.from(x)
  const b = Array.from(y)
  const n = a.length
  const m = b.length
  // lcs[i][j] = LCS length of a[i..], b[j..], in one flat array.
  const w = m + 1
  const lcs = new Int32Array((n + 1) * w)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!)
    }
  }
  const hunks: Hunk[] = []
  let cur: Hunk | null = null
  let i = 0
  let j = 0
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      if (cur !== null) hunks.push(cur)
      cur = null
      i++
      j++
    } else if (j < m && (i === n || lcs[i * w + j + 1]! >= lcs[(i + 1) * w + j]!)) {
      cur ??= { a: '', b: '' }
      cur.b += b[j++]
    } else {
      cur ??= { a: '', b: '' }
      cur.a += a[i++]
    }
  }
  if (cur !== null) hunks.push(cur)
  return hunks
}

/** Why two similar texts are not the same text. */
export type ShortFlag = 'negation' | 'number' | 'word'

/** Texts up to this many folded characters: one replaced word makes another text. */
export const WORD_FLAG_MAX_CHARS = 40

const multiset = (xs: readonly string[]): Map<string, number> => {
  const m = new Map<string, number>()
  for (const x of xs) m.set(x, (m.get(x) ?? 0) + 1)
  return m
}
const missingFrom = (a: Map<string, number>, b: Map<string, number>): boolean => [...a].some(([k, n]) => (b.get(k) ?? 0) < n)

/**
 * Negation morphemes: 不, 没 (没有), 未, 无, 非, 别, 莫, 勿, 否, in both forms, since the variant
 * fold maps each class to its smallest code point (没 → 沒, 别 → 別).
 */
const NEGATION_CHAR = /[不没沒未无無非别別莫勿否]/u
/** Words that start with one and negate nothing: very, but, not only, constantly, future, whatever, … */
const NOT_NEGATIONS = new Set(['非常', '不过', '不過', '不仅', '不僅', '不断', '不斷', '未来', '未來', '无论', '無論', '无論', '莫名', '别人', '別人', '别的', '別的', '否则', '否則', '不少'])

/** Occurrences of `needle` in `s`, and of those not preceded by a negation. */
function occurrences(s: readonly string[], needle: readonly string[]): { all: number; plain: number } {
  let all = 0
  let plain = 0
  for (let j = 0; j + needle.length <= s.length; j++) {
    let k = 0
    while (k < needle.length && s[j + k] === needle[k]) k++
    if (k < needle.length) continue
    all++
    if (j === 0 || !NEGATION_CHAR.test(s[j - 1]!)) plain++
  }
  return { all, plain }
}

/**
 * Whether `b` negates what `a` says plainly (or the reverse): for a negation + the two characters
 * after it (不喜欢, 没有点) in either text, one text has more of the negated form and the other more
 * of the two characters without a negation (我喜欢 / 我不喜欢, 推荐 / 不推荐, 很好 / 不好; 知之为知之，
 * 不知为不知 / …，知为不知). Alignment-free and by counts, so a text written twice or with an
 * added line is not a negation of itself.
 */
function negates(a: string, b: string): boolean {
  const ca = Array.from(a)
  const cb = Array.from(b)
  for (const [x, y] of [[ca, cb], [cb, ca]] as const) {
    for (let i = 0; i < x.length; i++) {
      if (!NEGATION_CHAR.test(x[i]!)) continue
      const rest = x.slice(i + 1, i + 3)
      if (rest.length === 0 || NEGATION_CHAR.test(rest[0]!) || NOT_NEGATIONS.has(x[i]! + rest[0]!)) continue
      const negX = occurrences(x, [x[i]!, ...rest]).all
      const negY = occurrences(y, [x[i]!, ...rest]).all
      const plainX = occurrences(x, rest).plain
      const plainY = occurrences(y, rest).plain
      if (negX > negY && plainY > plainX) return true
    }
  }
  return false
}

/**
 * The meaning changes between two folded texts: a negation added or removed (`negates`, either
 * way), a number replaced (a number of each text missing from the other, or Chinese numerals
 * replaced in the diff), or — in texts of ≤ 40 characters — a word of ≥ 2 characters replaced by
 * another, or only replacements of ≤ 4 characters in all (one word of a template changed:
 * 覆盖文件状态 / 转移文件, 房间很干净 / 房间挺干净).
 * @example shortFlags('推荐', '不推荐') // → ['negation']
 */
export function shortFlags(a: string, b: string): ShortFlag[] {
  const flags = new Set<ShortFlag>()
  const na = multiset(a.match(NUMBER) ?? [])
  const nb = multiset(b.match(NUMBER) ?? [])
  if (missingFrom(na, nb) && missingFrom(nb, na)) flags.add('number')
  if (negates(a, b)) flags.add('negation')
  const hunks = diffHunks(a, b)
  let replaced = 0
  let onlyReplacements = hunks.length > 0
  let wordReplaced = false
  for (const h of hunks) {
    if (h.a !== '' && h.b !== '' && CHINESE_NUMERAL.test(h.a) && CHINESE_NUMERAL.test(h.b)) flags.add('number')
    const letters = h.a !== '' && h.b !== '' && /\p{L}/u.test(h.a) && /\p{L}/u.test(h.b)
    if (!letters) onlyReplacements = false
    if (letters && Array.from(h.a).length >= 2 && Array.from(h.b).length >= 2) wordReplaced = true
    replaced += Math.max(Array.from(h.a).length, Array.from(h.b).length)
  }
  if (Math.max(Array.from(a).length, Array.from(b).length) <= WORD_FLAG_MAX_CHARS && ((onlyReplacements && replaced <= 4) || wordReplaced)) flags.add('word')
  return [...flags]
}

/** 53-bit-free bigram ids: a bigram as a number (two UTF-16 code units of the BMP, else a hash). */
function bigramSet(s: string): Float64Array {
  const cps = Array.from(s).map((c) => c.codePointAt(0)!)
  if (cps.length === 0) return new Float64Array(0)
  const n = Math.max(1, cps.length - 1)
  const out = new Float64Array(n)
  for (let i = 0; i < n; i++) out[i] = cps[i]! * 2097152 + (cps[i + 1] ?? 0)
  out.sort()
  let k = 0
  for (let i = 0; i < n; i++) if (i === 0 || out[i] !== out[k - 1]) out[k++] = out[i]!
  return out.slice(0, k)
}

const overlap = (a: Float64Array, b: Float64Array): number => {
  let i = 0
  let j = 0
  let c = 0
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      c++
      i++
      j++
    } else if (a[i]! < b[j]!) i++
    else j++
  }
  return c
}

/** Texts of at most this many folded characters are the same only when equal (错误 / 栈错误). */
export const SHORT_EXACT_MAX_CHARS = 4

/** Jaccard threshold of the bigram sets. */
export const SHORT_JACCARD = 0.5
/** Containment threshold of the smaller set in the larger. */
export const SHORT_CONTAINMENT = 0.9
/** Bigrams the smaller set needs for containment to count. */
export const SHORT_CONTAINMENT_MIN = 8

/** The oracle's verdict on one pair. */
export interface ShortJudgement {
  jaccard: number
  containment: number
  flags: ShortFlag[]
  same: boolean
}

/**
 * The oracle's verdict on two texts.
 * @example judgeShort('我喜欢这本书', '我不喜欢这本书', fold).same // → false (flags: negation)
 */
export function judgeShort(x: string, y: string, fold: VariantFold): ShortJudgement {
  const a = foldShort(x, fold)
  const b = foldShort(y, fold)
  if (a === '' || b === '') {
    const same = x.trim() === y.trim()
    return { jaccard: same ? 1 : 0, containment: same ? 1 : 0, flags: [], same }
  }
  const sa = bigramSet(a)
  const sb = bigramSet(b)
  const o = overlap(sa, sb)
  const jaccard = o / (sa.length + sb.length - o)
  const small = Math.min(sa.length, sb.length)
  const containment = o / small
  const tiny = Math.min(Array.from(a).length, Array.from(b).length) <= SHORT_EXACT_MAX_CHARS
  const similar = tiny ? a === b : jaccard >= SHORT_JACCARD || (small >= SHORT_CONTAINMENT_MIN && containment >= SHORT_CONTAINMENT)
  const flags = similar ? shortFlags(a, b) : []
  return { jaccard, containment, flags, same: similar && flags.length === 0 }
}

/** Groups of a stream and what the oracle saw while making them. */
export interface ShortGroups {
  /** `groups[i]`: smallest index of i's group. */
  groups: number[]
  /** Similar pairs the flags kept apart. */
  flagged: { a: number; b: number; flags: ShortFlag[] }[]
  /** Similar pairs left unjoined because their groups hold a flagged pair. */
  conflicts: number
}

/**
 * Groups texts: connected components of `judgeShort(…).same`, joined most similar first, except
 * that two groups holding a flagged pair are never joined. Candidates are exact: every pair
 * with bigram overlap ≥ 0.5·|smaller set| is verified (both tests imply it), found through an
 * index of all bigrams probed with each set's rarest |x| − ⌈0.5|x|⌉ + 1 bigrams.
 * @example shortGroups(['我喜欢这本书', '我喜欢这本书！', '我不喜欢这本书'], fold).groups // → [0, 0, 2]
 */
export function shortGroups(texts: readonly string[], fold: VariantFold): ShortGroups {
  const folded = texts.map((t) => foldShort(t, fold))
  const sets = folded.map(bigramSet)
  const parent = texts.map((_, i) => i)
  const find = (i: number): number => {
    while (parent[i] !== i) {
      parent[i] = parent[parent[i]!]!
      i = parent[i]!
    }
    return i
  }
  const union = (a: number, b: number): void => {
    const ra = find(a)
    const rb = find(b)
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb)
  }
  // Content-free texts: only identical ones.
  const empty = new Map<string, number>()
  folded.forEach((f, i) => {
    if (f !== '') return
    const k = texts[i]!.trim()
    const first = empty.get(k)
    if (first === undefined) empty.set(k, i)
    else union(first, i)
  })
  const df = new Map<number, number>()
  for (const s of sets) for (const t of s) df.set(t, (df.get(t) ?? 0) + 1)
  const index = new Map<number, number[]>()
  sets.forEach((s, i) => {
    for (const t of s) {
      const p = index.get(t)
      if (p === undefined) index.set(t, [i])
      else p.push(i)
    }
  })
  const flagged: ShortGroups['flagged'] = []
  const similar: { x: number; y: number; j: number }[] = []
  const seen = new Int32Array(texts.length).fill(-1)
  sets.forEach((s, x) => {
    if (s.length === 0) return
    const rare = [...s].sort((p, q) => df.get(p)! - df.get(q)! || p - q)
    const prefix = s.length - Math.ceil(0.5 * s.length) + 1
    for (let k = 0; k < prefix; k++) {
      for (const y of index.get(rare[k]!)!) {
        if (y <= x || seen[y] === x) continue
        seen[y] = x
        const sy = sets[y]!
        const o = overlap(s, sy)
        const small = Math.min(s.length, sy.length)
        const j = o / (s.length + sy.length - o)
        const tiny = Math.min(Array.from(folded[x]!).length, Array.from(folded[y]!).length) <= SHORT_EXACT_MAX_CHARS
        if (tiny ? folded[x] !== folded[y] : !(j >= SHORT_JACCARD || (small >= SHORT_CONTAINMENT_MIN && o / small >= SHORT_CONTAINMENT))) continue
        const flags = shortFlags(folded[x]!, folded[y]!)
        if (flags.length === 0) similar.push({ x, y, j })
        else flagged.push({ a: x, b: y, flags })
      }
    }
  })
  // Join the most similar pairs first, never two groups that hold a flagged pair between them:
  // a negated text stays apart from its source even when a third text is like both.
  const apart = new Map<number, Set<number>>()
  for (const f of flagged) {
    apart.set(f.a, (apart.get(f.a) ?? new Set()).add(f.b))
    apart.set(f.b, (apart.get(f.b) ?? new Set()).add(f.a))
  }
  const members = new Map<number, number[]>(texts.map((_, i) => [i, [i]]))
  let conflicts = 0
  similar.sort((p, q) => q.j - p.j || p.x - q.x || p.y - q.y)
  for (const { x, y } of similar) {
    const rx = find(x)
    const ry = find(y)
    if (rx === ry) continue
    const mx = members.get(rx)!
    const my = new Set(members.get(ry)!)
    if (mx.some((m) => [...(apart.get(m) ?? [])].some((o) => my.has(o)))) {
      conflicts++
      continue
    }
    union(rx, ry)
    const r = find(rx)
    members.set(r, [...mx, ...my])
    members.delete(r === rx ? ry : rx)
  }
  return { groups: texts.map((_, i) => find(i)), flagged, conflicts }
}
