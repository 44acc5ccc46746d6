import type { Segmenter } from '../segment/segmenter.js'
import type { TermTable } from './_term-table.js'

/**
 * Memoised segmentation for segmenters that declare `runLocal` (jieba-rs): they cut each maximal
 * run of "han" characters (CJK ideographs, ASCII letters and digits, `+#&._%-`) on its own, and
 * every other character becomes a token by itself. So a document's tokens are the concatenation
 * of its runs' tokens, and a run seen before needs no segmenting: its feature term ids come from
 * here. Only the runs not seen before go to the segmenter, joined by newlines in one call.
 *
 * Runs are split here at separator characters only: characters outside jieba's han class that
 * are not letters or digits either, so their own tokens are never features and can be skipped.
 * Characters jieba leaves out of its class but that are letters (kana, Hangul, Greek, `é`) stay
 * inside runs and reach the segmenter, which cuts them exactly as it would in the whole text,
 * because a run's ends are always jieba block boundaries. The result never depends on the memo:
 * test/unit/fingerprint proves memoised analysis equals plain analysis on the corpus and on
 * random mixed-script text.
 *
 * Text repeats at this grain far more than whole documents do (shared clauses, site chrome,
 * Traditional/Simplified twins): on the bench corpus about 3 in 4 characters lie in runs seen
 * before. Ids belong to one TermTable: the memo is dropped when the table is cleared, when the
 * segmenter's dictionary changes (`epoch`); past its size limit the older half goes (see `oldData`).
 */
export class RunMemo {
  /**
   * Open addressing over run hashes, two ints a slot: the run's hash, then offset + 1 of its entry
   * in `data` (0 = empty). The hash beside the offset settles most probes that are not the run
   * without reading `data`, which is large and mostly out of cache.
   */
  private slots = new Int32Array(1 << 17)
  private slotsUsed = 0
  /**
   * Entries end to end, each contiguous so a hit reads one or two cache lines: hash, key length
   * (UTF-16 units), id count, the key's units packed two to an int, then the feature term ids.
   */
  private data = new Int32Array(1 << 18)
  private dataLength = 0
  /**
   * The generation before: when `data` passes half the limit it becomes this one (read-only), and
   * a run found here is copied back into the current one. Runs still in use survive a rotation;
   * the rest go with the next one.
   */
  private oldSlots: Int32Array | null = null
  private oldData: Int32Array | null = null
  /** Per run of the current document: its entry's offset, or ~p for the p-th pending run. */
  private runs = new Int32Array(1024)
  private pendingStart = new Int32Array(256)
  private pendingEnd = new Int32Array(256)
  private pendingHash = new Int32Array(256)
  private pendingOffset = new Int32Array(256)
  /** Feature ids of the run being stored. */
  private scratch = new Int32Array(256)
  private generation = -1
  private epoch: number | undefined
  /** Set when the segmenter's output did not line up with the runs: plain cuts from then on. */
  private broken = false
  /** Runs looked up and found, and their UTF-16 units (for the bench's hit rate). */
  lookups = 0
  hits = 0
  lookupUnits = 0
  hitUnits = 0
  /** Runs found in the previous generation and copied into the current one. */
  promoted = 0

  constructor(
    private readonly table: TermTable,
    private readonly segmenter: Segmenter,
    /** Most ints of entry data kept over both generations (4 bytes each). */
    private readonly limit = 1 << 23,
  ) {}

