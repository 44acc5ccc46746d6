/** Needs the Debian corpus (built on first use: apt-get, network); see test/corpus/README.md. */
import { expect, test } from 'vitest'
import { createJiebaWasmSegmenter } from '../../src/index.js'
import { tryCreateNodeRsSegmenter } from '../../src/segment/node-rs.js'
import { normalizeContent } from '../../src/normalize/index.js'
import { loadCorpus } from '../../scripts/corpus/load.js'

// The fingerprint must not depend on which implementation ran: same tokens on the whole corpus.
test('jieba-wasm and @node-rs/jieba produce identical tokens on the benchmark corpus (normalised)', async () => {
  const wasm = createJiebaWasmSegmenter()
  const nodeRs = tryCreateNodeRsSegmenter()
  expect(nodeRs, '@node-rs/jieba (optional dependency) is not installed').toBeDefined()
  const corpus = await loadCorpus()
  expect(corpus.length).toBeGreaterThan(1000)
  let mismatches = 0
  let first = ''
  for (const doc of corpus) {
    const text = normalizeContent(doc.content)
    const a = wasm.cut(text)
    const b = nodeRs!.cut(text)
    if (a.join('\u0001') !== b.join('\u0001')) {
      mismatches++
      first ||= doc.id
    }
  }
  expect({ mismatches, first }).toEqual({ mismatches: 0, first: '' })
}, 300_000)
