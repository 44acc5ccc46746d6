import { afterAll, beforeAll, expect, test } from 'vitest'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createDeduplicator, openMemoryStore, type MemoryStore } from '../../../src/index.js'
import { createServer, TextKeeper, type Server } from '../../../src/server/index.js'
import { nearDuplicateDocs } from '../../helpers/serve.js'

// The service in this process (createServer on a real port, an in-memory store): the library
// entry point `simdup/server`, and the routes' answers for the page (cluster view, pair, histogram).

let store: MemoryStore
let server: Server
let url: string
const TOKEN = 'a-token-of-twenty-chars'
const auth = { authorization: `Bearer ${TOKEN}` }

beforeAll(async () => {
  store = await openMemoryStore()
  const keeper = await TextKeeper.open(join(mkdtempSync(join(tmpdir(), 'simdup-app-')), 'texts.jsonl'))
  server = await createServer({ dedup: createDeduplicator({ store }), keeper, token: TOKEN, batchSize: 4 })
  url = await server.app.listen({ host: '127.0.0.1', port: 0 })
})
afterAll(async () => {
  await server.close()
  await store.close()
})

test('documents in; cluster view, pair with shared passages, histogram and delete out', async () => {
  const docs = nearDuplicateDocs('u', 16)
  const res = await fetch(`${url}/v1/documents`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(docs) })
  expect(res.status).toBe(200)
  const { decisions } = (await res.json()) as { decisions: { id: string; status: string; duplicate_of: string | null }[] }
  expect(decisions.map((d) => d.id)).toEqual(docs.map((d) => d.id))
  const dup = decisions.find((d) => d.status === 'duplicate')!

  const view = (await (await fetch(`${url}/v1/clusters/${dup.id}`, { headers: auth })).json()) as { asked: string; texts: boolean; members: { id: string; preview: string | null; layer: string | null }[] }
  expect(view.asked).toBe(dup.id)
  expect(view.texts).toBe(true)
  expect(view.members.find((m) => m.id === dup.id)!.preview).toBe(docs.find((d) => d.id === dup.id)!.content.slice(0, 160))

  const pair = (await (await fetch(`${url}/v1/explain?a=${dup.duplicate_of}&b=${dup.id}&texts=true`, { headers: auth })).json()) as { duplicate: boolean; texts: { a: string; b: string }; passages: { a: [number, number][] }; textLengths: number[] }
  expect(pair.duplicate).toBe(true)
  expect(pair.textLengths).toEqual([pair.texts.a.length, pair.texts.b.length])
  expect(pair.passages.a.length).toBeGreaterThan(0)

  const h = (await (await fetch(`${url}/v1/histogram`, { headers: auth })).json()) as { documents: number; duplicates: number; distance: Record<string, number[]> }
  expect(h.documents).toBe(16)
  expect(h.duplicates).toBe(decisions.filter((d) => d.status === 'duplicate').length)
  expect(Object.values(h.distance).flat().reduce((a, b) => a + b, 0)).toBe(h.duplicates)

  expect((await fetch(`${url}/v1/documents/${dup.id}`, { method: 'DELETE', headers: auth })).status).toBe(200)
  expect(await store.count()).toBe(15)
  const gone = (await (await fetch(`${url}/v1/explain?a=${dup.id}&b=u0`, { headers: auth })).json()) as { code: string }
  expect(gone.code).toBe('NOT_FOUND')
  // The token guards the API, not the page's files.
  expect((await fetch(`${url}/v1/clusters`)).status).toBe(401)
  expect((await fetch(`${url}/`)).status).toBe(200)
})

test('close drains the queue: what was accepted is stored, what comes after is refused', async () => {
  const s = await openMemoryStore()
  const other = await createServer({ dedup: createDeduplicator({ store: s }) })
  const pending = other.queue.submit(nearDuplicateDocs('z', 30).map((value, i) => ({ value, line: i + 1 })))
  // HTTP requests in flight while the server closes are still accepted (new ones get Fastify's 503).
  await other.close()
  expect(await pending).toHaveLength(30)
  expect(await s.count()).toBe(30)
  await expect(other.queue.submit([{ value: { id: 'late', content: '迟到' }, line: 1 }])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 })
  await s.close()
})
