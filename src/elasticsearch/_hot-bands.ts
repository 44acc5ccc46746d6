import type { FingerprintRecord } from '../types.js'

/**
 * The newest records of hot band terms, kept between batches of one store, so a term met again is
 * answered without asking Elasticsearch. On a stream whose documents share content the same hot
 * terms come back batch after batch, and each was one sub-search of the batch's `_msearch` (its
 * newest `maxPerBand + 1` records): their count grew with the index and was most of a batch's
 * lookup time (docs/notes/2026-11-26-elasticsearch-growing-index.md, "Elasticsearch: hot band terms held between batches").
 *
 * An entry is the newest `size` records holding its term (first-insertion order), or all of them
 * when fewer: a search's answer merged with this store's writes a search could not see yet. It
 * stays exact while this store is the only writer: its own acknowledged puts of new records (whose
 * numbers are above everything in the index) are added to the entries of their terms as they land.
 * Anything else clears the cache: a put of a number at or below one already met (a re-indexed id,
 * whose old version may sit in an entry), a delete, numbers in the index this store did not hand
 * out (another writer, seen by `sequence`). Another writer's records are seen at the latest when
 * an entry expires, after `ttlMs` (10 minutes in the store), or once its numbers overtake this store's.
 *
 * Bounded by age, by `maxTerms` and by `maxBytes`, an estimate of the heap its entries and records
 * take (`recordBytes`; oldest entries dropped first, so a dropped term is simply asked again). A
 * record held for several terms (documents that share content share several band terms, and each
 * search reads its own copy) is held as one object, shared by those entries and counted once: at
 * 50,000 documents of scripts/bench-stream.ts the entries' 41,665 records were 13,792 distinct.
 */
export class HotBandCache {
  /** Term → its newest records, newest first; Map order is the order entries were filled. */
  private readonly entries = new Map<string, { records: FingerprintRecord[]; at: number }>()
  /** Largest `seq` of a record the cache met (in an entry or a write). */
  private maxSeq = 0
  /** The one object of each record version in the entries (see `versionKey`), and how many entries hold it. */
  private readonly held = new Map<string, { record: FingerprintRecord; refs: number; bytes: number }>()
  /** Estimated heap of the entries and the records they hold (see `recordBytes`). */
  private heldBytes = 0

  /**
   * @param size records kept per term (`maxPerBand + 1`: one lookup may exclude its own id).
   * @param ttlMs age after which an entry is asked again.
   * @param maxTerms cap on entries, oldest dropped first.
   * @param now clock in ms.
   * @param maxBytes cap on the estimated heap of entries and records (`bytes`), oldest entries dropped first.
   * @param perCluster bounded by cluster (`CandidateBounds.perCluster`): an entry holds the `size`
   *   clusters first indexed first among the term's records, `perCluster` first records of each
   *   (what `hotBandSearches` asks), and a new record joins only where it belongs to those; 0: the
   *   newest `size` records.
   */
  constructor(
    private readonly size: number,
    private readonly ttlMs: number,
    private readonly maxTerms: number,
    private readonly now: () => number = Date.now,
    private readonly maxBytes: number = Number.POSITIVE_INFINITY,
    private readonly perCluster = 0,
  ) {}

  /** Estimated heap of the live entries and the distinct records they hold, in bytes. */
  get bytes(): number {
    this.prune()
    return this.heldBytes
  }

  /** Number of live entries. */
  get terms(): number {
    this.prune()
    return this.entries.size
  }

  /** The newest records of `term`, newest first, or undefined when not held (or expired). */
  get(term: string): readonly FingerprintRecord[] | undefined {
    const e = this.entries.get(term)
    if (e === undefined) return undefined
    if (this.now() - e.at >= this.ttlMs) {
      this.drop(term, e.records)
      return undefined
    }
    return e.records
  }

  /**
   * Fills the entry of `term` from a search's newest `size` records (newest first: fewer means
   * all it has) and the records with that term this store wrote that the search may not see yet.
   */
  set(term: string, searched: readonly FingerprintRecord[], unseen: readonly FingerprintRecord[]): void {
    const byId = new Map<string, FingerprintRecord>()
    for (const r of searched) byId.set(r.id, r)
    // The unseen copy is the newer write of its id.
    for (const r of unseen) byId.set(r.id, r)
    const records = this.select([...byId.values()]).map((r) => this.hold(r))
    for (const r of records) if ((r.seq ?? 0) > this.maxSeq) this.maxSeq = r.seq!
    const old = this.entries.get(term)
    if (old !== undefined) this.drop(term, old.records)
    this.entries.set(term, { records, at: this.now() })
    this.heldBytes += entryBytes(term, this.size)
    this.prune()
  }

