import type { CandidateQuery, FingerprintRecord } from '../types.js'
import type { CandidateBounds, FingerprintStore } from '../store/store.js'
import type { ResolvedDeduplicatorOptions } from './options.js'
import { BatchIndex } from './_batch-index.js'
import { candidateQuery, compareOrder, isEarlier, previousVersion, type Match } from './match.js'
import { UNBOUNDED, exactUnderCuts, noCuts, type Cuts } from './_bounds.js'

/** Most members of one cluster, and most versions of one URL, an update or a delete re-points. */
export const MAX_REPOINTED = 100_000

/**
 * The newest version of every record one operation (a batch of `Deduplicator.decide`, one
 * `deleteDocuments`) has decided or re-pointed so far: in `batch` (the in-batch candidates of
 * later decisions), `ids` (store copies of these ids are stale) and `latest`; `gone` are deleted.
 * Later decisions of the operation see exactly what a sequential run would have stored by then.
 */
export class Overlay {
  readonly batch: BatchIndex
  readonly ids = new Set<string>()
  readonly latest = new Map<string, FingerprintRecord>()
  readonly gone = new Set<string>()
  /** Each cluster's stored members as the store held them before the operation (one read each). */
  private readonly stored = new Map<string, Promise<FingerprintRecord[]>>()

  constructor(
    private readonly store: FingerprintStore,
    o: Pick<ResolvedDeduplicatorOptions, 'layers' | 'minhash'>,
  ) {
    this.batch = new BatchIndex(o)
  }

  /** Adds (or replaces) a record of the operation. */
  set(record: FingerprintRecord): void {
    this.ids.add(record.id)
    this.batch.add(record)
    this.latest.set(record.id, record)
  }

  /** Reads a cluster's stored members ahead (the operation's own writes are laid over them when used). */
  prefetch(clusterId: string): void {
    if (!this.stored.has(clusterId)) this.stored.set(clusterId, this.store.members(clusterId, MAX_REPOINTED))
  }

  /** The cluster's live members now: the stored ones, with this operation's versions laid over them. */
  async members(clusterId: string): Promise<FingerprintRecord[]> {
    this.prefetch(clusterId)
    const byId = new Map<string, FingerprintRecord>()
    for (const m of await this.stored.get(clusterId)!) {
      const cur = this.latest.get(m.id) ?? m
      if (cur.clusterId === clusterId && !this.gone.has(m.id)) byId.set(m.id, cur)
    }
    for (const r of this.latest.values()) if (r.clusterId === clusterId && !this.gone.has(r.id)) byId.set(r.id, r)
    return [...byId.values()]
  }
}

const KEYS = ['contentHash', 'urlHash', 'titleHash'] as const
type Key = (typeof KEYS)[number]

/**
 * Whether the store copy `r` no longer holds its place under `key` in what one sequential run
 * has stored by now: the operation deleted it, or wrote a newer version of its id without that
 * key value (an update) or with another `seq`. A newer version that keeps both is among the
 * operation's own candidates (`Overlay.batch`) and takes the place itself.
 */
export function staleUnder(overlay: Overlay, r: FingerprintRecord, key: Key): boolean {
  if (overlay.gone.has(r.id)) return true
  const latest = overlay.latest.get(r.id)
  return latest !== undefined && latest !== r && (latest[key] !== r[key] || latest.seq !== r.seq)
}

/**
 * `found`, the store's answer to `q`, read on past stale copies. The store answers each exact
 * key of `q` with its newest `perKey` records (by `seq`); when some of those are stale for this
 * operation (`staleUnder`: an id it updated away from the key, or deleted), the sequential run
 * would have had older records of the key in their places, and a decision bounded over fewer
 * would differ from a clean run's. The key alone is then asked again below the oldest of those
 * (`maxSeq`), page by page, until the pages hold `perKey` records that are not stale or the key
 * has no more. No store round trip unless a stale record is in a cut key (the bounds of the
 * decision then keep the newest `perKey` of the union, as before).
 */
