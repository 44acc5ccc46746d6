import { describe, expect, it } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { DEFAULT_GENERIC_TITLES, isGenericTitle, normalizeText } from '../../../src/normalize/index.js'
import { TITLE_NORMALIZE_OPTIONS, isGenericNormalizedTitle } from '../../../src/normalize/title.js'

describe('isGenericTitle', () => {
  const rows: [title: string | null | undefined, expected: boolean, gloss: string][] = [
    ['', true, 'empty'],
    ['   ', true, 'blank'],
    [null, true, 'absent'],
    [undefined, true, 'absent'],
    ['——', true, 'only punctuation'],
    ['🎉🎉', true, 'only emoji'],
    ['首页', true, 'home page'],
    ['首頁', true, 'home page, Traditional'],
    ['Home', true, 'English, any case'],
    ['  HOME  ', true, 'surrounding spaces'],
    ['无标题文档', true, 'untitled document'],
    ['Untitled', true, 'untitled'],
    ['新建网页 1', true, 'new web page 1: trailing number ignored'],
    ['新闻', true, 'news'],
    ['index', true, 'index'],
    ['Default', true, 'default'],
    ['Welcome to nginx!', true, 'a default server page'],
    ['404 Not Found', true, 'an error page'],
    ['404 - 页面不存在', true, '404 - page does not exist'],
    ['www.example.com', true, 'a bare domain'],
    ['某某公司官网', true, 'official site of some company'],
    ['首页 - 新华网', true, 'home page - Xinhua: a site name plus a generic part'],
    ['新华网_首页', true, 'Xinhua_home page'],
    ['新闻 | 某某大学', true, 'news | some university'],
    ['杭州今日天气晴', false, 'Hangzhou is sunny today'],
    ['Python 3.12 文档', false, 'Python 3.12 documentation'],
    ['杭州今日天气晴 - 新闻 - 新华网', false, 'a real headline, then section and site'],
    ['首页设计的十个原则', false, 'ten principles of home page design: the word inside a real title'],
    ['Homebrew 安装指南', false, 'Homebrew install guide: "home" as a prefix only'],
    ['2024', true, 'digits only: a trailing number with nothing before it'],
  ]
  it.each(rows)('%j → %s (%s)', (title, expected) => {
    expect(isGenericTitle(title)).toBe(expected)
    // The engine's path: normalise once, then check without normalising pieces again.
    if (typeof title === 'string') expect(isGenericNormalizedTitle(normalizeText(title, TITLE_NORMALIZE_OPTIONS))).toBe(expected)
  })

  it('a title that is only the site name is generic when the site is known', () => {
    expect(isGenericTitle('新华网', { siteName: '新华网' })).toBe(true) // Xinhua
    expect(isGenericTitle('新华网 | 首页', { siteName: '新华网' })).toBe(true) // Xinhua | home
    expect(isGenericTitle('Example', { siteName: 'www.example' })).toBe(true)
    expect(isGenericTitle('新华网')).toBe(false) // unknown site: a name is a name
  })
  it('genericTitles replaces the list', () => {
    expect(isGenericTitle('产品列表', { genericTitles: ['产品列表'] })).toBe(true) // product list
    expect(isGenericTitle('untitled', { genericTitles: ['产品列表'] })).toBe(false)
    expect(isGenericTitle('某某官网', { genericTitles: [] })).toBe(true) // the suffix rule stays: official site of …
  })
  it('exports a frozen list that includes the basics', () => {
    for (const t of ['首页', 'home', 'untitled', '无标题', 'index', '新闻', 'default', 'welcome', '404 not found']) expect(DEFAULT_GENERIC_TITLES).toContain(t)
    expect(Object.isFrozen(DEFAULT_GENERIC_TITLES)).toBe(true)
  })
  test.prop([fc.string({ unit: 'binary', maxLength: 60 })])('never throws', (s) => {
    expect(typeof isGenericTitle(s)).toBe('boolean')
  })
  // Pieces from the generic list, separators and site chrome, in Traditional and full-width forms too.
  const piece = fc.constantFrom(...DEFAULT_GENERIC_TITLES, '首頁', 'ＨＯＭＥ', '新華網', 'www.Example.com', '杭州今日天气晴', '2024', '１', ' - ', ' | ', '_', '：', '——', ' ', '!')
  // What the engine's path relies on: a normalised title (and so each of its pieces) is a fixed point.
  test.prop([fc.array(piece, { maxLength: 6 }).map((a) => a.join(''))])('normalising first gives the same answer', (t) => {
    expect(isGenericTitle(normalizeText(t, TITLE_NORMALIZE_OPTIONS))).toBe(isGenericTitle(t))
  })
  test.prop([fc.constantFrom(...DEFAULT_GENERIC_TITLES), fc.stringMatching(/^[\u4e00-\u9fa5]{6,12}$/)])(
    'a generic word plus a site name is generic, plus a headline and a site name is not', (generic, words) => {
      expect(isGenericTitle(`${generic} - 某网站`)).toBe(true) // some website
      expect(isGenericTitle(`${words}测试 - ${generic} - 某网站`)).toBe(false) // "… test": a headline
    })
})
