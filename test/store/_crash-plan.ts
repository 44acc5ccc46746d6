import type { FingerprintRecord } from '../../src/types.js'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'

/**
 * What the crash writer puts, as a pure function of the batch number, so the parent can tell
 * which record contents are legitimate after a kill. No vitest import: the writer runs as a
 * plain Node process.
 */

/** A cheap deterministic hash of `seed` as `chars` hex digits (8 or 16): FNV-1a, two seeds. */
function hex(seed: string, chars: number): string {
  let out = ''
  for (let k = 0; out.length < chars; k++) {
    let h = 0x811c9dc5 ^ k
    for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193)
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d)
    out += ((h ^ (h >>> 12)) >>> 0).toString(16).padStart(8, '0')
  }
  return out.slice(0, chars)
}

/** The record `id` has after a put of generation `gen`. */
export function crashRecord(id: string, gen: number): FingerprintRecord {
  const fingerprint = { hi: parseInt(hex(`hi:${gen}:${id}`, 8), 16), lo: parseInt(hex(`lo:${gen}:${id}`, 8), 16) }
  return {
    id,
    fingerprint,
    blocks: fingerprintBlocks(fingerprint),
    contentHash: hex(`content:${gen}:${id}`, 16),
    urlHash: gen % 2 === 0 ? hex(`url:${id}`, 16) : null,
    titleHash: hex(`title:${gen}:${id}`, 16),
    short: gen % 3 === 0,
    clusterId: id,
    duplicateOf: null,
    distance: null,
    layer: null,
    version: 'crash-v1',
    indexedAt: Date.UTC(2024, 4, 1) + gen,
  }
}

function newIds(b: number): string[] {
  // Mostly small batches, every fourth one larger, so kills land at varied points of a put.
  const size = b % 4 === 3 ? 3000 : 1 + ((b * 37) % 400)
  return Array.from({ length: size }, (_, i) => `b${b}-r${i}`)
}

/**
 * Batch `b`: 1–400 new ids (3,000 every fourth batch) "b<b>-r<i>" at generation b; every fifth batch also re-puts the new
 * ids of batch b − 3 at generation b (replacements must never show up twice).
 */
export function batchPlan(b: number): [id: string, gen: number][] {
  const ids = b % 5 === 0 && b >= 5 ? [...newIds(b), ...newIds(b - 3)] : newIds(b)
  return ids.map((id) => [id, b])
}
