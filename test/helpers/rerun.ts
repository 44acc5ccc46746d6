import { expect } from 'vitest'
import type { Decision, FingerprintRecord, InputDocument } from '../../src/types.js'
import type { FingerprintStore } from '../../src/store/store.js'
import type { Deduplicator } from '../../src/engine/deduplicator.js'
import { isEarlier } from '../../src/engine/match.js'
import { mulberry32 } from './random.js'

export { copyStream } from './copy-stream.js'

/**
 * Random document streams full of copies, and what "the same result" means for re-run tests:
 * the decisions of a run (per input position) and the decision fields of every stored record.
 */

/** Decides `docs` in batches of random sizes (1–`maxBatch`), as `simdup index` would with odd batch sizes. */
export async function runInBatches(dedup: Deduplicator, docs: readonly InputDocument[], seed: number, maxBatch = 25): Promise<Decision[]> {
  const rnd = mulberry32(seed)
  const out: Decision[] = []
  for (let i = 0; i < docs.length; ) {
    const size = 1 + Math.floor(rnd() * maxBatch)
    out.push(...(await dedup.add(docs.slice(i, i + size))))
    i += size
  }
  return out
}

/** What a decision says, without the fields that do not depend on the store (line, simhash). */
export function decided(ds: readonly Decision[]): string[] {
  return ds.map((d) => `${d.id} ${d.status} dup=${d.duplicateOf} cluster=${d.clusterId} ${d.layer}/${d.rule} ${d.distance} supersedes=${d.supersedes ?? '-'}`)
}

/** Every stored record's decision fields, sorted by id. */
export async function storedDecisions(store: FingerprintStore): Promise<string[]> {
  await store.refresh()
  const out: string[] = []
  for await (const batch of store.scan(200)) {
    for (const r of batch) out.push(`${r.id} dup=${r.duplicateOf} cluster=${r.clusterId} ${r.layer} ${r.distance} supersedes=${r.supersedes ?? '-'}`)
  }
  return out.sort()
}

/**
 * The invariants one sequential run guarantees: every `duplicateOf` names a stored record first
 * indexed earlier (no forward or mutual pointers), every `supersedes` an earlier record of the same
 * URL, and (`clusters`) every cluster id names a
 * stored representative that is its own cluster and duplicates nothing. The second holds only
 * when no id was re-indexed with other content (its old cluster keeps its members) or after
 * `reconcile`.
 */
export async function expectConsistent(store: FingerprintStore, clusters = true): Promise<void> {
  await store.refresh()
  const all = new Map<string, FingerprintRecord>()
  for await (const batch of store.scan(200)) for (const r of batch) all.set(r.id, r)
  const problems: string[] = []
  for (const r of all.values()) {
    if (r.duplicateOf !== null) {
      const t = all.get(r.duplicateOf)
      if (t === undefined) problems.push(`${r.id} points at missing ${r.duplicateOf}`)
      else if (!isEarlier(t, r)) problems.push(`${r.id} (seq ${r.seq}) points forward at ${t.id} (seq ${t.seq})`)
    }
    if (r.supersedes !== undefined) {
      // A version link names a stored record of the same URL first indexed earlier.
      const t = all.get(r.supersedes)
      if (t === undefined) problems.push(`${r.id} supersedes missing ${r.supersedes}`)
      else if (!isEarlier(t, r) || t.urlHash !== r.urlHash) problems.push(`${r.id} supersedes ${t.id}, which is not an earlier record of its URL`)
    }
    const rep = all.get(r.clusterId)
    if (clusters && (rep === undefined || rep.clusterId !== rep.id || rep.duplicateOf !== null)) problems.push(`${r.id} is in cluster ${r.clusterId}, which has no representative of its own`)
  }
  expect(problems).toEqual([])
}
