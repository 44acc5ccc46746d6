/**
 * What reposts do to a short text (copies), and the hard negatives of the short-text kinds:
 * edits of real texts, never made-up sentences.
 *
 * Copies: a promo line added, another title or heading, the text written twice or one and a half
 * times, punctuation / width changed, a last clause dropped, a few variant characters (異體字 and
 * near-homographs of the Unihan table: 峰/峯, 着/著, 回/迴). Negatives: a negation inserted or
 * removed (推荐 → 不推荐), a number changed (1.2% → 2.1%).
 */
import { cut } from 'jieba-wasm'
import { AD_LINES } from './perturb.js'
import { punctuationVariant } from './shorts.js'
import type { Rng } from './prng.js'

/** Promo lines reposting accounts add to a short item (the issue's own, and the eval's ad lines). */
export const PROMO_LINES: readonly string[] = [
  '扫码关注公众号，获取更多资讯。',
  '编者按：本文经授权转载。',
  '（来源：网络，侵删）',
  '喜欢就点个赞吧！',
  ...AD_LINES.zh,
]

/** An edited text and how it was edited. */
export interface Edit {
  text: string
  note: string
  /** The edit only added known chrome around the text (a promo line, a site suffix): the oracle leaves it out. */
  chrome?: boolean
}

/** The text with a promo line before or after it (own line, or run on). */
export function addPromo(text: string, rng: Rng): Edit {
  const line = rng.pick(PROMO_LINES)
  const where = rng.int(0, 2)
  if (where === 0) return { text: `${line}\n${text}`, note: 'promo-before', chrome: true }
  if (where === 1) return { text: `${text}\n${line}`, note: 'promo-after', chrome: true }
  return { text: `${text}${line}`, note: 'promo-run-on', chrome: true }
}

/** Written twice, or one and a half times (the first half of the sentences again). */
export function repeatText(text: string, rng: Rng): Edit {
  if (rng.next() < 0.5) return { text: `${text}${rng.pick(['', ' ', '\n'])}${text}`, note: 'twice' }
  const chars = Array.from(text)
  const half = chars.slice(0, Math.max(1, Math.ceil(chars.length / 2))).join('')
  return { text: `${text}${half}`, note: 'one-and-a-half' }
}

const toHalfwidth = (s: string): string => s.replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).replace(/\u3000/g, ' ')
const toFullwidthDigits = (s: string): string => s.replace(/[0-9A-Za-z%.]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))

/** Punctuation or width changed as another input method or site does; null when nothing changed. */
export function punctWidth(text: string, rng: Rng): Edit | null {
  const half = toHalfwidth(text)
  if (half !== text && rng.next() < 0.5) return { text: half, note: 'full→half width' }
  if (/[0-9A-Za-z]/.test(text) && rng.next() < 0.3) return { text: toFullwidthDigits(text), note: 'half→full width' }
  const p = punctuationVariant(text, rng)
  return p === null ? null : { text: p.text, note: `punct ${p.note}` }
}

/** The last clause (after the last ，；,) dropped, when what is left is ≥ 60% of the text. */
export function dropLastClause(text: string): Edit | null {
  const m = /^(.*)[，；,;]([^，；,;]+)$/su.exec(text.trim())
  if (m === null) return null
  const kept = m[1]!
  return Array.from(kept).length >= 0.6 * Array.from(text).length ? { text: kept, note: 'last clause dropped' } : null
}

/** Variant characters a copy may carry: from a character to its Unihan variants (BMP CJK only). */
export type VariantTable = ReadonlyMap<string, readonly string[]>

/**
 * The replacement table of the copies: kSemanticVariant and kZVariant (異體字), and the other
 * traditional forms of a character that is its own traditional form too (回 → 迴, 了 → 瞭, 着 → 著:
 * the near-homographs a conversion round trip leaves); only to characters in use (`inUse`: those
 * with a Unihan kFrequency, which leaves out radical forms and rarities such as 忄, 勹, 扵).
 * U+4E00–U+9FFF only.
 */
export function variantTable(unihanVariants: string, inUse: ReadonlySet<string>): VariantTable {
  const out = new Map<string, Set<string>>()
  const cjk = (cp: number): boolean => cp >= 0x4e00 && cp <= 0x9fff
  const add = (a: number, b: number): void => {
    if (a === b || !cjk(a) || !cjk(b) || !inUse.has(String.fromCodePoint(b))) return
    const s = out.get(String.fromCodePoint(a)) ?? new Set<string>()
    s.add(String.fromCodePoint(b))
    out.set(String.fromCodePoint(a), s)
  }
  for (const line of unihanVariants.split('\n')) {
    const [cp, field, values] = line.split('\t')
    if (cp === undefined || values === undefined) continue
    const a = parseInt(cp.slice(2), 16)
    const vs = values.split(' ').map((v) => parseInt(v.split('<')[0]!.slice(2), 16))
    if (field === 'kSemanticVariant' || field === 'kZVariant') for (const b of vs) add(a, b)
    else if (field === 'kTraditionalVariant' && vs.includes(a)) for (const b of vs) add(a, b)
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]))
}

