import { fc, test as fcTest } from '@fast-check/vitest'
import { describe, expect, test } from 'vitest'
import { diffHunks, foldShort, judgeShort, shortFlags, shortGroups, variantFold } from '../../../scripts/eval/short-oracle.js'
import { changeChineseNumeral, changeNumber, flipNegation, variantTable } from '../../../scripts/eval/short-edits.js'
import { newsItems } from '../../../scripts/eval/short-news.js'
import { parsePo } from '../../../scripts/eval/short-sources.js'
import { textView } from '../../../scripts/eval/peers.js'
import { Rng } from '../../../scripts/eval/prng.js'

// A few lines in the layout of Unihan_Variants.txt (Debian unicode-data).
const UNIHAN = [
  'U+56DE\tkTraditionalVariant\tU+56DE U+8FF4',
  'U+8FF4\tkSimplifiedVariant\tU+56DE',
  'U+559C\tkTraditionalVariant\tU+559C',
  'U+6B22\tkTraditionalVariant\tU+6B61',
  'U+5CEF\tkSemanticVariant\tU+5CF0<kHKGlyph',
  'U+6CA1\tkTraditionalVariant\tU+6C92',
].join('\n')
const fold = variantFold(UNIHAN)

describe('short-text oracle', () => {
  test('folds width, case, punctuation and variant characters', () => {
    expect(foldShort('我喜歡ＵＳＢ！', fold)).toBe('我喜欢usb')
    expect(foldShort('迴家', fold)).toBe(foldShort('回家', fold))
    expect(foldShort('峰', fold)).toBe(foldShort('峯', fold))
    expect(foldShort('————', fold)).toBe('')
  })

  test('diff hunks are what was deleted and inserted', () => {
    expect(diffHunks('我喜欢', '我不喜欢')).toEqual([{ a: '', b: '不' }])
    expect(diffHunks('无法打开文件', '无法保存文件')).toEqual([{ a: '打开', b: '保存' }])
    expect(diffHunks('', '')).toEqual([])
  })

  test('flags a negation, a replaced number and a replaced template word; not a repetition', () => {
    expect(shortFlags('我喜欢这本书', '我不喜欢这本书')).toEqual(['negation'])
    expect(shortFlags('推荐', '不推荐')).toEqual(['negation'])
    expect(shortFlags('很好下次还来', '不好下次还来')).toContain('negation')
    expect(shortFlags('同比上涨1.2', '同比上涨2.1')).toEqual(['number'])
    expect(shortFlags('增长三成', '增长四成')).toEqual(['number', 'word'])
    expect(shortFlags('无法打开文件s', '无法保存文件s')).toEqual(['word'])
    // The same text written twice, or with a line added, is not a negation of itself.
    expect(shortFlags('我不喜欢这本书', '我不喜欢这本书我不喜欢这本书')).toEqual([])
    expect(shortFlags('服务非常好', '服务非常好扫码关注公众号获取更多资讯')).toEqual([])
    // A number added (a date in a heading) is not a number replaced.
    expect(shortFlags('房间很大', '2024年房间很大')).toEqual([])
  })

  test('judges the issue\'s pairs', () => {
    expect(judgeShort('USB接口只有两个，少了点~', 'usb接口只有两个', fold).same).toBe(true)
    expect(judgeShort('我喜欢', '我不喜欢', fold).same).toBe(false)
    expect(judgeShort('推荐。', '不推荐。', fold).same).toBe(false)
    expect(judgeShort('但是:', '。', fold).same).toBe(false)
    expect(judgeShort('。', '。', fold).same).toBe(true)
    expect(judgeShort('————', ':(', fold).same).toBe(false)
    expect(judgeShort('错误', '栈错误', fold).same).toBe(false)
    expect(judgeShort('东西不错，物流很快，包装完好，下次还来', '东西不错，物流很快，包装完好，下次还来扫码关注公众号，获取更多资讯。', fold).same).toBe(true)
  })

  test('a flagged pair stays apart even when a third text is like both', () => {
    // 2 (the word left out) is like 0 and like 1 (Jaccard 0.58 each), but 0 and 1 differ by a negation.
    const texts = ['这家酒店我很推荐大家来住', '这家酒店我不推荐大家来住', '这家酒店我大家来住']
    expect(judgeShort(texts[2]!, texts[0]!, fold).same && judgeShort(texts[2]!, texts[1]!, fold).same).toBe(true)
    const g = shortGroups(texts, fold)
    expect(g.groups[0]).not.toBe(g.groups[1])
    expect(g.flagged.flatMap((f) => f.flags)).toContain('negation')
  })

  fcTest.prop([fc.array(fc.string({ unit: fc.constantFrom('甲', '乙', '丙', '不', '1', '2', '。'), maxLength: 12 }), { maxLength: 18 })], { numRuns: 300 })(
    'groups: every unflagged similar pair (brute force) is in one group, and no group holds a flagged pair',
    (texts) => {
      const { groups } = shortGroups(texts, fold)
      for (let a = 0; a < texts.length; a++) {
        for (let b = a + 1; b < texts.length; b++) {
          const j = judgeShort(texts[a]!, texts[b]!, fold)
          if (j.flags.length > 0) expect(groups[a]).not.toBe(groups[b])
        }
      }
      // Components: a pair judged the same is either joined, or kept apart by a flagged pair between their groups.
      for (let a = 0; a < texts.length; a++) {
        for (let b = a + 1; b < texts.length; b++) {
          if (!judgeShort(texts[a]!, texts[b]!, fold).same || groups[a] === groups[b]) continue
          const ga = texts.flatMap((_, i) => (groups[i] === groups[a] ? [i] : []))
          const gb = texts.flatMap((_, i) => (groups[i] === groups[b] ? [i] : []))
          expect(ga.some((x) => gb.some((y) => judgeShort(texts[x]!, texts[y]!, fold).flags.length > 0))).toBe(true)
        }
      }
    },
  )
})

