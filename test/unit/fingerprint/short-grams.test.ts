import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { chromeFigures } from '../../../src/fingerprint/figure-veto.js'
import { SHORT_GRAM_FLOOR, TITLE_GRAMS, fitsShortRoute, gramJaccardThreshold, gramSet, gramVerdict, prefixLength, sketchGrams, type GramThresholds } from '../../../src/fingerprint/short-grams.js'
import { DEFAULT_SHORT_TEXT_OPTIONS } from '../../../src/fingerprint/short-text.js'

/** Han characters, a negation, digits and a decimal point: large enough that unrelated texts share few grams. */
const ALPHABET = [...'的一是在有人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质', '不', '1', '2', '.']

/** Bigrams of the content units, as a brute-force oracle computes them (letters, digits, a point between digits); one unit and NUL for a text of one. */
function oracleGrams(text: string): Set<string> {
  const units = (text.toLowerCase().match(/(?<=[0-9])\.(?=[0-9])|[\p{L}\p{N}]/gu) ?? []).join('')
  const out = new Set<string>()
  if (units.length === 1) out.add(`${units}\u0000`)
  for (let i = 0; i + 1 < units.length; i++) out.add(units.slice(i, i + 2))
  return out
}

const arbBase = fc.array(fc.constantFrom(...ALPHABET), { minLength: 2, maxLength: 60 }).map((cs) => cs.join(''))
/** A pair: a text and an edit of it (characters changed, left out, added, or a tail of up to its own length). */
const arbPair = fc.tuple(arbBase, fc.array(fc.tuple(fc.nat(200), fc.constantFrom(...ALPHABET), fc.constantFrom('sub', 'del', 'ins')), { maxLength: 4 }), fc.option(arbBase)).map(([t, edits, tail]) => {
  let u = t
  for (const [at, c, op] of edits) {
    const i = at % (u.length + 1)
    u = op === 'sub' ? u.slice(0, i) + c + u.slice(i + 1) : op === 'del' ? u.slice(0, i) + u.slice(i + 1) : u.slice(0, i) + c + u.slice(i)
  }
  return [t, tail === null ? u : u + tail.slice(0, t.length)] as const
})
const arbThresholds: fc.Arbitrary<GramThresholds> = fc.record({
  minGramJaccard: fc.double({ min: SHORT_GRAM_FLOOR.jaccard, max: 1, noNaN: true }),
  minLongGramJaccard: fc.double({ min: SHORT_GRAM_FLOOR.jaccard, max: 1, noNaN: true }),
  minContainment: fc.double({ min: SHORT_GRAM_FLOOR.containment, max: 1, noNaN: true }),
  minContainedGrams: fc.integer({ min: 2, max: 8 }),
})

