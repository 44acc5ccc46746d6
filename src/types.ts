/**
 * Shared vocabulary. A **fingerprint** is the 64-bit SimHash, held as two unsigned 32-bit halves
 * (never a JS number: JSON rounds above 2^53; never a bigint in hot loops: ~10× slower).
 * A **block** is one position-tagged part of it, a **candidate** shares enough blocks but is not
 * yet verified, a **duplicate** is a candidate within `maxDistance` (Hamming distance).
 */
export interface Fingerprint {
  /** bits 63..32, unsigned */
  readonly hi: number
  /** bits 31..0, unsigned */
  readonly lo: number
}

/** Which layer decided a duplicate. */
export type Layer = 'url' | 'exact' | 'simhash' | 'title'

/**
 * Which rule decided a near-duplicate: SimHash within k, the short-text rule (exact bigram-set
 * Jaccard for texts of at most 150 content characters, term-set Jaccard within k for longer short
 * ones), containment (the shorter short text's bigrams nearly all in the longer's), or the
 * MinHash route (estimated shingle resemblance) for edits that push SimHash past k.
 */
export type Rule = 'simhash' | 'short-text' | 'containment' | 'minhash'

/** What the store keeps per document: everything a later lookup needs to decide against it. */
export interface FingerprintRecord {
  id: string
  fingerprint: Fingerprint
  /** Position-tagged block terms, e.g. `["0_3fa2","1_0b11","2_9c00","3_ffe1"]`. */
  blocks: readonly string[]
  /** 16-hex hash of the normalised content (exact layer). */
  contentHash: string
  /** 16-hex hash of the canonical URL, or null when the document had none. */
  urlHash: string | null
  /** 16-hex hash of the normalised title, or null when absent or generic. */
  titleHash: string | null
  /** The document was judged short / low-information: only the strict rule may match it. */
  short: boolean
  /** Id of the cluster's representative (its first-seen member). */
  clusterId: string
  duplicateOf: string | null
  distance: number | null
  layer: Layer | null
  /**
   * The rule of a simhash-layer duplicate (see `Decision.rule`), kept where the store has a field
   * for it (Elasticsearch's `dedup.rule`, for Kibana); absent otherwise (the embedded store keeps
   * the layer only; `matchCandidate` against `duplicateOf` gives it again).
   */
  rule?: Rule
  /** Fingerprint version string: records of another version are not comparable. */
  version: string
  /** Milliseconds since the epoch (time of the last write). */
  indexedAt: number
  /**
   * First-insertion sequence number: given by the store when the id is first put, kept when it is
   * put again. "Earlier" means a smaller `seq` (ties: smaller id): a record only ever matches
   * records first indexed before it. Set on every record a store returns; on `put`, absent means
   * "keep the stored number, or take a fresh one".
   */
  seq?: number
  /** Verification features (opaque to the store): a term set (`t:`) or MinHash minima (`m:`). */
  sketch?: string
  /** LSH band terms (second candidate route), e.g. `["m0_1a2b3c4d", …]`; absent for short texts. */
  bands?: readonly string[]
  /**
   * Id of the record this one is a new version of: the record of the same URL key first indexed
   * just before it, when their contents do not agree (see `Decision.supersedes`). Absent when
   * there is none, and in records written before simdup stored it (`reconcile` adds it).
   */
  supersedes?: string
  /**
   * Set on a stand-in a store returned for a band-route record that `CandidateQuery.bandCheck`
   * rules out: only `id`, `fingerprint`, `version`, `indexedAt`, `seq` and `bands` (the query's
   * band terms it has, no others) are the record's; it has no keys (`contentHash` is empty), no
   * sketch and no blocks, so it verifies against nothing. It still counts where a band term's
   * bound counts records (engine/_bounds.ts).
   */
  partial?: true
}

/** One lookup: records sharing a key, or at least `minMatch` of `blocks`, are returned. */
export interface CandidateQuery {
  fingerprint: Fingerprint
  blocks: readonly string[]
  /** Blocks that must be equal (m − k for m blocks and distance k). */
  minMatch: number
  /** Largest distance asked for: lets a store prune by popcount (|Δpopcount| ≤ maxDistance). */
  maxDistance: number
  contentHash?: string | null
  urlHash?: string | null
  titleHash?: string | null
  /** Only records indexed at or after this time (ms since epoch). */
  since?: number
  /** Never return this id (the document being re-indexed). */
  excludeId?: string
  /** Only records whose `seq` is at most this (first indexed no later than the document being decided). */
  maxSeq?: number
  /** Second route: records sharing ANY of these band terms are candidates too (no popcount filter). */
  bands?: readonly string[]
  /**
   * Every record sharing a band term, without the store's per-term bound (`CandidateBounds`):
   * for maintenance passes (reconcile) that pick the newest by `seq` themselves. @default false
   */
  allBands?: boolean
  /**
   * Every record of every route, without any of the store's bounds (`CandidateBounds`): asked
   * when a decision on bounded candidates could differ from the unbounded one in cluster or in
   * duplicate/unique (`exactUnderCuts`). Implies `allBands`. @default false
   */
  exhaustive?: boolean
  /**
   * Ids whose records the caller already holds (from an earlier lookup of this document): a store
   * may leave them out of the answer. They still count towards every bound, as if returned.
   */
  known?: readonly string[]
  /**
   * Lets a store answer a record its band route alone brings, and that cannot verify against the
   * document, with a stand-in (`FingerprintRecord.partial`) instead of the whole record: its
   * fingerprint farther than `maxDistance`, no key equal to the document's, and a sketch with the
   * document's prefix and length that differs from it in more than `maxDiffer` bits. A store may
   * ignore it (the embedded store applies it).
   */
  bandCheck?: BandCheck
}

/** What `CandidateQuery.bandCheck` compares a band-route record with: the document's keys and sketch. */
export interface BandCheck {
  contentHash: string | null
  urlHash: string | null
  titleHash: string | null
  /** The document's sketch: a letter, `:`, then an even number of lower-case hex digits. */
  sketch: string
  /** Leading hex digits (after `x:`) left out of the comparison (the `m:` sketch's shingle count). */
  skipDigits: number
  /** Most bits of the compared digits in which a record's sketch may differ and still verify. */
  maxDiffer: number
}

/** What `FingerprintStore.put` resolves with: how many records it wrote, and the ones it did not, each with why. */
export interface PutResult {
  /** Ids written durably. */
  written: number
  /** Per-record failures; the rest were written. */
  failed: { id: string; error: Error }[]
}

/** A document as it comes in. */
export interface InputDocument {
  id: string
  content: string
  url?: string | null
  title?: string | null
}

/** One decision per document, in input order. Serialised with snake_case keys as JSONL. */
export interface Decision {
  id: string | null
  line: number | null
  status: 'unique' | 'duplicate' | 'rejected'
  duplicateOf: string | null
  distance: number | null
  layer: Layer | null
  clusterId: string | null
  simhash: string | null
  reason: string | null
  /** Which rule decided a simhash-layer duplicate, or which would have (short texts). */
  rule: Rule | null
  /**
   * The rule's similarity evidence: bigram-set (or, for longer short texts, term-set) Jaccard (rule
   * short-text), bigram containment (rule containment) or estimated 5-gram resemblance (rule minhash); else null.
   */
  resemblance: number | null
  /**
   * Present when the document has the URL of an earlier record whose content it does not share:
   * it is a new version of that page (the newest earlier one), not a duplicate. Additive: absent
   * otherwise.
   */
  supersedes?: string
}
