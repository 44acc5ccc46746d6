import { spawn } from 'node:child_process'
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, onTestFinished, test, vi } from 'vitest'
import { test as propTest } from '@fast-check/vitest'
import fc from 'fast-check'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'
import { flipBit, hamming } from '../../src/fingerprint/hamming.js'
import { arbFingerprint as arbFp } from '../helpers/fingerprints.js'
import type { FingerprintRecord } from '../../src/types.js'
import { DEFAULT_MEMORY_STORE_OPTIONS, MemoryStore, openMemoryStore } from '../../src/store/embedded/store.js'
import { LOG_FILE, LOG_FORMAT_VERSION } from '../../src/store/embedded/_log-format.js'
import { forgetLastCommit } from '../../src/store/embedded/_commit-point.js'
import { mix32, unmix32 } from '../../src/store/embedded/_key-index.js'
import { LOCK_FILE, usePidFileLock } from '../../src/store/lock.js'
import { LogReader } from '../../src/store/embedded/_log-reader.js'
import { storeContract } from './contract.js'
import { storeContractExtra } from './contract-extra.js'
import { storeContractBands } from './contract-bands.js'
import { storeContractVersions } from './contract-versions.js'
import { storeContractShort } from './contract-short.js'
import { T0, bandsOf, flip, hash16, idsOf, makeRecord } from './_records.js'
import { tempDirs } from '../helpers/temp-dir.js'

const tempDir = tempDirs('simdup-store-')

// The contract checks raw (unverified) candidates; the default store also prunes block candidates
// beyond maxDistance, which the contract's brute-force property test covers with the default on.
storeContract('memory (in-memory, unfiltered)', () => openMemoryStore({ filterBlockDistance: false }))
storeContract('memory (persistent, fsync, unfiltered)', async () => openMemoryStore({ dir: await tempDir(), filterBlockDistance: false }))
storeContractExtra('memory (in-memory)', () => openMemoryStore())
storeContractExtra('memory (persistent, fsync)', async () => openMemoryStore({ dir: await tempDir() }))
// The per-term bound (newest records, maxPerCluster 0); the bound by cluster: test/unit/engine/bounds-oracle.test.ts.
storeContractBands('memory (in-memory)', () => openMemoryStore({ maxPerCluster: 0 }), DEFAULT_MEMORY_STORE_OPTIONS.maxPerBand)
storeContractBands('memory (persistent)', async () => openMemoryStore({ dir: await tempDir(), fsync: false, maxPerCluster: 0 }), DEFAULT_MEMORY_STORE_OPTIONS.maxPerBand)
storeContractVersions('memory (in-memory)', () => openMemoryStore())
storeContractVersions('memory (persistent)', async () => openMemoryStore({ dir: await tempDir(), fsync: false }))
storeContractShort('memory (in-memory)', () => openMemoryStore({ maxPerBand: 64, maxPerCluster: 0 }))
storeContractShort('memory (persistent)', async () => openMemoryStore({ dir: await tempDir(), fsync: false, maxPerBand: 64, maxPerCluster: 0 }))

describe('default store (block candidates pruned by distance)', () => {
  propTest.prop([arbFp, fc.array(arbFp, { maxLength: 40 }), fc.array(fc.nat(63), { maxLength: 6 })], { numRuns: 50 })(
    'returns exactly the block-route records within maxDistance (brute-force oracle)',
    async (query, others, flips) => {
      const near = flips.reduce((fp, bit) => flipBit(fp, bit), query)
      const records = [...others, near].map((fp, i) => makeRecord(`r${i}`, fp))
      const store = await openMemoryStore()
      await store.put(records)
      const [found] = await store.candidates([{ fingerprint: query, blocks: fingerprintBlocks(query), minMatch: 1, maxDistance: 3 }])
      const expected = records.filter((r) => hamming(r.fingerprint, query) <= 3).map((r) => r.id).sort()
      expect(found!.map((r) => r.id).sort()).toEqual(expected)
      await store.close()
    },
  )
})

const BASE = { hi: 0x3fa20b11, lo: 0x9c00ffe1 }

/** n records doc-0… with distinct fingerprints near BASE. */
function records(n: number, over: (i: number) => Partial<FingerprintRecord> = () => ({})): FingerprintRecord[] {
  return Array.from({ length: n }, (_, i) => makeRecord(`doc-${i}`, flip(flip(BASE, i % 64), (i * 7 + 3) % 64), { indexedAt: T0 + i, ...over(i) }))
}

/** Everything a store holds, by id, read through scan. */
async function contents(store: MemoryStore): Promise<Map<string, FingerprintRecord>> {
  const out = new Map<string, FingerprintRecord>()
  for await (const batch of store.scan(100)) {
    for (const r of batch) {
      expect(out.has(r.id)).toBe(false)
      out.set(r.id, r)
    }
  }
  return out
}

