import { describe, expect, it } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { labelOnly, lineShape } from '../../../src/engine/line-shape.js'

describe('lineShape (issue 24: chrome lines whose values change from page to page)', () => {
  it('masks the values after chrome labels, and dates and times', () => {
    expect(lineShape('发布时间：2024-05-02 09:39 来源：某某日报 作者：某某')).toBe(lineShape('发布时间：2023-11-30 17:02 来源：新华社 作者：张小明'))
    expect(lineShape('【字体：大 中 小】')).toBe(lineShape('【字体：大中小】'))
    expect(lineShape('分享到：微信 微博')).toBe(lineShape('分享到：QQ空间 豆瓣 微博'))
    expect(lineShape('责任编辑：王五')).toBe(lineShape('责任编辑：赵六'))
    expect(lineShape('2024年05月02日 09:39')).toBe(lineShape('2023-11-30 17:02:11'))
    expect(lineShape('本报记者 张三 2024年5月2日电 浏览次数：1234')).toBe(lineShape('本报记者 张三 2024年6月12日电 浏览次数：77'))
  })

  it('masks a breadcrumb after its first part (the section name changes)', () => {
    expect(lineShape('首页 > 新闻中心 > 国内新闻')).toBe(lineShape('首页 > 新闻中心 > 国际新闻 > 正文'))
    expect(lineShape('当前位置：首页 > 财经')).toBe(lineShape('当前位置：首页 > 体育 > 足球'))
  })

  it('keeps what makes content lines of different articles different', () => {
    // Figures in a line that is mostly figures, or short: content.
    expect(lineShape('同比上涨1.2%')).not.toBe(lineShape('同比上涨2.1%'))
    expect(lineShape('1 2 3 4 5')).not.toBe(lineShape('6 7 8 9 10'))
    expect(lineShape('12.5 13.7 14.2 15.0')).not.toBe(lineShape('9.1 13.7 14.2 15.0'))
    // A label inside a sentence, or a long labelled value, is content.
    expect(lineShape('项目资金来源：省财政拨款三千万元')).not.toBe(lineShape('项目资金来源：市财政拨款一千万元'))
    expect(lineShape(`来源：${'甲'.repeat(45)}`)).not.toBe(lineShape(`来源：${'乙'.repeat(45)}`))
    // Punctuation only is dropped.
    expect(lineShape('春耕时节，农民抢种早稻。')).toBe(lineShape('春耕时节农民抢种早稻'))
  })

  test.prop([fc.array(fc.constantFrom(...'春耕时节平原地区的农民抓住晴好天气抢种早稻田间地头一片繁忙景象'), { minLength: 6, maxLength: 30 }), fc.integer({ min: 0, max: 29 })])(
    'two prose lines (no label, no figures) have one shape only when they have the same words',
    (chars, at) => {
      const a = chars.join('')
      const i = at % a.length
      const b = a.slice(0, i) + (a[i] === '稻' ? '麦' : '稻') + a.slice(i + 1)
      expect(lineShape(a)).not.toBe(lineShape(b))
    },
  )
})

describe('labelOnly: lines that are chrome by their shape alone', () => {
  it('date, source, author, editor, reporter, views and tool lines', () => {
    for (const line of ['发布时间:2024-05-02 09:39 来源:某某日报 作者:某某', '【字体:大 中 小】 【打印本页】 【关闭窗口】', '责任编辑:陈静', '(记者:赵磊)',
      '2024-06-08 16:53 来源:中国新闻网 浏览次数:137', '编辑:李娜 审核:杨帆', '上一篇:地铁站旁新设自助借还点', '分享到:微信 微博 QQ空间', '当前位置:首页 > 科技 > 正文',
      '信息来源:新华社 发布日期:2018-06-12 【字体:大 中 小】 【打印本页】 【关闭窗口】', '文章来源:人民日报']) {
      expect(labelOnly(line), line).toBe(true)
    }
  })

  it('not a line of content: a sentence, a label inside it, a long value, a value with a colon of its own', () => {
    for (const line of ['春耕时节,农民抢种早稻。', '项目资金来源:省财政拨款三千万元', `来源:${'甲'.repeat(45)}`, '时间:5月2日 地点:市图书馆', '作者:鲁迅。此为《呐喊》自序节选', '作者:鲁迅 《呐喊》自序节选,写于一九二二年,收入小说集时略有改动,此为原文']) {
      expect(labelOnly(line), line).toBe(false)
    }
  })
})
