import { describe, expect, it } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { extractTitle, htmlToText, looksLikeHtml, normalizeContent } from '../../../src/normalize/index.js'
import { anyUnits } from './arbitraries.js'

// A news page as CMSs produce it: header, navigation, breadcrumb, an article with its own
// header, a share bar and comments, then a sidebar and a footer.
// 新闻 news, 首页 home, 标题 headline, 第一段/第二段 paragraph one/two, 分享到微博 share to Weibo,
// 评论 comments, 热门文章 popular articles, 版权所有 all rights reserved.
const PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>标题 - 新闻网</title>
<style>p { color: red }</style><script>document.write("<p>脚本</p>")</script></head>
<body class="has-sidebar">
<header class="site-header"><nav><a href="/">首页</a> <a href="/news">新闻</a></nav></header>
<div class="breadcrumb">首页 &gt; 新闻</div>
<main><article>
<header><h1>标题</h1></header>
<p>第一段&amp;内容
继续</p>
<p>第二段<br>换行</p>
<div class="share-buttons">分享到微博</div>
<section id="comments"><p>评论</p></section>
</article></main>
<aside class="sidebar">热门文章</aside>
<footer>版权所有 &copy;2024</footer>
</body></html>`

describe('htmlToText', () => {
  it('keeps the article text and drops scripts, styles and chrome', () => {
    expect(htmlToText(PAGE)).toBe('标题\n第一段&内容 继续\n第二段\n换行')
  })
  it('without preferMain, keeps the non-chrome text of the whole body', () => {
    expect(htmlToText(PAGE, { preferMain: false })).toBe('标题\n第一段&内容 继续\n第二段\n换行')
  })
  it('without dropChrome, keeps everything visible', () => {
    const all = htmlToText(PAGE, { dropChrome: false, preferMain: false })
    for (const part of ['首页 新闻', '分享到微博', '评论', '热门文章', '版权所有 ©2024']) expect(all).toContain(part)
    expect(all).not.toContain('脚本') // scripts never count
    expect(all).not.toContain('color')
  })
  it('includeTitle puts the title first', () => {
    expect(htmlToText(PAGE, { includeTitle: true }).split('\n')[0]).toBe('标题 - 新闻网')
  })

  const rows: [name: string, html: string, expected: string][] = [
    ['plain fragment', '<p>你好</p><p>世界</p>', '你好\n世界'], // hello / world
    ['entities decoded', '<p>&lt;b&gt; &amp; &quot;x&quot; &#x4e2d;&#25991; &nbsp;end</p>', '<b> & "x" 中文 end'],
    ['br and block elements break lines', 'a<br>b<div>c</div>d<li>e</li>', 'a\nb\nc\nd\ne'],
    ['table cells are spaced', '<table><tr><td>甲</td><td>乙</td></tr><tr><td>丙</td></tr></table>', '甲 乙\n丙'], // A B / C
    ['source line breaks are spaces outside pre', '<p>one\ntwo</p><pre>a\nb</pre>', 'one two\na\nb'],
    ['drops noscript, template, svg, iframe', '<noscript>开启JS</noscript><template>t</template><svg><text>s</text></svg><iframe>f</iframe><p>正文</p>', '正文'], // enable JS / body
    // Regression: `hidden` content is text (a tab, LibreOffice help's per-application variants, where
    // most pages keep their body); it was dropped, and a page kept only its first paragraph.
    ['keeps hidden elements', '<p hidden>隐藏</p><p>显示</p>', '隐藏\n显示'], // hidden / shown
    ['drops aria-hidden decoration', '<span aria-hidden="true">★</span><p>显示</p>', '显示'], // shown
    ['drops chrome by role', '<div role="navigation">导航</div><div role="contentinfo">页脚</div><p>正文</p>', '正文'], // navigation / footer / body
    ['drops chrome by class words', '<div class="main-nav">a</div><div class="footer-links">b</div><div class="ad">c</div><div class="related-posts">d</div><div class="cookie-banner">e</div><p>正文</p>', '正文'],
    // Regression (eval breadth, Doxygen source listings): code comments are `<span class="comment">`;
    // the chrome word dropped every comment of every listing, shared licence headers with them.
    ['a chrome word on an inline element or in code names text, not chrome', '<pre>int x; <span class="comment">// 许可证</span></pre><p>说明 <span class="comment">注释</span></p>', 'int x; // 许可证\n说明 注释'], // licence / note / comment
    ['drops chrome by camelCase id', '<div id="sideBar">侧栏</div><p>正文</p>', '正文'], // sidebar / body
    // Regression: a page-state class on a wrapper ("has-sidebar") dropped the whole page.
    ['state classes are not chrome', '<div class="has-sidebar no-header"><p>正文</p></div>', '正文'],
    // Regression: words inside a token ("content-sidebar-wrap") matched and dropped the content.
    ['only first or last word of a token counts', '<div class="content-sidebar-wrap"><p>正文</p></div>', '正文'],
    ['forms, buttons and selects are chrome', '<form><input value="x"><button>提交</button><select><option>选项</option></select></form><p>正文</p>', '正文'], // submit / option / body
    ['main wins over the rest', '<div>外面</div><main>里面</main>', '里面'], // outside / inside
    ['article header kept, article footer dropped', '<article><header>题</header><p>文</p><footer>尾</footer></article>', '题\n文'], // title / text / end
    ['main inside a chrome wrapper still counts', '<form><main><p>正文</p></main></form>', '正文'], // ASP.NET pages wrap everything in a form
    // Regression: an empty <article> must not hide the rest of the page.
    ['empty main falls back to the body', '<article> </article><p>正文</p>', '正文'],
    ['only chrome falls back to all visible text', '<nav>只有导航</nav>', '只有导航'], // only navigation
    ['unclosed tags', '<p>未闭合 <b>粗<div>块', '未闭合 粗\n块'], // unclosed / bold / block
    ['stray closing tags', '</div></nav></p>文本</span>', '文本'], // text
    ['not HTML at all', '纯文本 a < b > c', '纯文本 a < b > c'], // plain text
  ]
  it.each(rows)('%s', (_name, html, expected) => {
    expect(htmlToText(html)).toBe(expected)
  })

  it('custom chromeNames replace the defaults', () => {
    expect(htmlToText('<div class="nav">导航</div><div class="junk">垃圾</div><p>正文</p>', { chromeNames: ['junk'] })).toBe('导航\n正文') // navigation / junk / body
  })
  it('rejects invalid options', () => {
    expect(() => htmlToText('<p>x</p>', { preferMain: 'no' as unknown as boolean })).toThrow(/`preferMain`.*boolean/)
    expect(() => htmlToText('<p>x</p>', { chromeNames: 'nav' as unknown as string[] })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }))
  })

  test.prop([anyUnits])('never throws on arbitrary input', (s) => {
    expect(typeof htmlToText(s)).toBe('string')
  })
  const tagSoup = fc.array(fc.oneof(
    fc.constantFrom('<p>', '</p>', '<div class="nav">', '</div>', '<main>', '</main>', '<script>', '</script>', '<br>', '<!--', '-->', '<', '>', '&amp;', '&#xD800;', '<svg>', '</svg>', '<pre>', '</pre>', '<title>', '</title>'),
    fc.string({ maxLength: 5 }),
  ), { maxLength: 40 }).map((a) => a.join(''))
  test.prop([tagSoup])('never throws on tag soup, and its normalised text is stable', (s) => {
    const text = normalizeContent(s, { html: true })
    expect(normalizeContent(text, { html: false })).toBe(text)
  })
})

describe('looksLikeHtml', () => {
  const rows: [text: string, expected: boolean][] = [
    ['<p>你好</p>', true],
    ['<!DOCTYPE html><html>', true],
    ['第一行<br/>第二行', true], // line one / line two
    ['<div class="x">', true],
    ['text</span>', true],
    ['<a href="/">link</a>', true],
    ['纯文本', false], // plain text
    ['a < b and c > d', false],
    ['usage: cp <file> <dir>', false], // man-page placeholders
    ['<pre', false],
    ['x <= y >= z', false],
  ]
  it.each(rows)('%j → %s', (text, expected) => {
    expect(looksLikeHtml(text)).toBe(expected)
  })
})

describe('normalizeContent', () => {
  it('auto-detects HTML, extracts text, then normalises it', () => {
    expect(normalizeContent('<div class="nav">首頁</div><p>軟體 更新 ＯＫ</p>')).toBe('软件 更新 ok') // home / software update OK
  })
  it('html: false treats markup as text', () => {
    expect(normalizeContent('<p>軟體</p>', { html: false })).toBe('<p>软件</p>')
  })
  it('html: true parses even without recognisable tags', () => {
    expect(normalizeContent('a &amp; b', { html: true })).toBe('a & b')
  })
  it('rejects an invalid html option', () => {
    expect(() => normalizeContent('x', { html: 'yes' as unknown as boolean })).toThrow(/`html`.*'auto', true or false/)
  })
})

describe('extractTitle', () => {
  const rows: [html: string, expected: string | null][] = [
    ['<title> 新闻 &amp;\n 公告 </title>', '新闻 & 公告'], // news & notices
    ['<head><meta property="og:title" content="分享标题"></head><h1>大标题</h1>', '分享标题'], // share title / headline
    ['<body><h1>大 <b>标题</b></h1><h1>第二</h1></body>', '大 标题'], // headline / second
    ['<title></title><h1>标题</h1>', '标题'], // an empty title does not count
    ['<svg><title>图标</title></svg><title>页面</title>', '页面'], // icon / page: SVG titles are not the page's
    ['<p>没有标题</p>', null], // no title
    ['', null],
  ]
  it.each(rows)('%j → %j', (html, expected) => {
    expect(extractTitle(html)).toBe(expected)
  })
})
