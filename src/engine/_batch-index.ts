import type { FingerprintRecord } from '../types.js'
import { minhashGroupKeys } from '../fingerprint/minhash.js'
import type { ResolvedDeduplicatorOptions } from './options.js'

type IndexOptions = Pick<ResolvedDeduplicatorOptions, 'layers' | 'minhash' | 'minResemblance'>

/** What the index needs of a document or record: the fields matchCandidate compares. */
interface Keyed {
  blocks: readonly string[]
  contentHash: string
  urlHash: string | null
  titleHash: string | null
  short: boolean
  sketch?: string | null | undefined
}

/**
 * The records decided so far in one batch, indexed so that each next document is compared only
 * with those `matchCandidate` could accept, instead of with all of them (a quadratic cost that
 * grew to a sizeable share of deciding a 500-document batch). The keys are exact pre-filters,
 * one per way a pair can match: equal URL, content or title hash; an equal block (distance
 * ≤ maxDistance ≤ blocks − minMatch leaves at least one block equal); an equal group of MinHash
 * minima (see `minhashGroupKeys`). So the best match found is the one a full scan finds.
 */
export class BatchIndex {
  /** Current record of each id: a re-indexed id replaces its earlier copy. */
  private readonly current = new Map<string, FingerprintRecord>()
  private readonly postings = new Map<string, FingerprintRecord[]>()
  /** Records whose sketch gives no keys: compared with every later document. */
  private readonly unkeyed: FingerprintRecord[] = []

  constructor(private readonly o: IndexOptions) {}

  /** Adds (or replaces) a record. */
  add(record: FingerprintRecord): void {
    this.current.set(record.id, record)
    const sketchKeys = this.sketchKeys(record)
    if (sketchKeys === null) this.unkeyed.push(record)
    for (const key of this.keysOf(record, sketchKeys ?? [])) {
      const list = this.postings.get(key)
      if (list === undefined) this.postings.set(key, [record])
      else list.push(record)
    }
  }

  /** Earlier records `d` may match, each once (a superset of the matches; order is irrelevant to bestMatch). */
  candidates(d: Keyed): FingerprintRecord[] {
    const live = (r: FingerprintRecord) => this.current.get(r.id) === r
    const sketchKeys = this.sketchKeys(d)
    if (sketchKeys === null) return [...this.current.values()]
    const seen = new Set<FingerprintRecord>()
    for (const key of this.keysOf(d, sketchKeys)) {
      for (const r of this.postings.get(key) ?? []) if (live(r)) seen.add(r)
    }
    for (const r of this.unkeyed) if (live(r)) seen.add(r)
    return [...seen]
  }

  /** MinHash group keys when the MinHash route can apply to `x`; [] when it cannot; null when keys cannot tell. */
  private sketchKeys(x: Keyed): string[] | null {
    const o = this.o
    // minhashSimilarity is NaN (never a match) unless both sketches start with `m:`.
    if (!o.layers.simhash || !o.minhash || x.short || x.sketch == null || !x.sketch.startsWith('m:')) return []
    // minResemblance > 0 (validated), so null means a malformed sketch: compare it with everything.
    return minhashGroupKeys(x.sketch, o.minResemblance)
  }

  private keysOf(x: Keyed, sketchKeys: readonly string[]): string[] {
    const { layers } = this.o
    const keys: string[] = []
    if (layers.url && x.urlHash !== null) keys.push(`u:${x.urlHash}`)
    if (layers.exact) keys.push(`c:${x.contentHash}`)
    if (layers.title && x.titleHash !== null) keys.push(`t:${x.titleHash}`)
    if (layers.simhash) for (const b of x.blocks) keys.push(`b:${b}`)
    for (const k of sketchKeys) keys.push(`m:${k}`)
    return keys
  }
}
