import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { CandidateQuery, Fingerprint, FingerprintRecord } from '../../src/types.js'
import type { FingerprintStore } from '../../src/store/store.js'
import { SHORT_GRAM_FLOOR, gramSet, gramVerdict, type GramThresholds } from '../../src/fingerprint/short-grams.js'
import { T0, idsOf, makeRecord, openedStores, putAll } from './_records.js'

const OTHER: Fingerprint = { hi: 0x0f0f0f0f, lo: 0xf0f0f0f0 }
/** A small alphabet (a negation, digits, a decimal point) so that many texts share grams. */
const ALPHABET = ['北', '京', '大', '学', '生', '喜', '欢', '不', '好', '1', '2', '.', 'a']

const arbText = fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 30 }).map((cs) => cs.join(''))
/** A text and a near copy of it: a character changed, left out or added, or a tail appended. */
const arbEdit = fc.tuple(arbText, fc.nat(40), fc.constantFrom(...ALPHABET), fc.constantFrom('sub', 'del', 'ins', 'tail'), arbText).map(([t, at, c, op, tail]) => {
  const i = at % (t.length + 1)
  if (op === 'sub') return t.slice(0, i) + c + t.slice(i + 1)
  if (op === 'del') return t.slice(0, i) + t.slice(i + 1)
  if (op === 'ins') return t.slice(0, i) + c + t.slice(i)
  // A tail up to as long as the text (containment pairs: sizes within twice), a character changed in it.
  const added = tail.slice(0, Math.max(1, (at % t.length) + 1))
  return (c === ALPHABET[0] ? t.slice(0, i) + c + t.slice(i + 1) : t) + added
})
const arbThresholds: fc.Arbitrary<GramThresholds> = fc.record({
  minGramJaccard: fc.double({ min: SHORT_GRAM_FLOOR.jaccard, max: 1, noNaN: true }),
  minContainment: fc.double({ min: SHORT_GRAM_FLOOR.containment, max: 1, noNaN: true }),
  minContainedGrams: fc.integer({ min: 2, max: 8 }),
})

/**
 * The short-text route's candidates (issue 24): records of short texts carry their prefix-filter
 * terms as band terms (`s_…`), and a lookup with a text's terms must return every earlier record
 * whose gram set reaches the thresholds against it (Jaccard or containment, any thresholds down to
 * the floors), checked against a brute-force scan of every record put. `makeStore` must give a
 * store whose `maxPerBand` is at least the number of records (40), so no bound cuts the answer.
 *
 * @example storeContractShort('memory', () => openMemoryStore({ maxPerBand: 64 }))
 */
export function storeContractShort(name: string, makeStore: () => Promise<FingerprintStore>, numRuns = 60): void {
  describe(`store contract (short-text prefix route): ${name}`, () => {
    const open = openedStores(makeStore)

    test.prop([fc.array(fc.oneof(arbText, arbEdit), { minLength: 1, maxLength: 40 }), fc.oneof(arbText, arbEdit), arbThresholds], { numRuns })(
      'candidates hold every record the short-text rules accept (brute-force oracle over all records)',
      async (texts, query, t) => {
        const store = await open()
        const records: FingerprintRecord[] = texts.map((text, i) => {
          const g = gramSet(text)
          const over: Partial<FingerprintRecord> = { indexedAt: T0 + i, urlHash: null, titleHash: null, short: true, sketch: g.sketch }
          if (g.terms.length > 0) over.bands = g.terms
          return makeRecord(`doc-${i}`, OTHER, over)
        })
        await putAll(store, records)
        const g = gramSet(query)
        // No block, no key: only the prefix terms can bring a record.
        const q: CandidateQuery = { fingerprint: { hi: 0, lo: 0 }, blocks: [], minMatch: 1, maxDistance: 3, contentHash: null, urlHash: null, titleHash: null }
        if (g.terms.length > 0) q.bands = g.terms
        const [answer] = g.terms.length === 0 ? [[]] : await store.candidates([q])
        const accepted = records.filter((r) => gramVerdict(g.sketch, r.sketch!, t).rule !== null)
        const returned = new Set(idsOf(answer!))
        // Exact: every accepted pair is a candidate (prefix filtering loses none) …
        for (const r of accepted) expect(returned.has(r.id), `${query} / ${texts[Number(r.id.slice(4))]}`).toBe(true)
        // … and the candidates are exactly the records sharing a prefix term.
        const sharing = records.filter((r) => r.bands?.some((b) => g.terms.includes(b)) === true)
        expect([...returned].sort()).toEqual(idsOf(sharing))
      },
    )
  })
}
