import { describe, expect, it } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { gramSet, gramVerdict, wordReplacedIn } from '../../../src/fingerprint/short-grams.js'

const T = { minGramJaccard: 0.5, minContainment: 0.75, minContainedGrams: 2 }
/** What the rules say: no match for a replaced word (the pairs below share enough grams for the rules to ask). */
const veto = (a: string, b: string): boolean => {
  const v = gramVerdict(gramSet(a).sketch, gramSet(b).sketch, T)
  return v.replaced && v.rule === null
}
/** The detector itself, whatever the overlap. */
const replaced = (a: string, b: string): boolean => wordReplacedIn(gramSet(a).sketch, gramSet(b).sketch)

/** The rest of a text and the words put in it come from separate alphabets (no digit, no negation), so a word's units occur nowhere else; a prefix of ≥ 2 units gives the two texts a gram in common. */
const REST = [...'的是在有人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种']
const WORD = [...'英荷兰俄捷克意利日德法语库具界面档案核心器端册']
const arbRest = (min: number, max: number): fc.Arbitrary<string> => fc.array(fc.constantFrom(...REST), { minLength: min, maxLength: max }).map((cs) => cs.join(''))
const arbWord = (min: number, max: number): fc.Arbitrary<string> => fc.array(fc.constantFrom(...WORD), { minLength: min, maxLength: max }).map((cs) => cs.join(''))

describe('word-replacement veto of short texts (issue 24, titles)', () => {
  it('one word replaced in a title is another title; an added word or one variant character is not', () => {
    expect(veto('一款基于终端的包管理器 aptitude 的英语手册', '一款基于终端的包管理器 aptitude 的荷兰语手册')).toBe(true)
    expect(veto('wietse venema 的 tcp 包装库文件', 'wietse venema 的 tcp 包装工具文件')).toBe(true)
    // A line replaced at the start or the end is chrome (a heading, a promo line), not a word.
    expect(veto('作者:韩翎\n春城无处不飞花', '寒食\n唐代:韩翎\n春城无处不飞花')).toBe(false)
    expect(veto('很轻。文章未经授权禁止转载', '很轻。转载请注明出处')).toBe(false)
    expect(veto('深度日历_使用教程', '深度日历')).toBe(false) // decorated
    expect(veto('具有很多特性的 shell', '具有许多特性的shell (开发文件)')).toBe(false) // one character for one, text added elsewhere
    expect(veto('床前明月光，疑是地上霜', '床前明月光，疑似地上霜')).toBe(false)
  })

  it('a longer text with a word replaced is an edit of the same text', () => {
    const rest = '本软件包提供了一个功能完整的图形界面用于管理系统中已经安装的各种软件包以及它们之间的依赖关系和冲突'
    expect(veto(`${rest}的英语手册`, `${rest}的荷兰语手册`)).toBe(false)
  })

  test.prop([arbRest(2, 12), arbRest(1, 12), arbWord(1, 6), arbWord(1, 6)], { numRuns: 500 })(
    'P+w1+S / P+w2+S with words of other units, one of them ≥ 2 long, is vetoed; one unit for one is not; at an end, never', (p, s, w1, w2) => {
      fc.pre(w1 !== w2 && ![...w1].some((c) => w2.includes(c)))
      const expected = w1.length >= 2 || w2.length >= 2
      expect(replaced(p + w1 + s, p + w2 + s), `${p}[${w1}|${w2}]${s}`).toBe(expected)
      expect(replaced(p + s + w1, p + s + w2)).toBe(false)
      expect(replaced(w1 + p + s, w2 + p + s)).toBe(false)
    })

  test.prop([arbRest(1, 14), arbRest(1, 14), arbWord(1, 8)], { numRuns: 300 })('text inserted or appended is never vetoed', (p, s, w) => {
    expect(replaced(p + s, p + w + s)).toBe(false)
    expect(replaced(p + s, p + s + w)).toBe(false)
    expect(replaced(p + s, w + p + s)).toBe(false)
  })
})
