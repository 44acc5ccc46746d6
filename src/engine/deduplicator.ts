import type { BandCheck, CandidateQuery, Decision, FingerprintRecord, InputDocument, PutResult } from '../types.js'
import type { CandidateBounds } from '../store/store.js'
import { DedupError } from '../errors.js'
import { fingerprintToHex, hamming } from '../fingerprint/hamming.js'
import { bestMatch, candidateQuery, compareMatches, isEarlier, matchCandidate, previousVersion, type Match, type MatchSubject } from './match.js'
import { prepareItem, type IncomingItem, type PreparedDocument, type PreparedItem } from './prepare.js'
import { resolveDeduplicatorOptions, type DeduplicatorOptions, type ResolvedDeduplicatorOptions } from './options.js'
import { DedupStats, type DedupStatsSnapshot } from './stats.js'
import { Overlay, pastStale, reelect, sameContent } from './_reelect.js'
import { UNBOUNDED, bandsDecide, boundCandidates, exactUnderCuts, noCuts, withoutBands, type Cuts } from './_bounds.js'
import { HostTemplates, mayHaveChromeLines, textLines, type TextLines } from './templates.js'
import { fingerprintBlocks } from '../fingerprint/blocks.js'
import { SKETCH_COUNT_DIGITS, minhashMaxDiffer, minhashPart } from '../fingerprint/minhash.js'

/**
 * Decides, for each document, whether it duplicates one already indexed (or an earlier one in
 * the same batch), by canonical URL, exact normalised content, then SimHash distance, then
 * (opt-in) title; writes its record to the store and returns one decision per input, in order.
 *
 * @example
 * const dedup = createDeduplicator({ store: await openMemoryStore() })
 * const [a, b] = await dedup.add([{ id: '1', content: '北京大学' }, { id: '2', content: '北京大學' }])
 * b.status // 'duplicate', b.duplicateOf === '1'
 */
export class Deduplicator {
  readonly options: ResolvedDeduplicatorOptions
  readonly stats = new DedupStats()
  private versionChecked: Promise<void> | null = null
  /** The template learner of this deduplicator's job; null when `templates` is off. */
  private readonly templates: HostTemplates | null

  constructor(options: DeduplicatorOptions) {
    this.options = resolveDeduplicatorOptions(options)
    this.templates = this.options.templates ? new HostTemplates() : null
  }

  /** The fingerprint version of this configuration (stored with each record). */
  get version(): string {
    return this.options.analyzer.version
  }

  /** Convenience: decide plain documents. */
  add(docs: readonly InputDocument[]): Promise<Decision[]> {
    return this.process(docs.map((value) => ({ value })))
  }

  /** Validates, analyses and decides a batch; resolves once the batch's records are durable. */
  process(items: readonly IncomingItem[]): Promise<Decision[]> {
    return this.decide(items.map((item) => this.prepare(item)))
  }

  /** Validation + analysis of one item: pure CPU, no store access (see `prepareItem`). */
  prepare(item: IncomingItem): PreparedItem {
    return prepareItem(item, this.options)
  }

  /**
   * `prepare` for a batch, yielding to the event loop every `slice` items. Preparing is CPU work
   * on this thread: done in one go, it would hold back the previous batch's `decide` (its lookup
   * answer, its bulk request) until the whole batch is prepared, and the store round trips would
   * no longer overlap with preparation.
   * @example const prepared = await dedup.prepareBatch(items); await dedup.decide(prepared)
   */
  async prepareBatch(items: readonly IncomingItem[], slice = PREPARE_SLICE): Promise<PreparedItem[]> {
    const out: PreparedItem[] = []
    for (let i = 0; i < items.length; i++) {
      if (i > 0 && i % slice === 0) await yieldToEventLoop()
      out.push(this.prepare(items[i]!))
    }
    return out
  }

  /**
   * Decides prepared items in order: one batched candidate lookup for the whole batch, in-batch
   * matching against earlier items, one `put`. Decisions for records the store failed to write
   * come back `rejected` with the store's reason: nothing is reported written that is not.
   */
  async decide(items: readonly PreparedItem[]): Promise<Decision[]> {
    const { decisions, durable } = await this.decideBatch(items, false)
    await durable // already committed (put); counts the batch's stats
    return decisions
  }

