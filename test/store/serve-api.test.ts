import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { mkdtempSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { nearDuplicateDocs, postDocuments, runCli, startServe, withoutLine, type ServeProcess } from '../helpers/serve.js'
import { ARTICLE_A, ARTICLE_B } from '../fixtures/articles.js'

// Child processes (the server, the CLI) on a loaded machine: a longer limit than the default 30 s.
vi.setConfig({ testTimeout: 120_000 })

// `simdup serve` on the embedded store, through a real listening port (a child process running
// bin/simdup.js), against the CLI's own answers for the same input.

let dir: string
const running: ServeProcess[] = []
const serve = async (args: string[], env: Record<string, string> = {}) => {
  const s = await startServe(args, { cwd: dir, env })
  running.push(s)
  return s
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'simdup-serve-api-'))
})
afterAll(async () => {
  for (const s of running) await s.stop('SIGKILL')
})

const BAD_LINES = ['{"id":"bad-1"}', 'not json', '{"id":"bad-2","content":42}', '{"id":7,"content":"整数编号的文档也可以，内容是一段足够长的中文文本，用于测试。"}']
/** JSONL of near-duplicates with bad lines among them (and a blank line, which gets no decision). */
function fixture(): string {
  const docs = nearDuplicateDocs('d', 60).map((d) => JSON.stringify(d))
  docs.splice(10, 0, BAD_LINES[0]!)
  docs.splice(20, 0, BAD_LINES[1]!, '')
  docs.splice(30, 0, BAD_LINES[2]!, BAD_LINES[3]!)
  return docs.join('\n') + '\n'
}