describe('memory store', () => {
  const open: MemoryStore[] = []
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close()
  })
  async function openStore(options: Parameters<typeof openMemoryStore>[0] = {}): Promise<MemoryStore> {
    const store = await openMemoryStore(options)
    open.push(store)
    return store
  }

  test('invalid records are reported per record, the rest are written', async () => {
    const store = await openStore()
    const good = makeRecord('doc-ok', BASE)
    const result = await store.put([
      makeRecord('doc-upper', BASE, { contentHash: 'ABCDEF0123456789' }),
      good,
      makeRecord('doc-far', BASE, { distance: 65 }),
      makeRecord('doc-fp', { hi: -1, lo: 0 }),
    ])
    expect(result.written).toBe(1)
    expect(result.failed.map((f) => f.id)).toEqual(['doc-upper', 'doc-far', 'doc-fp'])
    expect(result.failed[0]!.error).toMatchObject({ code: 'INVALID_DOCUMENT', message: expect.stringMatching(/`contentHash`.*"ABCDEF0123456789"/) })
    expect(result.failed[1]!.error.message).toMatch(/`distance`.*`65`/)
    expect(await store.count()).toBe(1)
  })

  test('one exact key contributes at most maxPerKey records; the block route at most maxBlockCandidates', async () => {
    const store = await openStore({ maxPerKey: 5, maxBlockCandidates: 7 })
    const shared = hash16('content:syndicated')
    // 40 copies of one syndicated article: same content hash, far-apart fingerprints.
    await store.put(Array.from({ length: 40 }, (_, i) => makeRecord(`copy-${i}`, { hi: i * 0x01010101, lo: ~i >>> 0 }, { contentHash: shared })))
    const [byKey] = await store.candidates([{ fingerprint: { hi: 0xdeadbeef, lo: 0x12345678 }, blocks: ['0_dead', '1_beef', '2_1234', '3_5678'], minMatch: 1, maxDistance: 3, contentHash: shared }])
    expect(byKey).toHaveLength(5)
    // The newest copies come first: the chain is walked newest to oldest.
    expect(idsOf(byKey!)).toEqual(['copy-35', 'copy-36', 'copy-37', 'copy-38', 'copy-39'])
    // 40 records share block 0 with BASE; only near-0, near-1 and near-2 are within distance 2.
    const far = Array.from({ length: 37 }, (_, i) => makeRecord(`far-${i}`, { hi: BASE.hi, lo: (BASE.lo ^ (0x3f << (i % 24))) >>> 0 }))
    const near = [0, 1, 2].map((d) => makeRecord(`near-${d}`, d === 0 ? BASE : flip(d === 1 ? BASE : flip(BASE, 3), 7)))
    await store.put([near[0]!, ...far.slice(0, 20), near[1]!, ...far.slice(20), near[2]!])
    const [byBlocks] = await store.candidates([{ fingerprint: BASE, blocks: ['0_3fa2', '1_0b11', '2_9c00', '3_ffe1'], minMatch: 1, maxDistance: 64 }])
    // The cap keeps the nearest: the three close ones are always in, whatever their age.
    expect(byBlocks).toHaveLength(7)
    expect(byBlocks!.map((r) => r.id)).toEqual(expect.arrayContaining(['near-0', 'near-1', 'near-2']))
    expect(() => new MemoryStore({ maxPerKey: 0 })).toThrow(/`maxPerKey`.*`0`/)
    expect(() => new MemoryStore({ filterBlockDistance: 'yes' as unknown as boolean })).toThrow(/`filterBlockDistance`/)
  })

  test('filterBlockDistance keeps only block candidates within maxDistance; key and band routes are unaffected', async () => {
    const store = await openStore({ filterBlockDistance: true })
    const far = makeRecord('doc-far', { hi: BASE.hi, lo: (BASE.lo ^ 0x0f0f) >>> 0 }, { bands: ['m0_00000001'] })
    await store.put([makeRecord('doc-near', flip(flip(BASE, 3), 9)), far])
    const q = { fingerprint: BASE, blocks: ['0_3fa2', '1_0b11', '2_9c00', '3_ffe1'], minMatch: 1, maxDistance: 3 }
    expect(idsOf((await store.candidates([q]))[0]!)).toEqual(['doc-near'])
    expect(idsOf((await store.candidates([{ ...q, contentHash: far.contentHash }]))[0]!)).toEqual(['doc-far', 'doc-near'])
    expect(idsOf((await store.candidates([{ ...q, bands: ['m0_00000001'] }]))[0]!)).toEqual(['doc-far', 'doc-near'])
  })

  test('known ids are left out of an answer and still count towards the band bound (a band lookup after a first one)', async () => {
    const store = await openStore({ maxPerBand: 2, maxPerCluster: 0 })
    // Four records of one band term, seq order = put order (doc-3 newest).
    await store.put(Array.from({ length: 4 }, (_, i) => makeRecord(`doc-${i}`, flip(BASE, i), { bands: ['m0_00000001'], seq: i + 1 })))
    const q = { fingerprint: { hi: 1, lo: 1 }, blocks: [], minMatch: 1, maxDistance: 0, bands: ['m0_00000001'] }
    expect(idsOf((await store.candidates([q]))[0]!)).toEqual(['doc-2', 'doc-3'])
    expect(idsOf((await store.candidates([{ ...q, known: ['doc-3', 'doc-0', 'gone'] }]))[0]!)).toEqual(['doc-2'])
    await expect(store.candidates([{ ...q, known: 'doc-3' as unknown as string[] }])).rejects.toThrow(/Query 0: expected `known` to be an array of ids/)
  })

  test('blocks that follow no known layout are stored as given and matched by position', async () => {
    const store = await openStore()
    // Not position-tagged: the same string at two positions must stay two different terms.
    const odd = makeRecord('doc-odd', BASE, { blocks: ['a', 'a', 'zz'] })
    const other = makeRecord('doc-other', { hi: 1, lo: 2 }, { blocks: ['b', 'a'] })
    await store.put([odd, other])
    expect((await store.get(['doc-odd'])).get('doc-odd')).toEqual(odd)
    const ask = async (blocks: string[], minMatch: number): Promise<string[]> =>
      idsOf((await store.candidates([{ fingerprint: BASE, blocks, minMatch, maxDistance: 64 }]))[0]!)
    expect(await ask(['x', 'a'], 1)).toEqual(['doc-odd', 'doc-other'])
    expect(await ask(['a', 'x'], 1)).toEqual(['doc-odd'])
    expect(await ask(['x', 'x', 'zz'], 1)).toEqual(['doc-odd'])
    expect(await ask(['a', 'a'], 2)).toEqual(['doc-odd'])
  })

  test('odd band terms and an empty band list round-trip and still match', async () => {
    const store = await openStore()
    const odd = makeRecord('doc-odd', BASE, { bands: ['lsh-a', 'm1_nothex!', 'm2_0000000a'] })
    const none = makeRecord('doc-empty', BASE, { bands: [] })
    const reordered = makeRecord('doc-reordered', BASE, { bands: ['m1_0000000b', 'm0_0000000a'] })
    await store.put([odd, none, reordered])
    const got = await store.get(['doc-odd', 'doc-empty', 'doc-reordered'])
    expect([...got.values()]).toEqual([odd, none, reordered])
    const ask = async (bands: string[]): Promise<string[]> =>
      idsOf((await store.candidates([{ fingerprint: { hi: 1, lo: 1 }, blocks: [], minMatch: 1, maxDistance: 0, bands }]))[0]!)
    expect(await ask(['lsh-a'])).toEqual(['doc-odd'])
    expect(await ask(['x', 'm1_nothex!'])).toEqual(['doc-odd'])
    expect(await ask(['m0_0000000a'])).toEqual(['doc-reordered'])
  })

  test('band indexes survive growth and compaction', async () => {
    const store = await openStore()
    // 9,000 records with bands: each band index outgrows its first heads and relinks.
    const many = Array.from({ length: 9000 }, (_, i) => makeRecord(`doc-${i}`, flip(BASE, i % 64), { bands: bandsOf(`doc-${i}`) }))
    const odd = makeRecord('doc-odd', BASE, { bands: ['lsh-a', 'lsh-b'] })
    await store.put([...many, odd])
    await store.delete(Array.from({ length: 5000 }, (_, i) => `doc-${i}`))
    const ask = async (bands: string[]): Promise<string[]> =>
      idsOf((await store.candidates([{ fingerprint: { hi: 1, lo: 1 }, blocks: [], minMatch: 1, maxDistance: 0, bands }]))[0]!)
    for (const round of ['before', 'after'] as const) {
      if (round === 'after') await store.compact()
      expect(await ask([bandsOf('doc-8999')[6]!, bandsOf('doc-12')[6]!])).toEqual(['doc-8999'])
      expect(await ask(['lsh-b'])).toEqual(['doc-odd'])
      expect((await store.get(['doc-5000', 'doc-odd'])).get('doc-5000')?.bands).toEqual(bandsOf('doc-5000'))
    }
    expect(store.stats()).toMatchObject({ live: 4001, dead: 0 })
  })

  test('a scan returns exact records for rows put before and during it', async () => {
    const store = await openStore()
    const before = Array.from({ length: 300 }, (_, i) => makeRecord(`doc-${i}`, flip(BASE, i % 64), { bands: bandsOf(`doc-${i}`), urlHash: i % 3 === 0 ? null : hash16(`url-${i}`) }))
    await store.put(before)
    const during = Array.from({ length: 100 }, (_, i) => makeRecord(`late-${i}`, flip(BASE, i % 64), { bands: bandsOf(`late-${i}`), titleHash: null }))
    const written = new Map([...before, ...during].map((r) => [r.id, r]))
    const scanned: FingerprintRecord[] = []
    for await (const batch of store.scan(50)) {
      // Rows put after the scan started are past its key snapshot: their keys come from the chains.
      if (scanned.length === 0) await store.put(during)
      scanned.push(...batch)
    }
    expect(scanned).toHaveLength(400)
    for (const r of scanned) expect(r).toEqual(written.get(r.id))
  })

  test('bad queries and use after close fail with codes', async () => {
    const store = await openStore()
    await expect(store.candidates([{ fingerprint: BASE, blocks: [], minMatch: 0, maxDistance: 3 }])).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`minMatch`.*`0`/) })
    await expect(store.get([42 as unknown as string])).rejects.toMatchObject({ code: 'INVALID_OPTION' })
    await store.close()
    await expect(store.count()).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
    await expect(store.put([])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
  })

  test('compact drops dead rows and keeps every live record (in memory)', async () => {
    const store = await openStore()
    await store.put(records(300))
    // Some new versions (supersedes) among them: compaction re-encodes rows from the tables.
    await store.put(records(200, (i) => ({ contentHash: hash16(`edited-${i}`), ...(i % 3 === 1 ? { supersedes: `版本-${i}` } : {}) })))
    await store.delete(Array.from({ length: 50 }, (_, i) => `doc-${i * 2}`))
    const before = await contents(store)
    const kept = Array.from({ length: 200 }, (_, i) => i).filter((i) => i % 3 === 1 && !(i % 2 === 0 && i < 100))
    expect([...before.values()].filter((r) => r.supersedes !== undefined).map((r) => r.id).sort()).toEqual(kept.map((i) => `doc-${i}`).sort())
    expect(store.stats().dead).toBe(250)
    await store.compact()
    expect(store.stats()).toMatchObject({ live: 250, dead: 0 })
    expect(await contents(store)).toEqual(before)
    const [found] = await store.candidates([{ fingerprint: BASE, blocks: ['0_3fa2', '1_0b11', '2_9c00', '3_ffe1'], minMatch: 1, maxDistance: 3, contentHash: hash16('edited-1') }])
    expect(found!.map((r) => r.id)).toContain('doc-1')
  })
})

