import { describe, expect, it } from 'vitest'
import { normalizeText } from '../../../src/normalize/index.js'
import { isAttributionLine, stripAttribution } from '../../../src/normalize/attribution.js'

const strip = (s: string) => stripAttribution(normalizeText(s))

describe('stripAttribution', () => {
  // Ways an attribution is written (fortunes-zh's own, and as quotes are reposted).
  const rows: [name: string, input: string, expected: string][] = [
    ['-- with book', '不读一家书，不识一家字。\n    --《谚语》', '不读一家书,不识一家字。'], // proverb
    ['-- author and book, ANSI', '世间行乐亦如此，古来万事东流水。\n\x1b[33m    -- 李白\x1b[32m《梦游天姥吟留别》\x1b[m', '世间行乐亦如此,古来万事东流水。'],
    ['—— em dash', '此情可待成追忆\n——李商隐《锦瑟》', '此情可待成追忆'],
    ['-- book, chapter 篇', '子曰:学而时习之\n-- 论语，为政篇', '子曰:学而时习之'],
    ['出自', '少年易老学难成\n出自朱熹《偶成》', '少年易老学难成'],
    ['author·《book》', '床前明月光\n李白·《静夜思》', '床前明月光'],
    ['《book·chapter》', '温故而知新\n《论语·为政》', '温故而知新'],
    ['bracketed', '国破山河在\n（杜甫《春望》）', '国破山河在'],
    ['inline dash after closing quote', '子曰：“温故而知新。” ——《论语》', '子曰:“温故而知新。”'],
    ['inline 出自', '学而不思则罔。 出自《论语》', '学而不思则罔。'],
    ['inline bracketed', '学而不思则罔。（《论语》）', '学而不思则罔。'],
    // Layouts of the eval's attributions stream (issue 15 item 4) that kept the same quote apart:
    ['poet·title without title marks', '今夜鄜州月，闺中只独看。\n杜甫·月夜', '今夜鄜州月,闺中只独看。'], // Du Fu, "Moonlit Night"
    ['《title》poet heading', '《石鼓歌》韩愈\n周纲陵迟四海沸，宣王愤起挥天戈。', '周纲陵迟四海沸,宣王愤起挥天戈。'], // Han Yu, "Stone Drums"
    ['English inline dash', 'The best way out is always through. — Robert Frost', 'the best way out is always through.'],
    ['English inline brackets', 'The mountains are calling and I must go. (John Muir)', 'the mountains are calling and i must go.'],
    // Not attributions: prose keeps its dash and its book titles.
    ['dash inside a sentence', '他说——我们走吧', '他说——我们走吧'],
    ['book title in a sentence', '第一章\n《红楼梦》是一部小说，写于清代。', '第一章\n《红楼梦》是一部小说,写于清代。'],
    ['a command-line option is not an attribution', '显示帮助\n--help 显示帮助并退出', '显示帮助\n--help 显示帮助并退出'], // show help / --help show help and exit
    ['a lone attribution stays', '--《谚语》', '--《谚语》'],
    ['a first line with a title in a sentence is content', '《红楼梦》是一部小说，写于清代。\n作者曹雪芹', '《红楼梦》是一部小说,写于清代。\n作者曹雪芹'], // "Dream of the Red Chamber is a novel…"
    ['a place with a middle dot inside a sentence is content', '我们去了中国·北京，玩得很开心。', '我们去了中国·北京,玩得很开心。'], // "we went to Beijing, China"
    ['a long last line is content', '正文\n-- 这一行很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长', '正文\n-- 这一行很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长'],
  ]
  it.each(rows)('%s', (_name, input, expected) => {
    expect(strip(input)).toBe(expected)
  })

  it('recognises attribution lines on their own', () => {
    expect(isAttributionLine('-- 钱钟书')).toBe(true)
    expect(isAttributionLine('这是一句普通的话。')).toBe(false) // an ordinary sentence
  })
})
