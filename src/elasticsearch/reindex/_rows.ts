import type { ResolvedReindexOptions } from './options.js'
import { mapHit, type MappedHit } from './_fields.js'
import { MISSING_NUMBER } from './_sort.js'
import { dedupStamps, type Requester } from './_es.js'
import type { Client } from '@elastic/elasticsearch'
import type { JobClock, TrailingWindow } from './_run-store.js'
import type { WalkHit } from './_walk.js'

/** One hit on its way through a batch. */
export interface Row {
  hit: WalkHit
  mapped: MappedHit
  /** Sort-field time (window only). */
  time: number
}

/** The walk's hits as rows: each mapped to the engine's input, with its sort-field time when the job has a window. */
export function toRows(hits: readonly WalkHit[], o: ResolvedReindexOptions, window: TrailingWindow | null): Row[] {
  return hits.map((hit) => ({ hit, mapped: mapHit(hit._id, hit._source, o.fields, o.idField), time: window === null ? 0 : timeOf(hit) }))
}

function timeOf(hit: WalkHit): number {
  return typeof hit.sort[0] === 'number' ? hit.sort[0] : MISSING_NUMBER
}

/** In place, only the mapped fields are read (plus `dedup` to recognise done documents); a copy needs everything. */
export function sourceFields(o: ResolvedReindexOptions, withDedup: boolean): true | string[] {
  if (!o.inPlace) return true
  const f = [o.fields.content, o.fields.title, o.fields.url].filter((x): x is string => x !== null)
  return withDedup ? [...f, 'dedup'] : f
}

/** A hit's source for its copy into `dest`, without the `dedup` object. */
export function withoutDedup(source: Record<string, unknown> | undefined): Record<string, unknown> {
  const copy = { ...source }
  // A source that already carries simdup fields (an earlier run) gets fresh ones, never a mix.
  delete copy.dedup
  return copy
}

/** What `doneRows` needs to recognise a row an earlier process of this job decided. */
export interface DoneContext {
  o: ResolvedReindexOptions
  client: Client
  request: Requester
  /** The analyzer's version: a stamp of another version was not written by this job. */
  version: string
  clock: JobClock
  /** `_index` NUL `_id` of the documents the rejects file lists. */
  rejectedBefore: ReadonlySet<string>
}

/** The rows this job already decided in an earlier process (by dedup stamp, or listed in the rejects file). */
export async function doneRows(ctx: DoneContext, rows: readonly Row[]): Promise<Set<Row>> {
  const { o, clock } = ctx
  const done = new Set<Row>()
  for (const r of rows) if (ctx.rejectedBefore.has(`${r.hit._index}\u0000${r.hit._id}`)) done.add(r)
  const isDone = (stamp: { version: unknown; indexedAt: unknown } | undefined) => {
    if (stamp === undefined || stamp.version !== ctx.version) return false
    const at = Number(stamp.indexedAt)
    return Number.isFinite(at) && clock.wasDoneBefore(at)
  }
  if (o.inPlace) {
    for (const r of rows) {
      const d = r.hit._source?.dedup as { version?: unknown; indexed_at?: unknown } | null | undefined
      if (d != null && isDone({ version: d.version, indexedAt: d.indexed_at })) done.add(r)
    }
  } else {
    const ids = rows.map((r) => r.mapped.id).filter((id): id is string => id !== null)
    const stamps = await dedupStamps(ctx.client, o.target, ids, ctx.request)
    for (const r of rows) if (r.mapped.id !== null && isDone(stamps.get(r.mapped.id))) done.add(r)
  }
  return done
}
