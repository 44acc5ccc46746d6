/**
 * Cuts normalised text into tokens. Replaceable: pass your own to the fingerprinter.
 * Implementations must be deterministic; whitespace/punctuation tokens are filtered later.
 */
export interface Segmenter {
  /** Short name, part of the fingerprint version (different segmenters ⇒ incomparable fingerprints). */
  readonly name: string
  cut(text: string): string[]
  /** Adds words (a user dictionary); same effect as jieba's `add_word`. */
  addWords(words: readonly UserWord[]): void
  /**
   * True when the segmenter cuts like jieba-rs's `cut`: each maximal run of its han class
   * (CJK ideographs, ASCII letters and digits, `+#&._%-`) on its own, and every other character
   * as a token by itself. The analyzer then memoises cuts per run. @default false
   */
  readonly runLocal?: boolean
  /** Changes whenever `addWords` may change cuts, so memoised cuts are dropped. @default undefined */
  readonly epoch?: number
}

/** One user-dictionary entry. */
export interface UserWord {
  word: string
  /** jieba frequency; higher keeps the word whole more often. @default 100000 */
  freq?: number
}

/** Parses a jieba-style user dictionary: one `word [freq] [tag]` a line, `#` comments. @example parseUserDict('云原生 3000\n# c\n大模型') */
export function parseUserDict(text: string): UserWord[] {
  const out: UserWord[] = []
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const [word, freq] = line.split(/\s+/)
    if (word === undefined) continue
    const f = freq === undefined ? NaN : Number(freq)
    out.push(Number.isFinite(f) && f > 0 ? { word, freq: f } : { word })
  }
  return out
}

export const DEFAULT_USER_WORD_FREQ = 100_000

/** The name both built-in segmenters report: jieba-rs with HMM off, the same tokens either way. */
export const JIEBA_RS_NAME = 'jieba-rs'
