import { stat } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import type { CandidateQuery, FingerprintRecord, PutResult } from '../../types.js'
import { DedupError, describeValue, integerOption } from '../../errors.js'
import { OPTION_LIMITS } from '../../engine/options.js'
import type { CandidateBounds, FingerprintStore, StagedPut } from '../store.js'
import { LayoutRegistry } from './_block-layout.js'
import { deletePayloads, putPayloads } from './_payloads.js'
import { acquireLock, type DirLock } from '../lock.js'
import { LOG_FILE } from './_log-format.js'
import { LogFile } from './_log-file.js'
import { checkLog, truncateLog, type LogCheck } from './_log-repair.js'
import type { PayloadSink, ReplayResult } from './_replay.js'
import { missingLogError } from './_store-dir.js'
import { LogReader } from './_log-reader.js'
import { answerQueries } from './_answer.js'
import { Tables, type CandidateLimits, type TableBytes } from './_tables.js'
import { damageReport, type LogDamageReport, type MemoryStoreCheck } from './_damage-report.js'
import { createAndLock } from './_open-dir.js'
import { rebuildFrames } from './_rebuild.js'
import { MAX_SEQ, checkIds, checkQuery, checkUrlQuery, newestFirst } from '../validate.js'
import { hexHi, hexLo } from './_bytes.js'
import { VersionRegistry } from './_versions.js'

export type { TableBytes } from './_tables.js'
export type { LogDamageReport, MemoryStoreCheck } from './_damage-report.js'

/** Options of the embedded store. */
export interface MemoryStoreOptions {
  /**
   * Directory of the append-only log (created if absent); omit for a purely in-memory store. With
   * a directory, record payloads stay in the log and are read back for the rows a call returns.
   */
  dir?: string
  /** fdatasync every batch before `put`/`delete` resolve; off trades durability for speed. @default true */
  fsync?: boolean
  /**
   * Open `dir` for reading only: no lock, no directory or log created, a torn tail reported in
   * `stats().damage` but left in the file, no compaction; works on a read-only filesystem. The
   * store must exist (else NOT_FOUND); `put`, `delete` and `compact` throw STORE_UNAVAILABLE. A
   * writer appending meanwhile is not seen. @default false
   */
  readOnly?: boolean
  /**
   * Create the store when `dir` holds none. False for commands that only change an existing store
   * (delete, reconcile): a mistyped path is NOT_FOUND instead of a new, empty store. @default true
   */
  create?: boolean
  /** Most records one exact key (content, URL or title hash) adds to an answer (1 or more). @default 16 */
  maxPerKey?: number
  /**
   * Most records the block route (and, separately, the band route) adds to one answer (1 or
   * more). Past it the block route keeps the nearest by Hamming distance. At 10 M records four
   * 16-bit blocks give ~320 block candidates per lookup. @default 4096
   */
  maxBlockCandidates?: number
  /**
   * Most records one MinHash band term adds to an answer (1 or more): the newest that have it.
   * Documents that share content (a reposted paragraph, a cluster of copies) share band terms, so
   * without a bound a term's records, and the cost of every lookup that has it, grow with the
   * store. Past the bound the older records of the term are not returned by it (another shared
   * term, a block or a key may still return them). @default 4
   */
  maxPerBand?: number
  /**
   * Bounds by cluster (see `CandidateBounds.perCluster`): most records of one cluster the block
   * route adds to an answer (those nearest to the query) and one band term adds (those first
   * indexed first); `maxPerBand` then counts a term's clusters. A cluster of thousands of copies
   * then costs a lookup what a small one does, and never crowds another cluster out of a term.
   * 0: no bound by cluster (`maxPerBand` counts a term's newest records). The Elasticsearch store's
   * default too, so that both stores decide identically. @default 2 (range 0–1000)
   */
  maxPerCluster?: number
  /**
   * Drop block-route records farther than the query's `maxDistance` (key and band routes are
   * unaffected). On by default: the store does the XOR/popcount check the caller would do anyway
   * (the contract allows a store to prune what cannot verify), and at 10 M records a lookup
   * returns the few near records instead of ~320 (≈ 6× the lookups per CPU-second). @default true
   */
  filterBlockDistance?: boolean
  /**
   * Slots of the cache of log entries read back at random (512 bytes each; 0: none). Lookups on
   * shared content return the same recent records again and again; the cache serves them without
   * a read of the log. @default 32768 (16 MiB, allocated on the first read back)
   */
  entryCache?: number
}