describe('memory store persistence', () => {
  const open: MemoryStore[] = []
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close()
  })
  async function openStore(dir: string, fsync = true): Promise<MemoryStore> {
    const store = await openMemoryStore({ dir, fsync })
    open.push(store)
    return store
  }
  async function reopen(store: MemoryStore, dir: string): Promise<MemoryStore> {
    await store.close()
    return openStore(dir)
  }

  test('a reopened store holds exactly what was acknowledged: puts, replacements, deletes, layouts', async () => {
    const dir = await tempDir()
    let store = await openStore(dir)
    await store.put(records(120))
    await store.put([makeRecord('doc-6', BASE, { blocks: ['free', 'form'] }), makeRecord('doc-7', BASE, { sketch: 'ab'.repeat(200) })])
    await store.put([makeRecord('doc-six', { hi: 7, lo: 9 }, {}, { blocks: 6, minMatch: 3 })])
    await store.delete(['doc-1', 'doc-2'])
    const before = await contents(store)
    store = await reopen(store, dir)
    expect(await contents(store)).toEqual(before)
    expect(await store.count()).toBe(119)
    const again = await store.candidates([{ fingerprint: BASE, blocks: ['free', 'x'], minMatch: 1, maxDistance: 64 }])
    expect(again[0]!.map((r) => r.id)).toEqual(['doc-6'])
  })

  test('with fsync off, a cleanly closed store reopens whole', async () => {
    const dir = await tempDir()
    let store = await openStore(dir, false)
    await store.put(records(50))
    const before = await contents(store)
    store = await reopen(store, dir)
    expect(await contents(store)).toEqual(before)
  })

  test('a put larger than one frame (32 MiB) is written as several frames and replays whole', async () => {
    const dir = await tempDir()
    let store = await openStore(dir, false)
    // 25 records with 1.5 MB sketches: about 38 MB in one put.
    const big = Array.from({ length: 25 }, (_, i) => makeRecord(`doc-${i}`, flip(BASE, i), { sketch: String.fromCharCode(65 + i).repeat(1_500_000) }))
    await store.put(big)
    await store.close()
    const bytes = await readFile(join(dir, LOG_FILE))
    let frames = 0
    for (let at = 16; at < bytes.length; at += 12 + bytes.readUInt32LE(at)) frames++
    expect(frames).toBe(2)
    store = await openStore(dir)
    const got = await store.get(big.map((r) => r.id))
    expect(got.size).toBe(25)
    for (const r of big) expect(got.get(r.id)!.sketch === r.sketch).toBe(true)
  })

  test('a torn last frame is truncated away and the store keeps working', async () => {
    const dir = await tempDir()
    const log = join(dir, LOG_FILE)
    let store = await openStore(dir)
    await store.put(records(30))
    const goodSize = (await stat(log)).size
    // What kill -9 in the middle of a write leaves: a frame header promising more than follows.
    const torn = Buffer.alloc(40)
    torn.writeUInt32LE(5000, 0)
    torn.writeUInt32LE(~5000 >>> 0, 4)
    await store.close()
    await appendFile(log, torn)
    store = await openStore(dir)
    expect(store.stats().truncatedOnOpen).toBe(40)
    expect((await stat(log)).size).toBe(goodSize)
    expect(await store.count()).toBe(30)
    await store.put([makeRecord('doc-after', BASE)])
    store = await reopen(store, dir)
    expect(await store.count()).toBe(31)
  })

  test('a zero-filled tail and a last frame with a bad checksum count as torn, not corrupt', async () => {
    const dir = await tempDir()
    const log = join(dir, LOG_FILE)
    let store = await openStore(dir)
    await store.put(records(10))
    const goodSize = (await stat(log)).size
    await store.put(records(20).slice(10))
    await store.close()
    await forgetLastCommit(dir) // a torn write: its writer died before acknowledging it (issue 26)
    const bytes = await readFile(log)
    bytes[bytes.length - 3]! ^= 0xff
    await writeFile(log, bytes)
    store = await openStore(dir)
    expect(await store.count()).toBe(10)
    expect((await stat(log)).size).toBe(goodSize)
    await store.close()
    await appendFile(log, Buffer.alloc(4096))
    store = await openStore(dir)
    expect(store.stats().truncatedOnOpen).toBe(4096)
    expect(await store.count()).toBe(10)
  })

  test('a log of another format version fails with SNAPSHOT_VERSION naming both versions', async () => {
    const dir = await tempDir()
    const store = await openStore(dir)
    await store.put(records(3))
    await store.close()
    const bytes = await readFile(join(dir, LOG_FILE))
    bytes.writeUInt32LE(99, 8)
    await writeFile(join(dir, LOG_FILE), bytes)
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({
      code: 'SNAPSHOT_VERSION',
      message: expect.stringMatching(new RegExp(`format version 99.*format version ${LOG_FORMAT_VERSION}`)),
    })
    // The failed open released its lock: a later open gets the same error, not CONFLICT.
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'SNAPSHOT_VERSION' })
  })

  test('a format-2 log (before records carried supersedes) is read as is, and marked format 3 by a writable open before it appends', async () => {
    const dir = await tempDir()
    let store = await openStore(dir)
    const old = records(5)
    await store.put(old)
    await store.close()
    const bytes = await readFile(join(dir, LOG_FILE))
    bytes.writeUInt32LE(2, 8)
    await writeFile(join(dir, LOG_FILE), bytes)
    const formatOnDisk = async (): Promise<number> => (await readFile(join(dir, LOG_FILE))).readUInt32LE(8)
    // Read-only: read, not changed.
    const reader = await openMemoryStore({ dir, readOnly: true })
    expect(await contents(reader)).toEqual(new Map(old.map((r) => [r.id, r])))
    await reader.close()
    expect(await formatOnDisk()).toBe(2)
    // Writable: marked 3 on open, so an older simdup refuses it rather than misread a new record.
    store = await openStore(dir)
    expect(await formatOnDisk()).toBe(LOG_FORMAT_VERSION)
    expect(LOG_FORMAT_VERSION).toBe(3)
    const next = makeRecord('doc-new', BASE, { supersedes: 'doc-0' })
    await store.put([next])
    store = await reopen(store, dir)
    expect(await contents(store)).toEqual(new Map([...old, next].map((r) => [r.id, r])))
  })

  test('a damaged frame followed by more frames fails with STORE_CORRUPT naming its offset', async () => {
    const dir = await tempDir()
    const store = await openStore(dir)
    await store.put(records(10))
    await store.put(records(20).slice(10))
    await store.close()
    const bytes = await readFile(join(dir, LOG_FILE))
    bytes[16 + 12 + 30]! ^= 0x40 // inside the first frame's payload (the header is 16 bytes, a frame header 12)
    await writeFile(join(dir, LOG_FILE), bytes)
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'STORE_CORRUPT', message: expect.stringMatching(/offset 16\b.*checksum/) })
    bytes[16 + 12 + 30]! ^= 0x40
    bytes[16]! ^= 0x01 // the first frame's length: its check word no longer matches
    await writeFile(join(dir, LOG_FILE), bytes)
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'STORE_CORRUPT', message: expect.stringMatching(/offset 16\b.*frame header/) })
  })

  test('without flock(1), the pid-file lock: a second writer is refused with CONFLICT naming the holder pid; a stale lock is taken over', async () => {
    usePidFileLock(true)
    onTestFinished(() => usePidFileLock(false))
    const dir = await tempDir()
    const store = await openStore(dir)
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`pid ${process.pid}`) })
    await store.close()

    // A live process that is not us holds the lock.
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
    try {
      await writeFile(join(dir, LOCK_FILE), `${holder.pid}\n`)
      await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`process ${holder.pid}`) })
    } finally {
      const exited = new Promise((resolve) => holder.once('exit', resolve))
      holder.kill('SIGKILL')
      await exited
    }
    // Its process is gone now: the lock is stale and is taken over.
    const taken = await openStore(dir)
    expect(await readFile(join(dir, LOCK_FILE), 'utf8')).toBe(`${process.pid}\n`)
    await taken.close()
    await expect(stat(join(dir, LOCK_FILE))).rejects.toMatchObject({ code: 'ENOENT' })
  })

  test('on open, a log more than half dead is compacted; compaction keeps every live record', async () => {
    const dir = await tempDir()
    const log = join(dir, LOG_FILE)
    let store = await openStore(dir)
    await store.put(records(100))
    await store.put(records(80, (i) => ({ contentHash: hash16(`edited-${i}`), indexedAt: T0 + 10_000 + i })))
    await store.delete(Array.from({ length: 30 }, (_, i) => `doc-${i + 70}`))
    // 100 + 80 puts and 30 deletes = 210 entries, 70 live: 140 dead > 105.
    const before = await contents(store)
    const sizeBefore = (await stat(log)).size
    store = await reopen(store, dir)
    expect(store.stats()).toMatchObject({ live: 70, dead: 0, logEntries: 70 })
    expect((await stat(log)).size).toBeLessThan(sizeBefore / 2)
    expect(await contents(store)).toEqual(before)
    await store.put([makeRecord('doc-new', BASE)])
    store = await reopen(store, dir)
    expect(await store.count()).toBe(71)
    expect(idsOf([...(await store.get(['doc-new', 'doc-75', 'doc-5'])).values()])).toEqual(['doc-5', 'doc-new'])
  })

  /** Records of every shape the log holds: bands (canonical and odd), hex and text sketches, duplicates, missing hashes. */
  function varied(n: number, tag = ''): FingerprintRecord[] {
    return Array.from({ length: n }, (_, i) => makeRecord(`doc-${i}`, flip(flip(BASE, i % 64), (i * 5 + 1) % 64), {
      indexedAt: T0 + i,
      seq: i + 1,
      contentHash: hash16(`content-${tag}${i}`),
      urlHash: i % 3 === 0 ? null : hash16(`url-${tag}${i}`),
      titleHash: i % 4 === 0 ? null : hash16(`title-${tag}${i}`),
      ...(i % 5 === 0 ? { bands: bandsOf(`${tag}${i}`), sketch: `m:${hash16(`s${i}`)}${hash16(`t${i}`)}` } : {}),
      ...(i % 7 === 0 ? { bands: ['odd-band', `x${i}`], sketch: `短文本 ${i}` } : {}), // short text, "short text"
      ...(i % 6 === 1 ? { clusterId: 'doc-0', duplicateOf: 'doc-0', distance: 2, layer: 'simhash' as const, short: true } : {}),
      ...(i % 4 === 2 ? { supersedes: `doc-${i - 1}` } : {}),
    }))
  }
  function byId(records: readonly FingerprintRecord[]): Map<string, FingerprintRecord> {
    return new Map(records.map((r) => [r.id, r]))
  }

  test('records read back from the log equal what was put: live, after compaction, reopen and a torn tail', async () => {
    const dir = await tempDir()
    const log = join(dir, LOG_FILE)
    let store = await openStore(dir)
    await store.put(varied(200, 'old-'))
    const latest = varied(150, 'new-')
    await store.put(latest)
    await store.delete(['doc-3'])
    const expected = byId([...latest, ...varied(200, 'old-').slice(150)].filter((r) => r.id !== 'doc-3'))
    const check = async (): Promise<void> => {
      expect(await contents(store)).toEqual(expected)
      const got = await store.get([...expected.keys()])
      expect(got).toEqual(expected)
      // Key and band routes return the stored record itself, whole.
      const probe = expected.get('doc-10')!
      const [found] = await store.candidates([{ fingerprint: { hi: 1, lo: 2 }, blocks: ['x'], minMatch: 1, maxDistance: 0, contentHash: probe.contentHash, bands: probe.bands! }])
      expect(found).toEqual([probe])
    }
    await check()
    await store.compact()
    await check()
    store = await reopen(store, dir)
    await check()
    await store.close()
    await appendFile(log, Buffer.from([1, 2, 3, 4, 5, 6, 7]))
    store = await openStore(dir)
    expect(store.stats().truncatedOnOpen).toBe(7)
    await check()
  })

  test('a scan of the tables a compaction replaces keeps reading the old log', async () => {
    const dir = await tempDir()
    const store = await openStore(dir)
    await store.put(varied(300))
    await store.put(varied(300).slice(0, 200))
    const expected = byId(varied(300))
    const scanned: FingerprintRecord[] = []
    for await (const batch of store.scan(50)) {
      if (scanned.length === 0) await store.compact()
      scanned.push(...batch)
    }
    expect(byId(scanned)).toEqual(expected)
    expect(scanned).toHaveLength(300)
    expect(store.stats()).toMatchObject({ live: 300, dead: 0 })
  })

  test('exact keys whose 32-bit index folds collide are told apart by the key read back from the log', async () => {
    const store = await openStore(await tempDir())
    // The index holds imul(hi, 0x9e3779b1) ^ lo: these two keys fold to the same 32 bits.
    const a = makeRecord('a', BASE, { contentHash: '0000000012345678' })
    const b = makeRecord('b', flip(BASE, 40), { contentHash: `00000001${((0x12345678 ^ 0x9e3779b1) >>> 0).toString(16).padStart(8, '0')}` })
    await store.put([a, b])
    const query = { fingerprint: { hi: 0, lo: 0 }, blocks: ['none'], minMatch: 1, maxDistance: 0 }
    const [onlyA, onlyB] = await store.candidates([{ ...query, contentHash: a.contentHash }, { ...query, contentHash: b.contentHash }])
    expect(onlyA).toEqual([a])
    expect(onlyB).toEqual([b])
  })

  test('a band whose mixed value differs from a stored one in its lowest bit only is told apart', async () => {
    const store = await openStore(await tempDir())
    const a = makeRecord('a', BASE, { bands: bandsOf('a') })
    await store.put([a])
    // The index mixes a band value and keeps the top 24 bits: flip a low bit of the mixed value.
    const near = (term: string): string => `${term.slice(0, 3)}${unmix32(mix32(Number.parseInt(term.slice(3), 16)) ^ 1).toString(16).padStart(8, '0')}`
    const query = { fingerprint: { hi: 0, lo: 0 }, blocks: ['none'], minMatch: 1, maxDistance: 0 }
    const [none, hit] = await store.candidates([{ ...query, bands: a.bands!.map(near) }, { ...query, bands: [near(a.bands![0]!), a.bands![5]!] }])
    expect(none).toEqual([])
    expect(hit).toEqual([a])
  })

  test('a band lookup reads back from the log only the records it returns', async () => {
    const store = await openStore(await tempDir(), false)
    // Three records sharing band terms with the query, each followed by unrelated ones, so that no
    // two of them sit in one read window of the log (512 bytes).
    const shared = bandsOf('shared')
    const records: FingerprintRecord[] = []
    for (let i = 0; i < 3; i++) {
      // Band i is the query's band i (a canonical term at its own position), the rest its own.
      records.push(makeRecord(`hit${i}`, flip(BASE, i), { bands: bandsOf(`hit${i}`).map((b, k) => (k === i ? shared[k]! : b)) }))
      for (let j = 0; j < 20; j++) records.push(makeRecord(`other${i}-${j}`, flip(BASE, 20 + j), { bands: bandsOf(`other${i}-${j}`), sketch: `m:${hash16(`s${i}-${j}`)}` }))
    }
    await store.put(records)
    const reads = vi.spyOn(LogReader.prototype as unknown as { fill: () => void }, 'fill')
    const [found] = await store.candidates([{ fingerprint: { hi: 0, lo: 0 }, blocks: ['none'], minMatch: 1, maxDistance: 0, bands: shared }])
    expect(idsOf(found!)).toEqual(['hit0', 'hit1', 'hit2'])
    // One read per record returned (in log order); before, each band match was first confirmed on its entry (six reads).
    expect(reads).toHaveBeenCalledTimes(3)
    reads.mockRestore()
  })

  test('compact() on an open store rewrites the log; a leftover compaction file is ignored', async () => {
    const dir = await tempDir()
    let store = await openStore(dir)
    await store.put(records(40))
    await store.put(records(40))
    const before = await contents(store)
    await store.compact()
    expect(store.stats()).toMatchObject({ live: 40, dead: 0, logEntries: 40 })
    // A crash during a compaction leaves its temp file; the next open discards it.
    await writeFile(join(dir, 'store.log.compact'), 'half-written')
    store = await reopen(store, dir)
    expect(await contents(store)).toEqual(before)
    await expect(stat(join(dir, 'store.log.compact'))).rejects.toMatchObject({ code: 'ENOENT' })
  })
})

