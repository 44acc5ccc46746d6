import { describe, expect, test } from 'vitest'
import { htmlToText } from '../../../scripts/corpus/html.js'
import { roffToText, splitRoffArgs, unescapeRoff } from '../../../scripts/corpus/roff.js'

describe('roff → text', () => {
  test.each([
    ['\\fBls\\fR \\- list', 'ls - list', 'font escapes and \\-'],
    ['a\\(em b \\[u4E2D]', 'a— b 中', 'special characters by name and code point ("middle")'],
    ['\\*(lqquoted\\*(rq', '“quoted”', 'string escapes'],
    ['x\\s-1small\\s0 y', 'xsmall y', 'size changes print nothing'],
    ['text \\" a comment', 'text ', 'comments end the line'],
    ['\\h\'2n\'gap', 'gap', 'delimited escapes are skipped whole'],
  ])('unescape %j → %j (%s)', (input, expected) => {
    expect(unescapeRoff(input)).toBe(expected)
  })

  test('macro arguments honour quotes', () => {
    expect(splitRoffArgs('"a b" c "" "e""f" \\fBx\\ y\\fR')).toEqual(['a b', 'c', '', 'e"f', '\\fBx\\ y\\fR'])
  })

  test('a man page: title from NAME, headings, tagged paragraphs, Han lines joined without spaces', () => {
    const page = roffToText([
      '.\\" comment',
      '.TH LS 1 "2022年9月"',
      '.SH 名称', // name
      'ls \\- 列出目录内容', // list directory contents
      '.SH 描述', // description
      '列出指定文件', // list the given files
      '的信息。', // information.
      '.TP',
      '\\fB\\-a\\fP, \\fB\\-\\-all\\fP',
      '不要忽略以点号起始的条目', // do not ignore entries starting with a dot
      '.BR ls (1)',
    ].join('\n'))
    expect(page).toEqual({
      name: 'LS',
      section: '1',
      nameLine: 'ls - 列出目录内容',
      text: '名称\n\nls - 列出目录内容\n\n描述\n\n列出指定文件的信息。\n\n-a, --all\n不要忽略以点号起始的条目 ls(1)',
    })
  })

  test('.so pages are links and yield nothing; tables keep their cells', () => {
    expect(roffToText('.so man1/other.1\n')).toBeNull()
    const table = roffToText('.TS\ntab(;);\nl l.\n名称;说明\n_\nls;列出\n.TE\n') // name;description / ls;list
    expect(table?.text).toBe('名称;说明\nls;列出')
  })
})

describe('HTML → text', () => {
  test('drops script, style and hidden parts; blocks become lines; title from <title>', () => {
    const r = htmlToText('<html><head><title> 标题 </title><script>var x</script><style>p{}</style></head><body><p>第一段<b>加粗</b></p><div hidden>隐藏</div><ul><li>甲</li><li>乙</li></ul><table><tr><td>a</td><td>b</td></tr></table></body></html>')
    // title / first paragraph / bold / hidden / list items jia, yi
    expect(r).toEqual({ title: '标题', sections: [{ heading: '', anchor: null, text: '第一段加粗\n甲\n乙\na b' }] })
  })

  test('a root element limits the text; hidden text can be kept while one variant is skipped', () => {
    const html = '<div id="nav">菜单</div><div id="main"><p>选择<span hidden class="MAC">偏好设置</span><span hidden class="x">工具 - 选项</span></p></div><footer>页脚</footer>'
    // menu / choose / Preferences (macOS) / Tools - Options / footer
    const r = htmlToText(html, { root: (n, a) => n === 'div' && a.id === 'main', keepHidden: true, skip: (_n, a) => a.class === 'MAC' })
    expect(r.sections).toEqual([{ heading: '', anchor: null, text: '选择工具 - 选项' }])
  })

  test('splitting at headings gives one section per heading with its anchor', () => {
    const r = htmlToText('<p>序</p><h2><a id="s1"></a>1. 第一节</h2><p>甲</p><h3 id="s2">1.1 小节</h3><p>乙</p>', { splitAt: ['h2', 'h3'] })
    // preface / section one / subsection
    expect(r.sections).toEqual([
      { heading: '', anchor: null, text: '序' },
      { heading: '1. 第一节', anchor: 's1', text: '甲' },
      { heading: '1.1 小节', anchor: 's2', text: '乙' },
    ])
  })
})