/** `maxPerCluster`: a whole number, 0 for none (undefined). */
function perClusterOption(value: number | undefined): number | undefined {
  const n = integerOption('maxPerCluster', value ?? DEFAULT_MEMORY_STORE_OPTIONS.maxPerCluster, OPTION_LIMITS.maxPerCluster.min, OPTION_LIMITS.maxPerCluster.max)
  return n === 0 ? undefined : n
}

/** Defaults of `MemoryStoreOptions`. */
export const DEFAULT_MEMORY_STORE_OPTIONS = Object.freeze({ fsync: true, readOnly: false, maxPerKey: 16, maxBlockCandidates: 4096, maxPerBand: 4, maxPerCluster: OPTION_LIMITS.maxPerCluster.default, filterBlockDistance: true })

/** Default `limit` of `members`. */
const DEFAULT_MEMBERS_LIMIT = 1000
/** Default `batchSize` of `scan`. */
const DEFAULT_SCAN_BATCH = 1000
/** Default `minSize` of `topClusters`: clusters that hold at least one duplicate. */
const DEFAULT_MIN_CLUSTER_SIZE = 2
/** Rebuild once dead rows outnumber live ones and this many are dead. */
const AUTO_COMPACT_MIN_DEAD = 1 << 16

/** Size and health figures of a memory store. */
export interface MemoryStoreStats {
  /** Live records. */
  live: number
  /** Rows of replaced or deleted records not yet compacted away. */
  dead: number
  /** Bytes held in typed arrays and the string arena (excludes the JS heap's term dictionary). */
  tableBytes: number
  /** `tableBytes` by part: fingerprints, row columns, payloads, ids, exact keys, blocks, bands. */
  tableParts: TableBytes
  /** Log size in bytes (0 without a directory). */
  logBytes: number
  /** Record and delete entries in the log. */
  logEntries: number
  /** Bytes of a torn tail cut off when the log was opened. */
  truncatedOnOpen: number
  /** What of the log was not read on open (a torn tail), or null when all of it was. */
  damage: LogDamageReport | null
}

/**
 * The embedded fingerprint store: columnar in-memory tables, optionally backed by an append-only,
 * crash-safe log in a directory (see `openMemoryStore`). With a directory, records are read back
 * from the log and RAM holds the indexes: about 48 bytes a record at 10 M records (heap +
 * external), 84 with MinHash sketches and 8 band terms (`node --expose-gc --import tsx
 * scripts/bench-store.ts --n 10000000 --dir DIR --no-fsync [--no-minhash]`). Without one, records
 * stay in RAM (about 80 and 145 bytes). Each figure has grown by 4 bytes a record since: the
 * 32-bit `seq` column (not re-measured).
 *
 * @example
 * const store = await openMemoryStore()           // in memory only; `{ dir }` for a persistent one
 * await store.put([record])
 * const [found] = await store.candidates([{ fingerprint, blocks, minMatch: 1, maxDistance: 3 }])
 */
export class MemoryStore implements FingerprintStore {
  private readonly layouts = new LayoutRegistry()
  private readonly registry = new VersionRegistry()
  private tables: Tables
  private readonly limits: CandidateLimits
  /** `entryCache` (undefined: LogReader's default). */
  private readonly entryCache: number | undefined
  private log: LogFile | null = null
  private lock: DirLock | null = null
  private dir: string | null = null
  private closed = false
  private logEntries = 0
  private truncatedOnOpen = 0
  private damage: LogDamageReport | null = null
  private readOnly = false
  private logBytes = 0
  private compactQueued = false
  /** Largest `seq` handed out by `sequence` or `put` (fresh numbers start above it and the tables' largest). */
  private handedSeq = 0

  get candidateBounds(): CandidateBounds {
    const l = this.limits
    return l.maxPerCluster === undefined
      ? { perKey: l.maxPerKey, perBand: l.maxPerBand, blockRoute: l.maxBlockCandidates }
      : { perKey: l.maxPerKey, perBand: l.maxPerBand, perCluster: l.maxPerCluster, blockRoute: l.maxBlockCandidates }
  }

