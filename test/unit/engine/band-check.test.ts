import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test as plain } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import {
  createAnalyzer, createDeduplicator, openMemoryStore, type CandidateQuery, type FingerprintRecord, type FingerprintStore,
} from '../../../src/index.js'
import { type BandCheck } from '../../../src/internal.js'
import { candidateQuery, matchCandidate } from '../../../src/engine/match.js'
import { SKETCH_COUNT_DIGITS, minhashMaxDiffer, minhashSimilarity } from '../../../src/fingerprint/minhash.js'
import { copyStream, decided, runInBatches } from '../../helpers/rerun.js'

/**
 * `CandidateQuery.bandCheck`: the embedded store answers band-only records that cannot verify
 * with stand-ins (`FingerprintRecord.partial`). The oracle is the same store asked without it:
 * every decision, every answer's ids and every band term a bound counts must be the same.
 */

const analyzer = createAnalyzer()
const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/** A fresh store, with a log in a temporary directory (`log`: records read back from it) or in memory. */
async function freshStore(log: boolean, options: { maxPerKey?: number; maxPerBand?: number; maxBlockCandidates?: number }): Promise<FingerprintStore> {
  if (!log) return openMemoryStore(options)
  const dir = await mkdtemp(join(tmpdir(), 'simdup-band-check-'))
  dirs.push(dir)
  return openMemoryStore({ ...options, dir, fsync: false })
}

