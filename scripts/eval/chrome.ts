/**
 * Page chrome for the `html-chrome` perturbation: a document re-published inside a realistic web
 * page (scripts, styles, navigation menus, breadcrumb, header, sidebar of links, share bar,
 * comments, footer with copyright and ICP licence). Four layouts, each with randomised site
 * names, menus and sidebar link texts (titles of other corpus documents, as "related articles"
 * on real sites are), so that no two copies carry the same chrome.
 */
import type { Rng } from './prng.js'

/** Language of the chrome's own words. */
export type ChromeLang = 'zh' | 'en'

/** What a wrapped page needs besides the document. */
export interface ChromeContext {
  rng: Rng
  lang: ChromeLang
  /** Titles of other documents, for sidebar / related-article / previous-next links. */
  otherTitles: readonly string[]
}

/** A document as published on another site. */
export interface ChromePage {
  html: string
  /** The page title as that site shows it (`<title>`), e.g. `ls - 列出目录内容 - 开源技术网`. */
  title: string
  url: string
  /** Which layout and site, for the labels. */
  note: string
}

interface Site {
  name: string
  host: string
}

const SITES: Readonly<Record<ChromeLang, readonly Site[]>> = {
  zh: [
    { name: '开源技术网', host: 'www.oss-tech.example.com' },
    { name: 'Linux 中文社区', host: 'bbs.linuxcn.example.net' },
    { name: '码农笔记', host: 'blog.manong.example.org' },
    { name: '运维之家', host: 'www.ops-home.example.com' },
    { name: '办公软件学院', host: 'office.edu.example.cn' },
    { name: '云栖文档镜像', host: 'docs.mirror.example.com' },
    { name: '程序员问答', host: 'qa.coder.example.net' },
    { name: '技术博客园', host: 'www.techblogs.example.com' },
  ],
  en: [
    { name: 'DevNotes', host: 'devnotes.example.com' },
    { name: 'Linux Docs Mirror', host: 'docs.linux-mirror.example.org' },
    { name: 'Office Tips Hub', host: 'www.officetips.example.net' },
    { name: 'The Sysadmin Blog', host: 'sysadmin.example.io' },
  ],
}

const PHRASES = {
  zh: {
    nav: ['首页', '新闻', '教程', '下载', '论坛', '问答', '专题', '视频', '文档', '关于我们', '联系我们', '开源项目'],
    home: '首页',
    categories: ['技术文档', 'Linux 教程', '办公软件', '系统运维', '编程开发', '常见问题'],
    hot: ['热门文章', '相关阅读', '猜你喜欢', '最新更新', '推荐阅读'],
    tags: '标签',
    tagWords: ['Linux', 'Shell', '命令行', 'Debian', '办公', '教程', '入门', '技巧', '配置', '开源'],
    prev: '上一篇：',
    next: '下一篇：',
    share: '分享到：微博 微信 QQ空间 豆瓣',
    comments: '发表评论',
    noComments: '暂无评论，快来抢沙发吧！',
    submit: '提交评论',
    login: '登录',
    register: '注册',
    search: '搜索',
    here: '当前位置：',
    published: '发布时间：',
    views: '阅读：',
    source: '来源：',
    rights: '版权所有',
    footerLinks: ['关于我们', '联系我们', '广告服务', '网站地图', '免责声明', '友情链接'],
    licence: (n: string) => `京ICP备${n}号-1`,
    police: (n: string) => `京公网安备 ${n}号`,
    cc: '本站内容采用 CC BY-SA 4.0 许可协议，转载请注明出处。',
    toc: '本页目录',
  },
  en: {
    nav: ['Home', 'News', 'Tutorials', 'Downloads', 'Forum', 'Q&A', 'Topics', 'Videos', 'Docs', 'About', 'Contact', 'Projects'],
    home: 'Home',
    categories: ['Documentation', 'Linux Tutorials', 'Office Tips', 'Sysadmin', 'Programming', 'FAQ'],
    hot: ['Popular posts', 'Related reading', 'You may also like', 'Recently updated', 'Recommended'],
    tags: 'Tags',
    tagWords: ['Linux', 'Shell', 'CLI', 'Debian', 'Office', 'Tutorial', 'Beginner', 'Tips', 'Config', 'Open source'],
    prev: 'Previous: ',
    next: 'Next: ',
    share: 'Share: Twitter Facebook LinkedIn Reddit',
    comments: 'Leave a comment',
    noComments: 'No comments yet. Be the first!',
    submit: 'Post comment',
    login: 'Log in',
    register: 'Sign up',
    search: 'Search',
    here: 'You are here: ',
    published: 'Published: ',
    views: 'Views: ',
    source: 'Source: ',
    rights: 'All rights reserved.',
    footerLinks: ['About', 'Contact', 'Advertise', 'Sitemap', 'Disclaimer', 'Links'],
    licence: (n: string) => `Reg. No. ${n}`,
    police: (n: string) => `Company No. ${n}`,
    cc: 'Content is available under CC BY-SA 4.0 unless otherwise noted.',
    toc: 'On this page',
  },
} as const