  /** An in-memory store; use `openMemoryStore({ dir })` for a persistent one. */
  constructor(options: Omit<MemoryStoreOptions, 'dir' | 'fsync' | 'readOnly'> = {}) {
    if ((options as MemoryStoreOptions).dir !== undefined) {
      throw new DedupError('INVALID_OPTION', 'Expected no `dir` for `new MemoryStore()`; use `await openMemoryStore({ dir })` for a persistent store.')
    }
    this.limits = Object.freeze({
      maxPerKey: integerOption('maxPerKey', options.maxPerKey ?? DEFAULT_MEMORY_STORE_OPTIONS.maxPerKey, 1),
      maxBlockCandidates: integerOption('maxBlockCandidates', options.maxBlockCandidates ?? DEFAULT_MEMORY_STORE_OPTIONS.maxBlockCandidates, 1),
      maxPerBand: integerOption('maxPerBand', options.maxPerBand ?? DEFAULT_MEMORY_STORE_OPTIONS.maxPerBand, 1),
      maxPerCluster: perClusterOption(options.maxPerCluster),
      filterBlockDistance: options.filterBlockDistance ?? DEFAULT_MEMORY_STORE_OPTIONS.filterBlockDistance,
    })
    if (typeof this.limits.filterBlockDistance !== 'boolean') {
      throw new DedupError('INVALID_OPTION', `Expected \`filterBlockDistance\` to be a boolean, got ${describeValue(this.limits.filterBlockDistance)}.`)
    }
    this.entryCache = options.entryCache === undefined ? undefined : integerOption('entryCache', options.entryCache, 0)
    this.tables = new Tables(this.layouts, this.registry)
  }

  /** A reader of the log in `dir`, with this store's entry cache. */
  private logReader(dir: string): LogReader {
    return new LogReader(join(dir, LOG_FILE), this.entryCache)
  }

  /** Opens `options.dir` (lock, replay, compaction if half the log is dead). Prefer `openMemoryStore`. */
  static async open(options: MemoryStoreOptions = {}): Promise<MemoryStore> {
    const { dir, fsync, readOnly, create, ...rest } = options
    const store = new MemoryStore(rest)
    if (dir === undefined) return store
    if (typeof dir !== 'string' || dir.length === 0) throw new DedupError('INVALID_OPTION', `Expected \`dir\` to be a directory path, got ${describeValue(dir)}.`)
    if (fsync !== undefined && typeof fsync !== 'boolean') throw new DedupError('INVALID_OPTION', `Expected \`fsync\` to be a boolean, got ${describeValue(fsync)}.`)
    if (readOnly !== undefined && typeof readOnly !== 'boolean') throw new DedupError('INVALID_OPTION', `Expected \`readOnly\` to be a boolean, got ${describeValue(readOnly)}.`)
    if (create !== undefined && typeof create !== 'boolean') throw new DedupError('INVALID_OPTION', `Expected \`create\` to be a boolean, got ${describeValue(create)}.`)
    if (create === false && readOnly !== true) await MemoryStore.mustExist(resolve(dir))
    if (readOnly === true) await store.attachReadOnly(resolve(dir))
    else await store.attach(resolve(dir), fsync ?? DEFAULT_MEMORY_STORE_OPTIONS.fsync)
    return store
  }

  /** NOT_FOUND (or why the directory is no store) unless `dir` holds a store's log. */
  private static async mustExist(dir: string): Promise<void> {
    if (await stat(join(dir, LOG_FILE)).then(() => true, () => false)) return
    throw (await missingLogError(dir, true)) ?? new DedupError('NOT_FOUND', `There is no simdup store in ${dir}: it ${(await stat(dir).then(() => true, () => false)) ? 'is empty' : 'does not exist'}.`)
  }

  /**
   * Reads the log of `dir` without writing anything and reports what is past its valid prefix (a
   * torn tail, or a damaged frame and all after it). Throws NOT_FOUND when there is no store.
   */
  static async check(dir: string): Promise<MemoryStoreCheck> {
    return (await MemoryStore.checkWithLog(dir)).check
  }

  private static async checkWithLog(dir: string): Promise<{ check: MemoryStoreCheck; log: LogCheck }> {
    const abs = resolve(dir)
    const { store, result: found } = await MemoryStore.sameFile(abs, (s) => checkLog(abs, s.sink()))
    try {
      return { check: { dir: abs, fileBytes: found.fileBytes, validBytes: found.validBytes, records: store.tables.live, damage: damageReport(abs, found.damage, false) }, log: found }
    } finally {
      store.tables.reader?.retire()
    }
  }

