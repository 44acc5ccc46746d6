/** Issue 24: short texts decided by their exact bigram sets. Each case was decided the other way by simdup-fp/9. */
import { describe, expect, test } from 'vitest'
import { createDeduplicator, openMemoryStore } from '../../../src/index.js'
import { ARTICLE_A, ARTICLE_B } from '../../fixtures/articles.js'

/** Real sentences (fixture article), punctuation left out: 150+ content characters. */
const SENTENCES = ARTICLE_A.replace(/[，。、；：！？“”（）\s]/g, '')
const OTHER = ARTICLE_B.replace(/[，。、；：！？“”（）\s]/g, '')

async function decide(a: string, b: string, options: Parameters<typeof createDeduplicator>[0]['analyzer'] = undefined) {
  const store = await openMemoryStore()
  const dedup = createDeduplicator({ store, ...(options === undefined ? {} : { analyzer: options }) })
  const [, second] = await dedup.add([{ id: 'a', content: a }, { id: 'b', content: b }])
  await store.close()
  return second!
}

describe('short texts (issue 24)', () => {
  test.each([
    // No content characters: never near-duplicates (fp/9: SimHash 0 and two empty term sets, Jaccard 1).
    ['但是:', '。'],
    ['————', ':('],
    ['哦，', ':('],
    // Negation flips the meaning (fp/9: a stop word, distance 0).
    ['我喜欢', '我不喜欢'],
    ['推荐。', '不推荐。'],
    ['这个手机很好用，推荐购买。', '这个手机很好用，不推荐购买。'],
    // Numbers are content (fp/9: 0.3 was cut into 0 and 3).
    ['同比上涨1.2%', '同比上涨2.1%'],
    ['上涨0.3%', '上涨3.0%'],
    // One gram or one character: only the same one (the bounds of the equal-set rule).
    ['错误', '栈错误'],
    ['好', '好评'],
    ['好', '不好'],
    ['漂亮', '很漂亮'],
    // A variant character folded is still a figure: 肆 is 四 (fp/12 folds it; the numeral veto holds).
    ['锦瑟无端五十弦，一弦一柱思华年。', '锦瑟无端肆十弦，一弦一柱思华年。'],
  ])('%s / %s: not duplicates', async (a, b) => {
    expect((await decide(a, b)).status).toBe('unique')
  })

  test.each([
    // A short review and its shorter form (fp/9: distance 5, term Jaccard 0.6).
    ['USB接口只有两个，少了点~', 'usb接口只有两个', 'containment'],
    // A sentence written twice vs one and a half times (fp/9: distance 9).
    ['这家店的菜很好吃，服务也很周到。这家店的菜很好吃，服务也很周到。', '这家店的菜很好吃，服务也很周到。这家店的菜很好吃，', 'short-text'],
    // A poem under its title (fp/9: unique).
    ['床前明月光，疑是地上霜。举头望明月，低头思故乡。', '静夜思\n床前明月光，疑是地上霜。举头望明月，低头思故乡。', 'short-text'],
    // A short item with a promo line added: contained (fp/9: unique).
    ['今天北京天气晴朗，最高气温二十五度，适合出游。', '今天北京天气晴朗，最高气温二十五度，适合出游。扫码关注公众号，获取更多资讯。', 'containment'],
    // Both within 150 characters: a longer item and a long line added (sizes within twice).
    [SENTENCES.slice(0, 80), `${SENTENCES.slice(0, 80)}。${OTHER.slice(0, 60)}`, 'containment'],
    // One character changed in 140.
    [SENTENCES.slice(0, 140), `${SENTENCES.slice(0, 60)}X${SENTENCES.slice(61, 140)}`, 'short-text'],
    // One gram or one character and other punctuation (fp/11: only exact duplicates).
    ['漂亮', '漂亮！', 'short-text'],
    ['谢谢!!', '谢谢!', 'short-text'],
    ['好', '好！', 'short-text'],
    // Variant characters (異體字) in an otherwise Simplified text (fp/11: J 0.68–0.73, unique).
    ['运去金成铁，时来铁似金，读书须用意，一字值千金。', '运去金成铁，时来铁似金，读书须用意，壹字值千金。', 'short-text'],
    ['因为离同学家近，这次就住了海逸。', '因为离仝学家近，这次就住了海逸。', 'short-text'],
    ['用于 xrootd 的加密库的轻量级版本', '用於 xrootd 的加密库的轻量级版本', 'short-text'],
  ])('%s / %s: duplicates by rule %s', async (a, b, rule) => {
    const d = await decide(a, b)
    expect(d.status).toBe('duplicate')
    expect(d.rule).toBe(rule)
    expect(d.resemblance).toBeGreaterThan(0.7)
  })

  test('longer than a title: a text sharing all but its last line is a duplicate at bigram Jaccard 0.75 (minLongGramJaccard)', async () => {
    const common = 'qt 是一个跨平台 c++ 应用程序框架。qt 的主要特点在于其具有一个丰富的组件集，可以提供标准的图形界面功能。'
    const a = `${common}\n本软件包包含 qt 5 的开发文件。`
    const b = `${common}\n本软件包提供 qt 5 的调试符号。`
    const d = await decide(a, b)
    expect(d.status).toBe('duplicate')
    expect(d.rule).toBe('short-text')
    expect(d.resemblance).toBeGreaterThan(0.7)
    expect(d.resemblance).toBeLessThan(0.85)
    expect((await decide(a, b, { shortText: { minLongGramJaccard: 0.85 } })).status).toBe('unique')
    await expect(decide(a, b, { shortText: { minLongGramJaccard: 0.4 } })).rejects.toThrow(/shortText\.minLongGramJaccard/)
    // Title length keeps 0.85: one word replaced in a title is another title.
    expect((await decide('基于终端的软件包管理器的日语用户手册', '基于终端的软件包管理器的德语用户手册')).status).toBe('unique')
  })

  test('the thresholds are options; below their floors they are refused', async () => {
    const a = 'USB接口只有两个，少了点~'
    const b = 'usb接口只有两个'
    expect((await decide(a, b, { shortText: { minGramJaccard: 0.75, minContainment: 1, minContainedGrams: 9 } })).status).toBe('unique')
    expect((await decide(a, b, { shortText: { minGramJaccard: 0.75, minContainment: 1, minContainedGrams: 8 } })).rule).toBe('containment')
    await expect(decide(a, b, { shortText: { minGramJaccard: 0.4 } })).rejects.toThrow(/shortText\.minGramJaccard/)
  })
})
