import type { Fingerprint } from '../types.js'
import { DedupError, describeValue, integerOption } from '../errors.js'

/**
 * How a fingerprint is cut into position-tagged blocks for the inverted index.
 * With `blocks` = m and `minMatch` = s, two fingerprints within distance m − s share at least
 * s blocks (pigeonhole: each differing bit spoils at most one block), so a lookup that asks for s
 * equal blocks misses nothing up to that distance.
 */
export interface BlockScheme {
  /** Number of blocks m; the 64 bits are split as evenly as possible, high bits first. @default 4 (range 2–16) */
  readonly blocks: number
  /** Blocks that must be equal for a record to be a candidate. @default 1 (range 1 to m − 1) */
  readonly minMatch: number
}

/** The range of `BlockScheme.blocks` (blocks under 4 bits are not cut: 64 / 16). */
export const BLOCKS_RANGE = Object.freeze({ min: 2, max: 16 })

/** Four 16-bit blocks, one must match: guarantees distance ≤ 3. */
export const DEFAULT_BLOCK_SCHEME: BlockScheme = Object.freeze({ blocks: 4, minMatch: 1 })

/** Largest distance the scheme can guarantee to find. @example guaranteedDistance({ blocks: 6, minMatch: 3 }) // 3 */
export function guaranteedDistance(scheme: BlockScheme): number {
  return scheme.blocks - scheme.minMatch
}

/** Validates a scheme; throws INVALID_OPTION naming the field. @example validateBlockScheme({ blocks: 4, minMatch: 1 }) */
export function validateBlockScheme(scheme: BlockScheme): BlockScheme {
  const { blocks, minMatch } = scheme
  integerOption('blocks', blocks, BLOCKS_RANGE.min, BLOCKS_RANGE.max)
  if (!Number.isInteger(minMatch) || minMatch < 1 || minMatch >= blocks) {
    throw new DedupError(
      'INVALID_OPTION',
      `Expected \`minMatch\` to be an integer from 1 to ${blocks - 1} (blocks − 1), got ${describeValue(minMatch)}.`,
    )
  }
  return scheme
}

/** Bit widths of each block, high bits first: 64 split as evenly as possible (6 → 11,11,11,11,10,10). */
export function blockWidths(blocks: number): number[] {
  const base = Math.floor(64 / blocks)
  const extra = 64 % blocks
  return Array.from({ length: blocks }, (_, i) => base + (i < extra ? 1 : 0))
}

const widthsCache = new Map<number, number[]>()

/**
 * Extracts `width` bits of a 64-bit value, starting `shift` bits above bit 0. Widths ≤ 32.
 */
function bitsAt(fp: Fingerprint, shift: number, width: number): number {
  // Build the value from the two halves without BigInt: the field may straddle bit 32.
  let value: number
  if (shift >= 32) value = fp.hi >>> (shift - 32)
  else if (shift === 0) value = fp.lo
  else value = ((fp.lo >>> shift) | (fp.hi << (32 - shift))) >>> 0
  return width === 32 ? value >>> 0 : (value & ((1 << width) - 1)) >>> 0
}

/**
 * The fingerprint's position-tagged block terms: `"<position>_<hex>"`, hex zero-padded to the
 * block's width. Position tags keep block 0 = 0x0000 distinct from block 3 = 0x0000.
 * @example fingerprintBlocks({ hi: 0x3fa20b11, lo: 0x9c00ffe1 }) // ['0_3fa2', '1_0b11', '2_9c00', '3_ffe1']
 */
export function fingerprintBlocks(fp: Fingerprint, scheme: BlockScheme = DEFAULT_BLOCK_SCHEME): string[] {
  let widths = widthsCache.get(scheme.blocks)
  if (widths === undefined) {
    widths = blockWidths(scheme.blocks)
    widthsCache.set(scheme.blocks, widths)
  }
  const out: string[] = new Array<string>(widths.length)
  let top = 64
  for (let i = 0; i < widths.length; i++) {
    const w = widths[i]!
    top -= w
    out[i] = `${i}_${bitsAt(fp, top, w).toString(16).padStart(Math.ceil(w / 4), '0')}`
  }
  return out
}
