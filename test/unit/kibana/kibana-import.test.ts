import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest'
import { fieldProblems, fieldUses, mappedFields, parseSavedObjects, type LargestSpec, type SavedObject } from './saved-object-fields.js'

const SCRIPT = fileURLToPath(new URL('../../../scripts/kibana-import', import.meta.url))
const NDJSON = readFileSync(new URL('../../../mappings/kibana/simdup.ndjson', import.meta.url), 'utf8')
const PASSWORD = 's3cret-pw-7c1e'
const API_KEY = 'VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=='

interface Seen {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

/** A stand-in Kibana: records each request and answers with whatever the test set. */
let server: Server
let base: string
let seen: Seen[]
let reply: { status: number; body: unknown }

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(reply.status, { 'content-type': 'application/json' })
      res.end(JSON.stringify(reply.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())))
})
beforeEach(() => {
  seen = []
  reply = { status: 200, body: { success: true, successCount: 0, successResults: [] } }
})

/** Runs the script with only the given env (plus PATH), never the developer's real KIBANA_* settings. */
function runImport(env: Record<string, string>, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr })
    })
  })
}

/** The parsed Vega spec of a Vega visualization. */
const vegaSpecOf = (o: Pick<SavedObject, 'attributes'>): Record<string, unknown> => JSON.parse((JSON.parse(o.attributes.visState as string) as { params: { spec: string } }).params.spec) as Record<string, unknown>

/**
 * Evaluates the chart's label formula on one terms bucket. A Vega expression is a subset of
 * JavaScript; the two Vega functions it calls are given with Vega's meaning (truncate adds "…").
 */
function labelOf(expr: string, bucket: unknown): string {
  const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s)
  const toString = (v: unknown) => (v === null || v === undefined ? null : String(v))
  return (new Function('datum', 'truncate', 'toString', `return ${expr}`) as (d: unknown, t: typeof truncate, s: typeof toString) => string)(bucket, truncate, toString)
}

/** The saved objects inside the multipart upload. */
function uploadedObjects(body: string): Array<{ type: string; id: string; attributes: Record<string, unknown> }> {
  return body
    .split(/\r?\n/)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; id: string; attributes: Record<string, unknown> })
}

const allImported = () => {
  const objects = uploadedObjects(NDJSON)
  return {
    success: true,
    successCount: objects.length,
    successResults: objects.map((o) => ({ type: o.type, id: o.id, meta: { title: o.attributes.title }, overwrite: true })),
  }
}

