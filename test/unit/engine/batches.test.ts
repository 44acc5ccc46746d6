import { describe, expect } from 'vitest'
import { test as propTest } from '@fast-check/vitest'
import fc from 'fast-check'
import { batchesOf } from '../../../src/engine/batches.js'

async function collect<T>(it: AsyncIterable<T[]>): Promise<T[][]> {
  const out: T[][] = []
  for await (const b of it) out.push(b)
  return out
}

/** Brute force: cut before an item whenever it would overflow the bytes, after one that fills the count. */
function oracle(sizes: number[], maxItems: number, maxBytes: number): number[][] {
  const out: number[][] = []
  let cur: number[] = []
  for (const s of sizes) {
    const bytes = cur.reduce((a, b) => a + b, 0)
    if (cur.length > 0 && bytes + s > maxBytes) {
      out.push(cur)
      cur = []
    }
    cur.push(s)
    if (cur.length === maxItems) {
      out.push(cur)
      cur = []
    }
  }
  if (cur.length > 0) out.push(cur)
  return out
}

describe('batchesOf', () => {
  propTest.prop([fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 60 }), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 300 })])(
    'keeps order, holds at most batchSize items and batchBytes bytes (a larger item alone), and cuts like the greedy oracle',
    async (sizes, batchSize, batchBytes) => {
      const batches = await collect(batchesOf(sizes, { batchSize, batchBytes }, (s) => s))
      expect(batches).toEqual(oracle(sizes, batchSize, batchBytes))
      expect(batches.flat()).toEqual(sizes)
      for (const b of batches) {
        expect(b.length).toBeLessThanOrEqual(batchSize)
        if (b.length > 1) expect(b.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(batchBytes)
      }
    },
  )
})
