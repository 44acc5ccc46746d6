import { describe, expect, it } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import * as OpenCC from 'opencc-js/t2cn'
import { hasTraditional, normalizeText, toSimplified } from '../../../src/normalize/index.js'

// opencc-js's full.d.ts imports './core' without an extension, which NodeNext cannot resolve,
// so its converters come out as `any`: name their type here.
type Convert = (text: string) => string

// OpenCC's own converters are the oracle: ours merges Taiwan and Hong Kong tables into one pass.
const twp: Convert = OpenCC.Converter({ from: 'twp', to: 'cn' })
const tw: Convert = OpenCC.Converter({ from: 'tw', to: 'cn' })
const hkp: Convert = OpenCC.Converter({ from: 'hkp', to: 'cn' })

describe('Traditional → Simplified twins', () => {
  const rows: [traditional: string, simplified: string, gloss: string][] = [
    ['這個軟體很好用', '这个软件很好用', 'this software is easy to use (軟體 → 软件: twp vocabulary)'],
    ['請輸入您的資訊', '请输入您的信息', 'please enter your information (資訊 → 信息)'],
    ['請按滑鼠右鍵', '请按鼠标右键', 'please right-click the mouse (滑鼠 → 鼠标)'],
    ['他穿著藍色外套', '他穿着蓝色外套', 'he wears a blue coat (著 → 着, a Taiwan variant)'],
    ['裡面的記憶體不夠', '里面的内存不够', 'not enough memory inside (裡 → 里, 記憶體 → 内存)'],
    ['開啟檔案總管', '打开文件总管', 'open the file manager (開啟 → 打开, 檔案 → 文件)'],
    ['網路印表機的驅動程式', '网络打印机的驱动程序', 'network printer driver'],
    ['乾隆皇帝的著作', '乾隆皇帝的著作', 'the Qianlong emperor\'s works: 乾 and 著 stay in these phrases'],
    // Hong Kong
    ['香港的寬頻綫路', '香港的宽带线路', 'Hong Kong broadband lines (寬頻 → 宽带, 綫 → 线)'],
    ['衞生署説明', '卫生署说明', 'Department of Health statement (衞, 説: HK variants)'],
    ['請在伺服器上搜尋資料夾', '请在服务器上搜索文件夹', 'search the folder on the server'],
    ['裏面有隻貓', '里面有只猫', 'there is a cat inside (裏: OpenCC standard form)'],
  ]
  it.each(rows)('%s → %s (%s)', (traditional, simplified) => {
    expect(normalizeText(traditional)).toBe(simplified)
    expect(toSimplified(traditional)).toBe(simplified)
    expect(normalizeText(simplified)).toBe(simplified) // the twin is already normal
  })

  it('regionalPhrases: false maps characters and variants only', () => {
    expect(toSimplified('這個軟體的資訊', { regionalPhrases: false })).toBe('这个软体的资讯') // this software's information
    expect(toSimplified('他穿著外套們', { regionalPhrases: false })).toBe('他穿着外套们') // they wear coats: variants still apply
  })

  it('leaves a text without Traditional-only characters alone, even with Taiwan words in it', () => {
    // 滑鼠 (mouse) and 著 are written the same in Simplified text; with no Traditional-only
    // character around them there is nothing to say the text is Taiwanese.
    expect(toSimplified('滑鼠')).toBe('滑鼠')
    expect(toSimplified('显著的著作')).toBe('显著的著作') // a notable work
    expect(toSimplified('向量和程式')).toBe('向量和程式') // vectors and formulas (Simplified usage)
  })

  it('Simplified text with a few Traditional characters gets its characters converted, not Taiwan vocabulary', () => {
    // A partly converted copy or variant characters: 程序 (program) is not Taiwan's 程序 (process),
    // 文件 (file) not Taiwan's 文件 (document). As many Simplified-only characters as Traditional-only ones.
    expect(toSimplified('简單易用的画圖程序')).toBe('简单易用的画图程序')
    expect(normalizeText('ext4 文件係统工具')).toBe('ext4 文件系统工具')
    // One variant character whose Simplified form Traditional text writes too (麵 → 面) is no sign of
    // Traditional text: 文件 stays 文件, not Taiwan's 文档.
    expect(toSimplified('桌麵的文件管理器')).toBe('桌面的文件管理器')
    expect(normalizeText('一個桌麵的文件管理器')).toBe('一个桌面的文档管理器') // 個: Traditional text
    // Traditional text keeps the vocabulary conversion, also with 台 (which both scripts write).
    expect(toSimplified('台灣的軟體與檔案')).toBe('台湾的软件与文件')
  })

  it('agrees with OpenCC twp on Taiwan text', () => {
    const texts = [
      '這個軟體的資訊安全做得很好', '他穿著藍色外套走進記憶體工廠', '網路印表機的驅動程式', '臺灣的計程車司機', '請按滑鼠右鍵以開啟檔案總管',
      '我們在螢幕上看到了視窗與游標', '數位相機的解析度', '這部電腦的硬碟與主機板', '早安，今天天氣如何？',
    ]
    for (const t of texts) expect(toSimplified(t)).toBe(twp(t))
    for (const t of texts) expect(toSimplified(t, { regionalPhrases: false })).toBe(tw(t))
  })

  it('agrees with OpenCC hkp on Hong Kong text', () => {
    const texts = ['香港的寬頻綫路', '衞生署説明', '請在伺服器上搜尋資料夾', '他的作業系統', '裏面有隻貓', '為甚麼']
    for (const t of texts) expect(toSimplified(t)).toBe(hkp(t))
  })
})

describe('hasTraditional', () => {
  const rows: [text: string, expected: boolean, gloss: string][] = [
    ['', false, 'empty'],
    ['这是简体中文', false, 'this is Simplified Chinese'],
    ['這是繁體中文', true, 'this is Traditional Chinese'],
    ['著名的乾隆', false, 'famous Qianlong: both characters are shared'],
    ['温度', false, 'temperature: 温 is a Hong Kong table key but Simplified too'],
    ['Linux 🎉', false, 'no Chinese'],
    ['\u{2a6d6}', false, 'an Extension B ideograph with no Traditional mapping'],
    ['\u{2005e}', true, 'an Extension B Traditional-only character (𠁞 → 𠀾)'],
  ]
  it.each(rows)('%j → %s (%s)', (text, expected) => {
    expect(hasTraditional(text)).toBe(expected)
  })
})

describe('toSimplified laws', () => {
  // Characters and phrases from both scripts, glued at random: phrase boundaries are where a
  // second conversion could find something new.
  const chinese = fc.array(fc.constantFrom('這', '個', '軟體', '資訊', '滑鼠', '著', '着', '乾', '隆', '裡', '記憶', '體', '程式', '向量', '台', '臺', '温', '溫', '一', '的', '機率', '⿰', '車'), { maxLength: 30 }).map((a) => a.join(''))
  test.prop([chinese])('is a fixed point: converting the result again changes nothing', (s) => {
    const once = toSimplified(s)
    expect(toSimplified(once)).toBe(once)
  })
  test.prop([chinese])('normalizeText output has no Traditional-only character outside description sequences', (s) => {
    const out = normalizeText(s)
    if (!out.includes('⿰')) expect(hasTraditional(out)).toBe(false)
  })
})