describe('POST /v1/documents', () => {
  test('JSONL in, JSONL out: byte-identical to `simdup index` of the same file', async () => {
    const input = fixture()
    writeFileSync(join(dir, 'fixture.jsonl'), input)
    const cli = await runCli(['index', 'fixture.jsonl', '--store', 'cli-store', '--quiet'], { cwd: dir })
    expect(cli.code).toBe(0)
    const s = await serve(['--store', 'jsonl-store'])
    const res = await fetch(`${s.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', accept: 'application/x-ndjson' }, body: input })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/)
    const text = await res.text()
    expect(text).toBe(cli.stdout)
    // The fixture exercises every status and a layer that depends on order.
    const statuses = new Set(text.trim().split('\n').map((l) => (JSON.parse(l) as { status: string }).status))
    expect([...statuses].sort()).toEqual(['duplicate', 'rejected', 'unique'])
  })

  test('one document, then an array: decisions in order, a bad document rejected and the rest decided', async () => {
    const s = await serve(['--store', 'array-store'])
    const one = await postDocuments(s.url, { id: 'a', content: ARTICLE_A })
    expect(one.status).toBe(200)
    expect(one.body.decisions).toEqual([expect.objectContaining({ id: 'a', line: 1, status: 'unique', cluster_id: 'a' })])
    const batch = await postDocuments(s.url, [
      { id: 'b', content: `${ARTICLE_A}（完）` },
      { id: 'c', title: 'no content' },
      { id: 'd', content: ARTICLE_B },
      { id: 'e', content: ARTICLE_B },
    ])
    expect(batch.status).toBe(200)
    expect(batch.body.decisions.map((d) => [d.id, d.line, d.status, d.duplicate_of])).toEqual([
      ['b', 1, 'duplicate', 'a'],
      ['c', 2, 'rejected', null],
      ['d', 3, 'unique', null],
      ['e', 4, 'duplicate', 'd'],
    ])
    expect(batch.body.decisions[1]!.reason).toMatch(/line 2: .*`content`/)
    expect(batch.body.decisions[3]).toMatchObject({ layer: 'exact', distance: 0 })
  })
})

describe('reads, compare, explain, delete: the CLI\'s answers', () => {
  let s: ServeProcess
  beforeAll(async () => {
    s = await serve(['--store', 'read-store'])
    const res = await postDocuments(s.url, nearDuplicateDocs('r', 40))
    expect(res.status).toBe(200)
  })

  test('GET /v1/documents/{id}: the stored record; unknown id 404 NOT_FOUND', async () => {
    const res = await fetch(`${s.url}/v1/documents/r4`)
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ id: 'r4', cluster_id: 'r0', duplicate_of: 'r0', layer: 'simhash', seq: expect.any(Number) })
    const missing = await fetch(`${s.url}/v1/documents/nope`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ code: 'NOT_FOUND', message: expect.stringContaining('nope') })
  })

  test('GET /v1/clusters and /v1/explain equal `simdup clusters --json` and `simdup explain --json`', async () => {
    const clusters = await (await fetch(`${s.url}/v1/clusters?top=5&min_size=2`)).json()
    const cli = await runCli(['clusters', '--store', 'read-store', '--top', '5', '--json'], { cwd: dir })
    expect(cli.code).toBe(0)
    expect(clusters).toEqual(JSON.parse(cli.stdout))
    const explained = await (await fetch(`${s.url}/v1/explain?a=r0&b=r8`)).json()
    const cliExplain = await runCli(['explain', 'r0', 'r8', '--store', 'read-store', '--json'], { cwd: dir })
    expect(explained).toEqual(JSON.parse(cliExplain.stdout))
    expect(explained).toMatchObject({ duplicate: true, layer: 'simhash' })
  })

  test('GET /v1/clusters/{id} by a member\'s id: members with their decision\'s evidence', async () => {
    const view = (await (await fetch(`${s.url}/v1/clusters/r8`)).json()) as { clusterId: string; members: { id: string; layer: string | null; rule: string | null; duplicateOf: string | null }[] }
    expect(view.clusterId).toBe('r0')
    expect(view.members[0]).toMatchObject({ id: 'r0', representative: true, layer: null })
    const r8 = view.members.find((m) => m.id === 'r8')!
    expect(r8).toMatchObject({ duplicateOf: expect.any(String), layer: expect.any(String), rule: expect.any(String) })
    // The evidence is the record's own decision: GET /v1/documents says the same layer.
    const record = (await (await fetch(`${s.url}/v1/documents/r8`)).json()) as { layer: string; duplicate_of: string }
    expect([r8.layer, r8.duplicateOf]).toEqual([record.layer, record.duplicate_of])
  })

  test('POST /v1/compare equals `simdup compare --json`', async () => {
    const a = ARTICLE_A
    const b = ARTICLE_A.slice(0, Math.floor(ARTICLE_A.length * 0.8))
    const res = await fetch(`${s.url}/v1/compare`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a, b }) })
    expect(res.status).toBe(200)
    const cli = await runCli(['compare', a, b, '--json'], { cwd: dir })
    expect(await res.json()).toEqual(JSON.parse(cli.stdout))
  })

  test('DELETE /v1/documents/{id}: gone, its cluster re-pointed; again 404', async () => {
    const del = await fetch(`${s.url}/v1/documents/r0`, { method: 'DELETE' })
    expect(del.status).toBe(200)
    expect(await del.json()).toMatchObject({ deleted: 1, reassigned: expect.any(Number) })
    expect((await fetch(`${s.url}/v1/documents/r0`)).status).toBe(404)
    const r4 = (await (await fetch(`${s.url}/v1/documents/r4`)).json()) as { cluster_id: string }
    expect(r4.cluster_id).not.toBe('r0')
    expect((await fetch(`${s.url}/v1/documents/r0`, { method: 'DELETE' })).status).toBe(404)
  })
})

describe('errors: a JSON body with the DedupError code and a fitting status', () => {
  let s: ServeProcess
  beforeAll(async () => {
    s = await serve(['--store', 'error-store', '--max-body-mb', '1', '--max-docs', '3'])
  })
  test.each([
    ['unknown route', 'GET', '/v2/nothing', undefined, undefined, 404, 'NOT_FOUND'],
    ['body not JSON', 'POST', '/v1/documents', 'application/json', '{"id":', 400, 'INVALID_INPUT'],
    ['a JSON string', 'POST', '/v1/documents', 'application/json', '"text"', 400, 'INVALID_INPUT'],
    ['empty JSONL', 'POST', '/v1/documents', 'application/x-ndjson', '\n\n', 400, 'INVALID_INPUT'],
    ['too many documents', 'POST', '/v1/documents', 'application/json', JSON.stringify([1, 2, 3, 4].map((i) => ({ id: `${i}`, content: '内容' }))), 413, 'INVALID_INPUT'],
    ['body over --max-body-mb', 'POST', '/v1/documents', 'application/json', JSON.stringify({ id: 'big', content: '长'.repeat(400_000) }), 413, 'INVALID_INPUT'],
    ['k beyond the block scheme', 'POST', '/v1/compare', 'application/json', '{"a":"一","b":"二","k":9}', 400, 'INVALID_OPTION'],
    ['compare without b', 'POST', '/v1/compare', 'application/json', '{"a":"一"}', 400, 'INVALID_OPTION'],
    ['explain of unknown ids', 'GET', '/v1/explain?a=x&b=y', undefined, undefined, 404, 'NOT_FOUND'],
    ['clusters with top=0', 'GET', '/v1/clusters?top=0', undefined, undefined, 400, 'INVALID_OPTION'],
    ['an XML body', 'POST', '/v1/documents', 'application/xml', '<doc/>', 415, 'INVALID_INPUT'],
  ])('%s → %s %s: %i %s', async (_name, method, path, type, body, status, code) => {
    const res = await fetch(`${s.url}${path}`, { method, ...(type === undefined ? {} : { headers: { 'content-type': type } }), ...(body === undefined ? {} : { body }) })
    expect(res.status).toBe(status)
    expect(res.headers.get('content-type')).toMatch(/application\/json/)
    expect(await res.json()).toEqual({ code, message: expect.any(String) })
  })

  test('an unsupported Content-Type: the message names the two the API takes', async () => {
    const res = await fetch(`${s.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'text/csv' }, body: 'id,content' })
    expect(res.status).toBe(415)
    expect(((await res.json()) as { message: string }).message).toMatch(/application\/json.*application\/x-ndjson/)
  })

  test('a second server on the same store is refused (the store\'s lock): exit 3, CONFLICT', async () => {
    const second = await runCli(['serve', '--store', 'error-store', '--port', '0'], { cwd: dir })
    expect(second.code).toBe(3)
    expect(second.stderr).toMatch(/CONFLICT/)
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200)
  })

  test('--pipeline-min N: documented with its default; below 1 or not an integer a usage error naming it (exit 2); a server given it decides as the CLI', async () => {
    const help = await runCli(['serve', '--help'], { cwd: dir })
    expect(help.stdout).toMatch(/--pipeline-min N[\s\S]*default 16/)
    for (const bad of ['0', 'many']) {
      const r = await runCli(['serve', '--store', 'pm-store', '--port', '0', '--pipeline-min', bad], { cwd: dir })
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`--pipeline-min to be an integer from 1 .*\`${bad}\``))
    }
    const input = nearDuplicateDocs('pm', 24).map((d) => JSON.stringify(d)).join('\n') + '\n'
    writeFileSync(join(dir, 'pm.jsonl'), input)
    const cli = await runCli(['index', 'pm.jsonl', '--store', 'pm-cli-store', '--quiet'], { cwd: dir })
    const pm = await serve(['--store', 'pm-store', '--pipeline-min', '1'])
    const res = await fetch(`${pm.url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson', accept: 'application/x-ndjson' }, body: input })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe(cli.stdout)
  })
})

describe('safe by default', () => {
  const TOKEN = 'k3y-0f-at-least-16-chars'
  test('binding another address than loopback without a token is a usage error (exit 2)', async () => {
    const r = await runCli(['serve', '--store', 'open-store', '--host', '0.0.0.0', '--port', '0'], { cwd: dir })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--host 0\.0\.0\.0 .*token/)
  })

  test('a short token is refused', async () => {
    const r = await runCli(['serve', '--store', 'open-store', '--port', '0'], { cwd: dir, env: { SIMDUP_TOKEN: 'short' } })
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/at least 16 characters/)
    expect(r.stderr).not.toContain('short')
  })

  test('with a token: 401 UNAUTHORIZED without it or with another, 200 with it; /healthz open; the token in no answer or log', async () => {
    writeFileSync(join(dir, 'token'), `${TOKEN}\n`)
    const s = await serve(['--store', 'token-store', '--host', '0.0.0.0', '--token-file', 'token', '--log', 'info'])
    const url = s.url.replace('0.0.0.0', '127.0.0.1')
    const none = await postDocuments(url, { id: 'a', content: ARTICLE_A })
    expect(none.status).toBe(401)
    expect(none.body).toEqual({ code: 'UNAUTHORIZED', message: expect.any(String) })
    expect((await postDocuments(url, { id: 'a', content: ARTICLE_A }, { authorization: 'Bearer wrong-token-of-some-length' })).status).toBe(401)
    const ok = await postDocuments(url, { id: 'a', content: ARTICLE_A }, { authorization: `Bearer ${TOKEN}` })
    expect(ok.status).toBe(200)
    expect((await fetch(`${url}/healthz`)).status).toBe(200)
    expect((await fetch(`${url}/metrics`)).status).toBe(401)
    const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text()
    expect(metrics).toContain('simdup_documents_total')
    for (const text of [metrics, JSON.stringify(none.body), JSON.stringify(ok.body), s.stderr()]) expect(text).not.toContain(TOKEN)
  })

  test('no CORS headers unless --cors ORIGIN', async () => {
    const plain = await serve(['--store', 'cors-store-1'])
    const res = await fetch(`${plain.url}/healthz`, { headers: { origin: 'http://evil.example' } })
    expect(res.headers.get('access-control-allow-origin')).toBeNull()
    const withCors = await serve(['--store', 'cors-store-2', '--cors', 'http://app.example'])
    const allowed = await fetch(`${withCors.url}/healthz`, { headers: { origin: 'http://app.example' } })
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://app.example')
  })

  test('the page is served with a strict Content-Security-Policy and no external resource', async () => {
    const s = await serve(['--store', 'page-store'])
    const res = await fetch(`${s.url}/`)
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/)
    const html = await res.text()
    expect(html).not.toMatch(/https?:\/\//)
    expect((await fetch(`${s.url}/assets/app.js`)).status).toBe(200)
  })
})

describe('metrics and the OpenAPI document', () => {
  test('/metrics counts decisions by status, layer and rule; latency by route pattern; queue and store size', async () => {
    const s = await serve(['--store', 'metrics-store'])
    const res = await postDocuments(s.url, nearDuplicateDocs('m', 20))
    const count = (f: (d: Record<string, unknown>) => boolean) => res.body.decisions.filter(f).length
    await fetch(`${s.url}/v1/documents/m1`)
    const text = await (await fetch(`${s.url}/metrics`)).text()
    const value = (line: string) => Number(new RegExp(`^${line.replace(/[{}"=,.[\]/]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1])
    expect(value('simdup_documents_total{status="unique",layer="none",rule="none"}')).toBe(count((d) => d.status === 'unique'))
    expect(value('simdup_documents_total{status="duplicate",layer="simhash",rule="simhash"}')).toBe(count((d) => d.layer === 'simhash' && d.rule === 'simhash'))
    expect(value('simdup_store_documents')).toBe(20)
    // The embedded store's size: its log on disk (the header and 20 records at least) and its tables in memory.
    expect(value('simdup_store_log_bytes')).toBe(statSync(join(dir, 'metrics-store', 'store.log')).size)
    expect(value('simdup_store_table_bytes')).toBeGreaterThan(20 * 8)
    expect(value('simdup_queue_documents')).toBe(0)
    // The route pattern, never the id.
    expect(text).toContain('route="/v1/documents/:id"')
    expect(text).not.toContain('m1"')
  })

  test('/openapi.json lists every route', async () => {
    const s = await serve(['--store', 'openapi-store'])
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, object> }
    expect(doc.openapi).toMatch(/^3\./)
    expect(Object.keys(doc.paths).sort()).toEqual(['/healthz', '/metrics', '/v1/clusters', '/v1/clusters/{id}', '/v1/compare', '/v1/documents', '/v1/documents/{id}', '/v1/explain', '/v1/histogram'])
  })
})

test('decisions without their line equal the CLI\'s whatever the request split (one, batches, JSONL)', async () => {
  const docs = nearDuplicateDocs('s', 30)
  const cli = await runCli(['index', '-', '--store', 'split-cli', '--quiet'], { cwd: dir, input: docs.map((d) => JSON.stringify(d)).join('\n') + '\n' })
  const expected = cli.stdout.trim().split('\n').map((l) => withoutLine(JSON.parse(l) as Record<string, unknown>))
  const s = await serve(['--store', 'split-server', '--batch', '7'])
  const got: Record<string, unknown>[] = []
  for (let i = 0; i < docs.length; ) {
    const n = (i % 4) + 1
    const res = await postDocuments(s.url, n === 1 ? docs[i] : docs.slice(i, i + n))
    got.push(...res.body.decisions.map(withoutLine))
    i += n
  }
  expect(got).toEqual(expected)
})