  /**
   * `decide` for a writer that pipelines its batches: resolves once the batch's records are
   * written and seen by every later call of this process (a store with `stage`; else once they
   * are put), with `durable`, which resolves once they are committed. The next batch may be
   * decided before it does, and decides as one sequential run would; acknowledge the decisions
   * only after `durable` (if it rejects, none of the batch's records is committed).
   */
  decideStaged(items: readonly PreparedItem[]): Promise<{ decisions: Decision[]; durable: Promise<void> }> {
    return this.decideBatch(items, true)
  }

  /** `decide`, with the store's `stage` (when it has one and `staged`) in place of `put`. */
  private async decideBatch(items: readonly PreparedItem[], staged: boolean): Promise<{ decisions: Decision[]; durable: Promise<void> }> {
    const o = this.options
    if (o.versionCheck) await (this.versionChecked ??= this.checkVersions())
    const now = o.now()
    const since = o.windowMs === undefined ? undefined : now - o.windowMs
    const docs: PreparedDocument[] = []
    for (const item of items) if (item.ok) docs.push(item.doc)
    // Template layer: every document is fingerprinted without the template lines the learner knows
    // now (see templates.ts); `version` notes which set that was, to notice one learned mid-batch.
    const templates = this.templates
    const filtered = new Map<PreparedDocument, Filtered>()
    const effective = docs.map((d) => this.withoutTemplate(d, filtered))
    const version = templates?.version ?? 0
    // First-insertion order: a re-indexed id keeps its number, a new one comes after everything.
    // Each document is compared only with records first indexed before it, so a re-run, or a run
    // finishing a crashed one, decides exactly as one clean run (see `isEarlier`).
    const seqs = docs.length === 0 ? [] : await o.store.sequence(docs.map((d) => d.id))
    const queries = effective.map((d, i) => ({ ...candidateQuery(d, o, since), maxSeq: seqs[i]! }))
    // The stored record of each id: an id stored with other content is an update (see `reelect`).
    const before = docs.length === 0 ? new Map<string, FingerprintRecord>() : await o.store.get([...new Set(docs.map((d) => d.id))])
    // Resume: documents stored with their keys already are replayed from their records (see `replay`).
    const resume = o.resume && docs.length > 0 ? await this.resumable(effective, before) : null
    const bounds = o.store.candidateBounds
    // A store that can answer band terms alone is asked for them only where they may matter
    // (`bandsDecide`): the band route's reads and records are most of the MinHash route's cost.
    const split = bounds.blockRoute !== undefined
    const first = (q: CandidateQuery): CandidateQuery => (split ? withoutBands(q) : q)
    const ask0 = queries.flatMap((_q, i) => (resume?.stored[i] === undefined ? [i] : []))
    const answers0 = ask0.length === 0 ? [] : await o.store.candidates(ask0.map((i) => first(queries[i]!)))
    const fromStore: FingerprintRecord[][] = queries.map(() => [])
    ask0.forEach((i, k) => (fromStore[i] = answers0[k] ?? []))
    // Whether a document's band records are in `fromStore` (or it has none to ask). Those whose
    // stored candidates cannot outrank the MinHash rule are asked in one lookup for the batch
    // (records shared by several answers read once); the rest only if the decision needs them.
    const banded = queries.map((q, i) => !split || q.bands === undefined || resume?.stored[i] !== undefined)
    if (split) {
      const ask: number[] = []
      for (let i = 0; i < docs.length; i++) if (!banded[i] && !mayOutrankMinhash(effective[i]!, fromStore[i]!, o)) ask.push(i)
      const answers = ask.length === 0 ? [] : await o.store.candidates(ask.map((i) => bandQuery(queries[i]!, fromStore[i]!, bounds, effective[i]!, o)))
      ask.forEach((i, k) => {
        fromStore[i] = withBandRecords(fromStore[i]!, answers[k] ?? [], bounds)
        banded[i] = true
      })
    }

    // What this batch decided or re-pointed so far: later documents see it, not the store's copies.
    const overlay = new Overlay(o.store, o)
    const batchIds = overlay.ids
    const batch = overlay.batch
    // An update's old cluster is read ahead (one read each, at once) for the ids whose content moved.
    for (let i = 0; i < docs.length; i++) {
      const old = before.get(docs[i]!.id)
      if (old !== undefined && !sameKeys(old, effective[i]!, this.version)) overlay.prefetch(old.clusterId)
    }
    const redecide = (r: FingerprintRecord, q: CandidateQuery, found: readonly FingerprintRecord[], b: CandidateBounds, cuts?: Cuts): Match | null =>
      choose(r, q, found, batch.candidates(r), batchIds, b, o, cuts).match
    // Records an update re-pointed, and the document whose update did.
    const repointed: FingerprintRecord[] = []
    const causeOf = new Map<string, PreparedDocument>()
    // Ids whose store copy holds other content than their newest version in this batch: that copy
    // may hold a slot of a key's or band term's newest in a store answer (`untied`).
    const moved = new Set<string>()
    // Whether this batch put a stored id in another cluster (see `restale`).
    let relabeled = false
    const recordOf = new Map<PreparedDocument, FingerprintRecord>()
    const matchOf = new Map<PreparedDocument, Match | null>()
    const supersedesOf = new Map<PreparedDocument, string>()
    const effectiveOf = new Map<PreparedDocument, PreparedDocument>()
    const resumedDocs = new Set<PreparedDocument>()
    for (let i = 0; i < docs.length; i++) {
      const original = docs[i]!
      let d = effective[i]!
      if (templates !== null && templates.version !== version) {
        // An earlier document of this batch taught the learner new template lines: decide this
        // one as a batch of its own would (one more lookup, only when its own text changes).
        const next = this.withoutTemplate(original, filtered)
        if (next !== d) {
          d = next
          queries[i] = { ...candidateQuery(d, o, since), maxSeq: seqs[i]! }
          fromStore[i] = (await o.store.candidates([first(queries[i]!)]))[0] ?? []
          banded[i] = !split || queries[i]!.bands === undefined
        }
      }
      effectiveOf.set(original, d)
      const subject = { ...d, seq: seqs[i]! }
      const q = queries[i]!
      const stored = resume?.stored[i]
      if (stored !== undefined) {
        const replayed = replay(subject, stored, resume!.targets, o)
        if (replayed !== undefined) {
          if (templates !== null && original.host !== null) templates.observe(original.host, this.linesOf(original, filtered), { clusterId: stored.clusterId, duplicate: stored.duplicateOf !== null })
          if (stored.supersedes !== undefined) supersedesOf.set(original, stored.supersedes)
          overlay.set(stored)
          recordOf.set(original, stored)
          matchOf.set(original, replayed)
          resumedDocs.add(original)
          continue
        }
        // Not replayable after all (its text changed with a template learned in this batch, or
        // its match no longer verifies): decided as any other document.
        fromStore[i] = (await o.store.candidates([first(q)]))[0] ?? []
        banded[i] = !split || q.bands === undefined
      }
      const earlier = batch.candidates(d)
      // Writers that ran at once hand out equal seqs (order is then by id): a record of d's seq
      // first indexed after d can hold a slot of a band term's newest `maxPerBand` that one
      // sequential run gives an earlier record. So can the store copy of an id updated earlier in
      // this batch (its old band terms). Then (rare: only after concurrent writers, or an update)
      // every band match is asked for and bounded among the earlier records (`choose`), as reconcile does.
      let whole = banded[i]!
      // Store copies of ids this batch updated or deleted may also hold places of an exact key's
      // newest `perKey`: the key is then read on past them (`pastStale`).
      const untied = async (list: FingerprintRecord[]): Promise<FingerprintRecord[]> => {
        if (!list.some((r) => (r.seq === subject.seq && r.id > subject.id) || moved.has(r.id))) return pastStale(o.store, overlay, q, list)
        whole = true
        return pastStale(o.store, overlay, q, (await o.store.candidates([{ ...q, allBands: true }]))[0] ?? [])
      }
      // Bounded by cluster, the store cut its answers by the clusters stored when it was asked:
      // once this batch has moved a stored record (an update) or re-pointed one, those cuts may
      // have left out a member the clusters now held keep (a clean run, deciding d after that
      // change, would keep it). Then every candidate, bounded here by the clusters as they are now.
      const restale = bounds.perCluster !== undefined && (moved.size > 0 || repointed.length > 0 || relabeled)
      const all = restale ? (await o.store.candidates([{ ...q, allBands: true, exhaustive: true }]))[0] ?? [] : []
      if (restale) whole = !split
      // The store's side as its key and block routes (and, unsplit, band route) would answer now.
      let found = restale ? [...boundCandidates(split ? withoutBands(q) : q, all.filter((r) => !batchIds.has(r.id) && isEarlier(r, subject)), bounds)] : await untied(fromStore[i] ?? [])
      // The rule of `choose`, with the band route's records read only when they decide: the key
      // and block routes first (band records a lookup or the batch brought left out), then, where
      // those give no match that outranks the band route's (`bandsDecide`), every route.
      const cuts = noCuts()
      let { keep, match } = chooseOnce(subject, withoutBands(q), found, earlier, batchIds, bounds, o, cuts)
      if (q.bands !== undefined && bandsDecide(match)) {
        if (!whole) found = restale ? [...boundCandidates(q, all.filter((r) => !batchIds.has(r.id) && isEarlier(r, subject)), bounds)] : await untied(withBandRecords(found, (await o.store.candidates([bandQuery(q, found, bounds, d, o)]))[0] ?? [], bounds))
        Object.assign(cuts, noCuts())
        ;({ keep, match } = chooseOnce(subject, q, found, earlier, batchIds, bounds, o, cuts))
      }
      // A bound may change which earlier member of the cluster is named, never the cluster nor
      // duplicate/unique: when a left-out record could, the document is decided on every candidate.
      if (!exactUnderCuts(match, cuts)) {
        this.stats.exhaustive++
        found = restale ? all : (await o.store.candidates([{ ...q, allBands: true, exhaustive: true }]))[0] ?? []
        ;({ keep, match } = chooseOnce(subject, q, found, earlier, batchIds, UNBOUNDED, o))
      }
      // Same URL as the last record of that URL first indexed before d, other content: a new
      // version of it (first-insertion order, so a re-run gives the same answer).
      const previous = previousVersion(subject, keep, o)
      if (previous !== null) supersedesOf.set(original, previous.id)
      // The template learner is shown every decided document with a host; its lines count once
      // per different document (a unique one, or a duplicate bringing lines its cluster did not
      // have: pages whose chrome outweighs their text look alike until the chrome is learned),
      // never for copies of one document (see HostTemplates.observe).
      if (templates !== null && original.host !== null) {
        const clusterId = match === null ? d.id : match.record.clusterId
        templates.observe(original.host, this.linesOf(original, filtered), { clusterId, duplicate: match !== null })
      }
      const record: FingerprintRecord = {
        id: d.id,
        fingerprint: d.fingerprint,
        blocks: d.blocks,
        contentHash: d.contentHash,
        urlHash: d.urlHash,
        titleHash: d.titleHash,
        short: d.short,
        clusterId: match === null ? d.id : match.record.clusterId,
        duplicateOf: match === null ? null : match.record.id,
        distance: match === null ? null : match.distance,
        layer: match === null ? null : match.layer,
        version: o.analyzer.version,
        indexedAt: now,
        seq: subject.seq,
      }
      if (d.sketch !== null) record.sketch = d.sketch
      if (d.bands.length > 0) record.bands = d.bands
      if (previous !== null) record.supersedes = previous.id
      if (match !== null && match.layer === 'simhash' && match.rule !== null) record.rule = match.rule
      // A re-indexed id replaces its earlier copy in the batch too. An update (other content, or
      // another cluster) re-points the old cluster's members in the same put.
      const old = overlay.latest.get(d.id) ?? before.get(d.id)
      const storedCopy = before.get(d.id)
      if (storedCopy !== undefined && !sameContent(storedCopy, record)) moved.add(d.id)
      else moved.delete(d.id)
      if (storedCopy !== undefined && storedCopy.clusterId !== record.clusterId) relabeled = true
      overlay.set(record)
      recordOf.set(original, record)
      matchOf.set(original, match)
      if (old !== undefined) {
        for (const r of await reelect(o.store, o, overlay, redecide, old, record)) {
          repointed.push(r)
          causeOf.set(r.id, original)
        }
      }
    }
    const records = [...recordOf].filter(([doc]) => !resumedDocs.has(doc)).map(([, r]) => r)
    // Re-pointed records after the documents: the newest version of each id is put last.
    for (const r of repointed) if (overlay.latest.get(r.id) === r) records.push(r)
    const failed = new Map<string, Error>()
    let durable = Promise.resolve()
    if (records.length > 0) {
      let result: PutResult
      if (!staged || o.store.stage === undefined) result = await o.store.put(records)
      else ({ result, durable } = await o.store.stage(records))
      for (const f of result.failed) failed.set(f.id, f.error)
      // A re-pointing the store did not write fails the document whose update it belonged to.
      const docIds = new Set(docs.map((d) => d.id))
      for (const f of result.failed) {
        const cause = causeOf.get(f.id)
        if (cause !== undefined && !docIds.has(f.id) && !failed.has(cause.id)) failed.set(cause.id, new Error(`re-pointing \`${f.id}\` of its old cluster failed: ${f.error.message}`))
      }
    }

    // Counted once the batch is committed (`durable`): a batch whose commit fails counts nowhere.
    const counts: (() => void)[] = []
    const decisions = items.map((item): Decision => {
      if (!item.ok) {
        counts.push(() => this.stats.reject())
        return rejected(item.id, item.line, item.reason)
      }
      const d = effectiveOf.get(item.doc) ?? item.doc
      const error = failed.get(d.id)
      if (error !== undefined) {
        counts.push(() => this.stats.reject())
        return rejected(d.id, d.line, `store did not write the document: ${error.message}`)
      }
      const match = matchOf.get(item.doc) ?? null
      const resumed = resumedDocs.has(item.doc)
      counts.push(() => {
        if (resumed) this.stats.resumed++
        this.stats.decide(match === null ? null : match.layer, match === null ? null : match.rule)
      })
      const supersedes = supersedesOf.get(item.doc)
      return {
        ...(supersedes === undefined ? {} : { supersedes }),
        id: d.id,
        line: d.line,
        status: match === null ? 'unique' : 'duplicate',
        duplicateOf: match === null ? null : match.record.id,
        distance: match === null ? null : match.distance,
        layer: match === null ? null : match.layer,
        clusterId: recordOf.get(item.doc)?.clusterId ?? (match === null ? d.id : match.record.clusterId),
        simhash: fingerprintToHex(d.fingerprint),
        reason: null,
        rule: match === null ? null : match.rule,
        resemblance: match === null ? null : match.resemblance,
      }
    })
    const count = (): void => {
      for (const c of counts) c()
    }
    return { decisions, durable: durable.then(count) }
  }

