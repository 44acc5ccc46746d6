import { createHash } from 'node:crypto'
import { afterEach, expect } from 'vitest'
import type { Fingerprint, FingerprintRecord } from '../../src/types.js'
import type { FingerprintStore } from '../../src/store/store.js'
import { fingerprintBlocks, type BlockScheme } from '../../src/fingerprint/blocks.js'

/** A fixed "now" for test records (1 May 2024, UTC). */
export const T0 = Date.UTC(2024, 4, 1)
/** Version string the test records carry. */
export const VERSION = 'simhash64-tfidf-v1'

/** A realistic 16-hex hash of `seed` (what the analyzer's hashes look like). */
export function hash16(seed: string): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, 16)
}

let lastSeq = 0

/**
 * A record as the deduplicator writes it: distinct content/URL/title hashes derived from the id,
 * and a fresh `seq` (so a store gives it back exactly as written).
 */
export function makeRecord(id: string, fingerprint: Fingerprint, over: Partial<FingerprintRecord> = {}, scheme?: BlockScheme): FingerprintRecord {
  return {
    id,
    fingerprint,
    blocks: fingerprintBlocks(fingerprint, scheme),
    contentHash: hash16(`content:${id}`),
    urlHash: hash16(`url:${id}`),
    titleHash: hash16(`title:${id}`),
    short: false,
    clusterId: id,
    duplicateOf: null,
    distance: null,
    layer: null,
    version: VERSION,
    indexedAt: T0,
    seq: ++lastSeq,
    ...over,
  }
}

/** Eight LSH band terms as the analyzer makes them ("m<i>_" + 8 hex digits), derived from `seed`. */
export function bandsOf(seed: string): string[] {
  return Array.from({ length: 8 }, (_, i) => `m${i}_${hash16(`band:${i}:${seed}`).slice(0, 8)}`)
}

/** Puts `records`, checks they were all written, and refreshes (Elasticsearch needs it before a search). */
export async function putAll(store: FingerprintStore, records: readonly FingerprintRecord[]): Promise<void> {
  const result = await store.put(records)
  expect(result.failed).toEqual([])
  expect(result.written).toBe(records.length)
  await store.refresh()
}

/** Sorted ids of `records`. */
export function idsOf(records: readonly FingerprintRecord[]): string[] {
  return records.map((r) => r.id).sort()
}

/** 16-bit block `position` (0 = high bits) of `fp`. */
export function block16(fp: Fingerprint, position: number): number {
  return position < 2 ? (fp.hi >>> (16 - 16 * position)) & 0xffff : (fp.lo >>> (16 - 16 * (position - 2))) & 0xffff
}

/** A fingerprint from four 16-bit blocks, high first. */
export function fromBlocks16(b: readonly number[]): Fingerprint {
  return { hi: ((b[0]! << 16) | b[1]!) >>> 0, lo: ((b[2]! << 16) | b[3]!) >>> 0 }
}

/** Rotates a 16-bit value left by one: same popcount, different value (unless 0 or 0xffff). */
export function rot16(v: number): number {
  return ((v << 1) | (v >>> 15)) & 0xffff
}

/**
 * A fingerprint equal to `base` on the 16-bit blocks in `keep` and different on the others,
 * with the same popcount (so the popcount filter never interferes).
 */
export function sharing(base: Fingerprint, keep: readonly number[]): Fingerprint {
  return fromBlocks16([0, 1, 2, 3].map((p) => (keep.includes(p) ? block16(base, p) : rot16(block16(base, p)))))
}

/** `fp` with bit `bit` (0 = least significant) flipped. */
export function flip(fp: Fingerprint, bit: number): Fingerprint {
  return bit >= 32 ? { hi: (fp.hi ^ (1 << (bit - 32))) >>> 0, lo: fp.lo } : { hi: fp.hi, lo: (fp.lo ^ (1 << bit)) >>> 0 }
}

/**
 * Inside a `describe`: a function that opens a store with `makeStore` and closes every store it
 * opened after each test.
 */
export function openedStores(makeStore: () => Promise<FingerprintStore>): () => Promise<FingerprintStore> {
  const opened: FingerprintStore[] = []
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close()
  })
  return async () => {
    const store = await makeStore()
    opened.push(store)
    return store
  }
}
