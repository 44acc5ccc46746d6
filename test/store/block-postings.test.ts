import { afterAll, describe, expect } from 'vitest'
import { test as propTest } from '@fast-check/vitest'
import fc from 'fast-check'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'
import { popcount32 } from '../../src/fingerprint/hamming.js'
import { fold16 } from '../../src/store/embedded/_bytes.js'
import { Postings } from '../../src/store/embedded/_postings.js'
import { DEFAULT_MEMORY_STORE_OPTIONS, openMemoryStore, type MemoryStore } from '../../src/store/embedded/store.js'

const MAX_BLOCK_CANDIDATES = DEFAULT_MEMORY_STORE_OPTIONS.maxBlockCandidates
import type { Fingerprint, FingerprintRecord } from '../../src/types.js'
import { slowHamming } from '../helpers/fingerprints.js'
import { makeRecord } from './_records.js'

/*
 * The block route's index at sizes where its chains are folded into the sorted base (more than
 * 4,096 rows) and its 16-bit fold filter, against brute-force oracles.
 */

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

const arbFp = fc.tuple(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff })).map(([hi, lo]) => ({ hi, lo }))

describe('fold16', () => {
  // Near pairs (a few bits flipped) and unrelated ones: the bound matters for the near.
  propTest.prop([arbFp, fc.array(fc.nat(63), { maxLength: 6 }), arbFp], { numRuns: 2000 })(
    'never puts two fingerprints farther apart than their Hamming distance',
    (a, flips, c) => {
      const b = clustered([a], 0, flips)
      for (const [x, y] of [[a, b], [a, c]] as const) {
        expect(popcount32(fold16(x.hi, x.lo) ^ fold16(y.hi, y.lo))).toBeLessThanOrEqual(slowHamming(x, y))
      }
    },
  )
})

describe('Postings (chains folded into the base)', () => {
  // A row's term at each of 2 positions (from a few values, so terms repeat), or a fold.
  const op = fc.oneof(
    { weight: 9, arbitrary: fc.tuple(fc.nat(5), fc.nat(5)).map((terms) => ({ terms })) },
    { weight: 1, arbitrary: fc.constant('fold' as const) },
  )
  propTest.prop([fc.array(op, { maxLength: 300 }), fc.nat(6)], { numRuns: 200 })(
    'every term yields exactly its rows, newest first, and stops when asked (oracle: a list per term)',
    (ops, stopAfter) => {
      const postings = new Postings()
      const oracle = new Map<number, number[]>()
      let row = 0
      for (const o of ops) {
        if (o === 'fold') {
          postings.fold()
          continue
        }
        o.terms.forEach((t, p) => {
          const id = postings.termId(p, `${p}_${t}`)
          postings.link(row, p, id)
          oracle.set(id, [row, ...(oracle.get(id) ?? [])])
        })
        row++
      }
      for (const [id, rows] of oracle) {
        const p = postings.positionOf(id)
        const all: number[] = []
        postings.forEachRow(p, id, (r) => {
          all.push(r)
          return false
        })
        expect(all).toEqual(rows)
        const some: number[] = []
        postings.forEachRow(p, id, (r) => some.push(r) > stopAfter)
        expect(some).toEqual(rows.slice(0, stopAfter + 1))
      }
    },
  )
})

/** Fingerprints clustered around a few centres (0–6 bits away), so a block's rows hold near and far records. */
function clustered(centres: readonly Fingerprint[], pick: number, flips: readonly number[]): Fingerprint {
  let { hi, lo } = centres[pick % centres.length]!
  for (const bit of flips) {
    if (bit < 32) lo = (lo ^ (1 << bit)) >>> 0
    else hi = (hi ^ (1 << (bit - 32))) >>> 0
  }
  return { hi, lo }
}

/**
 * The oracle of the block route: for each position in turn, the live records whose block there
 * equals the query's, newest put first, each once; within `maxDistance` (filtered store) or with a
 * popcount within it (unfiltered).
 */
