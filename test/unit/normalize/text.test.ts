import { describe, expect, it } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { DEFAULT_NORMALIZE_OPTIONS, hasTraditional, normalizeText, resolveNormalizeOptions } from '../../../src/normalize/index.js'
import { anyCodePoints, anyUnits, messyText } from './arbitraries.js'

describe('normalizeText: table', () => {
  const rows: [name: string, input: string, expected: string][] = [
    ['empty', '', ''],
    ['only whitespace', ' \t\r\n\u3000 ', ''],
    // 中文 = Chinese; Latin words and numbers are content and stay.
    ['keeps Latin and numbers', '中文 Linux 2.6.32 内核', '中文 linux 2.6.32 内核'],
    ['lower-cases ASCII', 'HELLO World', 'hello world'],
    ['lower-cases non-ASCII', 'ÀÉÎ ΑΒΓ', 'àéî αβγ'],
    // Full-width letters, digits and punctuation fold to ASCII; 。 and 、 have no ASCII twin.
    ['full-width to ASCII', 'ＡＢＣ１２３，（注）：', 'abc123,(注):'],
    ['ideographic space is a space', '你好\u3000世界', '你好 世界'], // hello world
    ['CJK punctuation without ASCII twin stays', '你好。再见、谢谢', '你好。再见、谢谢'], // hello. bye, thanks
    ['collapses horizontal whitespace', 'a \t\u00a0\u2003 b', 'a b'],
    ['trims lines and drops blank ones', '  第一行  \r\n\r\n \n\t第二行\t', '第一行\n第二行'], // line one / line two
    ['CR, VT, FF, NEL, LS, PS are line breaks', 'a\rb\vc\fd\u0085e\u2028f\u2029g', 'a\nb\nc\nd\ne\nf\ng'],
    // Regression: CR LF counted as two breaks once, leaving a blank line in Windows text.
    ['CR LF is one break', 'a\r\nb', 'a\nb'],
    ['removes C0/C1 controls', 'a\x00b\x07c\x7fd\x80e\x9ff', 'abcdef'],
    ['removes zero-width and BOM', '\ufeff零\u200b宽\u200c字\u200d符\u2060', '零宽字符'], // zero-width characters
    ['removes soft hyphen', 'hy\u00adphen', 'hyphen'],
    ['removes bidi controls', '\u202eabc\u202c\u2066d\u2069\u200e\u200f', 'abcd'],
    ['removes private use', 'a\ue000b\uf8ffc\u{f0000}d\u{10fffd}', 'abcd'],
    ['removes U+FFFD and noncharacters', 'a\ufffdb\ufffec\ufdd0d', 'abcd'],
    ['removes lone surrogates, keeps pairs', 'a\ud800b\udc00c𠀀', 'abc𠀀'],
    ['removes emoji', '好🎉的😀', '好的'], // good
    ['removes ZWJ sequences', '家👨\u200d👩\u200d👧庭', '家庭'], // family
    ['removes skin tones', '赞👍🏽', '赞'], // like
    ['removes flags', '中国🇨🇳', '中国'], // China
    ['removes tag-sequence flags', '英格兰🏴\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}', '英格兰'], // England
    ['removes variation selectors', '心❤\ufe0f跳\u2764\ufe0e', '心跳'], // heartbeat
    // Keycap 1️⃣ is "1" + VS16 + U+20E3: the frame goes, the digit is content.
    ['keycap keeps its digit', '第1\ufe0f\u20e3步', '第1步'], // step 1
    ['removes ©, ®, ™', '版权©所有®商标™', '版权所有商标'], // copyright, registered, trademark
    ['removes ANSI CSI', '\x1b[1;31m红色\x1b[0m文本', '红色文本'], // red text
    ['removes ANSI OSC hyperlink', '\x1b]8;;https://x.cn\x1b\\链接\x1b]8;;\x1b\\', '链接'], // link
    ['removes OSC ended by BEL', '\x1b]0;title\x07正文', '正文'], // body
    // Regression: C1 bytes in text are mis-decoded junk, not control-sequence introducers;
    // parsing U+009B/U+009F as CSI/APC ate the digits and words after them.
    ['C1 controls are dropped alone', '\x9b1m粗体\x9f2', '1m粗体2'], // bold
    ['removes two-character escapes', 'a\x1b7b\x1b(Bc', 'abc'],
    // Regression: an unterminated OSC must not swallow the rest of the document.
    ['unterminated OSC stops at line end', '\x1b]0;title\n正文', '正文'],
    ['lone ESC at end', 'abc\x1b', 'abc'],
    // Regression: ESC SP was read as the start of an nF sequence and ate the next word.
    ['ESC then space keeps the next word', '\x1b Word', 'word'],
    // Rendered man pages: "X\bX" is bold, "_\bX" underline.
    ['overstrike bold and underline', 'N\bNA\bAM\bME\bE _\bf_\bi_\bl_\be', 'name file'],
    ['overstrike of a CJK character', '名\b名称\b称', '名称'], // name
    ['backspace at start', '\bab', 'ab'],
    // A progress bar as a terminal shows it: each \r goes back to the line start (eval breadth:
    // every frame of a captured curl -# bar stayed, and bars of different downloads looked alike).
    ['a carriage return overwrites the line', '下载中\r下载完毕\n完成', '下载完毕\n完成'], // downloading / downloaded / done
    // A line drawn three times or more is a status display, whatever its last frame says: a real
    // `git clone --progress` in a pseudo-terminal (held-out eval: its "done." lines made clones of
    // different texts look alike). Written text is never drawn over twice.
    ['a line redrawn twice or more goes', '下载 10%\r下载 55%\r下载 100%\n完成', '完成'], // download / done
    ["git clone's progress lines go", "Cloning into 'dst'...\r\nremote: Enumerating objects: 402, done.\x1b[K\r\nremote: Counting objects:   0% (1/402)\x1b[K\rremote: Counting objects:   1% (5/402)\x1b[K\rremote: Counting objects: 100% (402/402), done.\x1b[K\r\nReceiving objects:   0% (1/402)\rReceiving objects:  50% (201/402)\rremote: Total 402 (delta 397), reused 0 (delta 0), pack-reused 0\x1b[K\r\n海内存知己，天涯若比邻。\r\n", "cloning into 'dst'...\nremote: enumerating objects: 402, done.\n海内存知己,天涯若比邻。"], // a quote after the clone
    ['CRLF line ends are line ends', '第一行\r\n第二行\r\n', '第一行\n第二行'], // first line / second line
    // A redrawn line whose last frame has no word (curl -#: a bar and a percentage) is a progress
    // display, not text; a bar that was never redrawn is text like any other line.
    ['a redrawn line of bars and numbers goes', '\r####   6.2%\r############  30.7%\r\x1b[32m################ 100.0%\x1b[m\r\n酒入愁肠，化作相思泪。\r\n', '酒入愁肠,化作相思泪。'], // a quote after the bar
    ['a line never redrawn stays', '################ 100.0%\n完成', '################ 100.0%\n完成'], // done
    // Regression (a property seed): a backspace after a line break erased the break, and a
    // combining mark on the next line then fused onto the word before it.
    ['backspace at a line start keeps the line break', 'a\n\bb', 'a\nb'],
    ['NFKC: ligature, circled digit, black-letter capital', 'ﬁle ① ℌ', 'file 1 h'],
    ['NFKC: half-width katakana', 'ｶﾀｶﾅ', 'カタカナ'],
    // U+F900 folds to 豈, which is Traditional-only and so then simplifies to 岂.
    ['NFKC: Kangxi radical and compatibility ideograph', '\u2f08\uf900', '人岂'],
    ['NFKC: composes decomposed Latin', 'cafe\u0301', 'café'],
    // Traditional → Simplified, Taiwan phrases (twp): software, information, mouse.
    ['Traditional Taiwan vocabulary', '這個軟體的資訊', '这个软件的信息'], // this software's information
    ['Traditional with full-width punctuation', '請按滑鼠右鍵，開啟檔案。', '请按鼠标右键,打开文件。'], // right-click the mouse, open the file
    ['著 as a Taiwan variant of 着', '他穿著藍色外套', '他穿着蓝色外套'], // he is wearing a blue coat
    // Regression: capitals in a dictionary value (隨身碟 → U盘, USB drive) survived lower-casing,
    // and capitals in a key (SQL隱碼攻擊, SQL injection) never matched lower-cased text.
    ['dictionary capitals are lower-cased', '請插入隨身碟', '请插入u盘'], // please insert the USB drive
    ['keys with capitals match lower-cased text', '防範SQL隱碼攻擊', '防范sql注入'], // guard against SQL injection
    ['Simplified text is left alone', '显著的著作', '显著的著作'], // notable work (著 is Simplified here)
  ]
  it.each(rows)('%s', (_name, input, expected) => {
    expect(normalizeText(input)).toBe(expected)
    expect(normalizeText(expected)).toBe(expected)
  })
})

