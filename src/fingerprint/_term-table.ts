import { HASH_OUT, hashToken } from './hash.js'
import { isContentToken, termFactor, type IdfTable } from './tfidf.js'

/**
 * Per-analyzer cache of everything a token's string determines: whether it is a feature (not
 * punctuation, not a stop word), its IDF, its weighting factor and its 64-bit hash. A document's
 * tokens are mostly words seen before, so the hot loop does one Map lookup per token instead of a
 * stop-word lookup, a term-frequency Map update, an IDF lookup and two token hashes.
 *
 * The cache is cleared when it outgrows `limit` (between documents, never during one), so memory
 * stays bounded on corpora with unbounded vocabularies (numbers, identifiers). The results never
 * depend on the cache: the table computes exactly what contentTokens → weightContentTokens →
 * simhash / minhashSketch compute (test/unit/fingerprint proves it on the corpus).
 */
export class TermTable {
  /** id + 1 of one-unit tokens by char code (0 = not seen): over half of all tokens. */
  private readonly unitIds = new Int32Array(65536)
  // Longer tokens: an open-addressing table of id + 1 over our own hash of the UTF-16 units, keys
  // kept as runs in one Uint16Array. A JS Map was the costliest part in CPU profiles: its entries and key
  // strings are scattered over the heap, and a token string fresh from the segmenter never equals
  // a key by pointer, so every hit also reads the key string's characters.
  private slots = new Int32Array(1 << 16)
  private pool = new Uint16Array(1 << 16)
  private poolLength = 0
  private keyStart = new Int32Array(1024)
  private keyLength = new Int32Array(1024)
  /** unitsHash of each key, so growing the slot table needs no re-hashing. */
  private keyHash = new Int32Array(1024)
  private size = 0
  private inserted = 0
  private clears = 0
  private terms: string[] = []
  /** 1 when the term is a feature, 0 when it is dropped. */
  private feature = new Uint8Array(1024)
  private idf = new Float64Array(1024)
  private factor = new Float64Array(1024)
  /** Token hash halves, as hashToken() gives them (signed storage, read with `>>> 0`). */
  hi = new Int32Array(1024)
  lo = new Int32Array(1024)
  /** Scratch term frequency, zero between documents. */
  private tf = new Int32Array(1024)

  /** Feature term ids of the last document, in token order (`sequenceLength` valid). */
  sequence = new Int32Array(1024)
  sequenceLength = 0
  /** Distinct feature term ids of the last document, in first-occurrence order. */
  distinct = new Int32Array(1024)
  distinctLength = 0
  /** Weight of each distinct term (parallel to `distinct`). */
  weights = new Float64Array(1024)

  constructor(
    private readonly idfTable: IdfTable,
    private readonly stopWords: ReadonlySet<string>,
    private readonly singleCharFactor: number,
    private readonly numberFactor: number,
    private readonly limit = 500_000,
  ) {}

  /** Term string of an id from the last document. */
  term(id: number): string {
    return this.terms[id]!
  }

  /**
   * The id → term strings array as it is now. It is only appended to until the table is
   * cleared, which starts a new array, so ids of the last document stay readable through it later.
   */
  get termStrings(): readonly string[] {
    return this.terms
  }

  /**
   * Reads one document's tokens: fills `sequence`, `distinct` and `weights`, where a weight is
   * (1 + ln tf) · idf · factor exactly as weightContentTokens computes it.
   */
  load(tokens: readonly string[]): void {
    this.begin()
    const n = tokens.length
    if (this.sequence.length < n) this.reserve(n)
    const seq = this.sequence
    let m = 0
    for (let i = 0; i < n; i++) {
      const id = this.idOf(tokens[i]!)
      if (this.feature[id] !== 0) seq[m++] = id
    }
    this.count(m)
  }

  /**
   * Starts a document: clears the table first when it has outgrown its limit, which invalidates
   * every id handed out before (`generation` changes).
   */
  begin(): void {
    if (this.size > this.limit) this.clear()
  }

  /** Makes room for `n` ids in `sequence` (keeping its first `keep`). */
  reserve(n: number, keep = 0): void {
    if (this.sequence.length >= n) return
    const cap = Math.max(n, this.sequence.length * 2)
    const seq = new Int32Array(cap)
    seq.set(this.sequence.subarray(0, keep))
    this.sequence = seq
    this.distinct = new Int32Array(cap)
    this.weights = new Float64Array(cap)
  }

  /** Changes whenever ids are invalidated (the table was cleared). */
  get generation(): number {
    return this.clears
  }

  /** Whether term `id` is a feature (kept), not punctuation or a stop word. */
  isFeature(id: number): boolean {
    return this.feature[id] !== 0
  }

