/**
 * Pipelined group commit (issue 28): while one fdatasync runs, the next batch is written and seen
 * by the writer; a put resolves only after an fdatasync that began after its write, and the commit
 * point never names bytes no finished fdatasync covered. Serve's reads never see a record whose
 * commit has not ended. The fdatasync is held by a spy on FileHandle (a real file, a real store).
 */
import { open, readFile, stat, type FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { createDeduplicator, openMemoryStore } from '../../src/index.js'
import { createServer } from '../../src/server/index.js'
import { makeRecord } from './_records.js'
import { nearDuplicateDocs } from '../helpers/serve.js'
import { tempDirs } from '../helpers/temp-dir.js'

afterEach(() => {
  vi.restoreAllMocks()
})

const tempDir = tempDirs('simdup-group-commit-')

/** Holds every fdatasync until released (in call order); `failNext` makes the next released one fail. */
async function holdSyncs(): Promise<{ calls: () => number; release: () => void; releaseAll: () => void; failNext: () => void }> {
  const probe = await open(join(await tempDir(), 'probe'), 'w')
  const proto = Object.getPrototypeOf(probe) as { datasync: (this: FileHandle) => Promise<void> }
  await probe.close()
  const original = proto.datasync
  let waiting: (() => void)[] = []
  let calls = 0
  let fail = false
  vi.spyOn(proto, 'datasync').mockImplementation(async function (this: FileHandle) {
    calls++
    await new Promise<void>((resolve) => waiting.push(resolve))
    if (fail) {
      fail = false
      throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })
    }
    return original.call(this)
  })
  return {
    calls: () => calls,
    release: () => {
      const [first, ...rest] = waiting
      waiting = rest
      first?.()
    },
    releaseAll: () => {
      for (const go of waiting.splice(0)) go()
    },
    failNext: () => (fail = true),
  }
}

/** The newest sound commit point of `dir`'s log (bytes and entries it names). */
async function commitPoint(dir: string): Promise<{ bytes: number; entries: number }> {
  const b = await readFile(join(dir, 'store.log.commit'))
  let best: { seq: number; bytes: number; entries: number } | null = null
  for (const at of [0, 512]) {
    if (b.length < at + 32 || b.readUInt32LE(at) !== 0x50434453) continue
    const slot = { seq: b.readUInt32LE(at + 4), bytes: b.readUInt32LE(at + 12), entries: b.readUInt32LE(at + 20) }
    if (best === null || ((slot.seq - best.seq) | 0) > 0) best = slot
  }
  return best!
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

const batch = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => makeRecord(`${prefix}${i}`, { hi: (i * 0x9e3779b1) >>> 0, lo: (i * 0x85ebca6b + prefix.charCodeAt(0)) >>> 0 }))

