import type { FileHandle } from 'node:fs/promises'

const READ_BYTES = 8 << 20

/** Reads the file in large windows; a frame larger than the window gets a buffer of its own. */
export class Reader {
  buf = Buffer.allocUnsafe(READ_BYTES)
  start = 0
  length = 0

  constructor(private readonly fh: FileHandle) {}

  /** Makes `[offset, offset + n)` (within the file) readable at `buf[offset - start]`. */
  async ensure(offset: number, n: number, fileSize: number): Promise<void> {
    if (offset >= this.start && offset + n <= this.start + this.length) return
    if (n > this.buf.length) this.buf = Buffer.allocUnsafe(n)
    const want = Math.min(this.buf.length, fileSize - offset)
    let got = 0
    while (got < want) {
      const { bytesRead } = await this.fh.read(this.buf, got, want - got, offset + got)
      if (bytesRead === 0) break
      got += bytesRead
    }
    this.start = offset
    this.length = got
  }

  async allZero(from: number, to: number): Promise<boolean> {
    for (let off = from; off < to; off += READ_BYTES) {
      const n = Math.min(READ_BYTES, to - off)
      await this.ensure(off, n, to)
      for (let i = 0; i < n; i++) if (this.buf[off - this.start + i] !== 0) return false
    }
    return true
  }
}
