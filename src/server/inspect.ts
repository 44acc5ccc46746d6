import { fingerprintToHex, hamming, type Deduplicator, type FingerprintRecord, type FingerprintStore } from '../index.js'
import { compareOrder, matchCandidate, minhashSimilarity } from '../internal.js'

/** Texts of documents: kept by the server (`--keep-texts`), or an Elasticsearch index's `_source` field. */
export type TextSource = (ids: readonly string[]) => Promise<Map<string, string>>

/** A stored record as the API shows it (`GET /v1/documents/{id}`): snake_case, as decisions. */
export function recordView(r: FingerprintRecord) {
  return {
    id: r.id,
    cluster_id: r.clusterId,
    duplicate_of: r.duplicateOf,
    distance: r.distance,
    layer: r.layer,
    simhash: fingerprintToHex(r.fingerprint),
    short: r.short,
    supersedes: r.supersedes ?? null,
    version: r.version,
    indexed_at: new Date(r.indexedAt).toISOString(),
    seq: r.seq ?? null,
  }
}

/** Characters of each member's text a cluster view shows. */
const PREVIEW_CHARS = 160

/**
 * A cluster's members (by the cluster's id or any member's), first indexed first, each with the
 * evidence of its decision: the record it duplicates, the layer, and the rule and resemblance
 * `matchCandidate` (the rule indexing applied) gives for that pair now. Null: no such cluster or document.
 */
export async function clusterView(store: FingerprintStore, dedup: Deduplicator, id: string, limit: number, texts: TextSource | null) {
  let clusterId = id
  let members = await store.members(id, limit)
  if (members.length === 0) {
    const record = (await store.get([id])).get(id)
    if (record === undefined) return null
    clusterId = record.clusterId
    members = await store.members(clusterId, limit)
  }
  if (members.length === 0) return null
  members.sort(compareOrder)
  const rep = members.find((m) => m.id === clusterId) ?? members[0]!
  const byId = new Map(members.map((m) => [m.id, m]))
  const outside = [...new Set(members.map((m) => m.duplicateOf).filter((d): d is string => d !== null && !byId.has(d)))]
  if (outside.length > 0) for (const [k, v] of await store.get(outside)) byId.set(k, v)
  const kept = texts === null ? new Map<string, string>() : await texts(members.map((m) => m.id))
  return {
    clusterId,
    asked: id,
    size: members.length,
    texts: texts !== null,
    members: members.map((m) => {
      const target = m.duplicateOf === null ? undefined : byId.get(m.duplicateOf)
      const match = target === undefined ? null : matchCandidate(m, target, dedup.options)
      const text = kept.get(m.id)
      return {
        id: m.id,
        representative: m.id === rep.id,
        duplicateOf: m.duplicateOf,
        layer: m.layer,
        rule: match?.rule ?? null,
        distance: m.distance,
        resemblance: match?.resemblance ?? null,
        distanceToRepresentative: hamming(m.fingerprint, rep.fingerprint),
        simhash: fingerprintToHex(m.fingerprint),
        indexedAt: new Date(m.indexedAt).toISOString(),
        supersedes: m.supersedes ?? null,
        preview: text === undefined ? null : text.slice(0, PREVIEW_CHARS),
        textLength: text === undefined ? null : text.length,
      }
    }),
  }
}

/** Distances of stored duplicates to what they duplicate, by layer, and MinHash resemblances, over the whole store. */
export interface Histogram {
  documents: number
  duplicates: number
  /** `distance[layer][d]`: duplicates of that layer at Hamming distance d (0–64). */
  distance: Record<string, number[]>
  /** `resemblance[i]`: duplicates whose estimated 5-gram resemblance to what they duplicate is in [i/20, (i+1)/20) (the last bin includes 1). */
  resemblance: number[]
}

/** Scans the store once (`scan`, one `get` of the duplicated records per page) and counts. */
export async function histogram(store: FingerprintStore): Promise<Histogram> {
  const out: Histogram = { documents: 0, duplicates: 0, distance: {}, resemblance: new Array<number>(20).fill(0) }
  for await (const page of store.scan(1000)) {
    out.documents += page.length
    const dups = page.filter((r) => r.duplicateOf !== null && r.layer !== null)
    const targets = dups.length === 0 ? new Map<string, FingerprintRecord>() : await store.get([...new Set(dups.map((r) => r.duplicateOf!))])
    for (const r of dups) {
      out.duplicates++
      const bins = (out.distance[r.layer!] ??= new Array<number>(65).fill(0))
      const target = targets.get(r.duplicateOf!)
      const d = r.distance ?? (target === undefined ? null : hamming(r.fingerprint, target.fingerprint))
      if (d !== null) bins[d]!++
      if (target !== undefined && r.sketch?.startsWith('m:') && target.sketch?.startsWith('m:')) {
        const s = minhashSimilarity(r.sketch, target.sketch)
        out.resemblance[Math.min(19, Math.floor(s * 20))]!++
      }
    }
  }
  return out
}