describe('normalizeText: options', () => {
  it('keepLineBreaks: false gives one line', () => {
    expect(normalizeText('第一行\n\n第二行\r\n第三行', { keepLineBreaks: false })).toBe('第一行 第二行 第三行') // lines one, two, three
  })
  it('lowercase: false keeps case, full-width letters included', () => {
    expect(normalizeText('Linux ＡＢ', { lowercase: false })).toBe('Linux AB')
  })
  it('simplify: false keeps Traditional', () => {
    expect(normalizeText('軟體', { simplify: false })).toBe('軟體') // software
  })
  it('regionalPhrases: false converts characters only', () => {
    expect(normalizeText('這個軟體', { regionalPhrases: false })).toBe('这个软体') // this software, character by character
  })
  it('removeEmoji: false keeps pictographs but still drops joiners and selectors', () => {
    expect(normalizeText('好😀\u200d❤\ufe0f', { removeEmoji: false })).toBe('好😀❤')
  })
  it('foldCompatibility: false keeps ligatures, still folds full width', () => {
    expect(normalizeText('ﬁ ＡＢ\u3000①', { foldCompatibility: false })).toBe('ﬁ ab ①')
  })
  it('resolves defaults on a copy and leaves the caller\'s object alone', () => {
    const mine = { lowercase: false }
    const resolved = resolveNormalizeOptions(mine)
    expect(resolved).toEqual({ ...DEFAULT_NORMALIZE_OPTIONS, lowercase: false })
    expect(mine).toEqual({ lowercase: false })
    expect(Object.isFrozen(resolved)).toBe(true)
  })
  it('rejects a non-boolean option, naming it and the value', () => {
    expect(() => normalizeText('x', { lowercase: 'yes' as unknown as boolean })).toThrow(/`lowercase`.*boolean.*"yes"/)
    expect(() => resolveNormalizeOptions({ simplify: 1 as unknown as boolean })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }))
  })
})

