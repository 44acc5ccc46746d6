import { DedupError, describeValue } from '../errors.js'

/** Options of {@link normalizeText}. Every step is on by default. */
export interface NormalizeOptions {
  /**
   * Convert Traditional Chinese (Taiwan, Hong Kong, OpenCC standard) to Simplified. Skipped, at no
   * cost, for text without a Traditional-only character.
   * @default true
   */
  simplify?: boolean
  /**
   * With `simplify`, also map regional vocabulary (軟體 → 软件, 資訊 → 信息, 滑鼠 → 鼠标), like
   * OpenCC's `twp`. Applies only to a text that holds Traditional-only characters.
   * @default true
   */
  regionalPhrases?: boolean
  /** Lower-case letters (`String#toLowerCase`, locale-independent). @default true */
  lowercase?: boolean
  /**
   * NFKC compatibility folding: ligatures, circled and mathematical letters, Kangxi radicals and
   * CJK compatibility ideographs, half-width katakana. Full-width ASCII (U+FF01–U+FF5E) and the
   * ideographic space are folded to ASCII whatever this says.
   * @default true
   */
  foldCompatibility?: boolean
  /** Remove emoji and pictographs, with their skin tones, flags and ZWJ sequences. @default true */
  removeEmoji?: boolean
  /** Keep line breaks (one `\n` between non-empty lines); `false` gives a single line. @default true */
  keepLineBreaks?: boolean
}

/** {@link NormalizeOptions} with every default filled in. */
export type ResolvedNormalizeOptions = Readonly<Required<NormalizeOptions>>

/** The defaults of {@link NormalizeOptions}. */
export const DEFAULT_NORMALIZE_OPTIONS: ResolvedNormalizeOptions = Object.freeze({
  simplify: true,
  regionalPhrases: true,
  lowercase: true,
  foldCompatibility: true,
  removeEmoji: true,
  keepLineBreaks: true,
})

const KEYS = Object.keys(DEFAULT_NORMALIZE_OPTIONS) as (keyof NormalizeOptions)[]

/**
 * Fills in defaults on a copy and checks every field is a boolean; throws
 * `DedupError('INVALID_OPTION')` otherwise. Unknown keys are ignored, so a wider options object
 * (say, {@link NormalizeContentOptions}) can be passed as is.
 *
 * @example resolveNormalizeOptions({ lowercase: false }).simplify // true
 */
export function resolveNormalizeOptions(options?: NormalizeOptions): ResolvedNormalizeOptions {
  if (options === undefined) return DEFAULT_NORMALIZE_OPTIONS
  // Options resolved before (frozen, checked) are passed through: callers on a hot path resolve once.
  if (resolvedOnes.has(options)) return options as ResolvedNormalizeOptions
  const resolved = { ...DEFAULT_NORMALIZE_OPTIONS }
  for (const key of KEYS) {
    const value: unknown = options[key]
    if (value === undefined) continue
    if (typeof value !== 'boolean') {
      throw new DedupError('INVALID_OPTION', `Expected \`${key}\` to be a boolean, got ${describeValue(value)}.`)
    }
    resolved[key] = value
  }
  const frozen = Object.freeze(resolved)
  resolvedOnes.add(frozen)
  return frozen
}

const resolvedOnes = new WeakSet<object>([DEFAULT_NORMALIZE_OPTIONS])
