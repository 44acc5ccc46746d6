import type { Client } from '@elastic/elasticsearch'
import { DedupError } from '../../errors.js'
import type { ResolvedReindexOptions } from './options.js'
import type { FieldSort } from './_sort.js'
import { countDocs, createDest, indexExists, inspectSource, sortOfField, type Requester, type SourceInfo } from './_es.js'
import type { ReindexCheckpoint } from './checkpoint.js'

/** What a run learns of its source before it writes. */
export interface PreparedSource {
  info: SourceInfo
  /** How the source sorts on `sort` (null: no `sort`). */
  sortInfo: FieldSort | null
  /** Documents in the source when this run started. */
  total: number
}

/**
 * Reads the source (indices, mappings, the sort field, the count), refuses what the options
 * cannot do with it (in place on several indices, a window on a field that is not a date), and
 * creates `dest` from the source's mappings when it does not exist. An existing `dest` is
 * written only by the job whose checkpoint continues into it, or with `restart`.
 */
export async function prepareSource(client: Client, o: ResolvedReindexOptions, cp: ReindexCheckpoint | null, request: Requester): Promise<PreparedSource> {
  const info = await inspectSource(client, o.source, request)
  if (o.inPlace && info.indices.length !== 1) {
    throw new DedupError('INVALID_OPTION', `In place needs \`source\` to be one index, but \`${o.source}\` resolves to ${info.indices.length} (${info.indices.slice(0, 3).join(', ')}…). Reindex each, or use \`dest\`.`)
  }
  const sortInfo = o.sort === null ? null : await sortOfField(client, o.source, o.sort, request)
  if (o.windowMs !== undefined && sortInfo?.isTime !== true) {
    throw new DedupError('INVALID_OPTION', `The window needs \`sort\` to be a date field; \`${o.sort}\` is not.`)
  }
  const total = await countDocs(client, o.source, request)
  if (o.dest !== null) {
    if (!(await indexExists(client, o.dest, request))) await createDest(client, o.dest, info, request, o)
    else if (cp === null && !o.restart) {
      throw new DedupError(
        'CONFLICT',
        `Index \`${o.dest}\` already exists and no checkpoint (${o.checkpointFile ?? 'none'}) continues a job into it. ` +
          'Pass `restart` to reindex into it anyway (documents with the same id are replaced), or choose a new `dest`.',
      )
    }
  }
  return { info, sortInfo, total }
}
