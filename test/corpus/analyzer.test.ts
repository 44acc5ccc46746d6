/** Needs the Debian corpus (built on first use: apt-get, network); see test/corpus/README.md. */
import { describe, expect, test } from 'vitest'
import { createAnalyzer } from '../../src/index.js'
import { contentTokens, weightContentTokens } from '../../src/fingerprint/index.js'
import { normalizeContent } from '../../src/normalize/index.js'
import { loadCorpus } from '../../scripts/corpus/load.js'
import { idf, reference, seg, stop, tableOf, view } from '../helpers/pipeline-oracle.js'

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
})

describe('TermTable', () => {
  test('gives the same weights and hashes after being cleared for outgrowing its limit', async () => {
    const corpus = (await loadCorpus()).slice(0, 300)
    const small = tableOf(500) // clears every few documents
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
