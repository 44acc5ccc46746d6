/**
 * The app-layer pass of the search hook: folds a hit into a better-ranked shown hit whose SimHash
 * is within k, whatever their cluster ids say. It catches copies indexed after the last
 * reconciliation (no cluster id yet, or a cluster of their own) that field collapsing cannot see.
 */
import type { Fingerprint } from '../../types.js'
import { DedupError, describeValue } from '../../errors.js'
import { hex32At, popcount32 } from '../../bits.js'

/** Largest `maxDistance` the fold accepts; beyond it unrelated texts start to fold (their median distance is ~27). */
export const MAX_FOLD_DISTANCE = 16

/** Throws INVALID_OPTION unless `k` is an integer from 0 to MAX_FOLD_DISTANCE. */
export function checkFoldDistance(k: unknown): number {
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 0 || k > MAX_FOLD_DISTANCE) {
    throw new DedupError(
      'INVALID_OPTION',
      `Expected \`maxDistance\` to be an integer from 0 to ${MAX_FOLD_DISTANCE}, got ${describeValue(k)}. Unrelated Chinese texts are typically ~27 bits apart; 3 is the default.`,
    )
  }
  return k
}

/**
 * Fingerprints of the hits shown so far, in rank order, each with a tag (the caller's result
 * index, or -1 for a hit shown on an earlier page). Held as two Uint32Arrays so the scan is
 * XOR + popcount on 32-bit halves with no allocation and no BigInt.
 */
export class ShownFingerprints {
  private hi = new Uint32Array(64)
  private lo = new Uint32Array(64)
  private tags = new Int32Array(64)
  private n = 0

  constructor(readonly maxDistance: number) {
    checkFoldDistance(maxDistance)
  }

  get size(): number {
    return this.n
  }

  add(fp: Fingerprint, tag: number): void {
    if (this.n === this.hi.length) {
      const grow = <A extends Uint32Array | Int32Array>(a: A, make: (n: number) => A): A => {
        const b = make(a.length * 2)
        b.set(a)
        return b
      }
      this.hi = grow(this.hi, (n) => new Uint32Array(n))
      this.lo = grow(this.lo, (n) => new Uint32Array(n))
      this.tags = grow(this.tags, (n) => new Int32Array(n))
    }
    this.hi[this.n] = fp.hi
    this.lo[this.n] = fp.lo
    this.tags[this.n] = tag
    this.n++
  }

  /**
   * The first (best-ranked) shown fingerprint within `maxDistance` of `fp`, as its position
   * `at`, `tag` and `distance`; null when none is that close.
   */
  nearest(fp: Fingerprint): { at: number; tag: number; distance: number } | null {
    const k = this.maxDistance
    const { hi, lo } = fp
    for (let i = 0; i < this.n; i++) {
      const d = popcount32((hi ^ this.hi[i]!) >>> 0) + popcount32((lo ^ this.lo[i]!) >>> 0)
      if (d <= k) return { at: i, tag: this.tags[i]!, distance: d }
    }
    return null
  }

  /** The fingerprints in insertion order (for the cursor). */
  fingerprints(): Fingerprint[] {
    const out: Fingerprint[] = []
    for (let i = 0; i < this.n; i++) out.push({ hi: this.hi[i]!, lo: this.lo[i]! })
    return out
  }
}

/** Where one hit went in `foldNearDuplicates`: shown (`into` null) or folded into an earlier hit. */
export interface FoldOutcome {
  /** Index of the shown hit this one folds into; null when this hit is shown. */
  into: number | null
  /** Hamming distance to that hit; null when shown. */
  distance: number | null
}

/** A fingerprint as the hook meets it: parsed, 16 hex digits, or absent (never fingerprinted). */
export type FingerprintLike = Fingerprint | string | null | undefined

/**
 * A parsed fingerprint, or null for an absent or malformed one (a search page must not fail on one
 * bad document). Parses with a char-code loop: every hit of every page goes through here, and
 * regex + parseInt cost several times more.
 * @example toFingerprint('00000001000000ff') // { hi: 1, lo: 255 }
 */
export function toFingerprint(value: FingerprintLike): Fingerprint | null {
  if (value === null || value === undefined) return null
  if (typeof value !== 'string') return value
  if (value.length !== 16) return null
  const hi = hex32At(value, 0, true)
  const lo = hex32At(value, 8, true)
  return hi < 0 || lo < 0 ? null : { hi, lo }
}

/**
 * Greedy fold over hits in rank order: a hit is shown unless its fingerprint is within
 * `maxDistance` of an already shown hit's, in which case it folds into the best-ranked such hit.
 * Hits without a fingerprint are always shown. Folding is not transitive on purpose: a hit is
 * compared with shown hits only, so a chain of small edits never drags in a distant text.
 *
 * @example
 * foldNearDuplicates(['0000000000000000', '0000000000000007', 'ffffffffffffffff'], 3)
 * // [{ into: null, distance: null }, { into: 0, distance: 3 }, { into: null, distance: null }]
 */
export function foldNearDuplicates(fingerprints: readonly FingerprintLike[], maxDistance = 3): FoldOutcome[] {
  const shown = new ShownFingerprints(maxDistance)
  return fingerprints.map((value, i): FoldOutcome => {
    const fp = toFingerprint(value)
    if (fp === null) return { into: null, distance: null }
    const near = shown.nearest(fp)
    if (near !== null) return { into: near.tag, distance: near.distance }
    shown.add(fp, i)
    return { into: null, distance: null }
  })
}