  /**
   * Replays the log of `dir` with `replay` into a new store whose reader reads the very file
   * replayed: a compaction renaming a new log in between would give the tables offsets into one
   * file and reads from another (false STORE_CORRUPT, wrong records). Retries until both are one.
   */
  private static async sameFile<R extends { inode: string }>(dir: string, replay: (store: MemoryStore) => Promise<R>, options: Omit<MemoryStoreOptions, 'dir' | 'fsync' | 'readOnly'> = {}): Promise<{ store: MemoryStore; result: R }> {
    for (let attempt = 0; ; attempt++) {
      const store = new MemoryStore(options)
      const reader = store.logReader(dir)
      store.tables = new Tables(store.layouts, store.registry, reader)
      try {
        // The reader's file first: the replay then opens the same one or a newer one.
        let mine: string | null = null
        try {
          mine = reader.inode()
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        }
        const result = await replay(store)
        if (mine === result.inode || attempt >= 8) {
          if (mine !== result.inode) throw new DedupError('STORE_UNAVAILABLE', `The log in ${dir} kept being replaced while it was read (a compaction?); try again.`)
          return { store, result }
        }
      } catch (err) {
        reader.retire()
        throw err
      }
      reader.retire()
    }
  }

  /**
   * `check`, then, if the log is damaged, keeps its valid prefix: copies the whole log to
   * `store.log.before-repair-<time>` and cuts the log after the prefix. Takes the write lock.
   */
  static async repair(dir: string): Promise<MemoryStoreCheck> {
    const abs = resolve(dir)
    await MemoryStore.check(abs) // NOT_FOUND before any lock file is written
    const lock = await acquireLock(abs).catch((err: unknown) => {
      if (err instanceof DedupError) throw err
      throw new DedupError('STORE_UNAVAILABLE', `Cannot repair the store in ${abs}: ${(err as Error).message}`, { cause: err })
    })
    try {
      const { check: found, log } = await MemoryStore.checkWithLog(abs)
      if (found.damage === null) return found
      const backup = await truncateLog(abs, log)
      return { ...found, damage: { ...found.damage, cut: true, savedTo: backup } }
    } finally {
      await lock.release()
    }
  }

  /** The replay sink: applies a payload (an entry it cannot read is STORE_CORRUPT at its offset in the log). */
  private sink(): PayloadSink {
    return (buf, start, end, fileOffset) => this.applyPayload(buf, start, end, fileOffset)
  }

  private async attachReadOnly(dir: string): Promise<void> {
    this.tables = new Tables(this.layouts, this.registry, this.logReader(dir))
    try {
      const logSize = await stat(join(dir, LOG_FILE)).then((s) => s.size, () => 0)
      let replay: ReplayResult | null = null
      for (let attempt = 0; replay === null; attempt++) {
        // The reader must read the file replayed (see `sameFile`); a compaction may rename a new one in between.
        this.tables.reader?.retire()
        this.tables = new Tables(this.layouts, this.registry, this.logReader(dir))
        this.tables.reserve(Math.ceil(logSize / 80))
        this.logEntries = 0
        let mine: string | null = null
        try {
          mine = this.tables.reader!.inode()
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
        }
        const got = await LogFile.read(dir, this.sink())
        if (got.inode === mine) replay = got
        else if (attempt >= 8) throw new DedupError('STORE_UNAVAILABLE', `The log in ${dir} kept being replaced while it was read (a compaction?); try again.`)
      }
      this.dir = dir
      this.readOnly = true
      this.logBytes = replay.size
      this.damage = damageReport(dir, replay.damage, false)
    } catch (err) {
      this.tables.reader?.retire()
      if (err instanceof DedupError) throw err
      throw new DedupError('STORE_UNAVAILABLE', `Cannot open the store in ${dir}: ${(err as Error).message}`, { cause: err })
    }
  }