  /**
   * For `resume`: the stored record of each document stored with the same keys (by position; one
   * `get`), and the records those name as `duplicateOf` (a second `get` for the ones not in the
   * batch), which their matches are verified against.
   */
  private async resumable(docs: readonly PreparedDocument[], got: ReadonlyMap<string, FingerprintRecord>): Promise<{ stored: (FingerprintRecord | undefined)[]; targets: Map<string, FingerprintRecord> }> {
    const stored = docs.map((d) => {
      const r = got.get(d.id)
      return r !== undefined && sameKeys(r, d, this.version) ? r : undefined
    })
    const targets = new Map<string, FingerprintRecord>()
    const want = new Set<string>()
    for (const r of stored) {
      if (r === undefined || r.duplicateOf === null) continue
      const t = got.get(r.duplicateOf)
      if (t !== undefined) targets.set(r.duplicateOf, t)
      else want.add(r.duplicateOf)
    }
    if (want.size > 0) for (const [id, r] of await this.options.store.get([...want])) targets.set(id, r)
    return { stored, targets }
  }

  /** The document as fingerprinted without the template lines known now (itself when none applies). */
  private withoutTemplate(d: PreparedDocument, cache: Map<PreparedDocument, Filtered>): PreparedDocument {
    if (this.templates === null || (this.templates.size === 0 && !mayHaveChromeLines(d.normalized))) return d
    const f = this.filteredOf(d, cache)
    const kept = this.templates.filter(f.lines)
    if (f.doc !== undefined && kept === f.kept) return f.doc
    f.kept = kept
    if (kept === null) return (f.doc = d)
    const a = this.options.analyzer.analyzeNormalized(kept)
    return (f.doc = {
      ...d,
      fingerprint: a.fingerprint,
      blocks: fingerprintBlocks(a.fingerprint, this.options.blockScheme),
      contentHash: a.contentHash,
      short: a.short,
      sketch: a.sketch,
      bands: a.bands,
    })
  }

