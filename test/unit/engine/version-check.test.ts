import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { createDeduplicator, openMemoryStore } from '../../../src/index.js'
import { run } from '../../../src/cli/main.js'
import { fakeIO } from '../../helpers/cli.js'

// A store written by another fingerprint version must never be mixed in silently: its records are
// not compared with this version's, so every duplicate of them would come out "unique".
const TEXT = '市图书馆本周宣布启动全民阅读计划，面向全体市民免费开放新馆的全部阅览室和自习室，并增加夜间开放时段。' // the city library opens its new reading rooms
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('fingerprint version of the store', () => {
  test('a deduplicator refuses a store holding another fingerprint version, naming both and what to do', async () => {
    const store = await openMemoryStore()
    // Write a record as an older simdup would have: same store, other version string.
    const [first] = await createDeduplicator({ store }).add([{ id: 'a', content: TEXT }])
    expect(first!.status).toBe('unique')
    const current = (await store.get(['a'])).get('a')!
    await store.put([{ ...current, id: 'old-1', version: 'simdup-fp/4', seq: current.seq! + 1 }])
    const dedup = createDeduplicator({ store })
    await expect(dedup.add([{ id: 'b', content: TEXT }])).rejects.toMatchObject({
      code: 'SNAPSHOT_VERSION',
      message: expect.stringMatching(/simdup-fp\/4.*this simdup fingerprints with simdup-fp\/\d+.*new store/s),
    })
    // Nothing was written by the refused batch.
    expect((await store.get(['b'])).size).toBe(0)
    await store.close()
  })

  test('versionCheck: false (reindex) goes on, and a store of one version passes', async () => {
    const store = await openMemoryStore()
    const dedup = createDeduplicator({ store })
    await dedup.add([{ id: 'a', content: TEXT }])
    const rec = (await store.get(['a'])).get('a')!
    await store.put([{ ...rec, id: 'old-1', version: 'simdup-fp/4', seq: rec.seq! + 1 }])
    const lenient = createDeduplicator({ store, versionCheck: false })
    const [d] = await lenient.add([{ id: 'b', content: TEXT }])
    expect(d).toMatchObject({ status: 'duplicate', duplicateOf: 'a' })
    await store.close()
  })

  test('simdup index on an embedded store of another version exits 5 (version mismatch) with the message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-version-'))
    dirs.push(dir)
    const storeDir = join(dir, 'store')
    const store = await openMemoryStore({ dir: storeDir })
    await createDeduplicator({ store }).add([{ id: 'a', content: TEXT }])
    const rec = (await store.get(['a'])).get('a')!
    await store.put([{ ...rec, version: 'simdup-fp/4' }])
    await store.close()
    const { io, stderr } = fakeIO(dir, JSON.stringify({ id: 'b', content: TEXT }) + '\n')
    const code = await run(['index', '-', '--store', storeDir], io)
    expect(code).toBe(5)
    expect(stderr()).toMatch(/SNAPSHOT_VERSION.*simdup-fp\/4/)
  })
})
