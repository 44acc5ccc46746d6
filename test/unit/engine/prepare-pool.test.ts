import { describe, expect, test } from 'vitest'
import { createDeduplicator, openMemoryStore } from '../../../src/index.js'
import { type JsonlLine, type PortableAnalyzerOptions } from '../../../src/internal.js'
import { parseJsonLine } from '../../../src/io/jsonl.js'
import { createPreparePool } from '../../../src/engine/index.js'
import { fromWorker } from '../../../src/engine/prepare-pool.js'
import { DedupError } from '../../../src/errors.js'
import { ARTICLE_A, ARTICLE_B } from '../../fixtures/articles.js'

describe('prepare pool (worker threads)', () => {
  test('prepares lines exactly as the main thread does, in order', async () => {
    const dedup = createDeduplicator({ store: await openMemoryStore() })
    const lines: JsonlLine[] = [
      { line: 1, text: JSON.stringify({ id: 'a', content: ARTICLE_A, url: 'https://x.example/a?utm_medium=x' }) },
      { line: 2, text: 'not json' },
      { line: 3, text: JSON.stringify({ id: 'b', content: ARTICLE_B, title: '宽带' }) }, // "broadband"
      { line: 4, error: 'line is not valid UTF-8' },
      { line: 5, text: JSON.stringify({ id: 'c', content: '版本 1.2 已发布' }) }, // "version 1.2 released"
    ]
    const pool = await createPreparePool({ workers: 2, blockScheme: dedup.options.blockScheme, maxContentLength: dedup.options.maxContentLength, expectVersion: dedup.version })
    expect(pool.version).toBe(dedup.version)
    try {
      const want = lines.map((l) => dedup.prepare(parseJsonLine(l)))
      expect(await pool.prepareLines(lines)).toEqual(want)
      // Fresh analyzers in the workers (cold caches) prepare the same items, and both workers answer.
      await pool.clearCaches()
      expect(await pool.prepareLines([...lines, ...lines])).toEqual([...want, ...want])
    } finally {
      await pool.close()
    }
    await pool.close() // a second close is a no-op
  })
  test('workers can be told to segment with jieba-wasm: same items', async () => {
    const dedup = createDeduplicator({ store: await openMemoryStore() })
    const lines: JsonlLine[] = [ARTICLE_A, ARTICLE_B].map((content, i) => ({ line: i + 1, text: JSON.stringify({ id: `d${i}`, content }) }))
    const pool = await createPreparePool({ workers: 1, analyzer: { segmenter: 'jieba-wasm' }, blockScheme: dedup.options.blockScheme, maxContentLength: dedup.options.maxContentLength, expectVersion: dedup.version })
    try {
      expect(await pool.prepareLines(lines)).toEqual(lines.map((l) => dedup.prepare(parseJsonLine(l))))
    } finally {
      await pool.close()
    }
    const bad = { segmenter: 'nodejieba' } as unknown as PortableAnalyzerOptions
    await expect(createPreparePool({ workers: 1, analyzer: bad, blockScheme: { blocks: 4, minMatch: 1 }, maxContentLength: 100 })).rejects.toThrow(/`analyzer.segmenter` to be 'default' or 'jieba-wasm', got .*nodejieba/)
  })
  test('workers whose settings differ from the main thread are refused', async () => {
    await expect(createPreparePool({ workers: 1, blockScheme: { blocks: 4, minMatch: 1 }, maxContentLength: 100, expectVersion: 'other' })).rejects.toMatchObject({ code: 'INVALID_OPTION' })
    await expect(createPreparePool({ workers: 0, blockScheme: { blocks: 4, minMatch: 1 }, maxContentLength: 100 })).rejects.toThrow(/`workers` to be an integer from 1 to 64/)
  })

  test('an error in a worker keeps its DedupError class and code (the CLI maps the code to its exit)', async () => {
    const start = createPreparePool({ workers: 1, analyzer: { weighting: { minWeight: 7 } as never }, blockScheme: { blocks: 4, minMatch: 1 }, maxContentLength: 1000 })
    const err = await start.then(() => null, (e: unknown) => e)
    expect(err).toBeInstanceOf(DedupError)
    expect(err).toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`weighting.minWeight`.*got `7`/) })
  })

  test('fromWorker: what a worker posts for a failed chunk comes back as the DedupError it was; other errors stay plain', () => {
    const back = fromWorker({ message: 'bad input', code: 'INVALID_INPUT', stack: 'DedupError: bad input\n    at worker' })
    expect(back).toBeInstanceOf(DedupError)
    expect(back).toMatchObject({ code: 'INVALID_INPUT', message: 'bad input', stack: expect.stringContaining('at worker') })
    const plain = fromWorker({ message: 'boom', code: 'ENOENT' })
    expect(plain).not.toBeInstanceOf(DedupError)
    expect(plain.message).toBe('boom')
  })
})
