/**
 * The labelling oracle: exact character-shingle Jaccard similarity, computed with an exact
 * all-pairs similarity join (size + prefix filtering, as in AllPairs/PPJoin). It shares nothing
 * with SimHash, jieba or simdup's normaliser, so it can judge them: two texts are "the same" for
 * the oracle when their sets of k-character shingles overlap by at least the threshold.
 */

/** Lower-case and drop all whitespace: layout is not content. */
export function normalizeForOracle(text: string): string {
  return text.toLowerCase().replace(/\s+/gu, '')
}

/** 53-bit hash of `s[start, end)` (cyrb53): collisions among a few million shingles are negligible. */
function hash53(s: string, start: number, end: number): number {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = start; i < end; i++) {
    const ch = s.charCodeAt(i)
    h1 = Math.imul(h1 ^ ch, 2654435761)
    h2 = Math.imul(h2 ^ ch, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return 4294967296 * (2097151 & h2) + (h1 >>> 0)
}

/**
 * Sorted, de-duplicated hashes of the k-character shingles of the normalised text; a text shorter
 * than k is one shingle, an empty one has none.
 * @example shingleSet('一二三四五六', 5).length // → 2
 */
export function shingleSet(text: string, k: number): Float64Array {
  const s = normalizeForOracle(text)
  if (s.length === 0) return new Float64Array(0)
  const n = Math.max(1, s.length - k + 1)
  const out = new Float64Array(n)
  for (let i = 0; i < n; i++) out[i] = hash53(s, i, Math.min(s.length, i + k))
  out.sort()
  let w = 0
  for (let i = 0; i < n; i++) if (i === 0 || out[i] !== out[w - 1]) out[w++] = out[i] as number
  return out.slice(0, w)
}

/**
 * Jaccard similarity of two sorted sets; 1 for two empty sets.
 * @example jaccard(new Float64Array([1, 2, 3]), new Float64Array([2, 3, 4])) // → 0.5
 */
export function jaccard(a: Float64Array | Int32Array, b: Float64Array | Int32Array): number {
  if (a.length === 0 && b.length === 0) return 1
  let i = 0
  let j = 0
  let common = 0
  while (i < a.length && j < b.length) {
    const x = a[i] as number
    const y = b[j] as number
    if (x === y) {
      common++
      i++
      j++
    } else if (x < y) i++
    else j++
  }
  return common / (a.length + b.length - common)
}

/** How an extracted text covers a reference text, on character 5-gram sets. */
export interface ExtractionOverlap {
  /** Share of the reference's 5-grams the extraction keeps. */
  coverage: number
  /** Share of the extraction's 5-grams that are in the reference. */
  purity: number
  jaccard: number
}

/**
 * Coverage, purity and Jaccard of an extraction against a reference (e.g. a page's main text).
 * @example extractionOverlap('一二三四五六', '一二三四五') // → { coverage: 0.5, purity: 1, jaccard: 0.5 }
 */
export function extractionOverlap(reference: string, extracted: string): ExtractionOverlap {
  const ref = shingleSet(reference, 5)
  const ext = shingleSet(extracted, 5)
  let common = 0
  for (let i = 0, j = 0; i < ref.length && j < ext.length;) {
    if (ref[i] === ext[j]) {
      common++
      i++
      j++
    } else if ((ref[i] as number) < (ext[j] as number)) i++
    else j++
  }
  return {
    coverage: ref.length === 0 ? 1 : common / ref.length,
    purity: ext.length === 0 ? 0 : common / ext.length,
    jaccard: jaccard(ref, ext),
  }
}

/** Open-addressing hash table from 53-bit token hashes to a count (0 marks an empty slot). */
class TokenTable {
  private readonly keys: Float64Array
  readonly counts: Int32Array
  private readonly mask: number

  constructor(expected: number) {
    let capacity = 16
    while (capacity < expected * 2) capacity *= 2
    this.keys = new Float64Array(capacity)
    this.counts = new Int32Array(capacity)
    this.mask = capacity - 1
  }

  /** Slot holding `t`, or the empty slot where it would go (`counts` is 0 there). */
  slotOf(t: number): number {
    // The low 32 bits of a cyrb53 hash are already well mixed.
    let slot = (t % 4294967296) & this.mask
    while (this.counts[slot] !== 0 && this.keys[slot] !== t) slot = (slot + 1) & this.mask
    return slot
  }

  increment(t: number): void {
    const slot = this.slotOf(t)
    this.keys[slot] = t
    this.counts[slot] = (this.counts[slot] as number) + 1
  }
}

/**
 * Jaccard of two sorted sets, or any value below `threshold` as soon as the threshold is out of
 * reach (the merge stops early: most verified candidates of a prefix join are misses).
 */
function jaccardAtLeast(a: Int32Array, b: Int32Array, threshold: number): number {
  const needed = Math.ceil((threshold / (1 + threshold)) * (a.length + b.length) - 1e-9)
  let i = 0
  let j = 0
  let common = 0
  while (i < a.length && j < b.length) {
    if (common + Math.min(a.length - i, b.length - j) < needed) return 0
    const x = a[i] as number
    const y = b[j] as number
    if (x === y) {
      common++
      i++
      j++
    } else if (x < y) i++
    else j++
  }
  return common / (a.length + b.length - common)
}

/** A pair of set indexes whose Jaccard similarity reached the threshold. */
export interface SimilarPair {
  a: number
  b: number
  jaccard: number
}

/**
 * Every pair with Jaccard ≥ threshold (0 < threshold ≤ 1), exactly: no pair is missed, unlike
 * MinHash-LSH. Sets are ordered by size and each set's rarest tokens (its prefix) are indexed;
 * two sets reaching the threshold must share a prefix token, so only those pairs are verified.
 * @example similarPairs([shingleSet('甲乙丙丁戊己', 5), shingleSet('甲乙丙丁戊己庚', 5)], 0.5) // → [{ a: 0, b: 1, jaccard: 0.666… }]
 */
export function similarPairs(sets: readonly Float64Array[], threshold: number): SimilarPair[] {
  if (!(threshold > 0 && threshold <= 1)) throw new Error(`similarPairs: threshold must be in (0, 1], got ${threshold}`)
  // Rank every distinct token by document frequency (rarest first, ties by table slot, which is
  // deterministic) and work on sorted rank arrays: prefixes are then the smallest ranks, and
  // Jaccard over ranks equals Jaccard over tokens. An open-addressing table on typed arrays,
  // because a Map keyed by millions of non-integer numbers is ~10x slower.
  let total = 0
  for (const s of sets) total += s.length
  const table = new TokenTable(total)
  for (const s of sets) for (const t of s) table.increment(t)
  const { counts } = table
  let distinct = 0
  let maxDf = 0
  for (const c of counts) if (c > maxDf) maxDf = c
  const offsets = new Int32Array(maxDf + 2)
  for (let slot = 0; slot < counts.length; slot++) {
    const c = counts[slot] as number
    if (c === 0) continue
    distinct++
    offsets[c + 1] = (offsets[c + 1] as number) + 1
  }
  for (let c = 1; c < offsets.length; c++) offsets[c] = (offsets[c] as number) + (offsets[c - 1] as number)
  // Ranks in their own array: counts must stay non-zero, they mark the table's occupied slots.
  const ranks = new Int32Array(counts.length)
  for (let slot = 0; slot < counts.length; slot++) {
    const c = counts[slot] as number
    if (c === 0) continue
    ranks[slot] = offsets[c] as number
    offsets[c] = (offsets[c] as number) + 1
  }
  const ranked = sets.map((s) => {
    const r = new Int32Array(s.length)
    for (let i = 0; i < s.length; i++) r[i] = ranks[table.slotOf(s[i] as number)] as number
    return r.sort()
  })

  const order = ranked.map((_, i) => i).sort((x, y) => (ranked[x]?.length ?? 0) - (ranked[y]?.length ?? 0) || x - y)
  const index: (number[] | undefined)[] = new Array<number[] | undefined>(distinct)
  const pairs: SimilarPair[] = []
  const seenBy = new Int32Array(sets.length).fill(-1)
  for (const x of order) {
    const rx = ranked[x] as Int32Array
    if (rx.length === 0) continue
    const prefixLength = rx.length - Math.ceil(threshold * rx.length) + 1
    const minSize = threshold * rx.length
    for (let p = 0; p < prefixLength; p++) {
      const posting = index[rx[p] as number]
      if (posting === undefined) continue
      for (const y of posting) {
        if (seenBy[y] === x) continue
        seenBy[y] = x
        const ry = ranked[y] as Int32Array
        if (ry.length < minSize) continue
        const j = jaccardAtLeast(rx, ry, threshold)
        if (j >= threshold) pairs.push({ a: Math.min(x, y), b: Math.max(x, y), jaccard: j })
      }
    }
    for (let p = 0; p < prefixLength; p++) {
      const t = rx[p] as number
      const posting = index[t]
      if (posting === undefined) index[t] = [x]
      else posting.push(x)
    }
  }
  return pairs.sort((p, q) => p.a - q.a || p.b - q.b)
}

/**
 * Connected components of the "similar" relation: `groups[i]` is the smallest index in i's
 * component (so the first text of each group in input order represents it).
 * @example similarityGroups(['甲乙丙丁戊己', '甲乙丙丁戊己庚', '完全不同的文字'], 5, 0.5) // → [0, 0, 2]
 */
export function similarityGroups(texts: readonly string[], k: number, threshold: number): number[] {
  const parent = texts.map((_, i) => i)
  const find = (i: number): number => {
    let r = i
    while (parent[r] !== r) r = parent[r] as number
    while (parent[i] !== r) {
      const next = parent[i] as number
      parent[i] = r
      i = next
    }
    return r
  }
  for (const p of similarPairs(texts.map((t) => shingleSet(t, k)), threshold)) {
    const ra = find(p.a)
    const rb = find(p.b)
    if (ra !== rb) parent[Math.max(ra, rb)] = Math.min(ra, rb)
  }
  return texts.map((_, i) => find(i))
}
