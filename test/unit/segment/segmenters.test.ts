/** Offline; the two segmenters on the whole Debian corpus: test/corpus/segmenters.test.ts. */
import { describe, expect, test } from 'vitest'
import { createJiebaWasmSegmenter } from '../../../src/index.js'
import { parseUserDict, parseStopWords } from '../../../src/internal.js'
import { tryCreateNodeRsSegmenter } from '../../../src/segment/node-rs.js'

describe('segmenters', () => {
  const wasm = createJiebaWasmSegmenter()
  const nodeRs = tryCreateNodeRsSegmenter()

  test('jieba-wasm cuts dictionary words, HMM off', () => {
    expect(wasm.cut('北京大学的学生')).toEqual(['北京大学', '的', '学生']) // "students of Peking University"
  })

  test('@node-rs/jieba is installed here (dev dependency) and named like jieba-wasm', () => {
    expect(nodeRs).toBeDefined()
    expect(nodeRs!.name).toBe(wasm.name)
  })

  test('user words are added to both, with the same effect', () => {
    const words = parseUserDict('# cloud-native, large model\n云原生 3000\n大模型\n')
    expect(words).toEqual([{ word: '云原生', freq: 3000 }, { word: '大模型' }])
    const text = '云原生大模型的推理服务' // "cloud-native large-model inference service"
    wasm.addWords(words)
    nodeRs!.addWords(words)
    expect(wasm.cut(text).slice(0, 2)).toEqual(['云原生', '大模型'])
    expect(nodeRs!.cut(text)).toEqual(wasm.cut(text))
  })

  test('stop-word lists parse with comments and case folding', () => {
    expect([...parseStopWords('# c\n的\nThe\n\n')]).toEqual(['的', 'the'])
  })
})
