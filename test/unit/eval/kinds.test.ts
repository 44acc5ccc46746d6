import { describe, expect, it } from 'vitest'
import { fortuneEntries, quoteBody, stripAnsi } from '../../../scripts/eval/kinds.js'
import { cutElements, elementSpans, fragmentText } from '../../../scripts/eval/real-html-sites.js'
import { renderTerminal } from '../../../scripts/eval/terminal.js'
import { copyGroups } from '../../../scripts/eval/terminal-more.js'

describe('eval kinds: the oracle side', () => {
  it('splits a fortune file on % lines', () => {
    expect(fortuneEntries('甲\n%\n乙\n丙\n%\n')).toEqual(['甲', '乙\n丙'])
  })
  it('strips ANSI CSI sequences with its own parser', () => {
    expect(stripAnsi('\x1b[33m    --\x1b[32m《谚语》\x1b[m\x1b[m')).toBe('    --《谚语》')
  })
  it('takes the quote without its attribution and header lines', () => {
    // A saying "-- Proverbs"; a poem with its title and author lines (tang300 layout).
    expect(quoteBody('不读一家书，不识一家字。\n\x1b[33m    --\x1b[32m《谚语》\x1b[m\x1b[m')).toBe('不读一家书，不识一家字。')
    expect(quoteBody('\x1b[32m《感遇‧其一》\x1b[m\n\x1b[33m作者：张九龄\x1b[m\n兰叶春葳蕤，桂华秋皎洁。')).toBe('兰叶春葳蕤，桂华秋皎洁。')
  })
})

describe('eval terminal stream: the oracle stripper', () => {
  it('removes CSI (SGR, erase), OSC (title, hyperlink) and two-character escapes', () => {
    // grep --color=always; an OSC 8 link as `ls --hyperlink` writes it; tput clear + OSC 0 title.
    expect(renderTerminal('\x1b[01;31m\x1b[K尝试\x1b[m\x1b[K下列\x1b[38;5;208m例子\x1b[0m')).toBe('尝试下列例子')
    expect(renderTerminal('\x1b]8;;file://host/a.txt\x1b\\a.txt\x1b]8;;\x1b\\')).toBe('a.txt')
    expect(renderTerminal('\x1b[H\x1b[2J\x1b[3J\x1b]0;user@debian: ~\x07兰叶春葳蕤\r\n桂华秋皎洁\r\n')).toBe('兰叶春葳蕤\n桂华秋皎洁\n')
  })
  it('resolves overstrike, wide characters included', () => {
    expect(renderTerminal('N\bNA\bAM\bME\bE 名\b名称\b称 _\b选_\b项')).toBe('NAME 名称 选项')
  })
  it('keeps what follows the last carriage return of a line', () => {
    expect(renderTerminal('\r##   26.6%\r#### 62.3%\r\n一分价钱一分货。')).toBe('#### 62.3%\n一分价钱一分货。')
  })
})

describe('eval terminal-more stream: copies are grouped with their source only', () => {
  // Two different short quotes, each captured after the same real `git clone` messages: the
  // copies are alike each other through git's lines, not through a text.
  const clone = "Cloning into 'dst'...\r\nremote: Enumerating objects: 402, done.\x1b[K\r\nremote: Total 402 (delta 397), reused 0 (delta 0), pack-reused 0\x1b[K\r\n"
  const family = [
    { content: '海内存知己，天涯若比邻。' },
    { content: '一分价钱一分货。' },
    { content: `${clone}海内存知己，天涯若比邻。\r\n`, source: 0 },
    { content: `${clone}一分价钱一分货。\r\n`, source: 1 },
    { content: '\x1b[?1h\x1b=\r海内存知己，天涯若比邻。\x1b[m\r\n\r\x1b[K\x1b[?1l\x1b>', source: 0 },
  ]
  it('never joins copies of different texts, and keeps a copy alike its source in its group', () => {
    expect(copyGroups(family, 2)).toEqual([0, 1, 2, 3, 0])
  })
})

describe('eval real-html sites: cutting HTML by structure', () => {
  it('finds outermost elements with their depth and cuts them out', () => {
    const html = '<html><body><div class="navheader"><a href="x">上一页</a></div><div class="chapter"><div class="toc">目录</div><p>正文</p></div></body></html>'
    const main = elementSpans(html, (n, a, depth) => n === 'div' && depth === 2 && a.class !== 'navheader')
    expect(main).toHaveLength(1)
    const inner = html.slice(main[0]!.inner.start, main[0]!.inner.end)
    expect(inner).toBe('<div class="toc">目录</div><p>正文</p>')
    expect(fragmentText(cutElements(inner, (n, a) => n === 'div' && a.class === 'toc'))).toBe('正文')
  })
})
