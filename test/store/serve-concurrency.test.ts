import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nearDuplicateDocs, postDocuments, runCli, startServe, withoutLine, type ServeProcess } from '../helpers/serve.js'

// `simdup serve` under many clients at once, kill -9 and SIGTERM, on the embedded store: the
// decisions equal one sequential `simdup index` run in the order the server accepted the
// documents, and nothing acknowledged is lost. Time limits are generous: these run child
// processes on a loaded 2-core machine (the 8-client test took 12-30 s there).

let dir: string
const running: ServeProcess[] = []
const serve = async (args: string[]) => {
  const s = await startServe(args, { cwd: dir })
  running.push(s)
  return s
}
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'simdup-serve-conc-'))
})
afterAll(async () => {
  for (const s of running) await s.stop('SIGKILL')
})

/** A small deterministic PRNG (mulberry32), so that a failure can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Doc = { id: string; content: string }
type Decision = Record<string, unknown>

/** `docs` dealt to `clients` clients, each cut into requests of 1 to `maxPerRequest` documents. */
function plan(docs: Doc[], clients: number, maxPerRequest: number, seed: number): Doc[][][] {
  const rand = prng(seed)
  const shuffled = [...docs].sort(() => rand() - 0.5)
  const per: Doc[][] = Array.from({ length: clients }, () => [])
  shuffled.forEach((d, i) => per[i % clients]!.push(d))
  return per.map((list) => {
    const requests: Doc[][] = []
    for (let i = 0; i < list.length; ) {
      const n = 1 + Math.floor(rand() * maxPerRequest)
      requests.push(list.slice(i, i + n))
      i += n
    }
    return requests
  })
}

async function seqOf(url: string, ids: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>()
  for (const id of ids) {
    const res = await fetch(`${url}/v1/documents/${encodeURIComponent(id)}`)
    if (res.status === 200) out.set(id, ((await res.json()) as { seq: number }).seq)
  }
  return out
}

test('8 concurrent clients: every decision equals one sequential `simdup index` run in acceptance order', async () => {
  const docs = nearDuplicateDocs('c', 320)
  const s = await serve(['--store', 'conc-store'])
  const decided = new Map<string, Decision>()
  let requests = 0
  await Promise.all(plan(docs, 8, 6, 28).map(async (list) => {
    for (const batch of list) {
      const res = await postDocuments(s.url, batch.length === 1 ? batch[0] : batch)
      expect(res.status).toBe(200)
      requests++
      res.body.decisions.forEach((d, i) => {
        expect(d.id).toBe(batch[i]!.id) // in the request's order
        decided.set(batch[i]!.id, withoutLine(d))
      })
    }
  }))
  expect(decided.size).toBe(docs.length)
  // Acceptance order: the first-insertion numbers the store gave, in the order of the queue.
  const seq = await seqOf(s.url, docs.map((d) => d.id))
  const order = [...docs].sort((a, b) => seq.get(a.id)! - seq.get(b.id)!)
  const cli = await runCli(['index', '-', '--store', 'conc-sequential', '--quiet'], { cwd: dir, input: order.map((d) => JSON.stringify(d)).join('\n') + '\n' })
  expect(cli.code).toBe(0)
  const sequential = cli.stdout.trim().split('\n').map((l) => withoutLine(JSON.parse(l) as Decision))
  expect(order.map((d) => decided.get(d.id))).toEqual(sequential)
  // The order mattered (some near-duplicates were decided against different firsts than in the
  // input order) and requests were grouped (fewer commits than requests).
  expect(sequential.filter((d) => d.status === 'duplicate').length).toBeGreaterThan(100)
  const metrics = await (await fetch(`${s.url}/metrics`)).text()
  const commits = Number(/^simdup_commit_documents_count (\d+)$/m.exec(metrics)?.[1])
  expect(commits).toBeGreaterThan(0)
  expect(commits).toBeLessThan(requests)
}, 300_000)

test('a full queue answers 429 BUSY with Retry-After; what it refused is not stored, what it acknowledged is', async () => {
  const s = await serve(['--store', 'busy-store', '--max-queue', '6', '--batch', '3'])
  const docs = nearDuplicateDocs('q', 150)
  const batches = Array.from({ length: 50 }, (_, i) => docs.slice(i * 3, i * 3 + 3))
  const results = await Promise.all(batches.map((b) => postDocuments(s.url, b)))
  const busy = results.filter((r) => r.status === 429)
  const ok = results.filter((r) => r.status === 200)
  expect(busy.length).toBeGreaterThan(0)
  expect(ok.length).toBeGreaterThan(0)
  expect(busy.length + ok.length).toBe(batches.length)
  for (const r of busy) {
    expect(r.headers.get('retry-after')).toBe('1')
    expect(r.body).toEqual({ code: 'BUSY', message: expect.stringMatching(/queue is full/) })
  }
  const stored = await seqOf(s.url, docs.map((d) => d.id))
  results.forEach((r, i) => {
    for (const d of batches[i]!) expect(stored.has(d.id)).toBe(r.status === 200)
  })
}, 300_000)

describe('crashes and stops', () => {
  test('kill -9 mid-load, then restart: every acknowledged decision is in the store, as acknowledged', async () => {
    const s = await serve(['--store', 'kill-store'])
    const docs = nearDuplicateDocs('k', 2000)
    const acked = new Map<string, Decision>()
    let next = 0
    let killed = false
    const client = async () => {
      while (!killed && next < docs.length) {
        const batch = docs.slice(next, next + 3)
        next += 3
        try {
          const res = await postDocuments(s.url, batch)
          if (res.status === 200) for (const d of res.body.decisions) acked.set(d.id as string, d)
        } catch {
          return // connection reset by the kill: not acknowledged
        }
        if (acked.size >= 240 && !killed) {
          killed = true
          s.proc.kill('SIGKILL')
        }
      }
    }
    await Promise.all(Array.from({ length: 6 }, client))
    expect(killed).toBe(true)
    await s.stop('SIGKILL')
    const again = await serve(['--store', 'kill-store'])
    expect(acked.size).toBeGreaterThanOrEqual(240)
    for (const [id, d] of acked) {
      const res = await fetch(`${again.url}/v1/documents/${id}`)
      expect(res.status, id).toBe(200)
      const r = (await res.json()) as Decision
      expect([r.cluster_id, r.duplicate_of, r.layer, r.distance, r.simhash]).toEqual([d.cluster_id, d.duplicate_of, d.layer, d.distance, d.simhash])
    }
  }, 300_000)

  test('SIGTERM drains: the request in flight is answered 200 and stored, the process exits 0', async () => {
    const s = await serve(['--store', 'term-store'])
    const docs = nearDuplicateDocs('t', 1500)
    const pending = fetch(`${s.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: docs.map((d) => JSON.stringify(d)).join('\n') })
    // Once the server holds the documents (being prepared or decided), stop it.
    for (;;) {
      const h = (await (await fetch(`${s.url}/healthz`)).json()) as { queue: number }
      if (h.queue > 0) break
      await new Promise((r) => setTimeout(r, 5))
    }
    const exit = s.stop('SIGTERM')
    const res = await pending
    expect(res.status).toBe(200)
    expect(((await res.json()) as { decisions: unknown[] }).decisions).toHaveLength(1500)
    expect(await exit).toEqual({ code: 0, signal: null })
    expect(s.stderr()).toMatch(/SIGTERM: draining[\s\S]*stopped; everything acknowledged is stored/)
    const again = await serve(['--store', 'term-store'])
    expect(((await (await fetch(`${again.url}/healthz`)).json()) as { documents: number }).documents).toBe(1500)
  }, 300_000)
})