  private filteredOf(d: PreparedDocument, cache: Map<PreparedDocument, Filtered>): Filtered {
    let f = cache.get(d)
    if (f === undefined) {
      f = { lines: textLines(d.normalized), kept: null }
      cache.set(d, f)
    }
    return f
  }

  private linesOf(d: PreparedDocument, cache: Map<PreparedDocument, Filtered>): TextLines {
    return this.filteredOf(d, cache).lines
  }

  /**
   * Rejects with `SNAPSHOT_VERSION` when the store holds records of another fingerprint version
   * (checked once, before the first batch; `versionCheck: false` skips it).
   */
  async checkVersions(): Promise<void> {
    const other = (await this.options.store.versions()).filter((v) => v !== this.version)
    if (other.length === 0) return
    throw new DedupError(
      'SNAPSHOT_VERSION',
      `The store holds records fingerprinted by ${other.join(', ')}; this simdup fingerprints with ${this.version}. ` +
        'Fingerprints of different versions are never compared, so duplicates of those records would be missed. ' +
        'Index into a new store (another --store directory or --index name) and feed it the input again, ' +
        'or re-fingerprint an Elasticsearch index with `simdup reindex --in-place`.',
    )
  }

  /** Snapshot of the counters since this deduplicator was made. */
  summary(): DedupStatsSnapshot {
    return this.stats.snapshot()
  }
}

