import type { Fingerprint, FingerprintRecord } from '../../src/types.js'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'

/**
 * A stored record for matching tests, its keys drawn from small value sets (`c<hash>`, `u<url>`,
 * `t<title>`) so that equal keys are common; its own cluster's representative, never decided.
 */
export function matchRecord(x: { id: number; fingerprint: Fingerprint; hash: number; url: number | null; title: number | null; short: boolean; version: string }): FingerprintRecord {
  return {
    id: `d${x.id}`,
    fingerprint: x.fingerprint,
    blocks: fingerprintBlocks(x.fingerprint),
    contentHash: `c${x.hash}`,
    urlHash: x.url === null ? null : `u${x.url}`,
    titleHash: x.title === null ? null : `t${x.title}`,
    short: x.short,
    clusterId: `d${x.id}`,
    duplicateOf: null,
    distance: null,
    layer: null,
    version: x.version,
    indexedAt: 1,
  }
}
