import type { FingerprintRecord } from '../types.js'
import type { ResolvedDeduplicatorOptions } from './options.js'
import { isGramTerm } from '../fingerprint/short-grams.js'

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
  /** Records by URL, content and title hash, block term and band term: one map per kind, keyed by the value itself (no key string built per lookup). */
  private readonly postings = [new Map<string, FingerprintRecord[]>(), new Map<string, FingerprintRecord[]>(), new Map<string, FingerprintRecord[]>(), new Map<string, FingerprintRecord[]>(), new Map<string, FingerprintRecord[]>()] as const
  /** The record being added (`file`'s target). */
  private adding: FingerprintRecord | null = null
  /** The records found for the document being looked up (`gather`'s target). */
  private found = new Set<FingerprintRecord>()

  constructor(private readonly o: IndexOptions) {}

  /** Adds (or replaces) a record. */
  add(record: FingerprintRecord): void {
    this.current.set(record.id, record)
    this.adding = record
    this.forEachKey(record, this.file)
    this.adding = null
  }

  /** Earlier records `d` may match, each once (a superset of the matches; order is irrelevant to bestMatch). */
  candidates(d: Keyed): FingerprintRecord[] {
    this.found = new Set<FingerprintRecord>()
    this.forEachKey(d, this.gather)
    return [...this.found]
  }

  private readonly file = (map: Map<string, FingerprintRecord[]>, key: string): void => {
    const list = map.get(key)
    if (list === undefined) map.set(key, [this.adding!])
    else list.push(this.adding!)
  }

  private readonly gather = (map: Map<string, FingerprintRecord[]>, key: string): void => {
    const list = map.get(key)
    if (list === undefined) return
    for (const r of list) if (this.current.get(r.id) === r) this.found.add(r)
  }

  /** Calls `visit` with the map and key of each way `x` can match: one per enabled layer's key, block and band term. */
  private forEachKey(x: Keyed, visit: (map: Map<string, FingerprintRecord[]>, key: string) => void): void {
    const { layers, minhash } = this.o
    const [urls, contents, titles, blocks, bands] = this.postings
    if (layers.url && x.urlHash !== null) visit(urls, x.urlHash)
    if (layers.exact) visit(contents, x.contentHash)
    if (layers.title && x.titleHash !== null) visit(titles, x.titleHash)
    if (layers.simhash) for (const b of x.blocks) visit(blocks, b)
    // Band terms: MinHash bands of a long text (when that route is on), prefix-filter terms of a short one.
    if (layers.simhash && x.bands !== undefined) for (const b of x.bands) if (minhash || isGramTerm(b)) visit(bands, b)
  }
}