export async function pastStale(
  store: FingerprintStore, overlay: Overlay, q: CandidateQuery, found: readonly FingerprintRecord[],
): Promise<FingerprintRecord[]> {
  const perKey = store.candidateBounds.perKey
  if (!Number.isFinite(perKey) || (overlay.latest.size === 0 && overlay.gone.size === 0)) return [...found]
  if (!found.some((r) => overlay.gone.has(r.id) || overlay.latest.has(r.id))) return [...found]
  const out = [...found]
  const ids = new Set(out.map((r) => r.id))
  for (const key of KEYS) {
    const value = q[key]
    if (value === null || value === undefined) continue
    let page = newestWith(out, key, value, perKey)
    let fresh = page.filter((r) => !staleUnder(overlay, r, key)).length
    while (page.length >= perKey && fresh < perKey) {
      const below = page[page.length - 1]!.seq
      if (below === undefined || below <= 0) break
      const { bands: _b, bandCheck: _c, known: _k, allBands: _a, ...rest } = q
      const keyOnly: CandidateQuery = { ...rest, blocks: [], contentHash: null, urlHash: null, titleHash: null, [key]: value, maxSeq: below - 1 }
      const more = (await store.candidates([keyOnly]))[0] ?? []
      for (const r of more) {
        if (ids.has(r.id)) continue
        ids.add(r.id)
        out.push(r)
      }
      page = newestWith(more, key, value, perKey)
      fresh += page.filter((r) => !staleUnder(overlay, r, key)).length
    }
  }
  return out
}

/** The newest `n` records of `records` whose `key` is `value` (first-insertion order, newest first). */
function newestWith(records: readonly FingerprintRecord[], key: Key, value: string, n: number): FingerprintRecord[] {
  return records.filter((r) => r[key] === value).sort((a, b) => compareOrder(b, a)).slice(0, n)
}

/** Decides a stored record again: its best match among `found` (the store's answer to `q`) and the overlay's records. */
export type Redecide = (record: FingerprintRecord, q: CandidateQuery, found: readonly FingerprintRecord[], bounds: CandidateBounds, cuts?: Cuts) => Match | null

/**
 * Whether two records of one id compare alike: the keys and sketches that matching reads. A new
 * record that differs (an updated page) has moved its content away from whatever matched it.
 */
export function sameContent(a: FingerprintRecord, b: FingerprintRecord): boolean {
  return a.version === b.version && a.contentHash === b.contentHash && a.urlHash === b.urlHash && a.titleHash === b.titleHash
    && a.short === b.short && a.fingerprint.hi === b.fingerprint.hi && a.fingerprint.lo === b.fingerprint.lo
    && (a.sketch ?? null) === (b.sketch ?? null) && (a.bands ?? []).join(' ') === (b.bands ?? []).join(' ')
}

/** A record with its decision replaced by `match` (unique when null), as `decide` writes one. */
export function withMatch(r: FingerprintRecord, match: Match | null): FingerprintRecord {
  const { rule: _rule, ...rest } = r
  const next: FingerprintRecord = match === null
    ? { ...rest, clusterId: r.id, duplicateOf: null, distance: null, layer: null }
    : { ...rest, clusterId: match.record.clusterId, duplicateOf: match.record.id, distance: match.distance, layer: match.layer }
  if (match !== null && match.layer === 'simhash' && match.rule !== null) next.rule = match.rule
  return next
}

/** Whether `next` decides as `stored` does (a store without a rule field, the embedded one, returns none). */
function sameDecision(next: FingerprintRecord, stored: FingerprintRecord): boolean {
  return next.clusterId === stored.clusterId && next.duplicateOf === stored.duplicateOf && next.distance === stored.distance && next.layer === stored.layer
    && (stored.rule === undefined || stored.rule === next.rule) && (next.supersedes ?? null) === (stored.supersedes ?? null)
}

/**
 * After the record `old` was replaced by `now` (same id: an updated document) or deleted (`now`
 * null, its id in `overlay.gone`): the members of `old`'s cluster are brought to what one clean
 * sequential run leaves, in the same operation. In first-indexed order (pointers only go to earlier
 * records, so a member's target is settled before it): a member that matched `old` while its
 * content moved (or is gone) is decided again against the records first indexed before it
 * (`redecide`: distance, layer and rule re-decided; unique when the rules accept none, and the
 * earliest such member is then the cluster's new representative, the others finding it); a member
 * pointing at one whose cluster changed takes the new cluster id. When `old` only changed cluster
 * (same content), its followers take the new cluster id. Then the version links of the URLs
 * involved are derived again (`relinkVersions`). The records changed are set in the overlay and
 * returned. A later mirror of the old text then finds the old cluster, under its new representative.
 */
