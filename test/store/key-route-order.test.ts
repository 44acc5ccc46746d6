import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import type { FingerprintRecord } from '../../src/types.js'
import { openMemoryStore } from '../../src/store/embedded/store.js'
import { hash16, makeRecord } from './_records.js'

/**
 * The embedded store's key route returns a key's newest `maxPerKey` records by first-insertion
 * order (`seq`), as the engine bounds its in-batch candidates, also after records were written
 * again (an update, a re-pointing: the record goes to the head of its key's chain with its old
 * `seq`). Taking the rows written last instead made a re-run with re-used ids decide otherwise
 * than a clean run (issue 26, item 5: about 1 decision in 1,500). Oracle: the live records kept
 * in a map, sorted by `seq`.
 */

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const KEYS = ['a', 'b', 'c'].map((k) => hash16(`url:${k}`))

/** A step: put id `id` (new, or written again with its first `seq`) under URL key `key` (or none), or delete it. */
const step = fc.record({ id: fc.integer({ min: 0, max: 24 }), key: fc.integer({ min: 0, max: 3 }), del: fc.boolean(), batch: fc.boolean() })

describe('embedded store: the key route keeps the newest records by seq', () => {
  test.prop([fc.array(step, { minLength: 1, maxLength: 80 }), fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.integer({ min: 0, max: 90 })], { numRuns: 60 })(
    'after puts, puts of the same ids again and deletes, each key answers its newest maxPerKey live records with seq ≤ maxSeq',
    async (steps, maxPerKey, persistent, maxSeq) => {
      const dir = persistent ? await mkdtemp(join(tmpdir(), 'simdup-key-route-')) : undefined
      if (dir !== undefined) dirs.push(dir)
      const store = await openMemoryStore(dir === undefined ? { maxPerKey } : { dir, fsync: false, maxPerKey })
      const live = new Map<string, FingerprintRecord>()
      const seqOf = new Map<string, number>()
      let next = 1
      let pending: FingerprintRecord[] = []
      const flush = async (): Promise<void> => {
        if (pending.length > 0) expect((await store.put(pending)).failed).toEqual([])
        pending = []
      }
      for (const s of steps) {
        const id = `r${s.id}`
        if (s.del && live.has(id)) {
          await flush()
          await store.delete([id])
          live.delete(id)
          seqOf.delete(id)
          continue
        }
        const seq = seqOf.get(id) ?? next++
        seqOf.set(id, seq)
        const r = makeRecord(id, { hi: 0x12345678 ^ seq, lo: 0x9abcdef0 }, { urlHash: s.key === 3 ? null : KEYS[s.key]!, seq })
        pending = pending.filter((p) => p.id !== id)
        pending.push(r)
        live.set(id, r)
        if (!s.batch) await flush()
      }
      await flush()
      for (const key of KEYS) {
        const want = [...live.values()].filter((r) => r.urlHash === key && r.seq! <= maxSeq).sort((x, y) => y.seq! - x.seq!).slice(0, maxPerKey).map((r) => r.id).sort()
        const [got] = await store.candidates([{ fingerprint: { hi: 0, lo: 0 }, blocks: [], minMatch: 1, maxDistance: 3, contentHash: null, urlHash: key, titleHash: null, maxSeq }])
        expect(got!.map((r) => r.id).sort()).toEqual(want)
      }
      await store.close()
    },
  )
})
