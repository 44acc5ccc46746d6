import { describe, expect, it } from 'vitest'
import { labelOnly, lineShape, relatedLists } from '../../../src/engine/line-shape.js'
import { HostTemplates, TEMPLATE_FIRST_EPOCH, textLines } from '../../../src/engine/templates.js'

// Issue 24, short news under portal chrome: the chrome shapes left after the site-template
// learner in missed short-news pairs (docs/notes/2026-11-27-eval-short-news-chrome.md).
describe('news chrome shapes (issue 24)', () => {
  it('a two-part breadcrumb is one shape whatever its section', () => {
    expect(lineShape('今日快讯 > 体育')).toBe(lineShape('今日快讯 > 财经'))
    expect(lineShape('首页 » 国际')).toBe(lineShape('首页 » 社会新闻'))
    // Not a breadcrumb: a part longer than a section name.
    expect(lineShape('甲 > 今年全省粮食总产量比去年增长了百分之五以上')).not.toBe(lineShape('甲 > 今年全省棉花总产量比去年增长了百分之三以上'))
  })

  it('a list heading after a section name is one shape whatever the section', () => {
    expect(lineShape('天涯杂谈 相关帖子：')).toBe(lineShape('国际观察 相关帖子:'))
    expect(lineShape('国内新闻 相关新闻:')).toBe(lineShape('相关新闻：'))
    // A longer line ending in a colon (a sentence introducing a quote) keeps its words.
    expect(lineShape('会议指出，今年全省要重点抓好以下几项工作：')).not.toBe(lineShape('会议强调，明年全市要重点抓好以下几项工作：'))
  })

  it('a dated byline (a source or poster beside a date, no label needed) is chrome by its shape alone', () => {
    for (const line of ['央视网 2023-03-06 22:19', '人民日报 2025年5月4日 11:31', '楼主：徐义昭 发表于 2021-11-23 09:14 只看楼主 点击：7825 回复：89', '2024/05/02 来源：本站']) {
      expect(labelOnly(line), line).toBe(true)
    }
    // Content: a dated sentence, a line of Latin words beside a date, a date without its year.
    for (const line of ['2024年5月2日，我国在酒泉卫星发射中心成功发射一颗通信卫星', 'Version 1.2 released 2004-05-01 by the team', '新华社北京1月22日电', '1998年世界杯足球赛快报']) {
      expect(labelOnly(line), line).toBe(false)
    }
  })

  it('a related-headline list under its heading is chrome by its shape alone, up to the first line of prose', () => {
    const lines = ['宁夏穆斯林欢度开斋节', '正文第一段，说了一件事。', '相关推荐', '国际海洋学院为中外合作搭桥', '· 江苏供销社分流职工13万', '打开APP，阅读更多精彩内容']
    expect(relatedLists(lines)).toEqual([false, false, true, true, true, true])
    expect(relatedLists(['体育聚焦 相关帖子：', '· 低幼文学呼唤成熟艺术形象', '这一段是正文，比较长，说的是另一件事情。'])).toEqual([true, true, false])
    // A heading word inside prose is no heading.
    expect(relatedLists(['本报记者为读者整理了相关推荐书目。', '甲地发生某事'])).toBeNull()
  })

  it('a button line of two to four characters on most of a host\'s pages is learned as template', () => {
    const t = new HostTemplates()
    const words = '春夏秋冬东南西北江河湖海山川草木'
    const pageOf = (i: number): string => `今日快讯 > 体育\n${words[i]}${words[i + 1]}地区新闻标题\n关注\n${words[i + 2]}${words[i]}正文写了一件事情的经过与结果，${words[i + 1]}${words[i + 3]}${words[i + 4]}。`
    for (let i = 0; i < TEMPLATE_FIRST_EPOCH; i++) t.observe('kuaixun.example', textLines(pageOf(i)), { clusterId: `d${i}`, duplicate: false })
    const kept = t.filter(textLines(pageOf(10)))
    expect(kept).not.toBeNull()
    expect(kept!.split('\n')).not.toContain('关注')
    expect(kept!.split('\n')).not.toContain('今日快讯 > 体育')
  })
})
