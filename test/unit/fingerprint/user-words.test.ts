// Its own file: user words go into the thread's shared default segmenter.
import { describe, expect, test } from 'vitest'
import { createAnalyzer, createJiebaWasmSegmenter } from '../../../src/index.js'
import { tryCreateNodeRsSegmenter } from '../../../src/segment/node-rs.js'

const WORD = '云原生数据库' // "cloud-native database": not in jieba's dictionary
const TEXT = `我们发布了新的${WORD}，${WORD}支持分布式事务。`

describe('user words and the lazily loaded default segmenter', () => {
  test('the version is known before the default segmenter loads, and equals the explicit built-ins\' version', () => {
    const lazy = createAnalyzer()
    expect(lazy.version).toBe(createAnalyzer({ segmenter: tryCreateNodeRsSegmenter() ?? createJiebaWasmSegmenter() }).version)
    expect(lazy.version).toBe(createAnalyzer({ segmenter: createJiebaWasmSegmenter() }).version)
  })

  test('user words reach the default segmenter at its first use and change the version', () => {
    const plain = createAnalyzer({ segmenter: tryCreateNodeRsSegmenter() ?? createJiebaWasmSegmenter() })
    expect(plain.segment(TEXT)).not.toContain(WORD)
    const withWords = createAnalyzer({ userWords: [{ word: WORD }] })
    expect(withWords.version).not.toBe(plain.version)
    expect(withWords.version).toMatch(/;user=[0-9a-f]{8};/)
    expect(withWords.analyze(TEXT).terms.map((t) => t.term)).toContain(WORD)
    expect(withWords.segment(TEXT).filter((t) => t === WORD)).toHaveLength(2)
  })

  test('user words given with an explicit segmenter are added at once', () => {
    const seg = tryCreateNodeRsSegmenter() ?? createJiebaWasmSegmenter()
    createAnalyzer({ segmenter: seg, userWords: [{ word: WORD, freq: 200_000 }] })
    expect(seg.cut(TEXT)).toContain(WORD)
  })
})
