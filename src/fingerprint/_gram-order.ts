import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { fmix32 } from './hash.js'

/**
 * The global order of the short-text route's grams (prefix filtering needs one order for every
 * set, fixed forever: an order that followed the index would let two stores, or a run and its
 * re-run, index different prefixes). Rarest first: by the number of corpus lines a gram occurs in
 * (data/gram-freq.txt.gz, built by scripts/build-gram-freq.ts from the Debian corpus), grams the
 * table lacks counting 0; ties by a 32-bit hash of the gram. Changing the table changes the
 * prefixes: bump FINGERPRINT_ALGORITHM.
 */
const FILE = new URL('../../data/gram-freq.txt.gz', import.meta.url)

let freq: Map<number, number> | undefined

/** Gram key (two UTF-16 units, `a << 16 | b`) → line count, loaded once per thread. */
function table(): Map<number, number> {
  if (freq !== undefined) return freq
  const m = new Map<number, number>()
  const text = gunzipSync(readFileSync(FILE)).toString('utf8')
  for (const line of text.split('\n')) {
    const tab = line.indexOf('\t')
    if (tab !== 2) continue
    m.set(((line.charCodeAt(0) << 16) | line.charCodeAt(1)) >>> 0, Number(line.slice(3)))
  }
  freq = m
  return m
}

/** A gram's place in the global order (smaller = rarer): count · 2^32 + hash, exact below 2^53. */
export function gramRank(key: number): number {
  const f = Math.min(table().get(key) ?? 0, 0x1fffff)
  return f * 0x100000000 + fmix32(key) // the murmur3 finaliser: the tie-break hash
}