describe('pipelined group commit', () => {
  test('the next put is written and seen while the first one\'s fdatasync runs; each resolves only after an fdatasync begun after its write; the commit point never names unsynced bytes', async () => {
    const dir = await tempDir()
    const store = await openMemoryStore({ dir })
    const log = join(dir, 'store.log')
    const empty = (await stat(log)).size
    const syncs = await holdSyncs()
    const done: string[] = []
    const a = store.put(batch('a', 10)).then(() => done.push('a'))
    await until('the first fdatasync began', () => syncs.calls() === 1)
    const afterA = (await stat(log)).size
    expect(afterA).toBeGreaterThan(empty)
    const b = store.put(batch('b', 10)).then(() => done.push('b'))
    // Written and applied while the first fdatasync is held: the writer sees it.
    await until('the second put is written', async () => (await stat(log)).size > afterA)
    const afterB = (await stat(log)).size
    expect((await store.get(['b3'])).has('b3')).toBe(true)
    await new Promise((r) => setTimeout(r, 50))
    expect(done).toEqual([])
    expect((await commitPoint(dir)).bytes).toBe(empty)

    syncs.release()
    await a
    // The first fdatasync began before b was written: it acknowledges a only.
    expect(done).toEqual(['a'])
    expect(await commitPoint(dir)).toMatchObject({ bytes: afterA, entries: 10 })
    await until('the second fdatasync began', () => syncs.calls() === 2)
    await new Promise((r) => setTimeout(r, 50))
    expect(done).toEqual(['a'])

    syncs.release()
    await b
    expect(done).toEqual(['a', 'b'])
    expect(await commitPoint(dir)).toMatchObject({ bytes: afterB, entries: 20 })
    vi.restoreAllMocks()
    await store.close()
    const again = await openMemoryStore({ dir, readOnly: true })
    expect(await again.count()).toBe(20)
    await again.close()
  })

  test('an fdatasync that fails rejects its put and the one written behind it; neither is in the store after a reopen', async () => {
    const dir = await tempDir()
    const store = await openMemoryStore({ dir })
    await store.put(batch('k', 3))
    const syncs = await holdSyncs()
    const a = store.put(batch('a', 5)).catch((e: unknown) => e)
    await until('the first fdatasync began', () => syncs.calls() === 1)
    const size = (await stat(join(dir, 'store.log'))).size
    const b = store.put(batch('b', 5)).catch((e: unknown) => e)
    await until('the second put is written', async () => (await stat(join(dir, 'store.log'))).size > size)
    syncs.failNext()
    syncs.release()
    expect(await a).toMatchObject({ code: 'STORE_UNAVAILABLE' })
    expect(await b).toMatchObject({ code: 'STORE_UNAVAILABLE' })
    await expect(store.put(batch('c', 1))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
    vi.restoreAllMocks()
    await store.close()
    const again = await openMemoryStore({ dir })
    expect(await again.count()).toBe(3)
    await again.close()
  })
})

describe('serve: reads see committed records only', () => {
  test('a GET made while a document\'s batch is being synced waits for the commit: it answers 200 after the POST does, never before', async () => {
    const dir = await tempDir()
    const store = await openMemoryStore({ dir })
    const server = await createServer({ dedup: createDeduplicator({ store }) })
    const syncs = await holdSyncs()
    try {
      const order: string[] = []
      const post = server.app.inject({ method: 'POST', url: '/v1/documents', payload: { id: 'doc1', content: '一段用来测试的中文文本，内容足够长，可以得到指纹。' } }).then((r) => {
        order.push(`post ${r.statusCode}`)
      })
      await until('the batch is written and its fdatasync began', () => syncs.calls() === 1)
      const get = server.app.inject({ method: 'GET', url: '/v1/documents/doc1' }).then((r) => {
        order.push(`get ${r.statusCode}`)
      })
      await new Promise((r) => setTimeout(r, 100))
      expect(order).toEqual([])
      syncs.release()
      await Promise.all([post, get])
      expect(order).toEqual(['post 200', 'get 200'])
    } finally {
      vi.restoreAllMocks()
      syncs.releaseAll()
      await server.close()
      await store.close()
    }
  })

  test('the next request is decided and written while the batch before it is synced (pipelineMin 1), seeing it (a copy of it is its duplicate); both answered only after their commits', async () => {
    const dir = await tempDir()
    const store = await openMemoryStore({ dir })
    const server = await createServer({ dedup: createDeduplicator({ store }), pipelineMin: 1 })
    const syncs = await holdSyncs()
    try {
      // Documents 0 and 4 are the same article: 4 is a duplicate of 0.
      const [first, , , , copy] = nearDuplicateDocs('p', 5)
      const answered: string[] = []
      const send = (doc: { id: string; content: string }, name: string) => server.app.inject({ method: 'POST', url: '/v1/documents', payload: doc }).then((r) => {
        answered.push(name)
        return r.json() as { decisions: { id: string; status: string; duplicate_of: string | null }[] }
      })
      const a = send(first!, 'first')
      await until('the first batch\'s fdatasync began', () => syncs.calls() === 1)
      const size = (await stat(join(dir, 'store.log'))).size
      const b = send(copy!, 'copy')
      await until('the second batch is written', async () => (await stat(join(dir, 'store.log'))).size > size)
      await new Promise((r) => setTimeout(r, 50))
      expect(answered).toEqual([])
      syncs.release()
      await a
      await until('the second fdatasync began', () => syncs.calls() === 2)
      expect(answered).toEqual(['first'])
      await new Promise((r) => setTimeout(r, 50))
      expect(answered).toEqual(['first'])
      syncs.release()
      expect((await b).decisions[0]).toMatchObject({ id: copy!.id, status: 'duplicate', duplicate_of: first!.id })
    } finally {
      vi.restoreAllMocks()
      syncs.releaseAll()
      await server.close()
      await store.close()
    }
  })
})

describe('a failed commit', () => {
  test('the deduplicator counts a staged batch\'s decisions once it is committed, and not at all when its commit fails', async () => {
    const dir = await tempDir()
    const store = await openMemoryStore({ dir })
    const dedup = createDeduplicator({ store })
    const syncs = await holdSyncs()
    try {
      const [a, b] = nearDuplicateDocs('s', 2)
      const staged = await dedup.decideStaged([dedup.prepare({ value: a, line: 1 })])
      await until('the fdatasync began', () => syncs.calls() === 1)
      // Decided and written, not committed: not counted yet.
      expect(dedup.stats.snapshot().docs).toBe(0)
      syncs.release()
      await staged.durable
      expect(dedup.stats.snapshot()).toMatchObject({ docs: 1, unique: 1 })
      const failing = await dedup.decideStaged([dedup.prepare({ value: b, line: 2 })])
      await until('the second fdatasync began', () => syncs.calls() === 2)
      syncs.failNext()
      syncs.release()
      await expect(failing.durable).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
      expect(dedup.stats.snapshot()).toMatchObject({ docs: 1, unique: 1, duplicates: 0 })
    } finally {
      vi.restoreAllMocks()
      syncs.releaseAll()
      await store.close()
    }
  })

  test('serve: after an fdatasync fails, the server refuses every read and write with 503 STORE_UNAVAILABLE (its tables hold the unacknowledged batch); a reopen has only what was acknowledged', async () => {
    const dir = await tempDir()
    const store = await openMemoryStore({ dir })
    const server = await createServer({ dedup: createDeduplicator({ store }) })
    const [kept, lost, after] = nearDuplicateDocs('f', 3)
    const post = async (doc: unknown) => await server.app.inject({ method: 'POST', url: '/v1/documents', payload: doc as object })
    let syncs: Awaited<ReturnType<typeof holdSyncs>> | null = null
    try {
      expect((await post(kept)).statusCode).toBe(200)
      syncs = await holdSyncs()
      const failing = post(lost)
      await until('the batch is written and its fdatasync began', () => syncs!.calls() === 1)
      syncs.failNext()
      syncs.release()
      const res = await failing
      expect(res.statusCode).toBe(503)
      expect(res.json()).toMatchObject({ code: 'STORE_UNAVAILABLE' })
      vi.restoreAllMocks()
      // The failed batch's record is in the store's tables, never committed: no read may show it.
      for (const url of [`/v1/documents/${lost!.id}`, `/v1/documents/${kept!.id}`, '/healthz', `/v1/clusters/${lost!.id}`]) {
        const r = await server.app.inject({ method: 'GET', url })
        expect({ url, status: r.statusCode, code: (r.json() as { code?: string }).code }).toEqual({ url, status: 503, code: 'STORE_UNAVAILABLE' })
        expect((r.json() as { message: string }).message).toMatch(/commit to the store failed.*Restart/)
      }
      const write = await post(after)
      expect(write.statusCode).toBe(503)
      expect((write.json() as { message: string }).message).toMatch(/commit to the store failed/)
      expect((await server.app.inject({ method: 'DELETE', url: `/v1/documents/${kept!.id}` })).statusCode).toBe(503)
    } finally {
      vi.restoreAllMocks()
      syncs?.releaseAll()
      await server.close()
      await store.close()
    }
    const again = await openMemoryStore({ dir, readOnly: true })
    expect([...(await again.get([kept!.id, lost!.id, after!.id])).keys()]).toEqual([kept!.id])
    await again.close()
  })
})