describe('short-text gram sets (issue 24)', () => {
  test.prop([arbPair, arbThresholds], { numRuns: 3000 })('every pair the rules accept shares a prefix term (prefix filtering is exact)', ([a, b], t) => {
    const x = gramSet(a)
    const y = gramSet(b)
    if (gramVerdict(x.sketch, y.sketch, t).rule === null) return
    expect(x.terms.some((term) => y.terms.includes(term)), `${a} / ${b}`).toBe(true)
  })

  // The hard case for a prefix filter: the longer text's extra grams are all rarer than the shared
  // ones (characters the frequency table has never seen, after common ones), so its prefix is
  // mostly extra grams; a containment pair must still share a prefix term.
  const COMMON = [...'的是在有这中为上个我以要他时来用们生到作地于出就分对成会可']
  const RARE = [...'龘靐齉爩鱻麤龖厵灥骉羴猋蟲']
  const arbAdversarial = fc.tuple(
    fc.array(fc.constantFrom(...COMMON), { minLength: 6, maxLength: 40 }),
    fc.array(fc.tuple(fc.nat(200), fc.constantFrom(...COMMON)), { maxLength: 3 }),
    fc.array(fc.constantFrom(...RARE), { minLength: 1, maxLength: 40 }),
  ).map(([base, subs, tail]) => {
    const x = base.join('')
    let y = x
    for (const [at, c] of subs) {
      const i = at % y.length
      y = y.slice(0, i) + c + y.slice(i + 1)
    }
    return [x, y + tail.slice(0, base.length).join('')] as const
  })
  test.prop([arbAdversarial, arbThresholds], { numRuns: 3000 })('…also when the extra grams of the longer text come first in the global order', ([a, b], t) => {
    const x = gramSet(a)
    const y = gramSet(b)
    if (gramVerdict(x.sketch, y.sketch, t).rule === null) return
    expect(x.terms.some((term) => y.terms.includes(term)), `${a} / ${b}`).toBe(true)
  })

  test.prop([arbPair, arbThresholds], { numRuns: 500 })('Jaccard and containment are exact (brute force over bigram sets)', ([a, b], t) => {
    const x = oracleGrams(a)
    const y = oracleGrams(b)
    const both = [...x].filter((g) => y.has(g)).length
    const v = gramVerdict(gramSet(a).sketch, gramSet(b).sketch, t)
    expect(sketchGrams(gramSet(a).sketch)).toBe(x.size)
    expect(v.jaccard).toBeCloseTo(x.size + y.size === 0 ? 0 : both / (x.size + y.size - both), 12)
    expect(v.containment).toBeCloseTo(Math.min(x.size, y.size) === 0 ? 0 : both / Math.min(x.size, y.size), 12)
    expect(v.veto).toBe(oracleVeto(x, y) || oracleFigureChanged(a, b))
  })

  test('prefix length covers the floors: ⌈…⌉ of Jaccard 0.5 and containment 0.75 at size ratio 2', () => {
    expect(prefixLength(1)).toBe(1)
    expect(prefixLength(10)).toBe(7) // Jaccard: 10 − 5 + 1 = 6; containment: 10 − ⌈3.75⌉ + 1 = 7
    expect(prefixLength(100)).toBe(63)
  })

  test('numbers stay whole, negations and numbers veto, repetition does not count', () => {
    const t = { minGramJaccard: 0.7, minContainment: 0.9, minContainedGrams: 6 }
    expect(gramVerdict(gramSet('上涨0.3%').sketch, gramSet('上涨3.0%').sketch, t).veto).toBe(true)
    expect(gramVerdict(gramSet('我喜欢').sketch, gramSet('我不喜欢').sketch, t).rule).toBeNull()
    const once = '这家店的菜很好吃，服务也很周到。'
    expect(gramVerdict(gramSet(once + once).sketch, gramSet(once + once.slice(0, 8)).sketch, t).jaccard).toBe(1)
  })

  test('a negation or figure veto needs a flip: a replaced word holding 别/非/未, an added number or an added clause with 不 is none', () => {
    const t = { minGramJaccard: 0.85, minContainment: 0.9, minContainedGrams: 6 }
    const v = (a: string, b: string) => gramVerdict(gramSet(a).sketch, gramSet(b).sketch, t).veto
    // Vetoes: a negation inserted inside or at the start, a figure changed.
    expect(v('这家店的菜我喜欢，服务也很好', '这家店的菜我不喜欢，服务也很好')).toBe(true)
    expect(v('推荐购买这款手机', '不推荐购买这款手机')).toBe(true)
    expect(v('这个东西有用，质量也好', '这个东西没有用，质量也好')).toBe(true)
    expect(v('今年物价同比上涨1.2%', '今年物价同比上涨2.1%')).toBe(true)
    // Figures in Chinese numerals: a numeral replaced by another; not a word replaced next to one.
    expect(v('将军得名二十载，人间又见真乘黄', '将军得名三十载，人间又见真乘黄')).toBe(true)
    expect(v('三月二日天气新，长安水边多丽人', '三月三日天气新，长安水边多丽人')).toBe(true)
    expect(v('我一直很喜欢这家店的早餐', '我一起很喜欢这家店的早餐')).toBe(false)
    // …also when the gram after the negation occurs elsewhere in the other text (sets do not count repeats).
    expect(v('内存加上原来的没有3G了。速度还行，没有卡的感觉', '内存加上原来的有3G了。速度还行，没有卡的感觉')).toBe(true)
    expect(v('装的时候都不知道，装的话不知道那个是那个', '装的时候都不知道，装的话知道那个是那个')).toBe(true)
    // …and when the gram before the negation occurs elsewhere in the other text ("的不" of "买的,不过").
    expect(v('帮朋友买的，不过和我买的不是同一个型号', '帮朋友买的，不过和我买的是同一个型号')).toBe(true)
    // …and a figure changed into one the text holds elsewhere, or into its own digits reordered:
    // one bigram set, told apart by the figures the sketch carries with their repeats and neighbours.
    expect(v('55555535，我住过最差的酒店之一，奉劝大家还是跑远一点吧。', '55555555，我住过最差的酒店之一，奉劝大家还是跑远一点吧。')).toBe(true)
    expect(v('编码和解码：iso-8859、iso-2202、euc、sjis、big5', '编码和解码：iso-8859、iso-2022、euc、sjis、big5')).toBe(true)
    expect(v('g3data 能够从图表中获取数据。例如，g5data 可以提取数据', 'g3data 能够从图表中获取数据。例如，g3data 可以提取数据')).toBe(true)
    expect(v('当地时间7时04分（北京时间12时40分）登顶', '当地时间7时40分（北京时间12时40分）登顶')).toBe(true)
    // A figure added or dropped on one side, or written with spaces, is no change.
    expect(v('登上了海拔5895米的非洲最高峰乞力马扎罗山', '1月6日电 登上了海拔5895米的非洲最高峰乞力马扎罗山')).toBe(false)
    expect(v('登上了海拔5895米的非洲最高峰乞力马扎罗山', '登上了海拔 5895 米的非洲最高峰乞力马扎罗山')).toBe(false)
    // No veto: a word replaced that holds a negation character (特别 → 晚上, 非常 → 十分), a number
    // added on one side only (a heading), a promo clause with 不 appended.
    expect(v('夏天培训特别，困难汽车城市，文化蔬菜水果', '夏天培训晚上，困难汽车城市，文化蔬菜水果')).toBe(false)
    expect(v('这里的风景非常美丽，值得一去', '这里的风景十分美丽，值得一去')).toBe(false)
    expect(v('床前明月光，疑是地上霜', '第3首 床前明月光，疑是地上霜')).toBe(false)
    expect(v('酒店位置方便，早餐丰富', '酒店位置方便，早餐丰富。未经授权不得转载')).toBe(false)
  })

  test('variant characters fold to one form; two characters in common use never do', () => {
    const same = (a: string, b: string) => gramSet(a).sketch === gramSet(b).sketch
    expect(same('壹字值千金', '一字值千金')).toBe(true)
    expect(same('用於', '用于')).toBe(true)
    expect(same('高峯', '高峰')).toBe(true)
    expect(same('他说', '她说')).toBe(false)
    expect(same('用于', '用与')).toBe(false)
    // Folded into a negation or a numeral, the vetoes see it: 沒 is 没, 肆 is 四.
    const t = { minGramJaccard: 0.85, minContainment: 0.9, minContainedGrams: 6 }
    expect(gramVerdict(gramSet('这个东西有用，质量也好').sketch, gramSet('这个东西沒有用，质量也好').sketch, t).veto).toBe(true)
  })

  test('beyond title length (more than TITLE_GRAMS grams) the Jaccard threshold is minLongGramJaccard: a text sharing all but its last line', () => {
    const t = { ...DEFAULT_SHORT_TEXT_OPTIONS }
    // Two package descriptions with one paragraph and another last line (58 and 57 bigrams, J 0.80).
    const common = 'qt 是一个跨平台 c++ 应用程序框架。qt 的主要特点在于其具有一个丰富的组件集，可以提供标准的图形界面功能。'
    const a = gramSet(`${common}\n本软件包包含 qt 5 的开发文件。`)
    const b = gramSet(`${common}\n本软件包提供 qt 5 的调试符号。`)
    const v = gramVerdict(a.sketch, b.sketch, t)
    expect(sketchGrams(a.sketch)).toBeGreaterThan(TITLE_GRAMS)
    expect(v.jaccard).toBeGreaterThan(0.7)
    expect(v.jaccard).toBeLessThan(0.85)
    expect(v.rule).toBe('short-text')
    expect(gramJaccardThreshold(t, sketchGrams(a.sketch))).toBe(0.75)
    // Title length: the same Jaccard is no match (one word replaced in a title: 0.85 holds).
    const x = gramSet('基于终端的软件包管理器的日语用户手册')
    const y = gramSet('基于终端的软件包管理器的德语用户手册')
    expect(gramVerdict(x.sketch, y.sketch, t).jaccard).toBeLessThan(0.85)
    expect(gramVerdict(x.sketch, y.sketch, t).rule).toBeNull()
    expect(gramJaccardThreshold(t, 40)).toBe(0.85)
    // Unset, minGramJaccard decides every size (the thresholds before the option existed).
    expect(gramVerdict(a.sketch, b.sketch, { minGramJaccard: 0.85, minContainment: 0.9, minContainedGrams: 6 }).rule).toBeNull()
  })

  test('fitsShortRoute counts content characters only', () => {
    expect(fitsShortRoute('。'.repeat(1000))).toBe(true)
    expect(fitsShortRoute('好'.repeat(150))).toBe(true)
    expect(fitsShortRoute('好'.repeat(151))).toBe(false)
  })
})

