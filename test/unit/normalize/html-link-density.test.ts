import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { htmlToText } from '../../../src/normalize/index.js'

const fixture = (name: string): string => readFileSync(join(import.meta.dirname, '../../fixtures/html', `${name}.html`), 'utf8')

// TOC entries of Debian Reference chapter 4 that are not the page's own section:
// 4.1 一般的 Unix 认证 (general Unix authentication), 4.5.2 现代的集中式系统管理 (modern centralized
// system management), 4.7.2 PolicyKit.
const OTHER_TOC_ENTRIES = ['4.1. 一般的 Unix 认证', '4.5.2. 现代的集中式系统管理', '4.7.2. PolicyKit']

describe('htmlToText on real pages', () => {
  it('drops the chapter table of contents of a Debian Reference chunk and keeps its section', () => {
    const text = htmlToText(fixture('debref-ch04-s3'))
    for (const entry of OTHER_TOC_ENTRIES) expect(text).not.toContain(entry)
    expect(text).toContain('4.3. 好密码') // the section's heading ("good passwords")
    expect(text).toContain('密码中不要使用可以猜到的词。') // "do not use guessable words in passwords"
    // The navfooter (`class="navfooter"`) names the neighbouring chapters: chrome.
    expect(text).not.toContain('第 5 章') // "chapter 5"
  })

  it('keeps a data table whose cells are links (a package list)', () => {
    const text = htmlToText(fixture('debref-ch04-s4'))
    expect(text).toContain('whois V:28, I:307 380 mkpasswd') // package, popularity (links), size, command
    expect(text).toContain('openssl V:841, I:995 2269 openssl passwd')
    for (const entry of OTHER_TOC_ENTRIES) expect(text).not.toContain(entry)
  })

  it('keeps a LibreOffice page\'s text, and the same section whichever site\'s chrome it is in', () => {
    const lo = htmlToText(fixture('lo-autokorr-06000000'))
    expect(lo).toContain('使用自动更正更正了您的文字，用印刷引号替换了双引号。') // the page's sentence ("AutoCorrect replaced double quotes")
    expect(lo).not.toContain('Help content debug info') // footer
    const wrapped = htmlToText(fixture('lo-wrapping-debref-ch04-s3'))
    expect(wrapped).toContain('4.3. 好密码')
    expect(wrapped).not.toContain('LibreOffice 7.4 帮助') // header ("LibreOffice 7.4 Help")
  })

  it('with linkDensity off, keeps the table of contents (the old behaviour)', () => {
    const text = htmlToText(fixture('debref-ch04-s3'), { linkDensity: false })
    for (const entry of OTHER_TOC_ENTRIES) expect(text).toContain(entry)
  })
})

describe('htmlToText link density', () => {
  const menu = '<ul><li><a href="/a">产品</a></li><li><a href="/b">价格</a></li><li><a href="/c">文档</a></li><li><a href="/d">博客</a></li></ul>' // products, pricing, docs, blog
  const prose = '<p>这是一段正文，它说明了 <a href="/x">第一个</a>、<a href="/y">第二个</a> 和 <a href="/z">第三个链接</a> 的用法。</p>' // a paragraph explaining three links

  it('drops an unnamed list of links, keeps prose with links in it', () => {
    expect(htmlToText(`<div>${menu}</div>${prose}`)).toBe('这是一段正文，它说明了 第一个、第二个 和 第三个链接 的用法。')
  })
  it('judges a block without its link-dense children: a wrapper holding a menu and text stays', () => {
    expect(htmlToText(`<div class="page">${menu}<div>${prose}</div></div>`)).toBe('这是一段正文，它说明了 第一个、第二个 和 第三个链接 的用法。')
  })
  it('keeps a section made of link-rich sentences', () => {
    const sentences = '<div><p><a href="/1">甲</a>和<a href="/2">乙</a>。</p><p><a href="/3">丙</a>与<a href="/4">丁</a>。</p></div>' // "A and B." "C with D."
    expect(htmlToText(sentences)).toBe('甲和乙。\n丙与丁。')
  })
  it('drops a block of link-only paragraphs (a "see also" list)', () => {
    const seeAlso = '<div><p><a href="/1">参见甲</a></p><p><a href="/2">参见乙</a></p><p><a href="/3">参见丙</a></p></div>' // see A, see B, see C
    expect(htmlToText(`${seeAlso}<p>正文。</p>`)).toBe('正文。')
  })
  it('drops the label of a dropped table of contents ("目录" above it), not a block with text of its own', () => {
    const toc = `<div class="toc"><p><strong>目录</strong></p><dl>${'<dt><a href="#s">3.1. 启动过程概述</a></dt>'.repeat(6)}</dl></div>` // "Contents", "3.1. boot process overview"
    expect(htmlToText(`${toc}<p>创建当前页的副本并将其插入到当前页之后。</p>`)).toBe('创建当前页的副本并将其插入到当前页之后。') // "copies the current page…"
    const intro = '<p>本章介绍系统启动的每一个阶段，以及每个阶段由哪个程序负责。</p>' // a sentence of its own (30 characters): stays
    expect(htmlToText(`<div>${intro}<dl>${'<dt><a href="#s">3.1. 启动过程概述</a></dt>'.repeat(6)}</dl></div><p>正文。</p>`)).toBe('本章介绍系统启动的每一个阶段，以及每个阶段由哪个程序负责。\n正文。')
  })
  it('needs three links: two links are not a menu', () => {
    expect(htmlToText('<ul><li><a href="/a">上一页</a></li><li><a href="/b">下一页</a></li></ul><p>正文。</p>')).toBe('上一页\n下一页\n正文。') // previous / next page
  })
  it('falls back to all visible text when links are all there is', () => {
    expect(htmlToText(menu)).toBe('产品\n价格\n文档\n博客')
  })
  it('names written as one word with nav are chrome; navy and navigate are not', () => {
    expect(htmlToText('<div class="navheader">导航</div><div class="topnav">导航</div><p class="navy">海军蓝</p><p class="navigate-hint">提示</p>')).toBe('海军蓝\n提示') // navigation ×2, navy blue, hint
  })
  it('checks the option type', () => {
    expect(() => htmlToText('<p>x</p>', { linkDensity: 'yes' as unknown as boolean })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }))
  })
})