  /** Segments `text` into the table (as `table.load(segmenter.cut(text))` does). */
  load(text: string): void {
    const table = this.table
    table.begin()
    if (this.broken) {
      table.load(this.segmenter.cut(text))
      return
    }
    if (table.generation !== this.generation || this.segmenter.epoch !== this.epoch) {
      this.clear()
      this.generation = table.generation
      this.epoch = this.segmenter.epoch
    } else if (this.dataLength > this.limit >> 1) {
      this.rotate()
    }
    const sep = separators()
    const n = text.length
    let runCount = 0
    let pending = 0
    let i = 0
    while (i < n) {
      if (sep[text.charCodeAt(i)] !== 0) {
        i++
        continue
      }
      const start = i
      let h = 0
      let c = text.charCodeAt(i)
      do {
        h = Math.imul(h ^ c, 0x9e3779b1)
        c = ++i < n ? text.charCodeAt(i) : 0
      } while (i < n && sep[c] === 0)
      h ^= h >>> 15
      let at = findEntry(this.slots, this.data, text, start, i, h)
      if (at < 0 && this.oldData !== null) at = this.promote(text, start, i, h)
      this.lookups++
      this.lookupUnits += i - start
      if (at < 0) {
        if (pending === this.pendingStart.length) this.growPending()
        this.pendingStart[pending] = start
        this.pendingEnd[pending] = i
        this.pendingHash[pending] = h
        at = ~pending++
      } else {
        this.hits++
        this.hitUnits += i - start
      }
      if (runCount === this.runs.length) this.runs = grow(this.runs, runCount * 2)
      this.runs[runCount++] = at
    }
    if (pending > 0 && !this.cutPending(text, pending)) {
      this.broken = true
      this.clear()
      table.load(this.segmenter.cut(text))
      return
    }
    let m = 0
    for (let r = 0; r < runCount; r++) {
      let at = this.runs[r]!
      if (at < 0) at = this.pendingOffset[~at]!
      const data = this.data
      const len = data[at + 2]!
      if (len === 0) continue
      const from = idsAt(data, at)
      if (m + len > table.sequence.length) table.reserve(m + len, m)
      const seq = table.sequence
      for (let k = 0; k < len; k++) seq[m + k] = data[from + k]!
      m += len
    }
    table.count(m)
  }

  /**
   * Cuts the pending runs in one call (joined by newlines, which jieba keeps as tokens of their
   * own) and stores each as an entry; false if the tokens do not line up with the runs.
   */
  private cutPending(text: string, pending: number): boolean {
    const parts = new Array<string>(pending)
    for (let p = 0; p < pending; p++) parts[p] = text.slice(this.pendingStart[p]!, this.pendingEnd[p]!)
    const tokens = this.segmenter.cut(parts.join('\n'))
    const table = this.table
    let t = 0
    for (let p = 0; p < pending; p++) {
      if (p > 0) {
        if (tokens[t] !== '\n') return false
        t++
      }
      const start = this.pendingStart[p]!
      const end = this.pendingEnd[p]!
      let left = end - start
      let count = 0
      while (left > 0) {
        const token = tokens[t++]
        if (token === undefined || token.length > left) return false
        left -= token.length
        const id = table.idOf(token)
        if (table.isFeature(id)) {
          if (count === this.scratch.length) this.scratch = grow(this.scratch, count * 2)
          this.scratch[count++] = id
        }
      }
      // A run that occurs twice in one document is pending twice; store it once.
      const h = this.pendingHash[p]!
      const found = findEntry(this.slots, this.data, text, start, end, h)
      this.pendingOffset[p] = found >= 0 ? found : this.insert(text, start, end, h, this.scratch, 0, count)
    }
    return t === tokens.length
  }

  /** Copies the previous generation's entry for the run into the current one; its offset, or -1. */
  private promote(text: string, start: number, end: number, h: number): number {
    const old = this.oldData!
    const at = findEntry(this.oldSlots!, old, text, start, end, h)
    if (at < 0) return -1
    this.promoted++
    return this.insert(text, start, end, h, old, idsAt(old, at), old[at + 2]!)
  }

  private rotate(): void {
    this.oldSlots = this.slots
    this.oldData = this.data
    this.slots = new Int32Array(1 << 17)
    this.slotsUsed = 0
    this.data = new Int32Array(1 << 18)
    this.dataLength = 0
  }

