/** Offline; memoised cuts on the Debian corpus: test/corpus/run-memo.test.ts. */
import { describe, expect, test } from 'vitest'
import { createJiebaWasmSegmenter, type Segmenter } from '../../../src/index.js'
import { tryCreateNodeRsSegmenter } from '../../../src/segment/node-rs.js'
import { RunMemo, separators } from '../../../src/fingerprint/_run-memo.js'
import { snapshot, tableOf } from '../../helpers/pipeline-oracle.js'
import { mulberry32 } from '../../helpers/random.js'

const segmenters: Segmenter[] = [createJiebaWasmSegmenter(), ...[tryCreateNodeRsSegmenter()].filter((s) => s !== undefined)]

// Pieces that meet every class the memo distinguishes: dictionary words, ASCII words with jieba's
// joiners (+#&._%-), separators (ASCII and CJK punctuation, \r\n, tabs, NBSP), letters jieba keeps
// out of its han class (kana, Hangul, Greek, accented Latin, combining marks), astral ideographs,
// unassigned units inside jieba's ranges, emoji and lone surrogates.
const PIECES = [
  '北京大学', '的', '学生', '中华人民共和国', '研究生命', '起源', '云原生', '大模型', '数据库', '索引',
  'C++', 'C#', 'node.js', 'v1.2.3', '50%', 'a&b', 'foo-bar', 'x_y', 'ABC', 'abc', '2024', '3.14',
  ' ', '  ', '\t', '\n', '\r\n', '\r', '\u00a0', '\u3000', ',', '。', '，', '、', '!', '?', '(', ')', '"', '“', '”', '…', '—', '/', ':', ';', '·',
  'ひらがな', 'カタカナ', '한국어', 'αβγ', 'café', 'e\u0301', '\u0301', 'Ⅻ', '①', '²',
  '𠮷野家', '𪚥', '\u9fff', '\ufa6e', '\u4dbf', '😀', '\ud800', '\udc00', '\ue000',
]

function randomText(rand: () => number, pieces: number): string {
  let s = ''
  for (let i = 0; i < pieces; i++) s += PIECES[Math.floor(rand() * PIECES.length)]
  return s
}

describe('RunMemo', () => {
  test('separators are never letters, digits, han or jieba joiners', () => {
    const sep = separators()
    let count = 0
    for (let c = 0; c < 65536; c++) {
      if (sep[c] === 0) continue
      count++
      const ch = String.fromCharCode(c)
      expect(/[\p{L}\p{N}a-zA-Z0-9+#&._%-]/u.test(ch)).toBe(false)
      expect(c >= 0x4e00 && c <= 0x9fff).toBe(false)
    }
    for (const ch of [' ', '\n', '\r', ',', '。', '，', '!', '“', '…']) expect(sep[ch.charCodeAt(0)]).toBe(1)
    expect(count).toBeGreaterThan(1000)
  })

  for (const seg of segmenters) {
    test(`${seg.name}${seg === segmenters[0] ? ' (wasm)' : ' (node-rs)'}: memoised cuts equal plain cuts on random mixed-script text`, () => {
      const rand = mulberry32(7)
      const plain = tableOf()
      const memoTable = tableOf()
      const memo = new RunMemo(memoTable, seg)
      for (let i = 0; i < 3000; i++) {
        const text = randomText(rand, 1 + Math.floor(rand() * 40))
        plain.load(seg.cut(text))
        memo.load(text)
        const want = snapshot(plain)
        const got = snapshot(memoTable)
        if (JSON.stringify(got) !== JSON.stringify(want)) expect({ text, got }).toEqual({ text, got: want })
      }
      expect(memo.hits).toBeGreaterThan(memo.lookups / 2) // the memo was used, not bypassed
    })
  }

  test('drops memoised cuts when the dictionary changes', () => {
    const seg = tryCreateNodeRsSegmenter() ?? createJiebaWasmSegmenter()
    const memoTable = tableOf()
    const memo = new RunMemo(memoTable, seg)
    const text = '这是一个超级无敌霹雳词语，这是一个超级无敌霹雳词语'
    memo.load(text)
    const before = snapshot(memoTable).seq
    expect(before).not.toContain('超级无敌霹雳词语')
    seg.addWords([{ word: '超级无敌霹雳词语', freq: 1_000_000 }])
    memo.load(text)
    expect(snapshot(memoTable).seq.filter((t) => t === '超级无敌霹雳词语')).toHaveLength(2)
  })

  test('falls back to plain cuts when a segmenter that claims runLocal is not', () => {
    // Treats the whole text as one token: runs joined by newlines come back as one token.
    const whole: Segmenter = { name: 'whole', runLocal: true, addWords: () => undefined, cut: (t) => (t === '' ? [] : [t]) }
    const plain = tableOf()
    const memoTable = tableOf()
    const memo = new RunMemo(memoTable, whole)
    for (const text of ['北京，大学', '北京，大学', '学生 的 书']) {
      plain.load(whole.cut(text))
      memo.load(text)
      expect(snapshot(memoTable)).toEqual(snapshot(plain))
    }
  })
})
