import type { Client } from '@elastic/elasticsearch'
import type { ResolvedReindexOptions } from './options.js'
import { MISSING_NUMBER, type FieldSort, type SortValue } from './_sort.js'
import type { Requester } from './_es.js'
import { pitAlive } from './_walk.js'
import type { ReindexCheckpoint } from './checkpoint.js'

/** Where a run starts reading its source, and how it continues an earlier process. */
export interface StartPoint {
  /** On the same point in time (`exact`), by re-reading (`rescan`), or not at all (a new job). */
  resumed: 'exact' | 'rescan' | null
  /** `search_after` values on the checkpoint's point in time (`exact` only). */
  after: SortValue[] | null
  pitId: string | null
  /** The re-read's query (`rescan` with a `sort`: from the last sort value on). */
  query: Record<string, unknown> | undefined
}

/**
 * Where to start: at the start for a new job; after the checkpoint's last hit on its point in
 * time if that is still open; otherwise a re-read. A new point in time orders documents
 * differently (segments merge, in-place updates move documents), so position alone cannot be
 * trusted: it re-reads from the last sort value (or the start) and skips what this job already
 * decided, recognised by its clock.
 */
export async function startPoint(
  client: Client, o: ResolvedReindexOptions, cp: ReindexCheckpoint | null, sortInfo: FieldSort | null, request: Requester, log: (message: string) => void,
): Promise<StartPoint> {
  if (cp === null || cp.after === null) return { resumed: null, after: null, pitId: null, query: undefined }
  if (cp.reader === 'pit' && cp.pitId !== null && o.reader !== 'scroll' && (await pitAlive(client, cp.pitId, o.keepAlive, request, o.source))) {
    log(`resuming after ${JSON.stringify(cp.after)} on the same point in time (${cp.counts.docs} documents done)`)
    return { resumed: 'exact', after: cp.after, pitId: cp.pitId, query: undefined }
  }
  const query = o.sort !== null && sortInfo !== null ? fromValueQuery(o.sort, sortInfo, cp.after[0] ?? null) : undefined
  log(`point in time of the checkpoint is gone; re-reading ${query === undefined ? 'from the start' : `from ${o.sort} ≥ ${JSON.stringify(cp.after[0])}`} and skipping documents already done`)
  return { resumed: 'rescan', after: null, pitId: null, query }
}

/** The query that re-reads a sorted source from sort value `v` on (docs missing the field sort last). */
function fromValueQuery(field: string, sort: FieldSort, v: SortValue): Record<string, unknown> {
  const missing = { bool: { must_not: [{ exists: { field } }] } }
  if (v === null || (sort.numeric && v === MISSING_NUMBER)) return missing
  const range = { range: { [field]: { gte: v, ...(sort.isTime ? { format: 'epoch_millis' } : {}) } } }
  return { bool: { should: [range, missing], minimum_should_match: 1 } }
}