  private insert(text: string, start: number, end: number, h: number, ids: Int32Array, from: number, count: number): number {
    const n = end - start
    const size = 3 + ((n + 1) >> 1) + count
    if (this.dataLength + size > this.data.length) this.data = grow(this.data, Math.max(this.data.length * 2, this.dataLength + size))
    const data = this.data
    const at = this.dataLength
    data[at] = h
    data[at + 1] = n
    data[at + 2] = count
    let k = at + 3
    let i = start
    for (; i + 1 < end; i += 2) data[k++] = text.charCodeAt(i) | (text.charCodeAt(i + 1) << 16)
    if (i < end) data[k++] = text.charCodeAt(i)
    for (let j = 0; j < count; j++) data[k++] = ids[from + j]!
    this.dataLength = k
    // Load factor at most 1/2 (two ints a slot) keeps probe runs short.
    if (++this.slotsUsed * 4 > this.slots.length) this.rehash()
    else placeSlot(this.slots, h, at)
    return at
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2)
    const data = this.data
    for (let at = 0; at < this.dataLength; at = idsAt(data, at) + data[at + 2]!) placeSlot(this.slots, data[at]!, at)
  }

  private growPending(): void {
    const cap = this.pendingStart.length * 2
    this.pendingStart = grow(this.pendingStart, cap)
    this.pendingEnd = grow(this.pendingEnd, cap)
    this.pendingHash = grow(this.pendingHash, cap)
    this.pendingOffset = grow(this.pendingOffset, cap)
  }

  private clear(): void {
    this.slots.fill(0)
    this.slotsUsed = 0
    this.dataLength = 0
    this.oldSlots = null
    this.oldData = null
  }
}

/** Where the ids of the entry at `at` start: after its hash, length, count and packed key. */
function idsAt(data: Int32Array, at: number): number {
  return at + 3 + ((data[at + 1]! + 1) >> 1)
}

/** Offset of the entry for `text[start, end)` in one generation, or -1. */
function findEntry(slots: Int32Array, data: Int32Array, text: string, start: number, end: number, h: number): number {
  const n = end - start
  const mask = (slots.length >> 1) - 1
  for (let s = h & mask; ; s = (s + 1) & mask) {
    const at = slots[2 * s + 1]! - 1
    if (at < 0) return -1
    if (slots[2 * s] !== h || data[at + 1] !== n) continue
    let k = at + 3
    let i = start
    for (; i + 1 < end; i += 2) {
      const w = data[k++]!
      if ((w & 0xffff) !== text.charCodeAt(i) || w >>> 16 !== text.charCodeAt(i + 1)) break
    }
    if (i + 1 < end) continue
    if (i < end && data[k] !== text.charCodeAt(i)) continue
    return at
  }
}

/** Puts the entry at `at` with hash `h` into the first free slot pair from `h` on. */
function placeSlot(slots: Int32Array, h: number, at: number): void {
  const mask = (slots.length >> 1) - 1
  let s = h & mask
  while (slots[2 * s + 1] !== 0) s = (s + 1) & mask
  slots[2 * s] = h
  slots[2 * s + 1] = at + 1
}

function grow(a: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(cap)
  b.set(a)
  return b
}

let separatorTable: Uint8Array | undefined

/**
 * 1 for each UTF-16 unit that splits runs: outside jieba-rs's han class (`RE_HAN_DEFAULT`:
 * U+3400–4DBF, U+4E00–9FFF, U+F900–FAFF, astral ideographs, `a-zA-Z0-9+#&._%-`), not a letter or
 * digit (so never a feature token) and not a surrogate (astral characters stay inside runs).
 */
export function separators(): Uint8Array {
  if (separatorTable !== undefined) return separatorTable
  const t = new Uint8Array(65536)
  const letterOrDigit = /[\p{L}\p{N}]/u
  for (let c = 0; c < 65536; c++) {
    const han = (c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff)
    const surrogate = c >= 0xd800 && c <= 0xdfff
    if (han || surrogate) continue
    const ch = String.fromCharCode(c)
    if (/[a-zA-Z0-9+#&._%-]/.test(ch) || letterOrDigit.test(ch)) continue
    t[c] = 1
  }
  separatorTable = t
  return t
}
