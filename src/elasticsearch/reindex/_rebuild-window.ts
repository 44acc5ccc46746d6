import { MISSING_NUMBER, type SortValue } from './_sort.js'
import { openWalk } from './_walk.js'
import type { TrailingWindow } from './_run-store.js'
import { doneRows, sourceFields, toRows, type DoneContext } from './_rows.js'

/**
 * A resumed job with a window: reloads into `window` the documents this job already decided whose
 * sort time lies within `windowMs` before `after[0]` (the checkpoint's last sort value), so the
 * documents after it are matched against the same trailing window as in one uninterrupted run.
 */
export async function rebuildWindow(
  window: TrailingWindow, after: readonly SortValue[], sortField: string, sort: Record<string, unknown>[],
  done: DoneContext, log: (message: string) => void,
): Promise<void> {
  const o = done.o
  const last = typeof after[0] === 'number' ? after[0] : MISSING_NUMBER
  const rebuild = await openWalk({
    client: done.client, index: o.source, request: done.request, sort, slices: 1, pageSize: 1000, keepAlive: o.keepAlive, source: sourceFields(o, true),
    after: null, pitId: null, reader: o.reader, log,
    query: last === MISSING_NUMBER
      ? { bool: { must_not: [{ exists: { field: sortField } }] } }
      : { range: { [sortField]: { gte: last - window.windowMs, lte: last, format: 'epoch_millis' } } },
  })
  try {
    for await (const hits of rebuild.batches(1000)) {
      const rows = toRows(hits, o, window)
      for (const r of await doneRows(done, rows)) if (r.mapped.id !== null) window.add(r.mapped.id, r.time)
    }
  } finally {
    await rebuild.close()
  }
  log(`window: ${window.size} documents of the last ${o.windowMs} ms reloaded`)
}
