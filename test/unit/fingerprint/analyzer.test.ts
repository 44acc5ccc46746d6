import { describe, expect, test } from 'vitest'
import {
  contentTokens, createAnalyzer, defaultIdf, defaultSegmenter, defaultStopWords, fingerprintToHex, isShortText,
  minhashSketch, normalizeContent, simhash, stripAttribution, termSetSketch, weightContentTokens, type Analysis,
} from '../../../src/index.js'
import { contentKey } from '../../../src/fingerprint/hash.js'
import { TermTable } from '../../../src/fingerprint/_term-table.js'
import { loadCorpus } from '../../../scripts/corpus/load.js'

const seg = defaultSegmenter()
const idf = defaultIdf()
const stop = defaultStopWords().words

/** The pipeline written stage by stage with the public per-stage functions: the oracle. */
function reference(content: string) {
  const normalized = stripAttribution(normalizeContent(content))
  const tokens = contentTokens(seg.cut(normalized), stop)
  const terms = weightContentTokens(tokens, idf)
  const short = isShortText(terms)
  const minhash = short ? null : minhashSketch(normalized)
  return {
    normalized,
    terms,
    simhash: fingerprintToHex(simhash(terms)),
    short,
    contentHash: contentKey(normalized),
    sketch: short ? termSetSketch(terms) : (minhash?.sketch ?? null),
    bands: minhash?.bands ?? [],
  }
}

function view(a: Analysis) {
  return { normalized: a.normalized, terms: a.terms, simhash: fingerprintToHex(a.fingerprint), short: a.short, contentHash: a.contentHash, sketch: a.sketch, bands: a.bands }
}

describe('analyzer (term-table fast path)', () => {
  test('equals the stage-by-stage pipeline on every corpus document', async () => {
    const corpus = await loadCorpus()
    expect(corpus.length).toBeGreaterThan(1000)
    const analyzer = createAnalyzer({ segmenter: seg })
    let mismatches = 0
    let first: string | null = null
    let shorts = 0
    for (const doc of corpus) {
      const got = view(analyzer.analyze(doc.content))
      const want = reference(doc.content)
      if (got.short) shorts++
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        mismatches++
        first ??= doc.id
      }
    }
    expect({ mismatches, first }).toEqual({ mismatches: 0, first: null })
    expect(shorts).toBeGreaterThan(0) // both rules were exercised
  }, 300_000)

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

describe('TermTable', () => {
  test('gives the same weights and hashes after being cleared for outgrowing its limit', async () => {
    const corpus = (await loadCorpus()).slice(0, 300)
    const small = new TermTable(idf, stop, 0.3, 0.3, 500) // clears every few documents
    let checked = 0
    for (const doc of corpus) {
      const tokens = seg.cut(normalizeContent(doc.content))
      small.load(tokens)
      const want = weightContentTokens(contentTokens(tokens, stop), idf)
      const got = Array.from({ length: small.distinctLength }, (_, k) => ({ term: small.term(small.distinct[k]!), weight: small.weights[k]! }))
      expect(got).toEqual(want)
      const sequence = Array.from(small.sequence.subarray(0, small.sequenceLength), (id) => small.term(id))
      expect(sequence).toEqual(contentTokens(tokens, stop))
      checked++
    }
    expect(checked).toBe(300)
  }, 120_000)
})
