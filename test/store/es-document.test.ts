import { describe, expect, test } from 'vitest'
import { recordToSource, sourceToRecord } from '../../src/elasticsearch/_document.js'
import { CANDIDATE_SOURCE } from '../../src/elasticsearch/_query.js'
import type { FingerprintRecord } from '../../src/types.js'
import { hash16, makeRecord } from './_records.js'

/** `_source` as Elasticsearch filters it by a list of `dedup.<field>` includes (no wildcards). */
function filtered(source: { dedup: Record<string, unknown> }, includes: readonly string[]): { dedup: Record<string, unknown> } {
  const dedup: Record<string, unknown> = {}
  for (const path of includes) {
    const field = path.slice('dedup.'.length)
    if (field in source.dedup) dedup[field] = source.dedup[field]
  }
  return { dedup }
}

describe('the candidate searches\' _source (the record\'s fields, named)', () => {
  const full: FingerprintRecord = makeRecord('a', { hi: 0x3fa20b11, lo: 0x9c00ffe1 }, {
    sketch: `m:${'0123456789abcdef'.repeat(8)}0000000a`, bands: ['m0_0000000a', 's_4e2a65b0'], rule: 'minhash', supersedes: 'old-a',
    duplicateOf: 'b', clusterId: 'b', distance: 5, layer: 'simhash', urlHash: hash16('u'), titleHash: hash16('t'), short: true,
  })

  test('holds every field a record is read from: a hit reads back as the whole document does', () => {
    const source = { dedup: recordToSource(full) as unknown as Record<string, unknown> }
    expect(sourceToRecord('a', filtered(source, CANDIDATE_SOURCE.includes))).toEqual(sourceToRecord('a', source))
    expect(sourceToRecord('a', filtered(source, CANDIDATE_SOURCE.includes))).toEqual(full)
  })

  test('leaves out the block sets and the popcount (derived from the blocks and the fingerprint)', () => {
    const source = { dedup: recordToSource(full) as unknown as Record<string, unknown> }
    const kept = Object.keys(filtered(source, CANDIDATE_SOURCE.includes).dedup)
    expect(kept).not.toContain('block_sets_v2')
    expect(kept).not.toContain('block_sets')
    expect(kept).not.toContain('popcount')
    expect(Object.keys(source.dedup).filter((k) => !kept.includes(k)).sort()).toEqual(['block_sets_v2', 'popcount'])
  })
})