/** A document's lines and what the template layer kept of them (null: all), with the document it made. */
interface Filtered {
  lines: TextLines
  kept: string | null
  doc?: PreparedDocument
}

/**
 * A decision on candidates that hold the band route's records already (`found`: a whole answer,
 * as `reelect` and `reconcile` read), by the rule every decision follows, so that a run, a re-run
 * with other batches, an update's re-decisions and reconcile name the same record: the key and
 * block routes decide (bounded, `chooseOnce`), and the band route's records join only where those
 * give no match that outranks them (`bandsDecide`). With `cuts`, those of the last step.
 */
export function choose(
  subject: MatchSubject, q: CandidateQuery, found: readonly FingerprintRecord[], earlier: readonly FingerprintRecord[],
  batchIds: ReadonlySet<string>, bounds: CandidateBounds, o: ResolvedDeduplicatorOptions, cuts?: Cuts,
): { keep: Set<FingerprintRecord>; match: Match | null } {
  const out = chooseOnce(subject, withoutBands(q), found, earlier, batchIds, bounds, o, cuts)
  if (q.bands === undefined || !bandsDecide(out.match)) return out
  if (cuts !== undefined) Object.assign(cuts, noCuts())
  return chooseOnce(subject, q, found, earlier, batchIds, bounds, o, cuts)
}