/**
 * The veto over bigram strings, brute force: a figure changed (each side has a digit gram the
 * other lacks, or a Chinese numeral replaced by another beside the same character), or a negation inserted on either side (a gram `p n` the other lacks and `n c`, with
 * `p c` in the other; or `n c` the other lacks and `p n`, with `p c` only in the other; or `n c` the other lacks at the start, with a gram of the other starting with `c`).
 */
function oracleVeto(x: Set<string>, y: Set<string>): boolean {
  const only = (a: Set<string>, b: Set<string>) => [...a].filter((g) => !b.has(g))
  const digit = (g: string) => /[0-9.]/.test(g)
  if (only(x, y).some(digit) && only(y, x).some(digit)) return true
  // A Chinese numeral replaced by another next to the same character.
  const num = (u: string) => '零一二三四五六七八九十百千万亿两'.includes(u)
  for (const g of only(x, y)) {
    for (const h of only(y, x)) {
      const [a, b] = [...g] as [string, string]
      const [c, d] = [...h] as [string, string]
      if ((a === c && b !== d && num(b) && num(d)) || (b === d && a !== c && num(a) && num(c))) return true
    }
  }
  const neg = (u: string) => '不没无非未别勿莫否'.includes(u)
  const inserted = (a: Set<string>, b: Set<string>) =>
    // `p n` only in a, `n c` anywhere in a, `p c` in b.
    only(a, b).some((h) => {
      const [p, n] = [...h] as [string, string]
      return neg(n) && [...a].some((g) => [...g][0] === n && b.has(p + [...g][1]!))
    }) ||
    // `n c` only in a, `p n` anywhere in a, `p c` only in b.
    only(a, b).some((g) => {
      const [n, c] = [...g] as [string, string]
      return neg(n) && [...a].some((h) => [...h][1] === n && b.has([...h][0]! + c) && !a.has([...h][0]! + c))
    }) ||
    // `n c` only in a, nothing of a before n (a starts with it), a gram of b starting with c.
    only(a, b).some((g) => {
      const [n, c] = [...g] as [string, string]
      return neg(n) && ![...a].some((h) => [...h][1] === n) && [...b].some((h) => [...h][0] === c)
    })
  return inserted(x, y) || inserted(y, x)
}