// What any output must look like, whatever went in: no controls but \n, no format, private-use,
// surrogate or emoji characters, no variation selectors, tidy whitespace, no capitals, no
// full-width ASCII, no Traditional-only characters (except inside an ideographic description
// sequence such as ⿰車巠, which describes a glyph's parts and which OpenCC rightly leaves whole).
const FORBIDDEN = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}\ufffd]/u
function expectCanonical(out: string): void {
  expect(out.replaceAll('\n', '')).not.toMatch(FORBIDDEN)
  expect(out.includes('\ufe0f')).toBe(false)
  expect(out).not.toMatch(/^[ \n]|[ \n]$| {2}|\n\n| \n|\n /)
  expect(out).not.toMatch(/[A-Z\uff01-\uff5e\u3000]/)
  if (!/[\u2ff0-\u2fff]/.test(out)) expect(hasTraditional(out)).toBe(false)
}

describe('normalizeText: laws', () => {
  test.prop([messyText])('is idempotent on edge-case-dense text', (s) => {
    const once = normalizeText(s)
    expect(normalizeText(once)).toBe(once)
    expectCanonical(once)
  })
  test.prop([anyUnits])('is idempotent and total on any code units (lone surrogates too)', (s) => {
    const once = normalizeText(s)
    expect(normalizeText(once)).toBe(once)
    expectCanonical(once)
  })
  test.prop([anyCodePoints])('is idempotent on any code points', (s) => {
    const once = normalizeText(s)
    expect(normalizeText(once)).toBe(once)
  })
  test.prop([messyText, fc.record({ simplify: fc.boolean(), regionalPhrases: fc.boolean(), lowercase: fc.boolean(), foldCompatibility: fc.boolean(), removeEmoji: fc.boolean(), keepLineBreaks: fc.boolean() })])(
    'is idempotent under every option combination', (s, options) => {
      const once = normalizeText(s, options)
      expect(normalizeText(once, options)).toBe(once)
    })
  test.prop([fc.array(fc.stringMatching(/^[A-Za-z0-9]{1,8}$/), { minLength: 1, maxLength: 8 }), messyText])(
    'never drops Latin words or numbers outside escape sequences', (words, noise) => {
      // A line break ends any escape sequence the noise may open (CSI takes ESC [ SP A whole).
      const out = normalizeText(`${noise}\n${words.join(' ')}\n${noise}`)
      for (const w of words) expect(out).toContain(w.toLowerCase())
    })
  test.prop([fc.uint8Array({ maxLength: 300 })])('survives binary junk decoded as latin1 and utf-8', (bytes) => {
    const latin1 = Buffer.from(bytes).toString('latin1')
    const utf8 = Buffer.from(bytes).toString('utf8')
    expect(normalizeText(normalizeText(latin1))).toBe(normalizeText(latin1))
    expect(normalizeText(normalizeText(utf8))).toBe(normalizeText(utf8))
  })

  it('is idempotent on every code point, alone and among neighbours it may combine with', () => {
    // Batches of 32 code points per call keep this to a couple of seconds; a failing batch names
    // its first code point.
    const failures: string[] = []
    const check = (s: string, cp: number) => {
      const once = normalizeText(s)
      if (normalizeText(once) !== once) failures.push(cp.toString(16))
    }
    for (let start = 0; start <= 0x10ffff; start += 32) {
      if (start >= 0x30000 && start < 0xe0000 && start % 0x1000 !== 0) continue // unassigned planes: sample
      let alone = ''
      let mixed = ''
      for (let cp = start; cp < start + 32; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue // lone surrogates have their own property test
        const ch = String.fromCodePoint(cp)
        check(ch, cp)
        alone += `${ch}\n`
        mixed += `A${ch}Σ${ch}\u0301 ${ch}\u3099|`
      }
      check(alone, start)
      check(mixed, start)
    }
    expect(failures).toEqual([])
  })

  // Regression: opencc-js's Trie parses description sequences recursively and overflows the
  // stack on a long run of ⿰; in a Traditional text that made normalizeText throw.
  it('survives a long run of ideographic description characters in Traditional text', () => {
    const out = normalizeText(`這${'⿰'.repeat(100_000)}車`)
    expect(out.startsWith('这⿰⿰')).toBe(true)
    expect(out.length).toBe(100_002)
  })

  it('handles a large input', () => {
    const big = '這個軟體 Linux 🎉\r\n'.repeat(200_000) // 3.4 M units
    const out = normalizeText(big)
    expect(out.startsWith('这个软件 linux\n这个软件 linux\n')).toBe(true)
    expect(out.length).toBe('这个软件 linux\n'.length * 200_000 - 1)
  })
})
