import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { DedupError } from '../../errors.js'
import { decodePut, type PutView } from './_codec.js'

/** Bytes read for one entry met at random (a record entry is ~100–200 bytes). */
const RANDOM_READ = 512
/** Bytes read ahead by whole-table passes (scan, compaction, cluster counts). */
const SEQUENTIAL_READ = 1 << 20
/** Largest entry a read may grow to before the entry is called corrupt (a frame's payload bound). */
const MAX_ENTRY_BYTES = 64 << 20
/** Bytes of one cache slot (a random read's window): a record entry of the stream bench is ~280 bytes; longer ones are not cached. */
const SLOT_BYTES = 512
/** Default number of cache slots (`cacheEntries`): 32,768 × 512 B = 16 MiB, plus 320 KiB of keys and lengths. */
export const DEFAULT_CACHE_ENTRIES = 1 << 15

/**
 * Positional reads of PUT entries from the store's log, for a store that keeps record payloads
 * (ids, cluster ids, sketches, hashes, bands) out of RAM: the tables hold each row's entry offset,
 * and a call reads back only the rows it returns.
 *
 * Reads are synchronous (`readSync` into one reused buffer): they come from the page cache in a
 * few microseconds, and an async read per row would cost more in promise overhead than the read.
 * The file descriptor is its own, opened on first use, so it keeps reading the file it opened
 * after compaction renames a new log over it; `retain`/`release` keep it open while a scan of
 * the old tables runs, and `retire` closes it once none does.
 */
export class LogReader {
  /** Where the entry found by the last `entry` call starts in the buffer it returned. */
  at = 0
  private fd = -1
  private buf = Buffer.allocUnsafe(RANDOM_READ)
  private winStart = 0
  private winLen = 0
  /** The window ended before the bytes asked for: the file ends there. */
  private winAtEof = false
  private refs = 0
  private retired = false
  /** Cache slots of readers made without `cacheEntries` (a store without the `entryCache` option); benchmarks set 0 to compare. */
  static cacheEntries = DEFAULT_CACHE_ENTRIES
  /** Random reads served from the cache (a count for benchmarks). */
  hits = 0
  /** Cache slots, allocated on the first random read: entry bytes, their log offsets (-1: empty), lengths. */
  private cache: Buffer | null = null
  private keys: Float64Array | null = null
  private lens: Uint16Array | null = null
  private readonly slotShift: number

  /**
   * `cacheEntries`: slots of the cache of entries met at random (rounded down to a power of two;
   * 0: none). Direct-mapped by log offset. An entry's bytes at an offset never change while this
   * reader's file is open (the log is only appended to; compaction and repair give the store a new
   * reader), so a slot needs no invalidation: deletes and re-puts only change which rows are live
   * and which offsets the tables point to.
   */
  constructor(readonly path: string, cacheEntries = LogReader.cacheEntries) {
    const bits = cacheEntries >= 2 ? Math.min(24, Math.floor(Math.log2(cacheEntries))) : -1
    this.slotShift = bits < 0 ? -1 : 32 - bits
  }

  /** Opens the file now (it must exist), so a later rename over the path does not change what it reads. */
  pin(): void {
    if (this.fd < 0 && !this.retired) this.fd = openSync(this.path, 'r')
  }

  /**
   * Decodes the PUT entry at file offset `offset` into `v` and returns the buffer its positions
   * refer to (valid until the next read). `ahead`: read a large window (whole-table passes).
   */
  entry(offset: number, v: PutView, ahead: boolean): Buffer {
    let want = ahead ? SEQUENTIAL_READ : RANDOM_READ
    let at = offset - this.winStart
    const slot = ahead || this.slotShift < 0 || this.retired ? -1 : this.slotOf(offset)
    if (at < 0 || at >= this.winLen) {
      if (slot >= 0 && this.keys![slot] === offset) {
        const from = slot * SLOT_BYTES
        decodePut(this.cache!, from, from + this.lens![slot]!, v)
        this.at = from
        this.hits++
        return this.cache!
      }
      this.fill(offset, want)
      at = 0
    }
    for (;;) {
      const end = decodePut(this.buf, at, this.winLen, v)
      if (end >= 0) {
        if (slot >= 0 && end - at <= SLOT_BYTES) {
          this.buf.copy(this.cache!, slot * SLOT_BYTES, at, end)
          this.keys![slot] = offset
          this.lens![slot] = end - at
        }
        this.at = at
        return this.buf
      }
      // Cut off by the window (a long entry), or malformed: read more, from the entry's start.
      if (at === 0) {
        if (this.winAtEof || this.winLen >= MAX_ENTRY_BYTES) throw corrupt(this.path, offset)
        want = Math.min(this.winLen * 2, MAX_ENTRY_BYTES)
      }
      this.fill(offset, want)
      at = 0
    }
  }

  /** `offset`'s cache slot (allocating the cache on first use). */
  private slotOf(offset: number): number {
    if (this.keys === null) {
      const n = 1 << (32 - this.slotShift)
      this.cache = Buffer.allocUnsafe(n * SLOT_BYTES)
      this.keys = new Float64Array(n).fill(-1)
      this.lens = new Uint16Array(n)
    }
    const mixed = Math.imul((offset >>> 0) ^ ((offset / 0x100000000) | 0), 0x9e3779b1)
    return mixed >>> this.slotShift
  }

  /** Device and inode (`dev:ino`) of the file this reader reads (opening it now). */
  inode(): string {
    this.pin()
    const st = fstatSync(this.fd)
    return `${st.dev}:${st.ino}`
  }

  /** Keeps the file open until the matching `release` (a scan over tables that compaction may replace). */
  retain(): void {
    this.refs++
  }

  release(): void {
    this.refs--
    if (this.retired && this.refs <= 0) this.closeFd()
  }

  /** No new reads will come but from retained users: closes the file once none is left. */
  retire(): void {
    this.retired = true
    this.cache = this.keys = this.lens = null
    if (this.refs <= 0) this.closeFd()
  }

  private fill(offset: number, want: number): void {
    if (this.fd < 0) {
      if (this.retired) throw new DedupError('STORE_UNAVAILABLE', `The memory store's log ${this.path} is closed.`)
      this.pin()
    }
    if (this.buf.length < want) this.buf = Buffer.allocUnsafe(want)
    let got = 0
    while (got < want) {
      const n = readSync(this.fd, this.buf, got, want - got, offset + got)
      if (n === 0) break
      got += n
    }
    this.winStart = offset
    this.winLen = got
    this.winAtEof = got < want
  }

  private closeFd(): void {
    if (this.fd < 0) return
    closeSync(this.fd)
    this.fd = -1
  }
}

function corrupt(path: string, offset: number): DedupError {
  return new DedupError(
    'STORE_CORRUPT',
    `${path} is corrupt at byte offset ${offset}: the record entry there cannot be read back. Restore a backup or re-index into a new directory.`,
  )
}