export async function reelect(
  store: FingerprintStore, o: ResolvedDeduplicatorOptions, overlay: Overlay, redecide: Redecide,
  old: FingerprintRecord, now: FingerprintRecord | null,
): Promise<FingerprintRecord[]> {
  const moved = now === null || !sameContent(old, now)
  if (!moved && now.clusterId === old.clusterId) return []
  const members = (await overlay.members(old.clusterId)).filter((m) => m.id !== old.id).sort(compareOrder)
  const lost = (id: string | null): boolean => id !== null && (id === old.id ? moved : overlay.gone.has(id))
  const redo = members.filter((m) => lost(m.duplicateOf))
  // Bounded by cluster, the store cuts by the clusters stored, which this operation is changing:
  // every candidate then, bounded by the clusters as the overlay holds them (`redecide`).
  const whole = store.candidateBounds.perCluster !== undefined
  const queries = redo.map((m) => ({ ...candidateQuery(m, o), allBands: true, ...(whole ? { exhaustive: true } : {}), ...(m.seq === undefined ? {} : { maxSeq: m.seq }) }))
  const answers = redo.length === 0 ? [] : await store.candidates(queries)
  const asked = new Map(redo.map((m, i) => [m.id, i]))
  const changed: FingerprintRecord[] = []
  for (const m of members) {
    const i = asked.get(m.id)
    let next: FingerprintRecord = m
    if (i !== undefined) {
      const found = (whole ? answers[i] ?? [] : await pastStale(store, overlay, queries[i]!, answers[i] ?? [])).filter((r) => !overlay.gone.has(r.id))
      const cuts = noCuts()
      let match = redecide(m, queries[i]!, found, store.candidateBounds, cuts)
      // As a document is decided: where a bound could change the cluster or duplicate/unique, on every candidate.
      if (!exactUnderCuts(match, cuts)) {
        const all = whole ? found : ((await store.candidates([{ ...queries[i]!, exhaustive: true }]))[0] ?? []).filter((r) => !overlay.gone.has(r.id))
        match = redecide(m, queries[i]!, all, UNBOUNDED)
      }
      next = withMatch(m, match)
    } else if (m.duplicateOf !== null) {
      const parent = overlay.latest.get(m.duplicateOf)
      if (parent !== undefined && parent.clusterId !== m.clusterId) next = { ...m, clusterId: parent.clusterId }
    }
    if (next !== m && !sameDecision(next, m)) {
      overlay.set(next)
      changed.push(next)
    }
  }
  if (moved) {
    const urls = new Set<string>()
    if (old.urlHash !== null) urls.add(old.urlHash)
    if (now !== null && now.urlHash !== null) urls.add(now.urlHash)
    changed.push(...(await relinkVersions(store, o, overlay, [...urls], old)))
  }
  return changed
}

/**
 * The version links (`supersedes`) of the live records of `urls` first indexed after `after`,
 * derived again from the live versions (the overlay's over the store's): the last earlier record
 * of the URL, when the contents differ (`previousVersion`). Changed records are set in the overlay and returned.
 */
export async function relinkVersions(
  store: FingerprintStore, o: ResolvedDeduplicatorOptions, overlay: Overlay, urls: readonly string[], after?: FingerprintRecord,
): Promise<FingerprintRecord[]> {
  if (urls.length === 0 || !o.layers.url) return []
  const changed: FingerprintRecord[] = []
  const lists = await store.byUrl(urls, MAX_REPOINTED)
  urls.forEach((url, k) => {
    const byId = new Map<string, FingerprintRecord>()
    for (const v of lists[k] ?? []) if (!overlay.gone.has(v.id)) byId.set(v.id, overlay.latest.get(v.id) ?? v)
    for (const v of overlay.latest.values()) if (v.urlHash === url && !overlay.gone.has(v.id)) byId.set(v.id, v)
    const live = [...byId.values()].filter((v) => v.urlHash === url).sort(compareOrder)
    for (const v of live) {
      if (after !== undefined && !isEarlier(after, v)) continue
      const previous = previousVersion(v, live.map((x) => overlay.latest.get(x.id) ?? x), o)?.id ?? null
      if (previous === (v.supersedes ?? null)) continue
      const { supersedes: _s, ...rest } = overlay.latest.get(v.id) ?? v
      const next: FingerprintRecord = previous === null ? rest : { ...rest, supersedes: previous }
      overlay.set(next)
      changed.push(next)
    }
  })
  return changed
}