  /** Records this store wrote (acknowledged): new ones join their terms' entries; a re-put clears the cache. */
  put(records: readonly FingerprintRecord[]): void {
    if (this.entries.size === 0) {
      for (const r of records) if ((r.seq ?? 0) > this.maxSeq) this.maxSeq = r.seq!
      return
    }
    const sorted = [...records].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))
    // A number not above every one met may be an id already held in an entry, in an old version.
    if (sorted.some((r) => r.seq === undefined || r.seq <= this.maxSeq)) {
      this.clear()
      for (const r of sorted) if ((r.seq ?? 0) > this.maxSeq) this.maxSeq = r.seq!
      return
    }
    for (const r of sorted) {
      this.maxSeq = r.seq!
      for (const term of new Set(r.bands ?? [])) {
        const e = this.entries.get(term)
        if (e === undefined) continue
        if (this.perCluster > 0) {
          // After every record held (its number is above them all): it joins when its cluster is
          // held with fewer than `perCluster`, or is new while fewer than `size` are held.
          const kept = this.select([...e.records, r])
          if (kept.includes(r)) e.records = kept.map((x) => (x === r ? this.hold(r) : x))
          continue
        }
        // Newest of all: in front, the oldest beyond the size dropped.
        e.records.unshift(this.hold(r))
        if (e.records.length > this.size) this.release(e.records.pop()!)
      }
    }
    this.prune()
  }

  /** What an entry holds of a term's records (see the constructor). */
  private select(records: FingerprintRecord[]): FingerprintRecord[] {
    if (this.perCluster === 0) return records.sort(newestFirst).slice(0, this.size)
    const groups = new Map<string, FingerprintRecord[]>()
    for (const r of records.sort(oldestFirst)) {
      const g = groups.get(r.clusterId)
      if (g === undefined) groups.set(r.clusterId, [r])
      else if (g.length < this.perCluster) g.push(r)
    }
    // Map order: by each cluster's first record.
    return [...groups.values()].slice(0, this.size).flat()
  }

  /** Drops every entry (deletes, another writer). */
  clear(): void {
    this.entries.clear()
    this.held.clear()
    this.heldBytes = 0
  }

  private prune(): void {
    const oldest = this.now() - this.ttlMs
    for (const [term, e] of this.entries) {
      if (e.at > oldest && this.entries.size <= this.maxTerms && this.heldBytes <= this.maxBytes) break
      this.drop(term, e.records)
    }
  }

  /** The object held for `r`'s version (`r` itself when none is), counted once more. */
  private hold(r: FingerprintRecord): FingerprintRecord {
    const key = versionKey(r)
    let h = this.held.get(key)
    if (h === undefined) {
      const bytes = recordBytes(r) + stringBytes(key) + MAP_ENTRY_BYTES
      this.held.set(key, (h = { record: r, refs: 0, bytes }))
      this.heldBytes += bytes
    }
    h.refs++
    return h.record
  }

  private release(r: FingerprintRecord): void {
    const key = versionKey(r)
    const h = this.held.get(key)
    if (h !== undefined && --h.refs === 0) {
      this.held.delete(key)
      this.heldBytes -= h.bytes
    }
  }

  private drop(term: string, records: readonly FingerprintRecord[]): void {
    this.entries.delete(term)
    this.heldBytes -= entryBytes(term, this.size)
    for (const r of records) this.release(r)
  }
}

/** A Map entry (key, value, hash table slot) and the small object it points to. */
const MAP_ENTRY_BYTES = 64
/**
 * The record object (its dozen fields in-object), its fingerprint object and two heap numbers: the
 * parts `recordBytes` does not count string by string.
 */
const RECORD_OBJECT_BYTES = 192

/** V8 heap of a string: header and characters (one byte each when all are Latin-1), 8-aligned. */
function stringBytes(s: string | null | undefined): number {
  if (s === null || s === undefined) return 0
  // eslint-disable-next-line no-control-regex
  const width = /^[\u0000-\u00ff]*$/.test(s) ? 1 : 2
  return 16 + Math.ceil((s.length * width) / 8) * 8
}

function arrayBytes(a: readonly string[] | undefined): number {
  if (a === undefined) return 0
  let n = 16 + 8 * a.length
  for (const s of a) n += stringBytes(s)
  return n
}

/**
 * Estimated heap of one record as parsed from a search answer (strings not shared with anything
 * else): what the cache's byte bound counts. Checked against the heap in test/store/hot-bands.test.ts.
 * @example recordBytes(record) // ≈ 900 for a record with a MinHash sketch and 8 band terms
 */
export function recordBytes(r: FingerprintRecord): number {
  return (
    RECORD_OBJECT_BYTES +
    stringBytes(r.id) + stringBytes(r.contentHash) + stringBytes(r.urlHash) + stringBytes(r.titleHash) + stringBytes(r.clusterId) +
    stringBytes(r.duplicateOf) + stringBytes(r.version) + stringBytes(r.sketch) + stringBytes(r.supersedes) + stringBytes(r.layer) +
    arrayBytes(r.blocks) + arrayBytes(r.bands)
  )
}

/** An entry: its term, its Map slot and object, and its array of `size` record references. */
function entryBytes(term: string, size: number): number {
  return stringBytes(term) + MAP_ENTRY_BYTES + 32 + 8 * size
}

/**
 * What tells two copies of a record apart: a re-indexed id gets a new `indexedAt`, a re-decided one
 * (reconcile) a new cluster or duplicate, and this store's own re-puts clear the cache anyway.
 */
function versionKey(r: FingerprintRecord): string {
  return `${r.id}\u0001${r.seq ?? ''}\u0001${r.indexedAt}\u0001${r.clusterId}\u0001${r.duplicateOf ?? ''}\u0001${r.fingerprint.hi}\u0001${r.fingerprint.lo}`
}

function newestFirst(a: FingerprintRecord, b: FingerprintRecord): number {
  const sa = a.seq ?? Number.POSITIVE_INFINITY
  const sb = b.seq ?? Number.POSITIVE_INFINITY
  if (sa !== sb) return sb - sa
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0
}

function oldestFirst(a: FingerprintRecord, b: FingerprintRecord): number {
  return newestFirst(b, a)
}
