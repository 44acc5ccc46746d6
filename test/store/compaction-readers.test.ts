/**
 * Readers during a compaction (issue 26): a read-only open or a check that meets a compaction
 * renaming a new log in sees one consistent log: no false STORE_CORRUPT, never a wrong count.
 */
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { checkMemoryStore, openMemoryStore } from '../../src/store/embedded/store.js'
import { T0, flip, makeRecord } from './_records.js'

const BASE = { hi: 0x3fa20b11, lo: 0x9c00ffe1 }

test('read-only opens and checks while the writer compacts again and again: every one sees the live records, none fails', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'simdup-compact-read-'))
  const writer = await openMemoryStore({ dir, fsync: false })
  const ids = Array.from({ length: 3000 }, (_, i) => `doc-${i}`)
  await writer.put(ids.map((id, i) => makeRecord(id, flip(BASE, i % 64), { indexedAt: T0 + i, clusterId: `c-${i % 50}` })))
  // Half of them replaced: each compaction moves every live record to a new offset.
  await writer.put(ids.slice(0, 1500).map((id, i) => makeRecord(id, flip(BASE, (i + 7) % 64), { indexedAt: T0 + i, clusterId: `c-${i % 50}` })))
  const live = await writer.count()
  const top = await writer.topClusters(5)
  let stop = false
  const compacting = (async () => {
    while (!stop) await writer.compact()
  })()
  const seen: string[] = []
  try {
    for (let i = 0; i < 25; i++) {
      const reader = await openMemoryStore({ dir, readOnly: true })
      seen.push(`${await reader.count()} ${JSON.stringify(await reader.topClusters(5))} ${(await reader.get(['doc-0', 'doc-2999'])).size}`)
      await reader.close()
      const checked = await checkMemoryStore(dir)
      seen.push(`check ${checked.records} ${checked.damage === null}`)
    }
  } finally {
    stop = true
    await compacting
    await writer.close()
  }
  expect(new Set(seen)).toEqual(new Set([`${live} ${JSON.stringify(top)} 2`, `check ${live} true`]))
})
