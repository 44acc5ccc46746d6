import type { CandidateQuery, FingerprintRecord, PutResult } from '../types.js'

/**
 * How many records `candidates` returns at most through one exact key (content, URL, title hash)
 * and through one MinHash band term: the newest (by first-insertion order) that pass the query's
 * filters. `Infinity` when a route is not bounded. The deduplicator applies the same bounds to the
 * union of a lookup's stored and in-batch candidates, so a decision never depends on which of
 * them were in the same batch (a re-run with other batch sizes decides the same).
 */
export interface CandidateBounds {
  readonly perKey: number
  /** Without `perCluster`: records per band term (the newest). With it: clusters per band term (see `perCluster`). */
  readonly perBand: number
  /**
   * Bounds by cluster (`FingerprintRecord.clusterId`), so that a cluster of thousands of copies
   * costs a lookup no more than a small one and never crowds another cluster out: the block
   * route keeps, of each cluster, its `perCluster` records nearest to the query (then first
   * indexed first); a band term keeps the `perBand` clusters first indexed first among its records
   * (by their first such record), and of each its `perCluster` records first indexed first.
   * Unset: no bound on the block route, and the newest `perBand` records per band term.
   * (docs/DESIGN.md, "Bounds": why a bound then changes only which member of a cluster is named.)
   */
  readonly perCluster?: number
  /**
   * Set by a store whose block route returns every record within the query's `maxDistance` that
   * shares `minMatch` blocks, up to this many (the nearest), and answers a query of band terms
   * alone (no keys, no blocks) with exactly the records its band route adds to a full query. The
   * deduplicator then looks band terms up only for the documents whose other candidates leave
   * the MinHash route a say (`Deduplicator.decide`): one lookup more for those, none of the band
   * route's reads for the rest. Unset: one lookup with everything.
   */
  readonly blockRoute?: number
}

/**
 * The block scheme a store asks for (see `BlockScheme` in fingerprint/blocks.ts). The block count is
 * fixed per store: lookups cut into another count share no block term with its records, so the
 * block route would find none of them. `fixed`: the store holds records cut into `blocks` blocks
 * (read on open), and a deduplicator with another count is refused; otherwise `blocks` and
 * `minMatch` are only the backend's default for a new store.
 */
export interface StoreBlockScheme {
  readonly blocks: number
  readonly minMatch: number
  readonly fixed: boolean
}

/** What `FingerprintStore.stage` resolves with: the put's result, and when its records are committed. */
export interface StagedPut {
  result: PutResult
  /** Resolves once the records are durable; rejects if the store fails to commit them. */
  durable: Promise<void>
}

/**
 * Where fingerprints live. Two backends implement it (memory with an append-only log, and
 * Elasticsearch) and pass one contract suite (test/store/contract.ts).
 *
 * Every call is async and batched on purpose: one `_msearch` / bulk round trip per batch.
 */
export interface FingerprintStore {
  /** The store's candidate bounds (see `CandidateBounds`). */
  readonly candidateBounds: CandidateBounds
  /**
   * The block scheme this store's records use or its backend prefers; a deduplicator given none
   * takes it. Absent: the deduplicator's own default, never refused (the embedded store).
   */
  readonly blockScheme?: StoreBlockScheme
  /** Insert or replace (same id) records. Resolves once they are durable / acknowledged. */
  put(records: readonly FingerprintRecord[]): Promise<PutResult>
  /**
   * Optional: `put` in two steps (pipelined group commit). Resolves once every later call of this
   * process sees the records, with `durable`, which resolves once they are committed (what `put`
   * waits for); nothing may be acknowledged before it. The embedded store has it.
   */
  stage?(records: readonly FingerprintRecord[]): Promise<StagedPut>
  /**
   * For each query, the live records that share its content/url/title hash or at least
   * `minMatch` of its blocks (and pass the popcount and time filters). Unverified: the caller
   * checks the distance. Order within one answer is unspecified.
   */
  candidates(queries: readonly CandidateQuery[]): Promise<FingerprintRecord[][]>
  /**
   * First-insertion sequence numbers for records about to be put, one per id in order: an id the
   * store holds keeps its stored number; any other id gets a fresh one, above every number the
   * store holds or handed out before (a repeated id gets its first one). `fresh`: every id gets a
   * fresh number (a job that imposes its own order, e.g. reindex).
   */
  sequence(ids: readonly string[], options?: { fresh?: boolean }): Promise<number[]>
  /** Records by id (missing ids are absent from the result). */
  get(ids: readonly string[]): Promise<Map<string, FingerprintRecord>>
  /**
   * For each URL hash (`FingerprintRecord.urlHash`), the live records with it, first indexed last
   * first (`seq` descending, then id descending), at most `limit` each (default 1000): the versions
   * of one page, the newest first. The newest version of a URL is `byUrl([hash], 1)[0][0]`.
   */
  byUrl(urlHashes: readonly string[], limit?: number): Promise<FingerprintRecord[][]>
  /** Members of a cluster (including its representative). */
  members(clusterId: string, limit?: number): Promise<FingerprintRecord[]>
  /** How many live records the cluster has (its representative included): `members` without a limit, counted. */
  clusterSize(clusterId: string): Promise<number>
  delete(ids: readonly string[]): Promise<void>
  /** Every live record, in batches of at most `batchSize` (reconcile, inspection, export). */
  scan(batchSize?: number): AsyncIterable<FingerprintRecord[]>
  /** The largest clusters by member count, largest first (ties: smaller cluster id first). */
  topClusters(limit: number, minSize?: number): Promise<{ clusterId: string; size: number }[]>
  /** Number of live records. */
  count(): Promise<number>
  /**
   * The distinct fingerprint versions (`FingerprintRecord.version`) of the live records, sorted.
   * Records of different versions are never compared, so a deduplicator refuses a store that
   * holds another version than its own (see `DeduplicatorOptions.versionCheck`).
   */
  versions(): Promise<string[]>
  /** Make every put visible to `candidates` (a no-op for the memory store). */
  refresh(): Promise<void>
  close(): Promise<void>
}