describe('htmlToText link density: law', () => {
  // Words of CJK text and Latin letters: no markup characters, never blank.
  const word = fc.array(fc.constantFrom('软件', '更新', '文档', '首页', '设置', 'Linux', 'shell', '密码', '网络', '系统'), { minLength: 1, maxLength: 4 }).map((w) => w.join(''))
  // A sentence: plain text around at most two links, the plain text at least as long as the links
  // (prose, never "nothing but links").
  const sentence = fc.tuple(word, fc.array(fc.tuple(word, word), { maxLength: 2 })).map(([head, parts]) =>
    head + parts.map(([link, text]) => `<a href="/l">${link}</a>${text}${text}${link}`).join('') + '。')
  const prose = fc.array(sentence, { minLength: 1, maxLength: 4 }).map((ss) => ss.map((s) => `<p>${s}</p>`).join(''))
  // A menu or table of contents: at least three links and nothing else, in one of the usual shapes.
  const menu = fc.tuple(fc.array(word, { minLength: 3, maxLength: 12 }), fc.constantFrom('ul', 'dl', 'div', 'table')).map(([items, shape]) => {
    const a = (t: string) => `<a href="/m">${t}</a>`
    if (shape === 'ul') return `<ul>${items.map((t) => `<li>${a(t)}</li>`).join('')}</ul>`
    if (shape === 'dl') return `<dl>${items.map((t) => `<dt><span>${a(t)}</span></dt>`).join('')}</dl>`
    if (shape === 'div') return `<div>${items.map((t) => `<div>${a(t)}</div>`).join('')}</div>`
    return `<table>${items.map((t) => `<tr><td>${a(t)}</td></tr>`).join('')}</table>`
  })

  test.prop([prose, menu, fc.boolean()])('a link-only block next to prose leaves the prose\'s text exactly as without it', (p, m, before) => {
    const alone = htmlToText(`<body><div class="page"><div>${p}</div></div></body>`)
    const withMenu = htmlToText(`<body><div class="page">${before ? m : ''}<div>${p}</div>${before ? '' : m}</div></body>`)
    expect(withMenu).toBe(alone)
  })
})

describe('htmlToText: a sidebar of the text is content, a sidebar column is chrome', () => {
  it('keeps the boxed asides of a real Publican (DocBook) page, `<div class="sidebar">` inside a section', () => {
    const text = htmlToText(fixture('publican-sect-why-gnu-linux'))
    expect(text).toContain('Linux 还是 GNU/Linux') // the first aside's title ("Linux or GNU/Linux?")
    expect(text).toContain('总体拥有成本(TCO)根据其评估中选择的标准而变化') // prose of the TCO aside ("TCO varies with the criteria chosen")
    expect(text).not.toContain('下一页') // the docnav bar ("next page"): still chrome
  })
  const column = '<div id="sidebar"><h3>分类</h3><ul><li><a href="/a">新闻</a></li><li><a href="/b">体育</a></li><li><a href="/c">财经</a></li></ul><h3>搜索</h3></div>' // categories: news, sports, finance; search
  const body = '<div id="content"><p>这是一篇文章的正文，讲的是今天的天气。</p></div>' // the article's text ("about today's weather")
  it.each([
    ['a sidebar column of links and labels', `<div id="wrap">${body}${column}</div>`, '这是一篇文章的正文，讲的是今天的天气。'],
    ['a sidebar of prose', `${body}<div class="sidebar"><p class="title">注意</p><p>备份之前，请先确认磁盘上有足够的空间，并且在另一台机器上保存一份配置文件的副本。</p></div>`, '这是一篇文章的正文，讲的是今天的天气。\n注意\n备份之前，请先确认磁盘上有足够的空间，并且在另一台机器上保存一份配置文件的副本。'],
    ['a short label named side', `${body}<div class="side">广告位招租</div>`, '这是一篇文章的正文，讲的是今天的天气。'],
    ['a block with another chrome word too', `${body}<div class="sidebar footer"><p>版权所有，未经许可不得转载。本站保留一切权利。</p></div>`, '这是一篇文章的正文，讲的是今天的天气。'],
  ])('%s', (_, html, expected) => {
    expect(htmlToText(html)).toBe(expected)
  })
})

describe('htmlToText: a main region that is a list of links', () => {
  it('keeps the list of a real Sphinx module index (its content), not the theme sidebar', () => {
    const text = htmlToText(fixture('sphinx-requests-modules-index'))
    expect(text).toContain('All modules for which code is available')
    expect(text).toContain('requests.adapters\nrequests.api')
    expect(text).not.toContain('Quick search') // the alabaster sidebar
  })
  const toc = '<ul><li><a href="#a">安装</a></li><li><a href="#b">配置</a></li><li><a href="#c">升级</a></li></ul>' // install, configure, upgrade
  it('still drops a table of contents inside main when the text outweighs it', () => {
    const html = `<main>${toc}<p>本章介绍如何在一台新机器上安装并配置这个软件，以及升级时要注意的事项。</p></main>` // "this chapter explains how to install…"
    expect(htmlToText(html)).toBe('本章介绍如何在一台新机器上安装并配置这个软件，以及升级时要注意的事项。')
  })
})
