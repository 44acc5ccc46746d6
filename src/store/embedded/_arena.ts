import { DedupError } from '../../errors.js'

/**
 * Append-only byte arena for each row's strings (id, cluster id, duplicate-of, sketch).
 *
 * A row's strings are copied in as one region straight from the encoded log entry, so replay
 * never decodes them into JS strings. Regions are appended in groups (8 rows): the owner keeps
 * one position per group, not per row, and finds a row by skipping the regions before it in its
 * group. A group never spans two buffers: when a region does not fit, the group so far is copied
 * to the start of a new buffer and its position changes (the old copy is a few wasted bytes).
 *
 * A position is one uint32: slot (4 MiB) × 2^22 + offset, so the arena holds up to 4 GiB. A
 * buffer larger than a slot (a huge sketch) occupies several slots; each slot remembers where
 * its buffer starts, so offsets within it stay right.
 */
const SLOT_BITS = 22
const SLOT_BYTES = 1 << SLOT_BITS
const MAX_SLOTS = 1 << (32 - SLOT_BITS)

/** Chunked byte arena addressed by uint32 positions. */
export class ByteArena {
  private readonly slots: Buffer[] = []
  /** For each slot, the first slot of its buffer. */
  private readonly slotFirst: number[] = []
  private current: Buffer | undefined
  private currentFirst = 0
  private fill = 0
  private groupOff = 0

  /**
   * Appends `src[start, end)` as the next region of the current group, or of a new group when
   * `newGroup`. Returns the group's position (it moves when the group is copied to a new buffer).
   */
  append(src: Buffer, start: number, end: number, newGroup: boolean): number {
    const len = end - start
    if (newGroup) this.groupOff = this.fill
    const current = this.current
    if (current === undefined || this.fill + len > current.length) {
      const groupBytes = current === undefined ? 0 : this.fill - this.groupOff
      const next = this.startBuffer(groupBytes + len)
      if (groupBytes > 0) current!.copy(next, 0, this.groupOff, this.groupOff + groupBytes)
      this.groupOff = 0
      this.fill = groupBytes
    }
    const dst = this.current!
    // Most regions are a dozen bytes: a loop beats the native call's overhead.
    if (len <= 48) for (let i = 0; i < len; i++) dst[this.fill + i] = src[start + i]!
    else src.copy(dst, this.fill, start, end)
    this.fill += len
    return this.currentFirst * SLOT_BYTES + this.groupOff
  }

  /** The buffer holding position `pos`. */
  buffer(pos: number): Buffer {
    return this.slots[pos >>> SLOT_BITS]!
  }

  /** Offset of `pos` within `buffer(pos)`. */
  offset(pos: number): number {
    return pos - this.slotFirst[pos >>> SLOT_BITS]! * SLOT_BYTES
  }

  /** Bytes allocated (what the arena costs). */
  byteLength(): number {
    let total = 0
    for (let i = 0; i < this.slots.length; i++) if (this.slotFirst[i] === i) total += this.slots[i]!.length
    return total
  }

  private startBuffer(len: number): Buffer {
    const slots = Math.max(1, Math.ceil(len / SLOT_BYTES))
    if (this.slots.length + slots > MAX_SLOTS) {
      throw new DedupError('STORE_UNAVAILABLE', 'The memory store\'s string arena is full (4 GiB of ids, cluster ids and sketches). Split the data over several stores or use Elasticsearch.')
    }
    // allocUnsafeSlow: not from the shared pool, and every byte is written before it is read.
    const buf = Buffer.allocUnsafeSlow(slots * SLOT_BYTES)
    this.currentFirst = this.slots.length
    for (let i = 0; i < slots; i++) {
      this.slots.push(buf)
      this.slotFirst.push(this.currentFirst)
    }
    this.current = buf
    return buf
  }
}