function expectedBlockRoute(live: readonly FingerprintRecord[], q: Fingerprint, filtered: boolean): string[] {
  const blocks = fingerprintBlocks(q)
  const pop = (f: Fingerprint): number => slowHamming(f, { hi: 0, lo: 0 })
  const out: number[] = []
  const seen = new Set<number>()
  for (let p = 0; p < blocks.length; p++) {
    for (let i = live.length - 1; i >= 0; i--) {
      const r = live[i]!
      if (r.blocks[p] !== blocks[p] || seen.has(i)) continue
      if (filtered ? slowHamming(r.fingerprint, q) > 3 : Math.abs(pop(r.fingerprint) - pop(q)) > 3) continue
      seen.add(i)
      out.push(i)
    }
  }
  // Past the store's cap, the nearest are kept, nearest first (ties: newest first).
  if (out.length > MAX_BLOCK_CANDIDATES) {
    const d = (i: number): number => slowHamming(live[i]!.fingerprint, q)
    out.sort((a, b) => d(a) - d(b) || b - a).length = MAX_BLOCK_CANDIDATES
  }
  return out.map((i) => live[i]!.id)
}

describe('block route past the fold (brute-force oracle)', () => {
  const scenario = [
    fc.array(arbFp, { minLength: 1, maxLength: 6 }),
    // Puts in rounds (≥ 8,400 rows: the chains are folded at least twice, at 4,096 and 8,192 rows);
    // each round's records (cluster pick, flips), then how many earlier ids it deletes or re-puts.
    fc.array(
      fc.record({
        size: fc.integer({ min: 2800, max: 3300 }),
        seed: fc.nat(),
        deletes: fc.nat(40),
        reputs: fc.nat(40),
      }),
      { minLength: 3, maxLength: 4 },
    ),
    fc.array(fc.tuple(fc.nat(), fc.array(fc.nat(63), { maxLength: 5 })), { minLength: 1, maxLength: 12 }),
  ] as const

  async function check(filtered: boolean, dir: string | undefined, centres: Fingerprint[], rounds: { size: number; seed: number; deletes: number; reputs: number }[], queries: [number, number[]][]): Promise<void> {
    const open = (): Promise<MemoryStore> => openMemoryStore({ filterBlockDistance: filtered, fsync: false, ...(dir === undefined ? {} : { dir }) })
    let store = await open()
    // Live records in put order (a re-put moves to the end: it takes a new row).
    const live: FingerprintRecord[] = []
    let next = 0
    const ask = async (): Promise<void> => {
      const qs = queries.map(([pick, flips]) => clustered(centres, pick, flips))
      const answers = await store.candidates(qs.map((fingerprint) => ({ fingerprint, blocks: fingerprintBlocks(fingerprint), minMatch: 1, maxDistance: 3 })))
      qs.forEach((q, i) => expect(answers[i]!.map((r) => r.id)).toEqual(expectedBlockRoute(live, q, filtered)))
    }
    for (const round of rounds) {
      let x = round.seed
      const rand = (n: number): number => {
        x = (Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0
        return x % n
      }
      const batch: FingerprintRecord[] = []
      for (let i = 0; i < round.size; i++) {
        const flips = Array.from({ length: rand(7) }, () => rand(64))
        batch.push(makeRecord(`r${next++}`, clustered(centres, rand(centres.length), flips), { urlHash: null, titleHash: null }))
      }
      await store.put(batch)
      live.push(...batch)
      const gone = Array.from({ length: Math.min(round.deletes, live.length) }, () => live[rand(live.length)]!.id)
      await store.delete([...new Set(gone)])
      for (const id of new Set(gone)) live.splice(live.findIndex((r) => r.id === id), 1)
      const moved = [...new Set(Array.from({ length: Math.min(round.reputs, live.length) }, () => live[rand(live.length)]!.id))]
      const again = moved.map((id) => makeRecord(id, clustered(centres, rand(centres.length), [rand(64)]), { urlHash: null, titleHash: null }))
      await store.put(again)
      for (const id of moved) live.splice(live.findIndex((r) => r.id === id), 1)
      live.push(...again)
      await ask()
    }
    if (dir !== undefined) {
      // Replayed from the log: the rows come back as chains, folded again at the first lookup.
      await store.close()
      store = await open()
      await ask()
    }
    await store.close()
  }

  propTest.prop([...scenario], { numRuns: 4 })('candidates within k, in the order of the chain walk (in memory, filtered)', (centres, rounds, queries) =>
    check(true, undefined, centres, rounds, queries))
  propTest.prop([...scenario], { numRuns: 2 })('candidates by popcount window (in memory, unfiltered)', (centres, rounds, queries) =>
    check(false, undefined, centres, rounds, queries))
  propTest.prop([...scenario], { numRuns: 2 })('the same after a replay of the log (persistent, filtered)', async (centres, rounds, queries) => {
    const dir = await mkdtemp(join(tmpdir(), 'simdup-postings-'))
    dirs.push(dir)
    await check(true, join(dir, 'store'), centres, rounds, queries)
  })
})