/** 1–3 characters replaced by a variant; null when the text has none in the table. */
export function variantChars(text: string, table: VariantTable, rng: Rng): Edit | null {
  const chars = Array.from(text)
  const at = chars.flatMap((c, i) => (table.has(c) ? [i] : []))
  if (at.length === 0) return null
  const picked = rng.sample(at, rng.int(1, Math.min(3, at.length)))
  const notes: string[] = []
  for (const i of picked) {
    const v = rng.pick(table.get(chars[i]!)!)
    notes.push(`${chars[i]}→${v}`)
    chars[i] = v
  }
  return { text: chars.join(''), note: `variants ${notes.join(' ')}` }
}

/** Words a negation flips (whole jieba words only: 能 in 功能 is not one). */
const NEGATABLE = new Set(['喜欢', '推荐', '满意', '值得', '方便', '干净', '舒服', '合适', '好用', '划算', '安静', '热情', '清楚', '稳定', '支持', '同意', '可以', '需要', '应该', '愿意', '知道', '一样', '重要', '容易', '能', '会', '是', '有', '好'])

/**
 * A negation inserted or removed on a whole word (jieba, HMM off): 推荐 → 不推荐, 不推荐 → 推荐,
 * 很好 → 不好, 有 → 没有 (a hard negative: the meaning flips). Null when no such word is there.
 */
export function flipNegation(text: string, rng: Rng): Edit | null {
  const words = cut(text, false)
  const options: Edit[] = []
  words.forEach((w, i) => {
    const before = words.slice(0, i).join('')
    const after = words.slice(i + 1).join('')
    const prev = words[i - 1]
    if (NEGATABLE.has(w) && prev !== '不' && prev !== '没' && prev !== '很') {
      options.push({ text: `${before}${w === '有' ? '没' : '不'}${w}${after}`, note: `${w}→${w === '有' ? '没' : '不'}${w}` })
    }
    if ((w === '不' || w === '没') && NEGATABLE.has(words[i + 1] ?? '')) options.push({ text: before + after, note: `${w}${words[i + 1]}→${words[i + 1]}` })
    if (w.length === 3 && w.startsWith('不') && NEGATABLE.has(w.slice(1))) options.push({ text: `${before}${w.slice(1)}${after}`, note: `${w}→${w.slice(1)}` })
    if (w === '很好') options.push({ text: `${before}不好${after}`, note: '很好→不好' })
  })
  return options.length === 0 ? null : rng.pick(options.slice(0, 3))
}

const DIGITS = /[0-9０-９]+(?:[.．][0-9０-９]+)?/gu

/**
 * One number changed: its digits reordered (1.2 → 2.1, 35 → 53) or a digit changed. Null
 * without a number.
 */
export function changeNumber(text: string, rng: Rng): Edit | null {
  const ms = [...text.matchAll(DIGITS)]
  if (ms.length === 0) return null
  const m = rng.pick(ms)
  const old = m[0]
  const chars = Array.from(old)
  const digitAt = chars.flatMap((c, i) => (/[0-9０-９]/u.test(c) ? [i] : []))
  let next = old
  if (digitAt.length >= 2 && rng.next() < 0.5) {
    const swapped = [...chars]
    const d = digitAt.map((i) => chars[i]!).reverse()
    digitAt.forEach((i, k) => (swapped[i] = d[k]!))
    next = swapped.join('')
  }
  if (next === old) {
    const i = rng.pick(digitAt)
    const full = chars[i]! >= '０'
    const v = (Number(full ? String.fromCharCode(chars[i]!.charCodeAt(0) - 0xfee0) : chars[i]) + rng.int(1, 8)) % 10
    chars[i] = full ? String.fromCharCode(0xff10 + v) : String(v)
    next = chars.join('')
  }
  const at = m.index ?? 0
  return { text: text.slice(0, at) + next + text.slice(at + old.length), note: `number ${old}→${next}` }
}

const NUMERAL_DIGITS = '二三四五六七八九'

/**
 * One Chinese numeral changed in a run that is surely a number (三千 → 五千, 十二月 → 十三月):
 * a run of numerals holding one of 二…九 and of ≥ 2 characters or before a measure. Null without one.
 */
export function changeChineseNumeral(text: string, rng: Rng): Edit | null {
  const runs = [...text.matchAll(/[〇零一二三四五六七八九十百千万两]{2,}|[二三四五六七八九](?=[个年月日次天里人岁位名条项件])/gu)].filter((m) => /[二三四五六七八九]/u.test(m[0]))
  if (runs.length === 0) return null
  const m = rng.pick(runs)
  const chars = Array.from(m[0])
  const at = chars.flatMap((c, i) => (NUMERAL_DIGITS.includes(c) ? [i] : []))
  const i = rng.pick(at)
  const old = chars[i]!
  chars[i] = rng.pick(Array.from(NUMERAL_DIGITS).filter((c) => c !== old))
  const next = chars.join('')
  const start = m.index ?? 0
  return { text: text.slice(0, start) + next + text.slice(start + m[0].length), note: `numeral ${m[0]}→${next}` }
}