/** Escape text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

function digits(rng: Rng, n: number): string {
  let s = String(rng.int(1, 9))
  while (s.length < n) s += String(rng.int(0, 9))
  return s
}

function date(rng: Rng): string {
  return `20${rng.int(12, 24)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`
}

function links(rng: Rng, host: string, titles: readonly string[], n: number): string {
  return rng
    .sample(titles, n)
    .map((t) => `<li><a href="https://${host}/article/${digits(rng, 6)}.html" title="${escapeHtml(t)}">${escapeHtml(t)}</a></li>`)
    .join('\n')
}

function script(rng: Rng): string {
  const id = `UA-${digits(rng, 8)}-${rng.int(1, 9)}`
  return rng.pick([
    `<script>var _hmt = _hmt || [];(function(){var hm=document.createElement("script");hm.src="https://stats.example.com/hm.js?${digits(rng, 12)}";var s=document.getElementsByTagName("script")[0];s.parentNode.insertBefore(hm,s);})();</script>`,
    `<script async src="https://analytics.example.com/gtag/js?id=${id}"></script>\n<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config','${id}');</script>`,
    `<script type="text/javascript">\n  document.addEventListener('DOMContentLoaded', function () {\n    var menu = document.querySelector('.menu-toggle');\n    if (menu) menu.onclick = function () { document.body.classList.toggle('nav-open') };\n  });\n</script>`,
  ])
}

function style(rng: Rng): string {
  const color = rng.pick(['#333', '#222', '#444', '#2c3e50'])
  const accent = rng.pick(['#c00', '#1e88e5', '#2e7d32', '#e65100'])
  return `<style>\nbody{font-family:"PingFang SC","Microsoft YaHei",sans-serif;color:${color};margin:0}\na{color:${accent};text-decoration:none}\n.nav li{display:inline-block;padding:0 ${rng.int(8, 16)}px}\n.sidebar{width:${rng.int(240, 320)}px;float:right}\n.footer{font-size:12px;color:#999;text-align:center}\n</style>`
}

function paragraphs(content: string): string {
  return content
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => `<p>${escapeHtml(l)}</p>`)
    .join('\n')
}

type Layout = (c: ChromeContext, site: Site, title: string, body: string) => string

const portal: Layout = ({ rng, lang, otherTitles }, site, title, body) => {
  const p = PHRASES[lang]
  const nav = rng.sample(p.nav, rng.int(6, 9))
  const cat = rng.pick(p.categories)
  return `<!DOCTYPE html>
<html lang="${lang === 'zh' ? 'zh-CN' : 'en'}"><head><meta charset="utf-8"><title>${escapeHtml(title)} - ${escapeHtml(site.name)}</title>
<meta name="keywords" content="${escapeHtml(rng.sample(p.tagWords, 4).join(','))}">
${style(rng)}
${script(rng)}
</head><body>
<div class="topbar"><a href="/login">${p.login}</a> | <a href="/register">${p.register}</a></div>
<header class="header"><div class="logo"><a href="/">${escapeHtml(site.name)}</a></div>
<nav class="nav"><ul>${nav.map((n) => `<li><a href="/${encodeURIComponent(n)}/">${escapeHtml(n)}</a></li>`).join('')}</ul></nav>
<form class="search"><input type="text" name="q" placeholder="${p.search}"><button>${p.search}</button></form></header>
<div class="breadcrumb">${p.here}<a href="/">${p.home}</a> &gt; <a href="/list/${rng.int(1, 99)}/">${escapeHtml(cat)}</a> &gt; ${escapeHtml(title)}</div>
<div class="main"><article><h1>${escapeHtml(title)}</h1>
<div class="meta">${p.published}${date(rng)} ${p.source}${escapeHtml(site.name)} ${p.views}${rng.int(100, 99999)}</div>
<div class="content">
${body}
</div></article>
<aside class="sidebar"><h3>${rng.pick(p.hot)}</h3><ul>
${links(rng, site.host, otherTitles, rng.int(5, 10))}
</ul><h3>${p.tags}</h3><div class="tags">${rng.sample(p.tagWords, 5).map((t) => `<a href="/tag/${encodeURIComponent(t)}">${escapeHtml(t)}</a>`).join(' ')}</div></aside></div>
<footer class="footer"><p>${p.footerLinks.map((l) => `<a href="/${encodeURIComponent(l)}">${l}</a>`).join(' | ')}</p>
<p>Copyright © ${rng.int(2003, 2015)}-${rng.int(2020, 2025)} ${escapeHtml(site.name)} ${p.rights} ${p.licence(digits(rng, 8))}</p></footer>
</body></html>`
}

const blog: Layout = ({ rng, lang, otherTitles }, site, title, body) => {
  const p = PHRASES[lang]
  const [prev = '', next = ''] = rng.sample(otherTitles, 2)
  return `<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} | ${escapeHtml(site.name)}</title>
${script(rng)}
${style(rng)}
</head><body class="post-template">
<header class="site-header"><a class="site-title" href="/">${escapeHtml(site.name)}</a>
<nav><a href="/">${p.home}</a> <a href="/archives/">${rng.pick(p.categories)}</a> <a href="/about/">${p.nav[8]}</a> <a href="/tags/">${p.tags}</a></nav></header>
<main><article class="post"><header><h1 class="post-title">${escapeHtml(title)}</h1><time>${date(rng)}</time></header>
<section class="post-content">
${body}
</section>
<div class="share">${p.share}</div>
<nav class="post-nav"><a class="prev" href="/p/${digits(rng, 5)}">${p.prev}${escapeHtml(prev)}</a> <a class="next" href="/p/${digits(rng, 5)}">${p.next}${escapeHtml(next)}</a></nav>
<section class="comments"><h3>${p.comments}</h3><p>${p.noComments}</p><textarea></textarea><button>${p.submit}</button></section>
</article></main>
<aside class="widget"><h4>${rng.pick(p.hot)}</h4><ul>
${links(rng, site.host, otherTitles, rng.int(4, 8))}
</ul></aside>
<footer><p>© ${rng.int(2010, 2025)} ${escapeHtml(site.name)} · Powered by ${rng.pick(['WordPress', 'Hexo', 'Hugo', 'Ghost'])}</p></footer>
<script>var disqus_config=function(){this.page.identifier="${digits(rng, 7)}"};</script>
</body></html>`
}

const tableLayout: Layout = ({ rng, lang, otherTitles }, site, title, body) => {
  const p = PHRASES[lang]
  const nav = rng.sample(p.nav, rng.int(5, 8))
  return `<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><title>${escapeHtml(site.name)} -- ${escapeHtml(title)}</title>
${style(rng)}
${script(rng)}
</head><body>
<table width="960" align="center" cellpadding="0" cellspacing="0"><tr><td colspan="2" class="banner"><img src="/images/logo.gif" alt="${escapeHtml(site.name)}"> ${nav.map((n) => `<a href="/${encodeURIComponent(n)}.html">${escapeHtml(n)}</a>`).join(' | ')}</td></tr>
<tr><td colspan="2">${p.here}<a href="/">${p.home}</a> &gt;&gt; <a href="/class/${rng.int(1, 50)}.html">${escapeHtml(rng.pick(p.categories))}</a> &gt;&gt; ${escapeHtml(title)}</td></tr>
<tr><td width="200" valign="top" class="left"><b>${rng.pick(p.hot)}</b><ul>
${links(rng, site.host, otherTitles, rng.int(6, 10))}
</ul></td>
<td valign="top"><h2>${escapeHtml(title)}</h2><div class="info">${p.published}${date(rng)} ${p.views}${rng.int(10, 9999)}</div>
${body}
</td></tr>
<tr><td colspan="2" align="center" class="footer">${p.footerLinks.slice(0, rng.int(3, 6)).join(' | ')}<br>Copyright © ${rng.int(2001, 2012)}-${rng.int(2019, 2025)} ${escapeHtml(site.name)} All Rights Reserved.<br>${p.licence(digits(rng, 8))} ${p.police(digits(rng, 14))}</td></tr>
</table></body></html>`
}

const docsMirror: Layout = ({ rng, lang, otherTitles }, site, title, body) => {
  const p = PHRASES[lang]
  return `<!DOCTYPE html>
<html lang="${lang === 'zh' ? 'zh' : 'en'}"><head><meta charset="utf-8"><title>${escapeHtml(title)} — ${escapeHtml(site.name)}</title>
<link rel="stylesheet" href="/static/theme.css">
${style(rng)}
${script(rng)}
</head><body>
<div class="navbar"><a class="brand" href="/">${escapeHtml(site.name)}</a><ul class="menu">${rng.sample(p.nav, 5).map((n) => `<li><a href="#">${escapeHtml(n)}</a></li>`).join('')}</ul><input type="search" placeholder="${p.search}"></div>
<div class="layout"><nav class="toc-left"><ul>
${links(rng, site.host, otherTitles, rng.int(6, 12))}
</ul></nav>
<div class="document"><div class="breadcrumbs"><a href="/">${p.home}</a> » ${escapeHtml(rng.pick(p.categories))} » ${escapeHtml(title)}</div>
<div class="body" role="main"><h1>${escapeHtml(title)}</h1>
${body}
</div></div>
<div class="toc-right"><b>${p.toc}</b></div></div>
<div class="footer">${p.cc} © ${rng.int(2015, 2025)} ${escapeHtml(site.name)}. <a href="/privacy">Privacy</a></div>
</body></html>`
}

const LAYOUTS: ReadonlyArray<[string, Layout]> = [
  ['portal', portal],
  ['blog', blog],
  ['table', tableLayout],
  ['docs-mirror', docsMirror],
]

/**
 * Publish `content` inside the chrome of a random site and layout.
 * @example wrapInChrome('第一段\n第二段', 'ls - 列出目录内容', ctx).html // '<!DOCTYPE html>…<p>第一段</p>…'
 */
export function wrapInChrome(content: string, title: string, ctx: ChromeContext): ChromePage {
  const site = ctx.rng.pick(SITES[ctx.lang])
  const [layoutName, layout] = ctx.rng.pick(LAYOUTS)
  const html = layout(ctx, site, title, paragraphs(content))
  const shownTitle = `${title} - ${site.name}`
  return {
    html,
    title: shownTitle,
    url: `https://${site.host}/${layoutName === 'blog' ? `${date(ctx.rng).replace(/-/g, '/')}/` : 'article/'}${digits(ctx.rng, 7)}.html`,
    note: `${layoutName}@${site.host}`,
  }
}