/**
 * The candidates a decision may use (`boundCandidates` over the stored and in-batch ones) and
 * the best verified match among them: stored candidates first, then the earlier documents of
 * the batch (bestMatch skips d's own id and whatever was first indexed after d); on a tie the
 * stored one wins.
 */
function chooseOnce(
  subject: MatchSubject, q: CandidateQuery, found: readonly FingerprintRecord[], earlier: readonly FingerprintRecord[],
  batchIds: ReadonlySet<string>, bounds: CandidateBounds, o: ResolvedDeduplicatorOptions, cuts?: Cuts,
): { keep: Set<FingerprintRecord>; match: Match | null } {
  // Store records whose id is re-indexed earlier in this batch are stale: the batch copy wins.
  const stored = found.filter((r) => !batchIds.has(r.id))
  // The store's bounds over both lists at once, so the decision does not depend on the batch;
  // over the records first indexed before the document only (bestMatch skips the others anyway).
  const keep = boundCandidates(q, [...stored, ...earlier].filter((r) => isEarlier(r, subject)), bounds, cuts)
  let match = bestMatch(subject, stored.filter((r) => keep.has(r)), o)
  const inBatch = bestMatch(subject, earlier.filter((r) => keep.has(r)), o)
  if (inBatch !== null && (match === null || compareMatches(inBatch, match) < 0)) match = inBatch
  return { keep, match }
}

/**
 * The lookup that adds the band route's records to `found` (the answer to the query without
 * band terms): the band terms alone, no keys, no blocks, the records of `found` known (see
 * `CandidateBounds.blockRoute`). When the block route may have been cut at `blockRoute` records,
 * the whole query instead: the rows it cut count as met for the band route of a whole query
 * (never returned by it), which naming the rows returned cannot say.
 */
function bandQuery(
  q: CandidateQuery, found: readonly FingerprintRecord[], bounds: CandidateBounds, d: PreparedDocument, o: ResolvedDeduplicatorOptions,
): CandidateQuery {
  const check = bandCheck(d, o)
  const whole = found.length >= bounds.blockRoute!
  const out: CandidateQuery = whole ? { ...q } : { ...q, blocks: [], contentHash: null, urlHash: null, titleHash: null, known: found.map((r) => r.id) }
  if (check !== undefined) out.bandCheck = check
  return out
}

