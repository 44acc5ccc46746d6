import type { CandidateQuery, FingerprintRecord } from '../types.js'
import { distinctBlocks } from './_query.js'

type Slot<V> = V | V[]

function put<V extends string | number>(map: Map<string, Slot<V>>, key: string, v: V): void {
  const slot = map.get(key)
  if (slot === undefined) map.set(key, v)
  else if (Array.isArray(slot)) slot.push(v)
  else map.set(key, [slot, v])
}

function drop<V extends string | number>(map: Map<string, Slot<V>>, key: string, v: V): void {
  const slot = map.get(key)
  if (slot === undefined) return
  if (!Array.isArray(slot)) {
    if (slot === v) map.delete(key)
    return
  }
  const rest = slot.filter((x) => x !== v)
  if (rest.length === 0) map.delete(key)
  else map.set(key, rest.length === 1 ? rest[0]! : rest)
}

function each<V extends string | number>(map: Map<string, Slot<V>>, key: string, fn: (v: V) => void): void {
  const slot = map.get(key)
  if (slot === undefined) return
  if (Array.isArray(slot)) for (const v of slot) fn(v)
  else fn(slot)
}

/**
 * Values (ids, hit positions) under each key a record can be found by — its blocks, bands and
 * content, URL and title hashes — for matching lookups in memory. One map per kind of key, so
 * no key strings are built, and a key held once (most are) costs no array.
 */
export class KeyPostings<V extends string | number> {
  private readonly blocks = new Map<string, Slot<V>>()
  private readonly bands = new Map<string, Slot<V>>()
  private readonly contentHashes = new Map<string, Slot<V>>()
  private readonly urlHashes = new Map<string, Slot<V>>()
  private readonly titleHashes = new Map<string, Slot<V>>()

  /** Files `v` under every key of `r`. */
  add(r: FingerprintRecord, v: V): void {
    this.eachKey(r, (map, key) => put(map, key, v))
  }

  /** Takes `v` out from under every key of `r` (the record it was added with). */
  remove(r: FingerprintRecord, v: V): void {
    this.eachKey(r, (map, key) => drop(map, key, v))
  }

  private eachKey(r: FingerprintRecord, fn: (map: Map<string, Slot<V>>, key: string) => void): void {
    for (const b of r.blocks) fn(this.blocks, b)
    if (r.bands !== undefined) for (const b of r.bands) fn(this.bands, b)
    fn(this.contentHashes, r.contentHash)
    if (r.urlHash !== null) fn(this.urlHashes, r.urlHash)
    if (r.titleHash !== null) fn(this.titleHashes, r.titleHash)
  }

  /** Calls `fn` for each value filed under band term `term`. */
  forEachWithBand(term: string, fn: (v: V) => void): void {
    each(this.bands, term, fn)
  }

  /**
   * Calls `fn` for each value under one of the lookup's keys, possibly more than once: every
   * record the lookup can match is among them (a block candidate shares a block, as minMatch ≥ 1).
   */
  forEach(q: CandidateQuery, fn: (v: V) => void): void {
    if (q.contentHash != null) each(this.contentHashes, q.contentHash, fn)
    if (q.urlHash != null) each(this.urlHashes, q.urlHash, fn)
    if (q.titleHash != null) each(this.titleHashes, q.titleHash, fn)
    if (q.bands !== undefined) for (const b of q.bands) each(this.bands, b, fn)
    for (const b of distinctBlocks(q)) each(this.blocks, b, fn)
  }
}
