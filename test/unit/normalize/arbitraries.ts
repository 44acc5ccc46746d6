/** Text generators for the normaliser's property tests. */
import fc from 'fast-check'

/** Any UTF-16 code unit, lone surrogates included. */
export const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))

// Pieces that exercise the interesting paths: Traditional/Simplified twins, regional vocabulary,
// whitespace and line breaks, escapes, overstrike, emoji sequences, combining marks, case.
const pieces = [
  '軟體', '软件', '資訊', '信息', '滑鼠', '著', '着', '乾隆', '裡', '這個', '們', '說', '臺灣', '温', '溫', '綫', '衹', '機率',
  '記憶體', '程式', '向量', '⿰車巠', '中文', 'Linux', 'ABC', 'İ', 'Σ', 'ﬁ', 'ℌ', '①', '´', '\u0301', '\u3099',
  ' ', '\t', '\n', '\r\n', '\r', '\u3000', '\u00a0', '\u2028', '\x1b[31m', '\x1b]8;;http://x\x07', '\x1b', '\x9b1m',
  '\b', '_\b', '\u200b', '\u200d', '\ufe0f', '\u20e3', '1\ufe0f\u20e3', '👨\u200d👩\u200d👧', '🇨🇳', '👍🏽', '🏴\u{e0067}\u{e0062}\u{e007f}',
  '\ue000', '\u{f0000}', '\ud800', '\udc00', '\ufffd', 'ＡＢ１', '，', '。',
]

/** One interesting piece, or any code unit, or any code point. */
export const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...pieces) },
  { weight: 2, arbitrary: codeUnit },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
)

/** Strings built from {@link piece}: short, dense in edge cases. */
export const messyText = fc.array(piece, { maxLength: 40 }).map((parts) => parts.join(''))

/** Any sequence of UTF-16 code units: lone surrogates, controls, everything. */
export const anyUnits = fc.string({ unit: codeUnit, maxLength: 200 })

/** Any sequence of code points over the whole Unicode range. */
export const anyCodePoints = fc.string({ unit: 'binary', maxLength: 200 })
