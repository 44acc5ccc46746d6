import { describe, expect, test } from 'vitest'
import { computeMetrics, type LabelledRef } from '../../../scripts/eval/metrics.js'
import type { EvalDecision } from '../../../scripts/eval/systems.js'

// A tiny stream: group A = a1 (original) + a2, a3 (copies); group B = b1 alone; group C = c1 + c2.
const docs: LabelledRef[] = [
  { id: 'a1', group: 'A', perturbation: 'original', content: '北京大学是一所大学', bucket: '<300' }, // Peking University is a university
  { id: 'b1', group: 'B', perturbation: 'original', content: '清华大学也是一所大学', bucket: '<300' }, // Tsinghua is a university too
  { id: 'a2', group: 'A', perturbation: 'traditional', content: '北京大學是一所大學', bucket: '<300' }, // same, Traditional script
  { id: 'c1', group: 'C', perturbation: 'short-original', content: '版本 1.2 已发布', bucket: 'short' }, // version 1.2 released
  { id: 'a3', group: 'A', perturbation: 'typos', content: '北京大学是一所大字', bucket: '<300' }, // one character wrong
  { id: 'c2', group: 'C', perturbation: 'short-punct', content: '版本 1.2 已发布。', bucket: 'short' }, // with a full stop
]

const fresh = (id: string): EvalDecision => ({ id, duplicateOf: null, clusterId: id })
const dup = (id: string, of: string): EvalDecision => ({ id, duplicateOf: of, clusterId: of })

describe('computeMetrics', () => {
  test('a perfect system scores 1 everywhere; a copy may point at an earlier copy of its group', () => {
    const m = computeMetrics(docs, [fresh('a1'), fresh('b1'), dup('a2', 'a1'), fresh('c1'), dup('a3', 'a2'), dup('c2', 'c1')])
    expect(m).toMatchObject({ docs: 6, trueDuplicates: 3, flagged: 3, tp: 3, fp: 0, fn: 0, precision: 1, recall: 1, f1: 1 })
    expect(m.falsePositives).toEqual([])
    expect(m.missExamples).toEqual([])
  })

  test('flagging nothing gives precision 1 (no wrong flag), recall 0 and F1 0', () => {
    const m = computeMetrics(docs, docs.map((d) => fresh(d.id)))
    expect(m).toMatchObject({ flagged: 0, tp: 0, fn: 3, precision: 1, recall: 0, f1: 0 })
    expect(m.missExamples.map((e) => e.id)).toEqual(['a2', 'a3', 'c2'])
  })

  test('a wrong group is a false positive and still a miss; recall per perturbation counts it', () => {
    const m = computeMetrics(docs, [fresh('a1'), fresh('b1'), dup('a2', 'b1'), fresh('c1'), dup('a3', 'a1'), fresh('c2')])
    expect(m).toMatchObject({ flagged: 2, tp: 1, fp: 1, fn: 2, precision: 0.5 })
    expect(m.recall).toBeCloseTo(1 / 3)
    expect(m.f1).toBeCloseTo((2 * 0.5 * (1 / 3)) / (0.5 + 1 / 3))
    expect(m.falsePositives).toEqual([
      {
        label: 'traditional', docs: 1, fp: 1, distinct: 0, wrongGroup: 1,
        examples: [{ id: 'a2', duplicateOf: 'b1', text: '北京大學是一所大學', otherText: '清华大学也是一所大学' }],
      },
    ])
    expect(m.recallByPerturbation).toEqual([
      { label: 'short-punct', count: 1, tp: 0, recall: 0 },
      { label: 'traditional', count: 1, tp: 0, recall: 0 },
      { label: 'typos', count: 1, tp: 1, recall: 1 },
    ])
    expect(m.recallByBucket).toEqual([
      { label: '<300', count: 2, tp: 1, recall: 0.5 },
      { label: 'short', count: 1, tp: 0, recall: 0 },
    ])
  })

  test('new content flagged is a distinct false positive, even when it points at a later member of its own group', () => {
    // b1 → a1 is plainly wrong; a1 → a2 points forward, which no streaming system can know.
    const m = computeMetrics(docs, [dup('a1', 'a2'), dup('b1', 'a1'), dup('a2', 'a1'), fresh('c1'), fresh('a3'), fresh('c2')])
    expect(m).toMatchObject({ flagged: 3, tp: 1, fp: 2 })
    expect(m.falsePositives).toEqual([
      expect.objectContaining({ label: 'original', docs: 2, fp: 2, distinct: 2, wrongGroup: 0 }),
    ])
  })

  test('an unknown duplicateOf is a false positive, shown as such', () => {
    const m = computeMetrics(docs, [fresh('a1'), fresh('b1'), dup('a2', 'zzz'), fresh('c1'), fresh('a3'), fresh('c2')])
    expect(m.tp).toBe(0)
    expect(m.falsePositives[0]?.examples[0]).toEqual({ id: 'a2', duplicateOf: 'zzz', text: '北京大學是一所大學', otherText: '(unknown id)' })
  })

  test('examples show the first 40 characters with white space collapsed, and at most `examples` per category', () => {
    const long = `${'甲'.repeat(30)}\n\n  ${'乙'.repeat(30)}` // "jia" ×30, blank lines, "yi" ×30
    const stream: LabelledRef[] = [
      { id: 'x', group: 'X', perturbation: 'original', content: long },
      { id: 'y', group: 'Y', perturbation: 'original', content: long },
      { id: 'z', group: 'Z', perturbation: 'original', content: long },
    ]
    const m = computeMetrics(stream, [fresh('x'), dup('y', 'x'), dup('z', 'x')], { examples: 1 })
    expect(m.falsePositives[0]?.fp).toBe(2)
    expect(m.falsePositives[0]?.examples).toHaveLength(1)
    expect(m.falsePositives[0]?.examples[0]?.text).toBe(`${'甲'.repeat(30)} ${'乙'.repeat(9)}`)
  })

  test('decisions must line up with the stream', () => {
    expect(() => computeMetrics(docs, docs.slice(1).map((d) => fresh(d.id)))).toThrow(/one decision per document \(6\), got 5/)
    const swapped = docs.map((d) => fresh(d.id))
    ;[swapped[0], swapped[1]] = [swapped[1] as EvalDecision, swapped[0] as EvalDecision]
    expect(() => computeMetrics(docs, swapped)).toThrow(/Decision 0 is for `b1`, expected `a1`/)
    const twice = [docs[0] as LabelledRef, docs[0] as LabelledRef]
    expect(() => computeMetrics(twice, [fresh('a1'), fresh('a1')])).toThrow(/unique/)
  })

  test('an empty stream scores precision and recall 1', () => {
    expect(computeMetrics([], [])).toMatchObject({ precision: 1, recall: 1, f1: 1 })
  })
})