  /** The id of a token, adding it when new. */
  idOf(token: string): number {
    if (token.length === 1) {
      const c = token.charCodeAt(0)
      let id = this.unitIds[c]! - 1
      if (id < 0) {
        id = this.add(token)
        this.unitIds[c] = id + 1
      }
      return id
    }
    let id = this.find(token)
    if (id < 0) {
      id = this.add(token)
      this.insert(token, id)
    }
    return id
  }

  /**
   * Counts the feature ids in `sequence[0, m)` (one document, in token order) into `distinct`
   * and `weights`.
   */
  count(m: number): void {
    const seq = this.sequence
    const distinct = this.distinct
    const tf = this.tf
    let d = 0
    for (let i = 0; i < m; i++) {
      const id = seq[i]!
      const c = tf[id]!
      tf[id] = c + 1
      if (c === 0) distinct[d++] = id
    }
    const idf = this.idf
    const factor = this.factor
    const weights = this.weights
    for (let k = 0; k < d; k++) {
      const id = distinct[k]!
      const c = tf[id]!
      tf[id] = 0
      // Same operation order as weightContentTokens, so weights (and fingerprints) are bit-identical.
      let w = (1 + Math.log(c)) * idf[id]!
      const f = factor[id]!
      if (f !== 1) w *= f
      weights[k] = w
    }
    this.sequenceLength = m
    this.distinctLength = d
  }

  /** Id of a token of two or more units, or -1. */
  private find(token: string): number {
    const n = token.length
    const slots = this.slots
    const mask = slots.length - 1
    const pool = this.pool
    for (let s = unitsHash(token) & mask; ; s = (s + 1) & mask) {
      const id = slots[s]! - 1
      if (id < 0) return -1
      if (this.keyLength[id] !== n) continue
      let k = this.keyStart[id]!
      let i = 0
      while (i < n && pool[k] === token.charCodeAt(i)) {
        i++
        k++
      }
      if (i === n) return id
    }
  }

  private insert(token: string, id: number): void {
    const n = token.length
    if (this.poolLength + n > this.pool.length) {
      const pool = new Uint16Array(Math.max(this.pool.length * 2, this.poolLength + n))
      pool.set(this.pool.subarray(0, this.poolLength))
      this.pool = pool
    }
    this.keyStart[id] = this.poolLength
    this.keyLength[id] = n
    for (let i = 0; i < n; i++) this.pool[this.poolLength++] = token.charCodeAt(i)
    this.keyHash[id] = unitsHash(token)
    this.inserted++
    // Keep the load factor at most 1/2 so probe runs stay short.
    if (this.inserted * 2 > this.slots.length) this.rehash()
    else placeSlot(this.slots, this.keyHash[id]!, id)
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2)
    for (let id = 0; id < this.size; id++) if (this.keyLength[id]! >= 2) placeSlot(this.slots, this.keyHash[id]!, id)
  }

  private add(token: string): number {
    const id = this.size++
    if (id === this.feature.length) this.grow()
    this.keyLength[id] = 0
    this.terms.push(token)
    if (!isContentToken(token, this.stopWords)) {
      this.feature[id] = 0
      return id
    }
    this.feature[id] = 1
    this.idf[id] = this.idfTable.get(token) ?? this.idfTable.mean
    this.factor[id] = termFactor(token, this.singleCharFactor, this.numberFactor)
    hashToken(token)
    this.hi[id] = HASH_OUT[0]!
    this.lo[id] = HASH_OUT[1]!
    return id
  }

  private grow(): void {
    const cap = this.feature.length * 2
    const grow = <T extends Uint8Array | Int32Array | Float64Array>(a: T, make: new (n: number) => T): T => {
      const b = new make(cap)
      b.set(a)
      return b
    }
    this.feature = grow(this.feature, Uint8Array)
    this.idf = grow(this.idf, Float64Array)
    this.factor = grow(this.factor, Float64Array)
    this.hi = grow(this.hi, Int32Array)
    this.lo = grow(this.lo, Int32Array)
    this.tf = grow(this.tf, Int32Array)
    this.keyStart = grow(this.keyStart, Int32Array)
    this.keyLength = grow(this.keyLength, Int32Array)
    this.keyHash = grow(this.keyHash, Int32Array)
  }

  private clear(): void {
    this.unitIds.fill(0)
    this.slots.fill(0)
    this.poolLength = 0
    this.inserted = 0
    this.terms = []
    this.size = 0
    this.clears++
  }
}

// A 32-bit hash of a token's UTF-16 units (the slot table's; not the fingerprint's token hash).
function unitsHash(token: string): number {
  let h = token.length
  for (let i = 0; i < token.length; i++) h = Math.imul(h ^ token.charCodeAt(i), 0x9e3779b1)
  return h ^ (h >>> 15)
}

/** Puts `value + 1` into the first free slot from `hash` on (linear probing; 0 marks a free slot). */
function placeSlot(slots: Int32Array, hash: number, value: number): void {
  const mask = slots.length - 1
  let s = hash & mask
  while (slots[s] !== 0) s = (s + 1) & mask
  slots[s] = value + 1
}
