/**
 * The Traditional → Simplified dictionaries the normaliser uses (opencc-js's own), and the set of
 * Traditional-only code points derived from them.
 *
 * "Traditional-only" means: a single-character dictionary key that converts to something else
 * and that never occurs in a conversion's output. The second half is what makes the skip test
 * safe and the normaliser idempotent: characters both scripts share (著 in 著名, 乾 in 乾隆,
 * 温 which the Hong Kong table maps to 溫 and back) appear in outputs, so they do not trigger a
 * conversion, and a converted text never contains a trigger, so converting it again is skipped.
 */
import HKPhrasesRev from 'opencc-js/dict/HKPhrasesRev'
import HKVariantsRev from 'opencc-js/dict/HKVariantsRev'
import HKVariantsRevPhrases from 'opencc-js/dict/HKVariantsRevPhrases'
import STCharacters from 'opencc-js/dict/STCharacters'
import TSCharacters from 'opencc-js/dict/TSCharacters'
import TSPhrases from 'opencc-js/dict/TSPhrases'
import TWPhrasesRev from 'opencc-js/dict/TWPhrasesRev'
import TWVariantsRev from 'opencc-js/dict/TWVariantsRev'
import TWVariantsRevPhrases from 'opencc-js/dict/TWVariantsRevPhrases'

/**
 * Regional dictionaries (Taiwan, then Hong Kong: the first wins a conflict such as 機率), mapping
 * regional forms and vocabulary to OpenCC's standard Traditional. Phrase tables (`twp`/`hkp`,
 * e.g. 軟體 → 軟件, 滑鼠 → 鼠標) come first, variant tables (裡 → 裏, 著 → 着) after.
 */
export const REGIONAL_PHRASE_DICTS: readonly string[] = [TWPhrasesRev, HKPhrasesRev]
/** Regional character-variant tables and the phrases that keep a variant as is. */
export const REGIONAL_VARIANT_DICTS: readonly string[] = [TWVariantsRevPhrases, TWVariantsRev, HKVariantsRevPhrases, HKVariantsRev]
/** Standard Traditional → Simplified: phrases (乾隆 stays), then characters. */
export const STANDARD_DICTS: readonly string[] = [TSPhrases, TSCharacters]
/** Phrases that bound the segments converted independently (as OpenCC's own `tw2sp` does). */
export const SEGMENTATION_DICT: string = TSPhrases

function entries(dict: string): string[][] {
  return dict.split('|').map((entry) => entry.split(' '))
}

let traditionalOnly: Set<number> | undefined

function buildTraditionalOnly(): Set<number> {
  const standardKeys = new Set<string>()
  for (const [from] of entries(TSCharacters)) if (from !== undefined) standardKeys.add(from)
  // Every character a conversion can output: standard values, and regional values the
  // standard step leaves alone.
  const outputs = new Set<string>()
  for (const dict of STANDARD_DICTS) for (const [, to = ''] of entries(dict)) for (const ch of to) outputs.add(ch)
  for (const dict of [...REGIONAL_PHRASE_DICTS, ...REGIONAL_VARIANT_DICTS]) {
    for (const [, to = ''] of entries(dict)) for (const ch of to) if (!standardKeys.has(ch)) outputs.add(ch)
  }
  const set = new Set<number>()
  for (const dict of [TSCharacters, TWVariantsRev, HKVariantsRev]) {
    for (const [from = '', to] of entries(dict)) {
      const cp = from.codePointAt(0)
      if (cp === undefined || from.length > (cp > 0xffff ? 2 : 1) || from === to || outputs.has(from)) continue
      set.add(cp)
    }
  }
  return set
}

/** True when `cp` only occurs in Traditional text (the set is built on first use, ~5 ms). */
export function isTraditionalOnly(cp: number): boolean {
  traditionalOnly ??= buildTraditionalOnly()
  return traditionalOnly.has(cp)
}

let simplifiedOnly: Set<number> | undefined

/**
 * Simplified-only code points: single characters the Simplified → Traditional table converts to
 * something else and that no Traditional-side entry holds (a key of the Traditional → Simplified
 * tables, a character of their phrases, a Traditional form). A few stay that Traditional text
 * also writes (台, 后, 里, 干: the table keeps one Traditional form each), so callers compare
 * counts (`mixedScript`), never test one character.
 */
function buildSimplifiedOnly(): Set<number> {
  const traditional = new Set<string>()
  for (const [from = '', to = ''] of entries(STCharacters)) if (from !== to) for (const ch of to) traditional.add(ch)
  for (const dict of [TSCharacters, TSPhrases]) for (const [from = ''] of entries(dict)) for (const ch of from) traditional.add(ch)
  const set = new Set<number>()
  for (const [from = '', to] of entries(STCharacters)) {
    const cp = from.codePointAt(0)
    if (cp === undefined || from.length > (cp > 0xffff ? 2 : 1) || from === to || traditional.has(from)) continue
    set.add(cp)
  }
  return set
}

let weakTraditional: Set<number> | undefined

/**
 * Traditional-only code points that are weak evidence of Traditional text: those whose Simplified
 * form is itself a standard Traditional character (麵 → 面, 係 → 系, 佈 → 布, 慾 → 欲: the
 * Simplified → Traditional table keeps the form as one of its readings, or has no entry for it).
 * They are the variant characters (異體字) and merged forms a Simplified text picks up from an
 * input method or a variant copy ("桌麵的文件管理器"); a Traditional text also writes characters
 * that Simplified text never does (這, 們, 檔, 後).
 */
function buildWeakTraditional(): Set<number> {
  const standard = new Map<string, string>()
  for (const [from = '', to = ''] of entries(TSCharacters)) standard.set(from, to)
  const readings = new Map<string, string[]>()
  for (const [from = '', ...to] of entries(STCharacters)) readings.set(from, to)
  traditionalOnly ??= buildTraditionalOnly()
  const set = new Set<number>()
  for (const cp of traditionalOnly) {
    const simplified = standard.get(String.fromCodePoint(cp))
    if (simplified === undefined) continue
    const forms = readings.get(simplified)
    if (forms === undefined || forms.includes(simplified)) set.add(cp)
  }
  return set
}

/**
 * Whether a text that holds Traditional-only characters is Simplified text with a few of them
 * (variant characters, a partly converted copy: "简單易用的画圖程序", "桌麵的文件管理器"), not
 * Traditional text: it holds at least as many Simplified-only characters as Traditional-only ones,
 * not counting the weak ones (`buildWeakTraditional`: 麵, 係, 佈, whose Simplified form Traditional
 * text writes too). Such a text gets its characters converted but not the regional vocabulary
 * (Taiwan's 程序 → 进程, 文件 → 文档 would rewrite its Simplified words).
 * @example mixedScript('简單易用的画圖程序') // true
 * @example mixedScript('桌麵的文件管理器') // true (麵 is weak evidence)
 */
export function mixedScript(text: string): boolean {
  simplifiedOnly ??= buildSimplifiedOnly()
  traditionalOnly ??= buildTraditionalOnly()
  weakTraditional ??= buildWeakTraditional()
  let balance = 0
  for (const ch of text) {
    const cp = ch.codePointAt(0)!
    if (cp < 0x3400) continue
    if (simplifiedOnly.has(cp)) balance++
    else if (traditionalOnly.has(cp) && !weakTraditional.has(cp)) balance--
  }
  return balance >= 0
}