describe('scripts/kibana-import', () => {
  test('posts the NDJSON as a multipart file with kbn-xsrf, overwrite=true and basic auth; lists what was imported', async () => {
    reply = { status: 200, body: allImported() }
    const run = await runImport({ KIBANA_URL: `${base}/`, KIBANA_USERNAME: 'elastic', KIBANA_PASSWORD: PASSWORD })
    expect(run.code).toBe(0)
    expect(seen).toHaveLength(1)
    const req = seen[0]!
    expect(req.method).toBe('POST')
    expect(req.url).toBe('/api/saved_objects/_import?overwrite=true')
    expect(req.headers['kbn-xsrf']).toBeTruthy()
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`elastic:${PASSWORD}`).toString('base64')}`)
    expect(req.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/)
    expect(req.body).toContain('name="file"; filename="simdup.ndjson"')
    expect(uploadedObjects(req.body)).toEqual(uploadedObjects(NDJSON))
    expect(run.stdout).toMatch(/^imported 6 object\(s\) into http:\/\/127\.0\.0\.1:\d+$/m)
    expect(run.stdout).toContain('  dashboard simdup-dashboard  "simdup: near-duplicates" (replaced)')
    expect(run.stdout).toContain(`dashboard: ${base}/app/dashboards#/view/simdup-dashboard`)
    expect(run.stdout + run.stderr).not.toContain(PASSWORD)
  })

  test('an API key wins over username/password and is never printed; KIBANA_SPACE prefixes the path', async () => {
    reply = { status: 200, body: allImported() }
    const run = await runImport({ KIBANA_URL: base, KIBANA_SPACE: 'team-a', KIBANA_API_KEY: API_KEY, KIBANA_USERNAME: 'elastic', KIBANA_PASSWORD: PASSWORD })
    expect(run.code).toBe(0)
    expect(seen[0]?.url).toBe('/s/team-a/api/saved_objects/_import?overwrite=true')
    expect(seen[0]?.headers.authorization).toBe(`ApiKey ${API_KEY}`)
    expect(run.stdout).toContain(`dashboard: ${base}/s/team-a/app/dashboards#/view/simdup-dashboard`)
    expect(run.stdout + run.stderr).not.toContain(API_KEY)
    expect(run.stdout + run.stderr).not.toContain(PASSWORD)
  })

  test('errors reported by Kibana are listed and exit 1', async () => {
    reply = {
      status: 200,
      body: {
        success: false,
        successCount: 5,
        successResults: [],
        errors: [{ type: 'lens', id: 'simdup-largest-clusters', meta: { title: 'simdup: largest clusters' }, error: { type: 'missing_references', references: [{ type: 'index-pattern', id: 'gone' }] } }],
      },
    }
    const run = await runImport({ KIBANA_URL: base })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain('Kibana reported 1 error(s):')
    expect(run.stderr).toContain('lens simdup-largest-clusters  "simdup: largest clusters": missing_references (index-pattern/gone)')
  })

  test('a refused request exits 1 with Kibana\'s message and no credentials', async () => {
    reply = { status: 401, body: { statusCode: 401, error: 'Unauthorized', message: '[security_exception] unable to authenticate user' } }
    const run = await runImport({ KIBANA_URL: base, KIBANA_USERNAME: 'elastic', KIBANA_PASSWORD: PASSWORD })
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/answered 401 Unauthorized .*unable to authenticate user/)
    expect(run.stdout + run.stderr).not.toContain(PASSWORD)
  })

  test('SIMDUP_INDEX_PATTERN re-targets the data view and the Vega query, and nothing else', async () => {
    reply = { status: 200, body: allImported() }
    const run = await runImport({ KIBANA_URL: base, SIMDUP_INDEX_PATTERN: 'articles' })
    expect(run.code).toBe(0)
    const sent = uploadedObjects(seen[0]!.body)
    const original = uploadedObjects(NDJSON)
    expect(sent.map((o) => o.id)).toEqual(original.map((o) => o.id))
    const changed = sent.filter((o, i) => JSON.stringify(o) !== JSON.stringify(original[i]))
    expect(changed.map((o) => o.id)).toEqual(['simdup-data-view', 'simdup-cluster-sizes', 'simdup-largest-clusters'])
    expect(changed[0]?.attributes.title).toBe('articles')
    const spec = vegaSpecOf(changed[1]!) as { data: { url: { index: string } } }
    expect(spec.data.url.index).toBe('articles')
    // Full Vega: a list of data sets, and the data view a click filter names.
    const largest = vegaSpecOf(changed[2]!) as unknown as LargestSpec
    expect(largest.data[0]?.url.index).toBe('articles')
    expect(largest.signals.find((s) => s.name === 'dataView')?.value).toBe('articles')
    // Only the index changed: the label stays the cluster id without SIMDUP_TITLE_FIELD.
    expect(largest.data[0]?.transform).toEqual([{ type: 'formula', as: 'label', expr: 'datum.key' }])
  })

  test.each([
    ['a username without a password', { KIBANA_USERNAME: 'elastic' }, /Set both KIBANA_USERNAME and KIBANA_PASSWORD/],
    ['credentials inside KIBANA_URL', { KIBANA_URL: `http://elastic:${PASSWORD}@127.0.0.1:5601` }, /must not contain credentials/],
    ['a KIBANA_URL that is not a URL', { KIBANA_URL: `http://elastic:${PASSWORD}@[kibana` }, /KIBANA_URL is not a valid URL/],
    ['a KIBANA_URL without a scheme', { KIBANA_URL: `elastic:${PASSWORD}@kibana:5601` }, /KIBANA_URL must start with http:\/\/ or https:\/\//],
    ['a bad space id', { KIBANA_SPACE: 'Team A' }, /KIBANA_SPACE must be a space id/],
    ['a bad timeout', { KIBANA_TIMEOUT_MS: '10s' }, /KIBANA_TIMEOUT_MS must be a positive integer/],
  ])('%s is a usage error: exit 2, no request, nothing secret echoed', async (_name, env, message) => {
    const run = await runImport({ KIBANA_URL: base, ...env })
    expect(run.code).toBe(2)
    expect(run.stderr).toMatch(message)
    expect(run.stdout + run.stderr).not.toContain(PASSWORD)
    expect(seen).toEqual([])
  })

  test('--out writes the objects for the user\'s index (its pattern, date field, title) to a file, without Kibana; each object fits both mappings (29.9, 29.10)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-kibana-out-'))
    const out = join(dir, 'news.ndjson')
    const run = await runImport({ KIBANA_URL: base, SIMDUP_INDEX_PATTERN: 'news-dedup', SIMDUP_TIME_FIELD: 'published_at', SIMDUP_TITLE_FIELD: 'headline' }, ['--out', out])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/wrote 6 saved object\(s\) to .*news\.ndjson: import it in Kibana/)
    expect(seen).toEqual([])
    const objects = parseSavedObjects(readFileSync(out, 'utf8'))
    const view = objects.find((o) => o.type === 'index-pattern')!
    expect([view.attributes.title, view.attributes.timeFieldName]).toEqual(['news-dedup', 'published_at'])
    const search = objects.find((o) => o.type === 'search')!
    expect(search.attributes.columns).toEqual(['dedup.id', 'headline', 'dedup.cluster_id', 'dedup.duplicate_of', 'dedup.distance', 'dedup.layer'])
    expect(search.attributes.sort).toEqual([['dedup.cluster_id', 'asc'], ['published_at', 'asc']])
    // The largest-clusters chart labels each cluster by its first-indexed document's headline, fetched
    // from _source (a text field has no doc values), or by the cluster id when it has none.
    const largest = vegaSpecOf(objects.find((o) => o.id === 'simdup-largest-clusters')!) as unknown as LargestSpec
    expect(largest.data[0]?.url.body.aggs.clusters.aggs.first.top_hits._source).toEqual({ includes: ['headline'] })
    const label = largest.data[0]!.transform.find((t) => t.as === 'label')!.expr
    const bucket = (source: unknown) => ({ key: 'lib-001', doc_count: 3, first: { hits: { hits: [{ _source: source }] } } })
    expect(labelOf(label, bucket({ headline: '北京大学招生计划公布' }))).toBe('北京大学招生计划公布') // "Peking University publishes its admissions plan"
    expect(labelOf(label, bucket({ headline: 'x'.repeat(60) }))).toBe(`${'x'.repeat(39)}…`)
    expect(labelOf(label, bucket({}))).toBe('lib-001')
    const uses = fieldUses(objects)
    expect(uses.filter((u) => u.field === 'headline').map((u) => `${u.object} ${u.kind}`).sort()).toEqual(['simdup-duplicates display', 'simdup-largest-clusters display'])
    expect(uses.filter((u) => u.field === 'published_at').map((u) => u.kind).sort()).toEqual(['aggregate', 'sort', 'time'])
    // dedup.indexed_at keeps only its label in the data view: no chart, sort or time filter uses it.
    expect(uses.filter((u) => u.field === 'dedup.indexed_at').map((u) => u.kind)).toEqual(['display'])
    // The content index's mapping as reindex leaves it: its own fields beside the dedup object.
    const mapping = JSON.parse(readFileSync(new URL('../../../mappings/dedup-fields.json', import.meta.url), 'utf8')) as { template: { mappings: { properties: Record<string, unknown> } } }
    const content = mappedFields({ headline: { type: 'text' }, published_at: { type: 'date' }, body: { type: 'text' } })
    expect(fieldProblems(uses, mappedFields(mapping.template.mappings.properties), content)).toEqual([])
    // A title field the index does not have is caught, in the chart as in the saved search.
    expect(fieldProblems(uses, mappedFields(mapping.template.mappings.properties), mappedFields({ published_at: { type: 'date' } }))).toEqual([
      'simdup-duplicates columns: `headline` is not a field of mappings/dedup-fields.json',
      'simdup-largest-clusters Vega spec body.aggs.clusters.aggs.first.top_hits._source: `headline` is not a field of mappings/dedup-fields.json',
    ])
    // A time field that is not a date in that index is caught.
    expect(fieldProblems(uses, mappedFields(mapping.template.mappings.properties), mappedFields({ headline: { type: 'text' }, published_at: { type: 'keyword' } }))).toContain(
      'simdup-data-view timeFieldName: `published_at` is a keyword, not a date',
    )
  })

  test('a dotted SIMDUP_TITLE_FIELD labels the chart from the nested _source, falling back to the cluster id at any missing step', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'simdup-kibana-out-')), 'nested.ndjson')
    const run = await runImport({ SIMDUP_TITLE_FIELD: 'meta.title' }, ['--out', out])
    expect(run.code, run.stderr).toBe(0)
    const largest = vegaSpecOf(parseSavedObjects(readFileSync(out, 'utf8')).find((o) => o.id === 'simdup-largest-clusters')!) as unknown as LargestSpec
    expect(largest.data[0]?.url.body.aggs.clusters.aggs.first.top_hits._source).toEqual({ includes: ['meta.title'] })
    const label = largest.data[0]!.transform.find((t) => t.as === 'label')!.expr
    const bucket = (source: unknown) => ({ key: 'c-7', first: { hits: { hits: [{ _source: source }] } } })
    expect(labelOf(label, bucket({ meta: { title: '标题' } }))).toBe('标题') // "title"
    expect(labelOf(label, bucket({ meta: {} }))).toBe('c-7')
    expect(labelOf(label, bucket({}))).toBe('c-7')
  })

  test('a file not named *.ndjson, or a missing one, is a usage error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-kibana-'))
    writeFileSync(join(dir, 'objects.json'), NDJSON)
    const wrongName = await runImport({ KIBANA_URL: base }, [join(dir, 'objects.json')])
    expect(wrongName.code).toBe(2)
    expect(wrongName.stderr).toMatch(/only imports files named \*\.ndjson/)
    const missing = await runImport({ KIBANA_URL: base }, [join(dir, 'absent.ndjson')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/cannot read .*absent\.ndjson: ENOENT/)
    expect(seen).toEqual([])
  })

  test('an unreachable Kibana exits 1 and names the address', async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const run = await runImport({ KIBANA_URL: `http://127.0.0.1:${port}` })
    expect(run.code).toBe(1)
    expect(run.stderr).toContain(`cannot reach Kibana at http://127.0.0.1:${port}: ECONNREFUSED`)
  })
})
