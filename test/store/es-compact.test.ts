import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { recordToSource, sourceToRecord } from '../../src/elasticsearch/_document.js'
import { compactSketch, compactTerms, fromCompact, gramRuns } from '../../src/elasticsearch/_compact.js'
import { COMPACT_SOURCE_EXCLUDES } from '../../src/elasticsearch/mapping.js'
import { CANDIDATE_SOURCE } from '../../src/elasticsearch/_query.js'
import { gramSet } from '../../src/fingerprint/short-grams.js'
import type { FingerprintRecord } from '../../src/types.js'
import { makeRecord } from './_records.js'

/** `_source` as Elasticsearch stores it under record format 2: the document less the mapping's excludes. */
function stored(record: FingerprintRecord): { dedup: Record<string, unknown> } {
  const dedup = { ...(recordToSource(record, 2, true) as unknown as Record<string, unknown>) }
  for (const path of COMPACT_SOURCE_EXCLUDES) delete dedup[path.slice('dedup.'.length)]
  return JSON.parse(JSON.stringify({ dedup })) as { dedup: Record<string, unknown> }
}

/** Then filtered by the candidate searches' includes. */
function asHit(source: { dedup: Record<string, unknown> }): { dedup: Record<string, unknown> } {
  const dedup: Record<string, unknown> = {}
  for (const path of CANDIDATE_SOURCE.includes) {
    const field = path.slice('dedup.'.length)
    if (field in source.dedup) dedup[field] = source.dedup[field]
  }
  return { dedup }
}

// Texts of the short route's kinds: Chinese, digits and dots, ASCII letters, repeats, negations, an
// emoji (a surrogate pair: kept in hex), spaces and punctuation (not content).
const unit = fc.constantFrom(...'的一是不了人我在有他这中大来上们到说国和地也子时道出要就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只从现因开些长把十0123456789.abcXYZ 　，。！？😀"\\')
const text = fc.array(unit, { minLength: 0, maxLength: 160 }).map((u) => u.join(''))

describe('record format 2: compact gram sets and prefix terms', () => {
  test.prop([text])('a short text\'s record reads back exactly from the compact _source, whole or as a candidate hit', (t) => {
    const g = gramSet(t)
    const r = makeRecord('a', { hi: 0x3fa20b11, lo: 0x9c00ffe1 }, { sketch: g.sketch, bands: g.terms, rule: 'short-text', short: true })
    const source = stored(r)
    expect(sourceToRecord('a', source, true)).toEqual(r)
    expect(sourceToRecord('a', asHit(source), true)).toEqual(r)
  })

  test.prop([text])('a gram set becomes runs of text unless it holds a surrogate; its terms become places', (t) => {
    const g = gramSet(t)
    const runs = gramRuns(g.sketch)
    const hasSurrogate = /[\ud800-\udfff]/.test(t)
    // A text of one character has one pseudo-gram of it and NUL, a unit no run carries.
    // The figures after the mark (a text with digits) are carried as they are.
    const [gramHex = '', figures = ''] = g.sketch.slice(2).split('|')
    const grams = gramHex.match(/.{8}/g) ?? []
    const hasNul = grams.some((k) => k.startsWith('0000') || k.endsWith('0000'))
    if (g.sketch === 's:') expect(runs).toBeNull()
    else if (hasSurrogate || hasNul) expect(runs).toBeNull()
    else {
      expect(runs).not.toBeNull()
      // One unit a gram, plus one a run and a separator: well under the 8 hex digits a gram.
      expect(runs!.length).toBeLessThanOrEqual(2 + 3 * grams.length + (figures === '' ? 0 : 1 + figures.length))
      expect(fromCompact(runs, compactTerms(g.terms, g.sketch))).toEqual({ sketch: g.sketch, bands: g.terms })
      const terms = compactTerms(g.terms, g.sketch)
      if (g.terms.length > 0) expect(terms).toMatch(new RegExp(`^@[A-Za-z0-9_-]{${2 * g.terms.length}}$`))
    }
  })

  test('a typical short text: its compact sketch and terms are under a third of the hex forms', () => {
    const g = gramSet('国务院办公厅关于进一步做好稳就业工作的通知明确提出要加大对中小企业的支持力度，全年新增就业目标不变。')
    const compact = JSON.stringify(compactSketch(g.sketch)).length + JSON.stringify(compactTerms(g.terms, g.sketch)).length
    const hex = JSON.stringify(g.sketch).length + JSON.stringify(g.terms).length
    expect(compact / hex).toBeLessThan(1 / 3)
  })

  test('other sketches and terms are kept as they are, also when they look compact', () => {
    for (const sketch of [`m:${'0123456789abcdef'.repeat(8)}0000000a`, 't:0000000a0000000b', 'r:not runs', 'v:x', 'S:00610062', 's:00620061']) {
      const r = makeRecord('a', { hi: 1, lo: 2 }, { sketch, bands: ['m0_0000000a', 's_00610062'] })
      expect(sourceToRecord('a', stored(r), true)).toEqual(r)
    }
    const none = makeRecord('b', { hi: 1, lo: 2 })
    expect(sourceToRecord('b', stored(none), true)).toEqual(none)
    const empty = makeRecord('c', { hi: 1, lo: 2 }, { bands: [] })
    expect(sourceToRecord('c', stored(empty), true)).toEqual(empty)
  })

  test('a record an older simdup wrote into a format 2 index (no `terms`) is refused, naming the document', () => {
    const old = JSON.parse(JSON.stringify({ dedup: recordToSource(makeRecord('old-1', { hi: 1, lo: 2 }, { bands: ['m0_0000000a'] })) })) as { dedup: Record<string, unknown> }
    delete old.dedup.bands
    expect(() => sourceToRecord('old-1', old, true)).toThrow(expect.objectContaining({ code: 'STORE_CORRUPT', message: expect.stringMatching(/`old-1` has no `dedup.terms`.*older than record format 2/) }))
  })

  test('malformed compact fields are reported by name', () => {
    expect(fromCompact('r:ab', '@A')).toEqual({ bad: 'terms' })
    expect(fromCompact('r:ab', '@AB')).toEqual({ bad: 'terms' })
    expect(fromCompact(7, null)).toEqual({ bad: 'sketch' })
    expect(fromCompact('r:ab', '@AA')).toEqual({ sketch: 's:00610062', bands: ['s_00610062'] })
    const src = stored(makeRecord('d', { hi: 1, lo: 2 }, { sketch: 's:00610062', bands: ['s_00610062'] }))
    src.dedup.terms = '@zz'
    expect(() => sourceToRecord('d', src, true)).toThrow(expect.objectContaining({ code: 'STORE_CORRUPT', message: expect.stringMatching(/`dedup.terms`/) }))
  })
})