/**
 * What lets the store answer a band-only record that cannot verify against d with a stand-in
 * (`CandidateQuery.bandCheck`): farther than `maxDistance` and sharing no key, such a record can
 * match only by the MinHash rule (`matchCandidate`), which needs an estimated resemblance of
 * `minResemblance` at least, so at most `minhashMaxDiffer` differing sketch bits. Its stand-in
 * still counts in the bounds of its band terms (`boundCandidates`), so every decision is the one
 * the whole record gives. None for a short document or one without an `m:` sketch.
 */
function bandCheck(d: PreparedDocument, o: ResolvedDeduplicatorOptions): BandCheck | undefined {
  const sketch = d.sketch === null ? null : minhashPart(d.sketch)
  if (d.short || sketch === null || !sketch.startsWith('m:')) return undefined
  const maxDiffer = minhashMaxDiffer(sketch, o.minResemblance)
  if (Number.isNaN(maxDiffer)) return undefined
  return { contentHash: d.contentHash, urlHash: d.urlHash, titleHash: d.titleHash, sketch, skipDigits: SKETCH_COUNT_DIGITS, maxDiffer }
}

/** `found` with the answer to `bandQuery(q, found)`: its records not already in `found` (one record per id), or that answer alone when it was the whole query. */
function withBandRecords(found: FingerprintRecord[], banded: FingerprintRecord[], bounds: CandidateBounds): FingerprintRecord[] {
  if (found.length >= bounds.blockRoute!) return banded
  if (banded.length === 0) return found
  const ids = new Set(found.map((r) => r.id))
  return [...found, ...banded.filter((r) => !ids.has(r.id))]
}

/**
 * Whether any candidate could give a match that outranks the MinHash rule (`outranksMinhash`):
 * one sharing d's content or URL key, or within the distance. When no stored one does, the band
 * terms are looked up with the batch's.
 */
function mayOutrankMinhash(d: PreparedDocument, candidates: readonly FingerprintRecord[], o: ResolvedDeduplicatorOptions): boolean {
  for (const c of candidates) {
    if (c.contentHash === d.contentHash || (d.urlHash !== null && c.urlHash === d.urlHash) || hamming(c.fingerprint, d.fingerprint) <= o.maxDistance) return true
  }
  return false
}

/** Whether a stored record holds the document as it is now: same keys, fingerprint and version. */
function sameKeys(r: FingerprintRecord, d: PreparedDocument, version: string): boolean {
  return r.version === version && r.contentHash === d.contentHash && r.urlHash === d.urlHash && r.titleHash === d.titleHash
    && r.short === d.short && r.fingerprint.hi === d.fingerprint.hi && r.fingerprint.lo === d.fingerprint.lo && r.partial !== true
}

/**
 * `resume`: the decision a document stored with its keys got, rebuilt from its record: unique, or
 * its match against the record it names, verified again (layer and distance as stored; the rule
 * and resemblance are not stored, and verifying gives them). Undefined when it does not verify
 * (another k, the target deleted or changed): the document is then decided again.
 */
function replay(d: MatchSubject, stored: FingerprintRecord, targets: ReadonlyMap<string, FingerprintRecord>, o: ResolvedDeduplicatorOptions): Match | null | undefined {
  if (stored.duplicateOf === null) return stored.layer === null ? null : undefined
  const target = targets.get(stored.duplicateOf)
  if (target === undefined || !isEarlier(target, d)) return undefined
  const m = matchCandidate(d, target, o)
  return m !== null && m.layer === stored.layer && m.distance === stored.distance ? m : undefined
}

/** Items prepared between two yields of `prepareBatch` (tens of milliseconds of work). */
const PREPARE_SLICE = 32

/** Lets pending I/O callbacks run (setImmediate: after the poll phase, unlike a microtask). */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

function rejected(id: string | null, line: number | null, reason: string): Decision {
  const where = line === null ? '' : `line ${line}: `
  return {
    id,
    line,
    status: 'rejected',
    duplicateOf: null,
    distance: null,
    layer: null,
    clusterId: null,
    simhash: null,
    reason: where + reason,
    rule: null,
    resemblance: null,
  }
}

/** Factory form of `new Deduplicator(options)`. @example createDeduplicator({ store }) */
export function createDeduplicator(options: DeduplicatorOptions): Deduplicator {
  return new Deduplicator(options)
}
