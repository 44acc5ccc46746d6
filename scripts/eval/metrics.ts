/**
 * Scores a system's decisions against the labelled stream.
 *
 * A document is a true duplicate iff an earlier document of the stream is in its group. It is
 * flagged iff the system gave it a `duplicateOf`. A flag is a true positive iff the document is a
 * true duplicate and `duplicateOf` names an earlier document of the same group; every other flag
 * is a false positive (of kind `distinct` when the document was new content, `wrong-group` when
 * it was a duplicate of something else). precision = TP / flagged (1 when nothing is flagged),
 * recall = TP / true duplicates (1 when there are none), F1 their harmonic mean.
 */
import type { EvalDecision } from './systems.js'

/** The labels metrics need of a stream document. */
export interface LabelledRef {
  id: string
  group: string
  perturbation: string
  content: string
  /** Optional length class, for recall per bucket. */
  bucket?: string
}

/** True positives among the true duplicates of one label. */
export interface RecallRow {
  label: string
  /** True duplicates with this label. */
  count: number
  tp: number
  recall: number
}

/** One wrong flag, for reading. */
export interface FlagExample {
  id: string
  duplicateOf: string
  /** First 40 characters of the document and of the one it was said to duplicate. */
  text: string
  otherText: string
}

/** False positives of one category (the flagged document's perturbation label). */
export interface FalsePositiveRow {
  label: string
  /** Documents of this label in the stream. */
  docs: number
  fp: number
  /** New content flagged as a duplicate. */
  distinct: number
  /** A duplicate, but attributed to another group. */
  wrongGroup: number
  examples: FlagExample[]
}

/** A missed duplicate, for reading. */
export interface MissExample {
  id: string
  label: string
  text: string
}

/** The scores of one system on one stream. */
export interface EvalMetrics {
  docs: number
  trueDuplicates: number
  flagged: number
  tp: number
  fp: number
  fn: number
  precision: number
  recall: number
  f1: number
  recallByPerturbation: RecallRow[]
  recallByBucket: RecallRow[]
  falsePositives: FalsePositiveRow[]
  missExamples: MissExample[]
}

/** Options of `computeMetrics`. */
export interface MetricsOptions {
  /** Examples kept per category. @default 3 */
  examples?: number
}

const head = (s: string): string => s.replace(/\s+/g, ' ').trim().slice(0, 40)

/**
 * Score `decisions` (one per document, in stream order) against the labelled `docs`.
 * Throws when the decisions do not line up with the documents.
 * @example computeMetrics(docs, decisions).f1 // → 0.93
 */
export function computeMetrics(docs: readonly LabelledRef[], decisions: readonly EvalDecision[], options: MetricsOptions = {}): EvalMetrics {
  const maxExamples = options.examples ?? 3
  if (decisions.length !== docs.length) {
    throw new Error(`Expected one decision per document (${docs.length}), got ${decisions.length}.`)
  }
  const position = new Map<string, number>()
  docs.forEach((d, i) => position.set(d.id, i))
  if (position.size !== docs.length) throw new Error('Document ids must be unique.')

  const groupsSeen = new Set<string>()
  let trueDuplicates = 0
  let flagged = 0
  let tp = 0
  const recall = new Map<string, RecallRow>()
  const bucketRecall = new Map<string, RecallRow>()
  const fps = new Map<string, FalsePositiveRow>()
  const docsPerLabel = new Map<string, number>()
  const misses: MissExample[] = []
  const missesPerLabel = new Map<string, number>()

  const row = (map: Map<string, RecallRow>, label: string): RecallRow => {
    let r = map.get(label)
    if (r === undefined) {
      r = { label, count: 0, tp: 0, recall: 0 }
      map.set(label, r)
    }
    return r
  }

  docs.forEach((doc, i) => {
    const decision = decisions[i] as EvalDecision
    if (decision.id !== doc.id) {
      throw new Error(`Decision ${i} is for \`${decision.id}\`, expected \`${doc.id}\`: decisions must follow the stream order.`)
    }
    docsPerLabel.set(doc.perturbation, (docsPerLabel.get(doc.perturbation) ?? 0) + 1)
    const isDuplicate = groupsSeen.has(doc.group)
    groupsSeen.add(doc.group)
    let hit = false
    if (decision.duplicateOf !== null) {
      flagged++
      const j = position.get(decision.duplicateOf)
      const other = j === undefined ? undefined : docs[j]
      hit = isDuplicate && j !== undefined && j < i && other?.group === doc.group
      if (hit) tp++
      else {
        let fp = fps.get(doc.perturbation)
        if (fp === undefined) {
          fp = { label: doc.perturbation, docs: 0, fp: 0, distinct: 0, wrongGroup: 0, examples: [] }
          fps.set(doc.perturbation, fp)
        }
        fp.fp++
        if (isDuplicate) fp.wrongGroup++
        else fp.distinct++
        if (fp.examples.length < maxExamples) {
          fp.examples.push({
            id: doc.id,
            duplicateOf: decision.duplicateOf,
            text: head(doc.content),
            otherText: other === undefined ? '(unknown id)' : head(other.content),
          })
        }
      }
    }
    if (isDuplicate) {
      trueDuplicates++
      const r = row(recall, doc.perturbation)
      r.count++
      const b = row(bucketRecall, doc.bucket ?? 'all')
      b.count++
      if (hit) {
        r.tp++
        b.tp++
      } else if ((missesPerLabel.get(doc.perturbation) ?? 0) < maxExamples) {
        missesPerLabel.set(doc.perturbation, (missesPerLabel.get(doc.perturbation) ?? 0) + 1)
        misses.push({ id: doc.id, label: doc.perturbation, text: head(doc.content) })
      }
    }
  })

  const finish = (rows: Iterable<RecallRow>): RecallRow[] =>
    [...rows].map((r) => ({ ...r, recall: r.count === 0 ? 1 : r.tp / r.count })).sort((a, b) => a.label.localeCompare(b.label))
  const precision = flagged === 0 ? 1 : tp / flagged
  const rec = trueDuplicates === 0 ? 1 : tp / trueDuplicates
  return {
    docs: docs.length,
    trueDuplicates,
    flagged,
    tp,
    fp: flagged - tp,
    fn: trueDuplicates - tp,
    precision,
    recall: rec,
    f1: precision + rec === 0 ? 0 : (2 * precision * rec) / (precision + rec),
    recallByPerturbation: finish(recall.values()),
    recallByBucket: finish(bucketRecall.values()),
    falsePositives: [...fps.values()]
      .map((r) => ({ ...r, docs: docsPerLabel.get(r.label) ?? 0 }))
      .sort((a, b) => b.fp - a.fp || a.label.localeCompare(b.label)),
    missExamples: misses,
  }
}
