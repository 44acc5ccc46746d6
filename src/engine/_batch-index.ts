import type { FingerprintRecord } from '../types.js'
import type { ResolvedDeduplicatorOptions } from './options.js'

type IndexOptions = Pick<ResolvedDeduplicatorOptions, 'layers' | 'minhash'>

/** What the index needs of a document or record: the fields matchCandidate compares. */
interface Keyed {
  blocks: readonly string[]
  contentHash: string
  urlHash: string | null
  titleHash: string | null
  short: boolean
  bands?: readonly string[] | undefined
}

/**
 * The records decided so far in one batch, indexed so that each next document is compared only
 * with those `matchCandidate` could accept, instead of with all of them (a quadratic cost that
 * grew to a sizeable share of deciding a 500-document batch). The keys are exact pre-filters,
 * one per way a pair can match: equal URL, content or title hash; an equal block (distance
 * ≤ maxDistance ≤ blocks − minMatch leaves at least one block equal). So for those layers the best
 * match found is the one a full scan finds. The MinHash route is what the store's is: a pair is a
 * candidate when it shares an LSH band term, so a pair's fate does not depend on whether the two
 * documents came in one batch or in two.
 */
export class BatchIndex {
  /** Current record of each id: a re-indexed id replaces its earlier copy. */
  private readonly current = new Map<string, FingerprintRecord>()
  private readonly postings = new Map<string, FingerprintRecord[]>()

  constructor(private readonly o: IndexOptions) {}

  /** Adds (or replaces) a record. */
  add(record: FingerprintRecord): void {
    this.current.set(record.id, record)
    for (const key of this.keysOf(record)) {
      const list = this.postings.get(key)
      if (list === undefined) this.postings.set(key, [record])
      else list.push(record)
    }
  }

  /** Earlier records `d` may match, each once (a superset of the matches; order is irrelevant to bestMatch). */
  candidates(d: Keyed): FingerprintRecord[] {
    const live = (r: FingerprintRecord) => this.current.get(r.id) === r
    const seen = new Set<FingerprintRecord>()
    for (const key of this.keysOf(d)) {
      for (const r of this.postings.get(key) ?? []) if (live(r)) seen.add(r)
    }
    return [...seen]
  }

  private keysOf(x: Keyed): string[] {
    const { layers, minhash } = this.o
    const keys: string[] = []
    if (layers.url && x.urlHash !== null) keys.push(`u:${x.urlHash}`)
    if (layers.exact) keys.push(`c:${x.contentHash}`)
    if (layers.title && x.titleHash !== null) keys.push(`t:${x.titleHash}`)
    if (layers.simhash) for (const b of x.blocks) keys.push(`b:${b}`)
    // Band terms exist only for non-short texts with a MinHash sketch.
    if (layers.simhash && minhash && !x.short && x.bands !== undefined) for (const b of x.bands) keys.push(`m:${b}`)
    return keys
  }
}
