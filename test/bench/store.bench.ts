/**
 * Micro-benchmarks of the embedded store (not part of `npm test`):
 *   npx vitest bench test/bench/store.bench.ts
 * The full-size figures (10 M fingerprints, memory, replay) come from scripts/bench-store.ts.
 */
import { bench, describe } from 'vitest'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'
import { openMemoryStore, type MemoryStore } from '../../src/store/embedded/store.js'
import type { CandidateQuery, FingerprintRecord } from '../../src/types.js'
import { xorshift32 } from '../../scripts/eval/prng.js'

const rand32 = xorshift32(0x2545f491)
const hex16 = (): string => rand32().toString(16).padStart(8, '0') + rand32().toString(16).padStart(8, '0')

function record(i: number): FingerprintRecord {
  const fingerprint = { hi: rand32(), lo: rand32() }
  return {
    id: `doc-${i}`, fingerprint, blocks: fingerprintBlocks(fingerprint), contentHash: hex16(), urlHash: hex16(), titleHash: hex16(),
    short: false, clusterId: `doc-${i}`, duplicateOf: null, distance: null, layer: null, version: 'simhash64-tfidf-v1', indexedAt: Date.UTC(2024, 4, 1),
  }
}

function query(): CandidateQuery {
  const fingerprint = { hi: rand32(), lo: rand32() }
  return { fingerprint, blocks: fingerprintBlocks(fingerprint), minMatch: 1, maxDistance: 3, contentHash: hex16(), urlHash: hex16(), titleHash: hex16() }
}

const batch = Array.from({ length: 10_000 }, (_, i) => record(i))
const queries = Array.from({ length: 100 }, query)
let filled: MemoryStore | undefined
let next = 0

describe('memory store', () => {
  bench('put 10,000 records (in memory)', async () => {
    const store = await openMemoryStore()
    await store.put(batch)
  })

  bench('candidates for 100 queries against 200,000 records', async () => {
    if (filled === undefined) {
      filled = await openMemoryStore()
      for (let i = 0; i < 20; i++) await filled.put(Array.from({ length: 10_000 }, () => record(next++)))
    }
    await filled.candidates(queries)
  })
})
