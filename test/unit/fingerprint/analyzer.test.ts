/** Offline; the same checks on every Debian corpus document: test/corpus/analyzer.test.ts. */
import { describe, expect, test } from 'vitest'
import { createAnalyzer } from '../../../src/index.js'
import { reference, seg, view } from '../../helpers/pipeline-oracle.js'

describe('analyzer (term-table fast path)', () => {
  test('mixed scripts, numbers, single characters, stop words and astral characters', () => {
    const analyzer = createAnalyzer({ segmenter: seg })
    // "Version 2.0 of the API was released in 2024; 𠮷野家 opens 3 new shops, the the the …"
    const text = 'API 2.0 版本于 2024 年发布，𠮷野家 新开 3 家店。the the the Elasticsearch 集群 的 的 分片 副本 索引 映射 节点 查询 聚合 排序'
    expect(view(analyzer.analyze(text))).toEqual(reference(text))
  })
})

describe('analyzer cache of exact repeats', () => {
  test('a text that normalises to one seen before gets that analysis; others are analysed afresh', () => {
    const analyzer = createAnalyzer({ segmenter: seg })
    // "Peking University students study the basics of AI and machine learning in the library, three times a week."
    const a = analyzer.analyze('北京大学的学生在图书馆学习ai和机器学习的基础知识，每周三次。')
    // Traditional characters and full-width capitals normalise to the same text.
    const b = analyzer.analyze('北京大學的學生在圖書館學習ＡＩ和機器學習的基礎知識，每周三次。')
    expect(b.normalized).toBe(a.normalized)
    expect(b).toBe(a)
    const c = analyzer.analyze('北京大学的学生在图书馆学习人工智能和机器学习的基础知识，每周四次。')
    expect(c).not.toBe(a)
    expect(view(c)).toEqual(reference('北京大学的学生在图书馆学习人工智能和机器学习的基础知识，每周四次。'))
  })
})
