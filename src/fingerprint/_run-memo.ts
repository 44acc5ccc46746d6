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
 * Traditional/Simplified twins): on the bench corpus about 4 in 5 characters lie in runs seen
 * before. Ids belong to one TermTable: the memo is dropped when the table is cleared, when the
 * segmenter's dictionary changes (`epoch`) and when it outgrows its own limit.
 */
export class RunMemo {
  private slots = new Int32Array(1 << 16)
  /** Run keys, as UTF-16 units, end to end. */
  private keys = new Uint16Array(1 << 18)
  private keysLength = 0
  private keyStart = new Int32Array(4096)
  private keyLength = new Int32Array(4096)
  private keyHash = new Int32Array(4096)
  /** Feature term ids of each run: `ids[idStart, idStart + idLength)`; idStart −1 while pending. */
  private idStart = new Int32Array(4096)
  private idLength = new Int32Array(4096)
  private ids = new Int32Array(1 << 18)
  private idsLength = 0
  private size = 0
  /** Entries of the current document's runs, in order. */
  private runs = new Int32Array(1024)
  private pendingEntry = new Int32Array(256)
  private pendingStart = new Int32Array(256)
  private generation = -1
  private epoch: number | undefined
  /** Set when the segmenter's output did not line up with the runs: plain cuts from then on. */
  private broken = false
  /** Runs looked up and found, and their UTF-16 units (for the bench's hit rate). */
  lookups = 0
  hits = 0
  lookupUnits = 0
  hitUnits = 0

  constructor(
    private readonly table: TermTable,
    private readonly segmenter: Segmenter,
    private readonly limitRuns = 1 << 20,
    private readonly limitUnits = 1 << 24,
  ) {}

  /** Segments `text` into the table (as `table.load(segmenter.cut(text))` does). */
  load(text: string): void {
    const table = this.table
    table.begin()
    if (this.broken) {
      table.load(this.segmenter.cut(text))
      return
    }
    if (table.generation !== this.generation || this.segmenter.epoch !== this.epoch || this.size > this.limitRuns || this.keysLength > this.limitUnits) {
      this.clear()
      this.generation = table.generation
      this.epoch = this.segmenter.epoch
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
      let entry = this.find(text, start, i, h)
      this.lookups++
      this.lookupUnits += i - start
      if (entry < 0) {
        entry = this.insert(text, start, i, h)
        if (pending === this.pendingEntry.length) this.growPending()
        this.pendingEntry[pending] = entry
        this.pendingStart[pending++] = start
      } else {
        this.hits++
        this.hitUnits += i - start
      }
      if (runCount === this.runs.length) this.runs = grow(this.runs, runCount * 2)
      this.runs[runCount++] = entry
    }
    if (pending > 0 && !this.cutPending(text, pending)) {
      this.broken = true
      this.clear()
      table.load(this.segmenter.cut(text))
      return
    }
    let m = 0
    const ids = this.ids
    for (let r = 0; r < runCount; r++) {
      const e = this.runs[r]!
      const from = this.idStart[e]!
      const len = this.idLength[e]!
      if (m + len > table.sequence.length) table.reserve(m + len, m)
      const seq = table.sequence
      for (let k = 0; k < len; k++) seq[m + k] = ids[from + k]!
      m += len
    }
    table.count(m)
  }

  /** Cuts the pending runs in one call and stores their feature ids; false if tokens misalign. */
  private cutPending(text: string, pending: number): boolean {
    const parts = new Array<string>(pending)
    for (let p = 0; p < pending; p++) {
      const e = this.pendingEntry[p]!
      const start = this.pendingStart[p]!
      parts[p] = text.slice(start, start + this.keyLength[e]!)
    }
    const tokens = this.segmenter.cut(parts.join('\n'))
    const table = this.table
    let t = 0
    for (let p = 0; p < pending; p++) {
      const e = this.pendingEntry[p]!
      if (p > 0) {
        if (tokens[t] !== '\n') return false
        t++
      }
      this.idStart[e] = this.idsLength
      let left = this.keyLength[e]!
      while (left > 0) {
        const token = tokens[t++]
        if (token === undefined || token.length > left) return false
        left -= token.length
        const id = table.idOf(token)
        if (table.isFeature(id)) {
          if (this.idsLength === this.ids.length) this.ids = grow(this.ids, this.idsLength * 2)
          this.ids[this.idsLength++] = id
        }
      }
      this.idLength[e] = this.idsLength - this.idStart[e]!
    }
    return t === tokens.length
  }

  private find(text: string, start: number, end: number, h: number): number {
    const n = end - start
    const slots = this.slots
    const mask = slots.length - 1
    const keys = this.keys
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const e = slots[s]! - 1
      if (e < 0) return -1
      if (this.keyHash[e] !== h || this.keyLength[e] !== n) continue
      let k = this.keyStart[e]!
      let i = start
      while (i < end && keys[k] === text.charCodeAt(i)) {
        i++
        k++
      }
      if (i === end) return e
    }
  }

  private insert(text: string, start: number, end: number, h: number): number {
    const e = this.size++
    if (e === this.keyStart.length) {
      const cap = e * 2
      this.keyStart = grow(this.keyStart, cap)
      this.keyLength = grow(this.keyLength, cap)
      this.keyHash = grow(this.keyHash, cap)
      this.idStart = grow(this.idStart, cap)
      this.idLength = grow(this.idLength, cap)
    }
    const n = end - start
    if (this.keysLength + n > this.keys.length) {
      const keys = new Uint16Array(Math.max(this.keys.length * 2, this.keysLength + n))
      keys.set(this.keys.subarray(0, this.keysLength))
      this.keys = keys
    }
    this.keyStart[e] = this.keysLength
    this.keyLength[e] = n
    this.keyHash[e] = h
    this.idStart[e] = -1
    this.idLength[e] = 0
    for (let i = start; i < end; i++) this.keys[this.keysLength++] = text.charCodeAt(i)
    // Load factor at most 1/2 keeps probe runs short.
    if (this.size * 2 > this.slots.length) {
      this.slots = new Int32Array(this.slots.length * 2)
      for (let x = 0; x < this.size; x++) this.place(this.keyHash[x]!, x)
    } else {
      this.place(h, e)
    }
    return e
  }

  private place(h: number, e: number): void {
    const mask = this.slots.length - 1
    let s = h & mask
    while (this.slots[s] !== 0) s = (s + 1) & mask
    this.slots[s] = e + 1
  }

  private growPending(): void {
    this.pendingEntry = grow(this.pendingEntry, this.pendingEntry.length * 2)
    this.pendingStart = grow(this.pendingStart, this.pendingStart.length * 2)
  }

  private clear(): void {
    this.slots.fill(0)
    this.size = 0
    this.keysLength = 0
    this.idsLength = 0
  }
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
