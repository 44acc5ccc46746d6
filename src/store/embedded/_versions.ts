import { bytesEqual } from './_bytes.js'

/** At most this many distinct fingerprint versions per store (the id lives in 7 bits of a row's meta). */
export const MAX_VERSIONS = 128

/**
 * Interned fingerprint version strings. A store sees one or two versions in its life, so rows
 * keep a one-byte id. Lookups from log bytes compare against the last version seen first,
 * which is nearly always a hit, so replay does not decode a string per record.
 */
export class VersionRegistry {
  readonly strings: string[] = []
  private readonly bytes: Buffer[] = []
  private readonly ids = new Map<string, number>()
  private last = -1

  /** Whether `version` is known or there is room for it. */
  accepts(version: string): boolean {
    return this.ids.has(version) || this.strings.length < MAX_VERSIONS
  }

  /** Id of `version`, added if new; -1 when the registry is full. */
  intern(version: string): number {
    const id = this.ids.get(version)
    if (id !== undefined) return id
    if (this.strings.length >= MAX_VERSIONS) return -1
    this.strings.push(version)
    this.bytes.push(Buffer.from(version, 'utf8'))
    this.ids.set(version, this.strings.length - 1)
    return this.strings.length - 1
  }

  /** Id of the version whose UTF-8 bytes are `buf[start, start + len)`; -1 when full. */
  internBytes(buf: Buffer, start: number, len: number): number {
    const last = this.last >= 0 ? this.bytes[this.last]! : undefined
    if (last !== undefined && last.length === len && bytesEqual(last, 0, buf, start, len)) return this.last
    const id = this.intern(buf.toString('utf8', start, start + len))
    if (id >= 0) this.last = id
    return id
  }
}
