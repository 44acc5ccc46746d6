import type { Client } from '@elastic/elasticsearch'
import { createElasticsearchStore, type ElasticsearchStore } from '../store.js'
import type { ReindexOptions, ResolvedReindexOptions } from './options.js'

/** The client a run talks through, and the store that owns it when the run made it (closed with the run). */
export interface ReindexConnection {
  client: Client
  /** Null when the caller gave its `client` (the caller closes it). */
  boot: ElasticsearchStore | null
}

/**
 * The run's client: the caller's `client`, or, with `node`, one made by a store opened on the
 * source just for its connection, so the client is made in one place (`connect` in
 * connection.ts: nodes, auth, CA file, version check) and closed with that store.
 */
export async function connect(o: ResolvedReindexOptions, options: ReindexOptions, policy: { retries: number; backoffMs: number }): Promise<ReindexConnection> {
  if (options.client !== undefined) return { client: options.client, boot: null }
  const boot = await createElasticsearchStore({
    node: options.node!,
    index: o.source,
    ensureIndex: 'none',
    retries: policy.retries,
    backoffMs: policy.backoffMs,
    ...(options.auth === undefined ? {} : { auth: options.auth }),
    ...(options.caFile === undefined ? {} : { caFile: options.caFile }),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
  })
  return { client: boot.client, boot }
}