  private async attach(dir: string, fsync: boolean): Promise<void> {
    const lock = await createAndLock(dir)
    try {
      // Payloads stay in the log and are read back from it (see Tables).
      this.tables = new Tables(this.layouts, this.registry, this.logReader(dir))
      // Size the indexes from the log (~80 bytes a record) so replay does not relink them as they grow.
      const logSize = await stat(join(dir, LOG_FILE)).then((s) => s.size, () => 0)
      this.tables.reserve(Math.ceil(logSize / 80))
      const { log, replay } = await LogFile.open(dir, fsync, this.sink())
      this.log = log
      this.lock = lock
      this.dir = dir
      this.truncatedOnOpen = replay.truncated
      this.damage = damageReport(dir, replay.damage, replay.truncated > 0)
      this.compactQueued = false
      if (this.logEntries - this.tables.live > this.logEntries / 2) await this.compact()
    } catch (err) {
      await this.log?.close()
      this.tables.reader?.retire()
      this.log = null
      this.lock = null
      await lock.release()
      if (err instanceof DedupError) throw err
      throw new DedupError('STORE_UNAVAILABLE', `Cannot open the store in ${dir}: ${(err as Error).message}`, { cause: err })
    }
  }

  async put(records: readonly FingerprintRecord[]): Promise<PutResult> {
    const staged = await this.stage(records)
    await staged.durable
    return staged.result
  }

  /**
   * `put` in two steps, for a writer that decides its next batch while this one is synced
   * (pipelined group commit): resolves once the records are written to the log (not yet synced)
   * and applied, so that every later call of this process sees them, with `durable`, which
   * resolves once they are committed (what `put` waits for). Acknowledge nothing before `durable`.
   */
  async stage(records: readonly FingerprintRecord[]): Promise<StagedPut> {
    this.checkWritable()
    if (!Array.isArray(records)) throw new DedupError('INVALID_OPTION', `Expected \`records\` to be an array, got ${describeValue(records)}.`)
    const { payloads, written, failed } = putPayloads(records, this.tables, this.layouts, this.registry, () => this.freshSeq())
    const { durable } = payloads.length > 0 ? await this.commit(payloads) : { durable: Promise.resolve() }
    return { result: { written, failed }, durable }
  }

  async candidates(queries: readonly CandidateQuery[]): Promise<FingerprintRecord[][]> {
    this.checkOpen()
    if (!Array.isArray(queries)) throw new DedupError('INVALID_OPTION', `Expected \`queries\` to be an array, got ${describeValue(queries)}.`)
    queries.forEach(checkQuery)
    return answerQueries(this.tables, this.limits, queries)
  }

  async sequence(ids: readonly string[], options: { fresh?: boolean } = {}): Promise<number[]> {
    this.checkOpen()
    const first = new Map<string, number>()
    return checkIds(ids).map((id) => {
      let seq = first.get(id)
      if (seq !== undefined) return seq
      const row = options.fresh === true ? -1 : this.tables.rowOf(id)
      seq = row >= 0 ? this.tables.seqOf(row) : this.freshSeq()
      first.set(id, seq)
      return seq
    })
  }

  /** A number above every `seq` the store holds or handed out. */
  private freshSeq(): number {
    const seq = Math.max(this.handedSeq, this.tables.maxSeq) + 1
    if (seq > MAX_SEQ) throw new DedupError('STORE_REQUEST_FAILED', `The store has handed out ${MAX_SEQ} sequence numbers, its limit; re-index into a new directory.`)
    this.handedSeq = seq
    return seq
  }

  async get(ids: readonly string[]): Promise<Map<string, FingerprintRecord>> {
    this.checkOpen()
    const out = new Map<string, FingerprintRecord>()
    for (const id of checkIds(ids)) {
      const row = this.tables.rowOf(id)
      if (row >= 0) out.set(id, this.tables.record(row))
    }
    return out
  }

  async byUrl(urlHashes: readonly string[], limit = DEFAULT_MEMBERS_LIMIT): Promise<FingerprintRecord[][]> {
    this.checkOpen()
    checkUrlQuery(urlHashes, limit)
    const tables = this.tables
    return urlHashes.map((hash) => {
      const rows: number[] = []
      tables.urlRows(hexHi(hash), hexLo(hash), rows)
      // Rows are in write order; a re-put record keeps its first number, so sort by it.
      const records = [...tables.records(rows).values()].sort(newestFirst)
      return records.slice(0, limit)
    })
  }

