import { describe, expect, test } from 'vitest'
import { type Decision } from '../../../src/index.js'
import { runBatches } from '../../../src/engine/index.js'
import { type PreparedItem } from '../../../src/engine/prepare.js'

const item = (n: number): PreparedItem => ({ ok: false, id: String(n), line: n, reason: 'x' })
const decision = (i: PreparedItem): Decision => ({ id: i.ok ? i.doc.id : i.id, line: null, status: 'rejected', duplicateOf: null, distance: null, layer: null, clusterId: null, simhash: null, reason: null, rule: null, resemblance: null })

describe('runBatches', () => {
  test('emits every batch in order while preparation runs `ahead` batches in front of deciding', async () => {
    const log: string[] = []
    const emitted: (string | null)[] = []
    const batches = [[1, 2], [3], [4, 5, 6], [7], [8]]
    await runBatches(batches, {
      ahead: 2,
      prepare: async (b) => {
        log.push(`prepare ${b[0]}`)
        await new Promise((r) => setTimeout(r, 5 * (6 - b.length))) // later batches finish first
        return b.map(item)
      },
      decide: async (items) => {
        log.push(`decide ${items[0]!.ok ? '' : items[0]!.id}`)
        await new Promise((r) => setTimeout(r, 3))
        return items.map(decision)
      },
      emit: (ds) => {
        emitted.push(...ds.map((d) => d.id))
      },
    })
    expect(emitted).toEqual(['1', '2', '3', '4', '5', '6', '7', '8'])
    // Batch n+2 is handed to preparation before batch n is decided.
    expect(log.indexOf('prepare 4')).toBeLessThan(log.indexOf('decide 1'))
    expect(log.indexOf('prepare 7')).toBeLessThan(log.indexOf('decide 3'))
  })

  test('a failing decide rejects the run; nothing after it is emitted', async () => {
    const emitted: (string | null)[] = []
    const run = runBatches([[1], [2], [3], [4]], {
      prepare: (b) => b.map(item),
      decide: async (items) => {
        if (!items[0]!.ok && items[0]!.line === 2) throw new Error('store down')
        return items.map(decision)
      },
      emit: (ds) => {
        emitted.push(...ds.map((d) => d.id))
      },
    })
    await expect(run).rejects.toThrow('store down')
    expect(emitted).toEqual(['1'])
  })

  test('a failing preparation rejects the run', async () => {
    const run = runBatches([[1], [2], [3]], {
      ahead: 2,
      prepare: async (b) => {
        if (b[0] === 3) throw new Error('worker died')
        return b.map(item)
      },
      decide: async (items) => items.map(decision),
      emit: () => undefined,
    })
    await expect(run).rejects.toThrow('worker died')
  })

  test('a failing source still finishes the batch being decided: it is emitted before the error', async () => {
    // reindex writes its checkpoint when a batch is emitted: a batch stored but never emitted
    // would be decided again by the next run. The loop used to leave it running.
    const emitted: (string | null)[] = []
    let decided = 0
    async function* source() {
      yield [1]
      yield [2]
      await new Promise((r) => setTimeout(r, 5))
      throw new Error('search failed')
    }
    const run = runBatches(source(), {
      prepare: (b) => b.map(item),
      decide: async (items) => {
        await new Promise((r) => setTimeout(r, 20))
        decided += items.length
        return items.map(decision)
      },
      emit: (ds) => {
        emitted.push(...ds.map((d) => d.id))
      },
    })
    await expect(run).rejects.toThrow('search failed')
    expect(decided).toBe(1)
    expect(emitted).toEqual(['1'])
  })
})
