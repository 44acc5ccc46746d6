import { fc, test as fcTest } from '@fast-check/vitest'
import { describe, expect, test } from 'vitest'
import { wrapInChrome } from '../../../scripts/eval/chrome.js'
import {
  deleteSentences, hanTypos, insertAdLines, latinTypos, perturb, splitSentences, swapSentences, toFullwidth, toTraditional, truncateText,
} from '../../../scripts/eval/perturb.js'
import { Rng } from '../../../scripts/eval/prng.js'
import { nearMiss, punctuationVariant, shortKey } from '../../../scripts/eval/shorts.js'

// 打开文件。保存文件！关闭窗口？退出程序；重新开始。 = "Open the file. Save the file! Close the window? Quit; start again."
const FIVE = '打开文件。保存文件！关闭窗口？退出程序；重新开始。'

describe('perturbations', () => {
  test('splitSentences cuts after CJK terminators, newlines and ". "', () => {
    expect(splitSentences('一。二！」三\nfour. five')).toEqual(['一。', '二！」', '三\n', 'four. ', 'five'])
    expect(splitSentences('')).toEqual([])
  })

  fcTest.prop([fc.string({ unit: fc.constantFrom('字', '。', '\n', '.', ' ', 'a', '」') })])('splitSentences loses nothing', (s) => {
    expect(splitSentences(s).join('')).toBe(s)
  })

  test('fullwidth maps printable ASCII and spaces only', () => {
    expect(toFullwidth('ls -l 文件')).toBe('ｌｓ\u3000－ｌ\u3000文件') // "file"
  })

  test('traditional conversion: tw maps characters, twp also vocabulary', () => {
    expect(toTraditional('软件', 'tw')).toBe('軟件') // software
    expect(toTraditional('软件', 'twp')).toBe('軟體')
  })

  test('sentence deletion removes ~10% (at least one) and needs 3 sentences', () => {
    const r = deleteSentences(FIVE, new Rng(1), 0.1)
    expect(r?.note).toBe('1 of 5 sentences')
    expect(splitSentences(r?.text ?? '')).toHaveLength(4)
    expect(deleteSentences('一。二。', new Rng(1))).toBeNull() // "one. two."
  })

  test('sentence swap keeps the multiset of sentences and changes the order', () => {
    const r = swapSentences(FIVE, new Rng(3), 2)
    expect(r?.text).not.toBe(FIVE)
    expect(splitSentences(r?.text ?? '').sort()).toEqual(splitSentences(FIVE).sort())
    expect(swapSentences('一。二。三。', new Rng(1), 2)).toBeNull()
  })

  test('typos replace the requested share of Han characters (at least one) and nothing else', () => {
    const text = `${'中'.repeat(200)} abc` // "middle" ×200
    const r = hanTypos(text, new Rng(2), 0.02, ['文', '字'])
    expect(r?.note).toBe('4 of 200 Han chars')
    expect(Array.from(r?.text ?? '').filter((c) => c !== '中' && /\p{Script=Han}/u.test(c))).toHaveLength(4)
    expect(r?.text.endsWith(' abc')).toBe(true)
    expect(hanTypos('abc', new Rng(2), 0.02, ['文'])).toBeNull()
    const latin = latinTypos('alpha beta gamma delta', new Rng(2), 0.01)
    expect(latin?.note).toBe('1 of 4 words')
    expect(latin?.text).toHaveLength('alpha beta gamma delta'.length)
    expect(latin?.text).not.toBe('alpha beta gamma delta')
  })

  test('truncation keeps the head', () => {
    expect(truncateText('一二三四五六七八九十', 0.2)).toEqual({ text: '一二三四五六七八', note: 'kept 8 of 10 chars' }) // "one … ten"
  })

  test('ad lines are inserted as whole lines', () => {
    const r = insertAdLines('第一行\n第二行', new Rng(5), 2, 'zh') // "line one / line two"
    const lines = r.text.split('\n')
    expect(lines).toHaveLength(4)
    expect(lines.filter((l) => l === '第一行' || l === '第二行')).toHaveLength(2)
  })

  test('chrome wraps the body as paragraphs with escaped text, inside navigation and footer', () => {
    const page = wrapInChrome('a < b\n第二段', '标题', { rng: new Rng(1), lang: 'zh', otherTitles: ['相关一', '相关二', '相关三'] }) // "second paragraph", "title", "related one…"
    expect(page.html).toContain('<p>a &lt; b</p>')
    expect(page.html).toContain('<p>第二段</p>')
    expect(page.html).toMatch(/<script/)
    expect(page.title.startsWith('标题 - ')).toBe(true)
    expect(page.url).toMatch(/^https:\/\/[a-z.-]+\.example\.[a-z]+\//)
  })

  test('perturb is deterministic for a seed, and mixed names its steps', () => {
    const page = { content: FIVE.repeat(4), title: '文件操作' } // "file operations"
    const ctx = (seed: number) => ({ rng: new Rng(seed), lang: 'zh' as const, otherTitles: ['甲', '乙', '丙'], hanPool: ['文'] })
    expect(perturb(page, 'mixed', ctx(9))).toEqual(perturb(page, 'mixed', ctx(9)))
    const mixed = perturb(page, 'mixed', ctx(9))
    expect(mixed?.note.split(' + ').length).toBeGreaterThanOrEqual(2)
    expect(perturb({ content: 'abc', title: 't' }, 'traditional', ctx(1))).toBeNull() // nothing to convert
  })
})

describe('Rng', () => {
  test('same seed, same sequence; forks are independent of draws made before', () => {
    const a = new Rng(42)
    const b = new Rng(42)
    expect([a.next(), a.next(), a.int(1, 6)]).toEqual([b.next(), b.next(), b.int(1, 6)])
    const f1 = new Rng(7).fork('x').next()
    const r = new Rng(7)
    r.next()
    expect(r.fork('x').next()).toBe(f1)
    expect(new Rng(7).fork('y').next()).not.toBe(f1)
    expect(new Rng(1).shuffle([1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5])
    expect(() => new Rng(1).pick([])).toThrow(/empty/)
  })
})

describe('short texts', () => {
  const vocab = new Map([[2, ['文件', '窗口', '表格']]]) // file, window, table

  test('a near-miss changes one number, never a heading outline number', () => {
    for (let seed = 0; seed < 20; seed++) {
      const r = nearMiss('9.5.8. 设置 2 个窗口', new Rng(seed), vocab) // "9.5.8. set 2 windows"
      expect(r?.text).toMatch(/^9\.5\.8\. 设置 \d+ 个窗口$/)
      expect(r?.text).not.toBe('9.5.8. 设置 2 个窗口')
    }
  })

  test('without numbers a near-miss replaces one noun by another of the same length', () => {
    const r = nearMiss('打开文件对话框的设置', new Rng(1), vocab) // "settings of the open-file dialog"
    expect(r?.note).toMatch(/^noun /)
    expect(r?.text).toHaveLength('打开文件对话框的设置'.length)
    expect(r?.text).not.toBe('打开文件对话框的设置')
    expect(nearMiss('这是一段超过三十个字符的很长很长很长很长很长很长很长很长很长的句子。', new Rng(1), vocab)).toBeNull() // too long: "a very … long sentence"
  })

  test('punctuation variants always differ; keys ignore punctuation and width', () => {
    for (let seed = 0; seed < 20; seed++) {
      const s = '打开文件，然后保存。' // "open the file, then save."
      const r = punctuationVariant(s, new Rng(seed))
      expect(r?.text).not.toBe(s)
      expect(shortKey(r?.text ?? '')).toBe(shortKey(s))
    }
    expect(shortKey('ＬＳ 命令！')).toBe('ls命令') // "ls command!"
  })
})