/** `store` that counts the stand-ins it returns, or (`strip`) is never given a `bandCheck`: the whole records, as before it. */
function watched(store: FingerprintStore, strip: boolean): { store: FingerprintStore; partials: () => number } {
  let partials = 0
  const proxy = new Proxy(store, {
    get(target, p) {
      if (p === 'candidates') {
        return async (qs: readonly CandidateQuery[]) => {
          const answers = await target.candidates(strip ? qs.map(({ bandCheck: _, ...q }) => q) : qs)
          for (const answer of answers) for (const r of answer) if (r.partial === true) partials++
          return answers
        }
      }
      const v = Reflect.get(target, p, target) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
  return { store: proxy, partials: () => partials }
}

/** Decisions of `docs` with and without `bandCheck` on two fresh stores, and the stand-ins returned. */
async function both(seed: number, n: number, log: boolean, options: { maxPerKey?: number; maxPerBand?: number; maxBlockCandidates?: number }) {
  const docs = copyStream(seed, n)
  const checked = watched(await freshStore(log, options), false)
  const whole = watched(await freshStore(log, options), true)
  const a = await runInBatches(createDeduplicator({ store: checked.store, analyzer }), docs, seed)
  const b = await runInBatches(createDeduplicator({ store: whole.store, analyzer }), docs, seed)
  await checked.store.close()
  await whole.store.close()
  return { checked: decided(a), whole: decided(b), partials: checked.partials(), wholePartials: whole.partials() }
}

describe('stand-ins for band-only records that cannot verify (CandidateQuery.bandCheck)', () => {
  // Small bounds so band terms hold more records than they return, the key routes fill up and
  // the block route is cut: where a stand-in that did not count in a term's bound would change
  // which records a decision may use.
  test.prop([fc.integer(), fc.boolean(), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 2, max: 12 })], { numRuns: 12 })(
    'decides every document as the whole records do',
    async (seed, log, maxPerKey, maxPerBand, maxBlockCandidates) => {
      const r = await both(seed, 140, log, { maxPerKey, maxPerBand, maxBlockCandidates })
      expect(r.checked).toEqual(r.whole)
      expect(r.wholePartials).toBe(0)
    },
  )

  plain('stand-ins are returned on a stream of shared sentences (log and in memory), with the same decisions', async () => {
    for (const log of [true, false]) {
      const r = await both(7, 300, log, { maxPerBand: 2 })
      expect(r.checked).toEqual(r.whole)
      expect(r.partials).toBeGreaterThan(20)
    }
  })

  test.prop([fc.integer(), fc.boolean(), fc.integer({ min: 1, max: 4 })], { numRuns: 8 })(
    'an answer holds the same records; a stand-in is a record that does not verify, with the query\'s terms it has',
    async (seed, log, maxPerBand) => {
      const store = await freshStore(log, { maxPerBand })
      const dedup = createDeduplicator({ store, analyzer })
      const docs = copyStream(seed, 160)
      await dedup.add(docs.slice(0, 120))
      const o = dedup.options
      let partials = 0
      for (const item of docs.slice(120).map((d) => dedup.prepare({ value: d }))) {
        if (!item.ok || item.doc.sketch === null || !item.doc.sketch.startsWith('m:')) continue
        const d = item.doc
        const q = { ...candidateQuery(d, o), blocks: [], contentHash: null, urlHash: null, titleHash: null }
        const check: BandCheck = {
          contentHash: d.contentHash, urlHash: d.urlHash, titleHash: d.titleHash, sketch: d.sketch!,
          skipDigits: SKETCH_COUNT_DIGITS, maxDiffer: minhashMaxDiffer(d.sketch!, o.minResemblance),
        }
        const [[...checked], [...whole]] = await store.candidates([{ ...q, bandCheck: check }, q]) as [FingerprintRecord[], FingerprintRecord[]]
        const byId = (rs: FingerprintRecord[]) => rs.map((r) => r.id).sort()
        expect(byId(checked)).toEqual(byId(whole))
        const wholeOf = new Map(whole.map((r) => [r.id, r]))
        for (const r of checked) {
          const w = wholeOf.get(r.id)!
          if (r.partial !== true) {
            expect(r).toEqual(w)
            continue
          }
          partials++
          expect(matchCandidate({ ...d, seq: undefined }, w, o)).toBeNull()
          expect([r.seq, r.indexedAt, r.fingerprint, r.version]).toEqual([w.seq, w.indexedAt, w.fingerprint, w.version])
          expect([...r.bands!].sort()).toEqual([...new Set(w.bands!.filter((t) => q.bands!.includes(t)))].sort())
        }
      }
      await store.close()
      expect(partials).toBeGreaterThan(0)
    },
  )
})

plain('a malformed bandCheck is refused, naming the field', async () => {
  const store = await openMemoryStore()
  const q: CandidateQuery = { fingerprint: { hi: 1, lo: 2 }, blocks: [], minMatch: 1, maxDistance: 3, bands: ['m0_00000000'] }
  const check: BandCheck = { contentHash: null, urlHash: null, titleHash: null, sketch: 'm:00ff', skipDigits: 0, maxDiffer: 3 }
  await expect(store.candidates([{ ...q, bandCheck: { ...check, sketch: 'm:0g' } }])).rejects.toThrow(/Query 0: expected `bandCheck.sketch`/)
  await expect(store.candidates([{ ...q, bandCheck: { ...check, skipDigits: 3 } }])).rejects.toThrow(/`bandCheck.skipDigits`/)
  await expect(store.candidates([{ ...q, bandCheck: { ...check, maxDiffer: 1.5 } }])).rejects.toThrow(/`bandCheck.maxDiffer`/)
  await expect(store.candidates([{ ...q, bandCheck: { ...check, urlHash: 7 as unknown as string } }])).rejects.toThrow(/`bandCheck.urlHash`/)
  expect(await store.candidates([{ ...q, bandCheck: check }])).toEqual([[]])
})

describe('minhashMaxDiffer', () => {
  const hex = (bytes: number[]) => bytes.map((b) => b.toString(16).padStart(2, '0')).join('')
  test.prop([fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 64, maxLength: 64 }), fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 64, maxLength: 64 }), fc.integer({ min: 0, max: 1024 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom('drawn', 'at', 'above')])(
    'more differing bits than it allows ⇔ the estimate is below the threshold',
    (a, b, count, drawn, at) => {
      const c = count.toString(16).padStart(SKETCH_COUNT_DIGITS, '0')
      const x = `m:${c}${hex(a)}`
      // b drawn near a as often as not: the pairs around the threshold are the ones that matter.
      const y = `m:${c}${hex(b.map((v, i) => (i % 2 === 0 ? a[i]! : v)))}`
      let differ = 0
      for (let i = 2 + SKETCH_COUNT_DIGITS; i < x.length; i++) differ += popcount(parseInt(x[i]!, 16) ^ parseInt(y[i]!, 16))
      // The threshold drawn, or exactly the pair's estimate, or just above it (the boundary).
      const threshold = at === 'drawn' ? drawn : minhashSimilarity(x, y) + (at === 'above' ? 1e-9 : 0)
      expect(differ > minhashMaxDiffer(x, threshold)).toBe(minhashSimilarity(x, y) < threshold)
    },
  )

  plain('NaN for what is not an m: sketch', () => {
    expect(minhashMaxDiffer('t:00ff', 0.6)).toBeNaN()
    expect(minhashMaxDiffer('m:00', 0.6)).toBeNaN()
  })
})

function popcount(v: number): number {
  let n = 0
  for (; v !== 0; v &= v - 1) n++
  return n
}