describe('entry cache (records read back from the log)', () => {
  /** An operation on the stores: put (id, fingerprint variant, band group), delete, compact, reopen. */
  const arbOp = fc.oneof(
    fc.record({ put: fc.array(fc.tuple(fc.nat(7), fc.nat(3), fc.nat(2)), { minLength: 1, maxLength: 6 }) }),
    fc.record({ del: fc.array(fc.nat(7), { minLength: 1, maxLength: 3 }) }),
    fc.constant({ compact: true }),
    fc.constant({ reopen: true }),
  )
  const variants = [BASE, flip(BASE, 5), flip(flip(BASE, 40), 9), { hi: ~BASE.hi >>> 0, lo: BASE.lo }]
  // Every band group and fingerprint variant as a query: each lookup reads back shared records.
  const queries = [0, 1, 2].flatMap((g) => variants.map((fp) => ({ fingerprint: fp, blocks: fingerprintBlocks(fp), minMatch: 1, maxDistance: 3, bands: bandsOf(`g${g}`) })))

  propTest.prop([fc.array(arbOp, { minLength: 1, maxLength: 10 })], { numRuns: 20 })(
    'lookups return the same records, in the same order, with a cache of 2 or 64 entries as without one, across puts, deletes, re-puts, compaction and replay',
    async (ops) => {
      const sizes = [0, 2, 64]
      const dirs = await Promise.all(sizes.map(() => tempDir()))
      const open = (i: number): Promise<MemoryStore> => openMemoryStore({ dir: dirs[i]!, fsync: false, entryCache: sizes[i]! })
      const stores = await Promise.all(sizes.map((_, i) => open(i)))
      let version = 0
      try {
        for (const op of ops) {
          if ('put' in op) {
            // Re-puts of an id change its record (a new seq and indexedAt), so a stale read shows.
            version++
            const batch = op.put.map(([id, v, g]) => makeRecord(`d${id}`, variants[v]!, { bands: bandsOf(`g${g}`), indexedAt: T0 + version, seq: version * 100 + id }))
            for (const s of stores) await s.put(batch)
          } else if ('del' in op) {
            for (const s of stores) await s.delete(op.del.map((id) => `d${id}`))
          } else if ('compact' in op) {
            for (const s of stores) await s.compact()
          } else {
            for (let i = 0; i < stores.length; i++) {
              await stores[i]!.close()
              stores[i] = await open(i)
            }
          }
          const [plain, ...cached] = await Promise.all(stores.map((s) => s.candidates(queries)))
          for (const found of cached) expect(found).toEqual(plain)
        }
      } finally {
        for (const s of stores) await s.close()
      }
    },
    60_000,
  )

  test('a lookup repeated reads nothing from the log the second time; without the cache it reads again', async () => {
    const shared = bandsOf('shared')
    const batch = Array.from({ length: 30 }, (_, i) => makeRecord(`c${i}`, flip(BASE, i), { bands: i % 10 === 0 ? shared : bandsOf(`own${i}`) }))
    const query = { fingerprint: { hi: 0, lo: 0 }, blocks: ['none'], minMatch: 1, maxDistance: 0, bands: shared }
    const reads = vi.spyOn(LogReader.prototype as unknown as { fill: () => void }, 'fill')
    try {
      for (const [entryCache, again] of [[undefined, 0], [0, 3]] as const) {
        const store = await openMemoryStore({ dir: await tempDir(), fsync: false, ...(entryCache === undefined ? {} : { entryCache }) })
        await store.put(batch)
        const [first] = await store.candidates([query])
        reads.mockClear()
        const [second] = await store.candidates([query])
        expect(idsOf(second!)).toEqual(['c0', 'c10', 'c20'])
        expect(second).toEqual(first)
        expect(reads).toHaveBeenCalledTimes(again)
        await store.close()
      }
    } finally {
      reads.mockRestore()
    }
  })

  test('entryCache must be an integer ≥ 0', async () => {
    await expect(openMemoryStore({ entryCache: -1 })).rejects.toThrow('Expected `entryCache` to be an integer ≥ 0, got `-1` (number).')
    await expect(openMemoryStore({ entryCache: 1.5 })).rejects.toThrow('`entryCache`')
  })
})
