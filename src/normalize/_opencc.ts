/**
 * The Traditional → Simplified conversion behind toSimplified and normalizeText: opencc-js's
 * dictionaries in OpenCC's tw2sp arrangement, run by DictConverter, built lazily per setting.
 */
import { DictConverter, KEEP_UNITS, UnitBuffer } from './_dict-converter.js'
import { unitsContainTraditional } from './_char-class.js'
import { REGIONAL_PHRASE_DICTS, REGIONAL_VARIANT_DICTS, SEGMENTATION_DICT, STANDARD_DICTS, mixedScript } from './_traditional.js'

type Convert = (text: string) => string

const converters = new Map<string, Convert>()

/** Whether the last conversion's output still held a Traditional-only character. */
let traditionalLeft = false

/**
 * OpenCC's tw2sp arrangement with any regional tables: cut at standard phrases first so a
 * regional phrase cannot match across one, then map each piece regional → standard Traditional
 * → Simplified. With the Taiwan tables alone this is exactly OpenCC's `twp` → `cn`.
 * `lowercase` lower-cases the dictionaries for text lower-cased beforehand: 隨身碟 → U盤 then
 * gives "u盘" with no second pass, and "sql隱碼攻擊" still finds its key "SQL隱碼攻擊".
 */
export function createConverter(regionalDicts: readonly string[], lowercase = false): Convert {
  const segmentation = new DictConverter([SEGMENTATION_DICT], lowercase)
  const regional = new DictConverter(regionalDicts, lowercase)
  const standard = new DictConverter(STANDARD_DICTS, lowercase)
  // Scratch, reused across calls: the input, one piece after the regional step, the output.
  const input = new UnitBuffer()
  const piece = new UnitBuffer()
  const output = new UnitBuffer()
  let ends = new Int32Array(1024)
  return (text) => {
    input.setText(text)
    const n = input.length
    if (ends.length < n) ends = new Int32Array(Math.max(n, ends.length * 2))
    const count = segmentation.pieceEnds(input.units, n, ends)
    output.length = 0
    for (let p = 0, start = 0; p < count; start = ends[p++]!) {
      piece.length = 0
      regional.convertInto(input.units, start, ends[p]!, piece)
      standard.convertInto(piece.units, 0, piece.length, output)
    }
    traditionalLeft = unitsContainTraditional(output.units, 0, output.length)
    const result = output.toString()
    input.release()
    piece.release()
    output.release()
    if (ends.length > KEEP_UNITS) ends = new Int32Array(1024)
    return result
  }
}

function converter(regionalPhrases: boolean, lowercase: boolean): Convert {
  const key = `${regionalPhrases}/${lowercase}`
  let convert = converters.get(key)
  if (convert === undefined) {
    // Built on first use (~50 ms): most runs never meet Traditional text.
    convert = createConverter(regionalPhrases ? [...REGIONAL_PHRASE_DICTS, ...REGIONAL_VARIANT_DICTS] : REGIONAL_VARIANT_DICTS, lowercase)
    converters.set(key, convert)
  }
  return convert
}

/**
 * Runs the conversion on a text already known to hold Traditional-only characters. With
 * `lowercase`, the text must be lower-case already and the result is too. The regional phrases
 * (when asked for) are left out for Simplified text holding a few Traditional characters
 * (`mixedScript`): they are Taiwan's and Hong Kong's vocabulary, not that text's.
 */
export function convertTraditional(text: string, regionalPhrases: boolean, lowercase = false): string {
  const convert = converter(regionalPhrases && !mixedScript(text), lowercase)
  let out = convert(text)
  // A Traditional-only character survives only in odd spots (inside an ideographic description
  // sequence, which OpenCC leaves whole). Then converting again could still change something, so
  // go on to a fixed point; it takes one more round at most in practice.
  for (let round = 0; round < 3 && traditionalLeft; round++) {
    const again = convert(out)
    if (again === out) break
    out = again
  }
  return out
}
