import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { PendingWrites } from '../../src/elasticsearch/_pending.js'
import { makeRecord } from './_records.js'

/*
 * The pending list of the Elasticsearch store: an entry leaves only by `refreshed` (a refresh that
 * started after its write); age and size only make the list `due` for one. The store's side (a
 * lookup refreshes when the list is due) is tested on the real node in
 * test/integration/es-store.test.ts.
 */

const fp = (i: number): { hi: number; lo: number } => ({ hi: (0x9e3779b1 * (i + 1)) >>> 0, lo: (0x85ebca6b * (i + 7)) >>> 0 })

describe('PendingWrites', () => {
  test('an entry older than the TTL is kept, and makes the list due, until a refresh covers it', () => {
    let now = 0
    const pending = new PendingWrites(100, 1000, () => now)
    const r = makeRecord('a', fp(1))
    pending.put([r])
    expect(pending.due()).toBe(false)
    now = 5000
    expect(pending.due()).toBe(true)
    expect(pending.size).toBe(1)
    expect(pending.shadows('a')).toBe(true)
    expect(pending.matches({ fingerprint: r.fingerprint, blocks: r.blocks, minMatch: 1, maxDistance: 3 }).map((x) => x.id)).toEqual(['a'])
    pending.refreshed(pending.mark)
    expect(pending.size).toBe(0)
    expect(pending.due()).toBe(false)
  })

  // Oracle: a list of (id, write number); due iff the oldest is older than the TTL or the list is full.
  test.prop([
    fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant('put' as const), id: fc.nat(6) }),
        fc.record({ kind: fc.constant('delete' as const), id: fc.nat(6) }),
        fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 80 }) }),
        fc.record({ kind: fc.constant('refresh' as const), lag: fc.nat(3) }),
      ),
      { maxLength: 40 },
    ),
    fc.integer({ min: 1, max: 5 }),
  ])('nothing leaves but by a refresh; due follows age and size', (ops, maxEntries) => {
    let now = 0
    const ttl = 50
    const pending = new PendingWrites(ttl, maxEntries, () => now)
    // id → [write number, time]; in write order.
    const model = new Map<string, [number, number]>()
    let seq = 0
    const marks: number[] = [0]
    for (const op of ops) {
      if (op.kind === 'wait') now += op.ms
      else if (op.kind === 'put' || op.kind === 'delete') {
        const id = `d${op.id}`
        if (op.kind === 'put') pending.put([makeRecord(id, fp(op.id))])
        else pending.delete([id])
        model.delete(id)
        model.set(id, [++seq, now])
        marks.push(seq)
      } else {
        // A refresh that started some writes ago covers the writes up to then.
        const mark = marks[Math.max(0, marks.length - 1 - op.lag)]!
        pending.refreshed(mark)
        for (const [id, [s]] of model) if (s <= mark) model.delete(id)
      }
      expect(pending.size).toBe(model.size)
      for (const id of model.keys()) expect(pending.shadows(id)).toBe(true)
      const oldest = model.values().next().value as [number, number] | undefined
      expect(pending.due()).toBe(oldest !== undefined && (model.size >= maxEntries || now - oldest[1] > ttl))
    }
  })
})
