/** Needs the Debian corpus (built on first use: apt-get, network); see test/corpus/README.md. */
import { describe, expect, test } from 'vitest'
import { createJiebaWasmSegmenter } from '../../src/index.js'
import { tryCreateNodeRsSegmenter } from '../../src/segment/node-rs.js'
import { normalizeContent } from '../../src/normalize/index.js'
import { RunMemo } from '../../src/fingerprint/_run-memo.js'
import { loadCorpus } from '../../scripts/corpus/load.js'
import { snapshot, tableOf } from '../helpers/pipeline-oracle.js'

/** The segmenter the CLI uses when both are there. */
const seg = tryCreateNodeRsSegmenter() ?? createJiebaWasmSegmenter()

describe('RunMemo on the corpus', () => {
  test('equals plain cuts on the corpus while the term table is cleared under it', async () => {
    const corpus = (await loadCorpus()).slice(0, 1500)
    const plain = tableOf(2000)
    const memoTable = tableOf(2000) // clears every few documents: memoised ids must be dropped with it
    const memo = new RunMemo(memoTable, seg)
    for (const doc of corpus) {
      const text = normalizeContent(doc.content)
      plain.load(seg.cut(text))
      memo.load(text)
      expect(snapshot(memoTable)).toEqual(snapshot(plain))
    }
    expect(memo.hits).toBeGreaterThan(0)
  }, 120_000)

  test('equals plain cuts across generation rotations, and runs in use survive them', async () => {
    const corpus = (await loadCorpus()).slice(0, 1500)
    const plain = tableOf()
    const memoTable = tableOf()
    const memo = new RunMemo(memoTable, seg, 20_000) // a new generation every few documents
    const texts = corpus.map((doc) => normalizeContent(doc.content))
    for (const text of [...texts, ...texts]) {
      plain.load(seg.cut(text))
      memo.load(text)
      expect(snapshot(memoTable)).toEqual(snapshot(plain))
    }
    // Runs in use were carried over from the generation before.
    expect(memo.promoted).toBeGreaterThan(1000)
    expect(memo.hits).toBeGreaterThan(memo.promoted)
  }, 180_000)
})
