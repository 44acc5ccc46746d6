import type { FingerprintRecord } from '../types.js'
import type { MatchSubject } from './match.js'
import type { ResolvedDeduplicatorOptions } from './options.js'

type Keyed = MatchSubject & { blocks: readonly string[]; bands?: readonly string[] | undefined }

/**
 * The earlier documents of the batch being decided, indexed by the same keys a store lookup
 * uses: blocks, MinHash bands, and the url / content / title keys of the enabled layers. A
 * document is then verified against the earlier ones it shares a key with (the same candidates a
 * store would give it once they were written) instead of against every earlier one: a batch of
 * n costs O(n) lookups, not n²/2 verifications.
 */
export class BatchIndex {
  private readonly byKey = new Map<string, FingerprintRecord[]>()
  private readonly current = new Map<string, FingerprintRecord>()

  constructor(private readonly o: Pick<ResolvedDeduplicatorOptions, 'layers' | 'minhash'>) {}

  /** Adds a decided record; a record with the same id as an earlier one replaces it. */
  add(record: FingerprintRecord): void {
    this.current.set(record.id, record)
    for (const key of this.keys(record)) {
      const list = this.byKey.get(key)
      if (list === undefined) this.byKey.set(key, [record])
      else list.push(record)
    }
  }

  /** The earlier records sharing a key with `d` (each once, never `d`'s own id, never replaced ones). */
  candidates(d: Keyed): FingerprintRecord[] {
    const out: FingerprintRecord[] = []
    const seen = new Set<FingerprintRecord>()
    for (const key of this.keys(d)) {
      const list = this.byKey.get(key)
      if (list === undefined) continue
      for (const r of list) {
        if (seen.has(r) || r.id === d.id || this.current.get(r.id) !== r) continue
        seen.add(r)
        out.push(r)
      }
    }
    return out
  }

  private keys(d: Keyed): string[] {
    const keys = [...d.blocks]
    if (this.o.minhash && d.bands !== undefined) keys.push(...d.bands)
    if (this.o.layers.exact) keys.push(`c:${d.contentHash}`)
    if (this.o.layers.url && d.urlHash !== null) keys.push(`u:${d.urlHash}`)
    if (this.o.layers.title && d.titleHash !== null) keys.push(`t:${d.titleHash}`)
    return keys
  }
}