/**
 * A figure changed in its slot, brute force over the texts (what the gram sets cannot see): each
 * figure (a run of digits, a point between two digits inside it) with the nearest non-space
 * characters before and after it on its line; numbers of the text's structure left out (two points
 * or more; a line's leading enumeration; one point after 第表图例 or before 节章), and lines of page
 * chrome (`chromeFigures`, a line classifier). Changed: as multisets, a figure-with-neighbours only
 * one text has sits beside the same characters as one only the other has.
 */
function oracleFigureChanged(a: string, b: string): boolean {
  const figures = (text: string): [string, string][] => {
    const out: [string, string][] = []
    for (const line of text.split('\n')) {
      if (chromeFigures(line)) continue
      for (const m of line.matchAll(/[0-9](?:[0-9]|\.(?=[0-9]))*/gu)) {
        const from = m.index
        const to = from + m[0].length
        const before = [...line.slice(0, from).replace(/[ \u3000\t]/gu, '')].at(-1) ?? ''
        const after = [...line.slice(to).replace(/[ \u3000\t]/gu, '')][0] ?? ''
        const points = m[0].split('.').length - 1
        if (points >= 2 || (before === '' && '.、)）'.includes(line[to] ?? 'x')) || (points === 1 && ('第表图例'.includes(before || 'x') || '节章'.includes(after || 'x')))) continue
        out.push([`${before}|${m[0]}|${after}`, `${before}|${after}`])
      }
    }
    return out
  }
  const fa = figures(a)
  const fb = figures(b)
  // Figures-with-neighbours only `x` has, counted with their repeats, as their slots.
  const minus = (x: [string, string][], y: [string, string][]): string[] => {
    const rest = y.map(([f]) => f)
    return x.filter(([f]) => {
      const i = rest.indexOf(f)
      if (i < 0) return true
      rest.splice(i, 1)
      return false
    }).map(([, slot]) => slot)
  }
  const onlyB = new Set(minus(fb, fa))
  return minus(fa, fb).some((slot) => onlyB.has(slot))
}