  async members(clusterId: string, limit = DEFAULT_MEMBERS_LIMIT): Promise<FingerprintRecord[]> {
    this.checkOpen()
    if (typeof clusterId !== 'string') throw new DedupError('INVALID_OPTION', `Expected \`clusterId\` to be a string, got ${describeValue(clusterId)}.`)
    if (!Number.isInteger(limit) || limit < 0) throw new DedupError('INVALID_OPTION', `Expected \`limit\` to be an integer ≥ 0, got ${describeValue(limit)}.`)
    return this.tables.members(clusterId, limit).map((row) => this.tables.record(row))
  }

  async clusterSize(clusterId: string): Promise<number> {
    this.checkOpen()
    if (typeof clusterId !== 'string') throw new DedupError('INVALID_OPTION', `Expected \`clusterId\` to be a string, got ${describeValue(clusterId)}.`)
    return this.tables.members(clusterId, Number.MAX_SAFE_INTEGER).length
  }

  async delete(ids: readonly string[]): Promise<void> {
    this.checkWritable()
    const unique = [...new Set(checkIds(ids))].filter((id) => id.length > 0)
    if (unique.length === 0) return
    await (await this.commit(deletePayloads(unique))).durable
  }

  /**
   * Every live record, in batches of at most `batchSize`, oldest row first. Reads the tables as
   * they were when the scan started if a compaction swaps them meanwhile.
   */
  async *scan(batchSize = DEFAULT_SCAN_BATCH): AsyncIterable<FingerprintRecord[]> {
    this.checkOpen()
    if (!Number.isInteger(batchSize) || batchSize < 1) throw new DedupError('INVALID_OPTION', `Expected \`batchSize\` to be an integer ≥ 1, got ${describeValue(batchSize)}.`)
    const tables = this.tables
    // Rebuilding keys from this snapshot costs 2 bytes a row per key index while the scan runs,
    // and spares a walk of every row's chains.
    const tops = tables.keyTops()
    // Keeps the log these tables read from open if compaction replaces it meanwhile.
    tables.reader?.retain()
    try {
      let batch: FingerprintRecord[] = []
      for (let row = 0; row < tables.rows; row++) {
        if (!tables.isLive(row)) continue
        batch.push(tables.record(row, tops))
        if (batch.length < batchSize) continue
        yield batch
        batch = []
        this.checkOpen()
      }
      if (batch.length > 0) yield batch
    } finally {
      tables.reader?.release()
    }
  }

  /** The largest clusters by live member count (at least `minSize`, default 2), largest first; ties by smaller id. */
  async topClusters(limit: number, minSize = DEFAULT_MIN_CLUSTER_SIZE): Promise<{ clusterId: string; size: number }[]> {
    this.checkOpen()
    if (!Number.isInteger(limit) || limit < 0) throw new DedupError('INVALID_OPTION', `Expected \`limit\` to be an integer ≥ 0, got ${describeValue(limit)}.`)
    if (!Number.isInteger(minSize) || minSize < 1) throw new DedupError('INVALID_OPTION', `Expected \`minSize\` to be an integer ≥ 1, got ${describeValue(minSize)}.`)
    return limit === 0 ? [] : this.tables.topClusters(limit, minSize)
  }

  async count(): Promise<number> {
    this.checkOpen()
    return this.tables.live
  }

  async versions(): Promise<string[]> {
    this.checkOpen()
    return this.tables.liveVersions()
  }

  /** A no-op: every resolved put is already visible. */
  async refresh(): Promise<void> {
    this.checkOpen()
  }

  /** Waits for pending writes, closes the log and releases the directory lock. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await this.log?.close()
    this.tables.reader?.retire()
    await this.lock?.release()
    this.log = null
    this.lock = null
  }

  /**
   * Drops replaced and deleted records: rebuilds the tables from live rows and, with a directory,
   * rewrites the log to a new file that atomically replaces the old one. Runs by itself on open
   * when over half the log is dead, and after writes once dead rows outnumber live ones.
   */
  async compact(): Promise<void> {
    this.checkWritable()
    const log = this.log
    if (log === null) {
      this.rebuildNow()
      return
    }
    await log.task(async () => {
      // Exclusive: no put applies while the frames stream into the new file.
      const old = this.tables
      // The new tables read the new log, opened once it has replaced the old one; the old
      // tables keep reading the old file (open now) for as long as a scan of them runs.
      old.reader?.pin()
      const fresh = new Tables(this.layouts, this.registry, this.logReader(this.dir!))
      fresh.reserve(old.live)
      await log.rewrite(rebuildFrames(this.tables, fresh, this.layouts), () => fresh.live)
      this.tables = fresh
      old.reader?.retire()
      this.logEntries = fresh.live
      this.compactQueued = false
    })
  }