describe('short-text edits and sources', () => {
  test('negatives change what they say, and the oracle says so', () => {
    const rng = new Rng(1)
    const neg = flipNegation('房间干净，推荐入住', rng)!
    expect(neg.text).toMatch(/不/)
    expect(judgeShort('房间干净，推荐入住', neg.text, fold).flags).toContain('negation')
    const num = changeNumber('同比上涨1.2%', rng)!
    expect(num.text).not.toBe('同比上涨1.2%')
    expect(judgeShort('同比上涨1.2%', num.text, fold).same).toBe(false)
    expect(changeChineseNumeral('白发三千丈', rng)!.text).toMatch(/^白发[二四五六七八九]千丈$/)
    expect(changeChineseNumeral('一样', rng)).toBeNull()
  })

  test('variant table keeps only characters in use', () => {
    const t = variantTable(UNIHAN, new Set(['迴']))
    expect(t.get('回')).toEqual(['迴'])
    expect(t.has('峯')).toBe(false) // 峰 is not in the in-use set here
  })

  test('news items: headline, dateline paragraph and what follows, within the length', () => {
    const lines = ['迈向新世纪', '本报北京１月１日讯记者某某报道：今天天气很好，大家都出门散步了，公园里人来人往，十分热闹，孩子们在草地上放风筝。', '第二段也是新闻的一部分。', '另一个标题', '这不是电讯稿。']
    expect(newsItems(lines, 10, 300)).toEqual([{ title: '迈向新世纪', paragraphs: [lines[1], lines[2]] }])
    expect(newsItems(lines, 200, 300)).toEqual([])
  })

  test('po entries: continuation lines, escapes, plural and header', () => {
    const po = 'msgid ""\nmsgstr "Project-Id-Version: x\\n"\n\nmsgid ""\n"a\\n"\n"b"\nmsgstr "甲\\"乙\\""\n\nmsgid "one"\nmsgid_plural "many"\nmsgstr[0] "个"\n\nmsgid "untranslated"\nmsgstr ""\n'
    expect(parsePo(po)).toEqual([{ msgid: 'a\nb', msgstr: '甲"乙"' }, { msgid: 'one', msgstr: '个' }])
  })

  test('the peers see the text of an HTML page', () => {
    expect(textView('<html><body><script>x()</script><p>甲 &amp; 乙</p><div>丙</div></body></html>')).toBe('甲 & 乙\n丙')
    expect(textView('纯文本 <不是标签>')).toBe('纯文本 <不是标签>')
  })
})
