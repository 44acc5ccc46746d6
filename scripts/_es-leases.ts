/**
 * Shared by the Elasticsearch benches (bench-es.ts, bench-es-disk.ts): disk is measured only once
 * a force merge can drop what a live index would not keep.
 */
import type { Client } from '@elastic/elasticsearch'

type ShardStats = { seq_no?: { max_seq_no?: number }; retention_leases?: { leases?: { retaining_seq_no?: number }[] } }

/**
 * Waits (up to 2 minutes) until every shard's retention leases are past its last operation. Until
 * then a merge keeps each document's `_recovery_source` (the source as sent, kept for replica
 * recovery when the mapping filters `_source`, as record format 2 does); the leases move on the
 * node's periodic sync (~30 s), after which merges drop it, as they do on a live index.
 */
export async function awaitLeases(client: Client, index: string): Promise<void> {
  for (let waited = 0; waited < 120_000; waited += 2000) {
    const stats = (await client.indices.stats({ index, level: 'shards', metric: ['docs'] })) as unknown as {
      indices?: Record<string, { shards?: Record<string, ShardStats[]> }>
    }
    const copies = Object.values(stats.indices?.[index]?.shards ?? {}).flat()
    if (copies.every((c) => (c.retention_leases?.leases ?? []).every((l) => (l.retaining_seq_no ?? 0) > (c.seq_no?.max_seq_no ?? -1)))) return
    await new Promise((resolve) => setTimeout(resolve, 2000))
  }
  console.error(`${index}: retention leases not past the last operation after 2 minutes`)
}
