import { describe, expect, it } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { Trie } from 'opencc-js/core'
import * as OpenCC from 'opencc-js/t2cn'
import HKPhrasesRev from 'opencc-js/dict/HKPhrasesRev'
import HKVariantsRev from 'opencc-js/dict/HKVariantsRev'
import HKVariantsRevPhrases from 'opencc-js/dict/HKVariantsRevPhrases'
import TSCharacters from 'opencc-js/dict/TSCharacters'
import TSPhrases from 'opencc-js/dict/TSPhrases'
import TWPhrasesRev from 'opencc-js/dict/TWPhrasesRev'
import TWVariantsRev from 'opencc-js/dict/TWVariantsRev'
import TWVariantsRevPhrases from 'opencc-js/dict/TWVariantsRevPhrases'
import { DictConverter } from '../../../src/normalize/_dict-converter.js'
import { createConverter } from '../../../src/normalize/_opencc.js'

// opencc-js's full.d.ts imports './core' without an extension, which NodeNext cannot resolve,
// so its converters come out as `any`: name their type here.
type Convert = (text: string) => string

// opencc-js is the oracle: DictConverter must give the Trie's results, and the conversion chain
// OpenCC's own converters' results.

const keysAndValues = (dict: string) => dict.split('|').flatMap((e) => e.split(' '))
const pool = [TWPhrasesRev, TWVariantsRevPhrases, TWVariantsRev, HKPhrasesRev, HKVariantsRevPhrases, HKVariantsRev, TSPhrases, TSCharacters].flatMap(keysAndValues)
// Dictionary words whole and cut (so phrases meet at odd boundaries), ideographic description
// characters, astral and lone surrogates, plain text.
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...pool) },
  { weight: 3, arbitrary: fc.constantFrom(...pool).chain((w) => fc.nat(w.length).map((k) => w.slice(k))) },
  { weight: 1, arbitrary: fc.constantFrom('⿰', '⿲', '⿱', '⿻', '⿿', '\u{2005e}', '\u{20000}', '\ud800', '\udc00', 'a', ' ', '，', '·') },
)
const chinese = fc.array(piece, { maxLength: 30 }).map((a) => a.join(''))

function trie(dicts: string[]): Trie {
  const t = new Trie()
  t.loadDictGroup(dicts)
  return t
}

describe('DictConverter', () => {
  const groups: [name: string, dicts: string[]][] = [
    ['standard', [TSPhrases, TSCharacters]],
    ['Taiwan phrases and variants', [TWPhrasesRev, TWVariantsRevPhrases, TWVariantsRev]],
    ['Hong Kong', [HKPhrasesRev, HKVariantsRevPhrases, HKVariantsRev]],
  ]
  for (const [name, dicts] of groups) {
    const ours = new DictConverter(dicts)
    const theirs = trie(dicts)
    test.prop([chinese], { numRuns: 300 })(`convert and segment equal opencc's Trie: ${name}`, (s) => {
      expect(ours.convert(s)).toBe(theirs.convert(s))
      expect(ours.segment(s)).toEqual(theirs.segment(s))
    })
  }

  it('earlier dictionaries win, as in Trie#loadDictGroup', () => {
    expect(new DictConverter(['a X', 'a Y|ab Z']).convert('a ab')).toBe('X Z')
  })
  it('copies an ideographic description sequence whole, as OpenCC does', () => {
    const c = new DictConverter([TSCharacters])
    expect(c.convert('⿰車巠車')).toBe('⿰車巠车') // describes 輕 (light); the lone 車 (car) converts
    expect(c.convert('⿲車車')).toBe(trie([TSCharacters]).convert('⿲車車')) // runs out: only the ⿲ is skipped
  })
  it('survives a long run of description characters (the Trie recurses and overflows)', () => {
    const s = '⿰'.repeat(200_000) + '車'
    expect(new DictConverter([TSCharacters]).convert(s)).toBe(s)
  })
})

describe('conversion chain', () => {
  const pairs: [name: string, regional: string[], from: string][] = [
    ['twp', [TWPhrasesRev, TWVariantsRevPhrases, TWVariantsRev], 'twp'],
    ['tw', [TWVariantsRevPhrases, TWVariantsRev], 'tw'],
    ['hkp', [HKPhrasesRev, HKVariantsRevPhrases, HKVariantsRev], 'hkp'],
    ['hk', [HKVariantsRevPhrases, HKVariantsRev], 'hk'],
  ]
  for (const [name, regional, from] of pairs) {
    const ours = createConverter(regional)
    const theirs: Convert = OpenCC.Converter({ from, to: 'cn' })
    // OpenCC also folds CJK compatibility ideographs first; normalizeText leaves that to NFKC,
    // and the pool has none.
    test.prop([chinese], { numRuns: 300 })(`equals OpenCC ${name} → cn`, (s) => {
      expect(ours(s)).toBe(theirs(s))
    })
  }

  it('a text longer than the kept scratch buffers, then short ones, convert right', () => {
    const ours = createConverter([TWPhrasesRev, TWVariantsRevPhrases, TWVariantsRev])
    const theirs: Convert = OpenCC.Converter({ from: 'twp', to: 'cn' })
    const long = '軟體與滑鼠，乾隆年間著名的資訊。'.repeat(70_000) // > 2^20 units
    expect(ours(long)).toBe(theirs(long))
    for (const s of ['軟體', '乾隆', long.slice(0, 999)]) expect(ours(s)).toBe(theirs(s))
  })
})