  /** Size and health figures. */
  stats(): MemoryStoreStats {
    return {
      live: this.tables.live,
      dead: this.tables.dead,
      tableBytes: this.tables.byteLength(),
      tableParts: this.tables.byteParts(),
      logBytes: this.log?.bytes ?? this.logBytes,
      logEntries: this.logEntries,
      truncatedOnOpen: this.truncatedOnOpen,
      damage: this.damage,
    }
  }

  /** Compacts an in-memory store synchronously. */
  private rebuildNow(): void {
    const fresh = new Tables(this.layouts, this.registry)
    fresh.reserve(this.tables.live)
    for (const frame of rebuildFrames(this.tables, fresh, this.layouts)) void frame
    this.tables = fresh
    this.logEntries = fresh.live
  }

  /**
   * Applies payloads (in memory), or appends them to the log and applies each once written;
   * resolves then, with a promise of their durability (a compaction is queued after it if due).
   */
  private async commit(payloads: readonly Buffer[]): Promise<{ durable: Promise<void> }> {
    const log = this.log
    if (log === null) {
      for (const p of payloads) this.applyPayload(p, 0, p.length)
      if (this.tables.dead > Math.max(this.tables.live, AUTO_COMPACT_MIN_DEAD)) this.rebuildNow()
      return { durable: Promise.resolve() }
    }
    // Queued back to back, so they share one write and fsync.
    const appended = payloads.map((p) => log.append(p, (offset) => this.applyPayload(p, 0, p.length, offset)))
    const durable = Promise.all(appended.map((a) => a.durable)).then(() => {
      if (!this.compactQueued && this.tables.dead > Math.max(this.tables.live, AUTO_COMPACT_MIN_DEAD)) {
        this.compactQueued = true
        void this.compact().catch(() => {
          // A failed compaction leaves the old log in place; it is retried on the next open.
          this.compactQueued = false
        })
      }
    })
    // Left unwaited if the write fails first (the caller sees that error).
    durable.catch(() => {})
    await Promise.all(appended.map((a) => a.written))
    return { durable }
  }

  /** Applies `buf[start, end)`; `fileOffset`: where `buf[0]` sits in the log (0 in memory). */
  private applyPayload(buf: Buffer, start: number, end: number, fileOffset = 0): number {
    const counts = this.tables.applyEntries(buf, start, end, fileOffset)
    this.logEntries += counts.puts + counts.deletes
    return counts.puts + counts.deletes
  }

  private checkOpen(): void {
    if (this.closed) throw new DedupError('STORE_UNAVAILABLE', `The memory store${this.dir === null ? '' : ` in ${this.dir}`} is closed.`)
  }

  private checkWritable(): void {
    this.checkOpen()
    if (this.readOnly) throw new DedupError('STORE_UNAVAILABLE', `The store in ${this.dir} was opened read-only; open it without \`readOnly\` to write.`)
  }
}

/**
 * Opens the embedded store: in memory only without `dir`; with `dir`, backed by an append-only,
 * fsync'd log there (replayed on open; a torn tail cut, saved aside and reported in `stats().damage`; compacted when half dead) and
 * locked against a second writer process.
 *
 * @example
 * const store = await openMemoryStore({ dir: '.simdup' })
 * await store.put(records)   // durable once resolved
 * await store.close()
 */
export async function openMemoryStore(options: MemoryStoreOptions = {}): Promise<MemoryStore> {
  return MemoryStore.open(options)
}

/**
 * Checks the embedded store in `dir` without writing to it: the log's valid prefix, and what is
 * past it (a torn tail, or a damaged frame and everything after it).
 * @example const { damage } = await checkMemoryStore('.simdup'); if (damage) console.log(damage.bytes, damage.records)
 */
export function checkMemoryStore(dir: string): Promise<MemoryStoreCheck> {
  return MemoryStore.check(dir)
}

/**
 * Repairs the embedded store in `dir`: keeps the log's valid prefix and cuts what follows it,
 * after copying the whole log aside (`damage.savedTo`). No-op on a whole log.
 */
export function repairMemoryStore(dir: string): Promise<MemoryStoreCheck> {
  return MemoryStore.repair(dir)
}
