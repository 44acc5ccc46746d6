import type { Decision, FingerprintRecord, InputDocument } from '../types.js'
import { DedupError } from '../errors.js'
import { fingerprintToHex } from '../fingerprint/hamming.js'
import { bestMatch, candidateQuery, compareMatches, isEarlier, previousVersion, type Match } from './match.js'
import { prepareItem, type IncomingItem, type PreparedDocument, type PreparedItem } from './prepare.js'
import { resolveDeduplicatorOptions, type DeduplicatorOptions, type ResolvedDeduplicatorOptions } from './options.js'
import { DedupStats, type DedupStatsSnapshot } from './stats.js'
import { BatchIndex } from './_batch-index.js'
import { boundCandidates } from './_bounds.js'
import { HostTemplates, textLines, type TextLines } from './templates.js'
import { fingerprintBlocks } from '../fingerprint/blocks.js'

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
    const fromStore = docs.length === 0 ? [] : await o.store.candidates(queries)

    const bounds = o.store.candidateBounds
    const batchIds = new Set<string>()
    const batch = new BatchIndex(o)
    const recordOf = new Map<PreparedDocument, FingerprintRecord>()
    const matchOf = new Map<PreparedDocument, Match | null>()
    const supersedesOf = new Map<PreparedDocument, string>()
    const effectiveOf = new Map<PreparedDocument, PreparedDocument>()
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
          fromStore[i] = (await o.store.candidates([queries[i]!]))[0] ?? []
        }
      }
      effectiveOf.set(original, d)
      const subject = { ...d, seq: seqs[i]! }
      // Writers that ran at once hand out equal seqs (order is then by id): a record of d's seq
      // first indexed after d can hold a slot of a band term's newest `maxPerBand` that one
      // sequential run gives an earlier record. Then (rare: only after concurrent writers) every
      // band match is asked for and bounded below among the earlier records, as reconcile does.
      let found = fromStore[i] ?? []
      if (found.some((r) => r.seq === subject.seq && r.id > subject.id)) found = (await o.store.candidates([{ ...queries[i]!, allBands: true }]))[0] ?? []
      // Store records whose id is re-indexed earlier in this batch are stale: the batch copy wins.
      const stored = found.filter((r) => !batchIds.has(r.id))
      const earlier = batch.candidates(d)
      // The store's bounds over both lists at once, so the decision does not depend on the batch;
      // over the records first indexed before d only (bestMatch skips the others anyway).
      const keep = boundCandidates(queries[i]!, [...stored, ...earlier].filter((r) => isEarlier(r, subject)), bounds)
      // Stored candidates, then the earlier documents of the batch that can match (bestMatch
      // skips d's own id and whatever was first indexed after d); on a tie the stored one wins.
      let match = bestMatch(subject, stored.filter((r) => keep.has(r)), o)
      const inBatch = bestMatch(subject, earlier.filter((r) => keep.has(r)), o)
      if (inBatch !== null && (match === null || compareMatches(inBatch, match) < 0)) match = inBatch
      // Same URL as the last record of that URL first indexed before d, other content: a new
      // version of it (first-insertion order, so a re-run gives the same answer).
      const previous = previousVersion(subject, keep, o)
      if (previous !== null) supersedesOf.set(original, previous.id)
      // Every document teaches the template learner but exact copies (the same text again says
      // nothing new about the site): pages whose chrome outweighs their text look like duplicates
      // of each other until the chrome is learned, so "unique only" would never learn it.
      if (templates !== null && original.host !== null && match?.layer !== 'exact') templates.observe(original.host, this.linesOf(original, filtered))
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
      // A re-indexed id replaces its earlier copy in the batch too.
      batchIds.add(d.id)
      batch.add(record)
      recordOf.set(original, record)
      matchOf.set(original, match)
    }
    const records = [...recordOf.values()]
    const failed = new Map<string, Error>()
    if (records.length > 0) {
      const result = await o.store.put(records)
      for (const f of result.failed) failed.set(f.id, f.error)
    }

    return items.map((item): Decision => {
      if (!item.ok) {
        this.stats.reject()
        return rejected(item.id, item.line, item.reason)
      }
      const d = effectiveOf.get(item.doc) ?? item.doc
      const error = failed.get(d.id)
      if (error !== undefined) {
        this.stats.reject()
        return rejected(d.id, d.line, `store did not write the document: ${error.message}`)
      }
      const match = matchOf.get(item.doc) ?? null
      this.stats.decide(match === null ? null : match.layer)
      const supersedes = supersedesOf.get(item.doc)
      return {
        ...(supersedes === undefined ? {} : { supersedes }),
        id: d.id,
        line: d.line,
        status: match === null ? 'unique' : 'duplicate',
        duplicateOf: match === null ? null : match.record.id,
        distance: match === null ? null : match.distance,
        layer: match === null ? null : match.layer,
        clusterId: match === null ? d.id : match.record.clusterId,
        simhash: fingerprintToHex(d.fingerprint),
        reason: null,
        rule: match === null ? null : match.rule,
        resemblance: match === null ? null : match.resemblance,
      }
    })
  }

  /** The document as fingerprinted without the template lines known now (itself when none applies). */
  private withoutTemplate(d: PreparedDocument, cache: Map<PreparedDocument, Filtered>): PreparedDocument {
    if (this.templates === null || this.templates.size === 0) return d
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
