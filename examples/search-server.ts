/**
 * A tiny search endpoint over an index that simdup deduplicates (content fields + `dedup` object).
 *
 *   ES_URL=http://127.0.0.1:9200 npx tsx examples/search-server.ts --index articles [--port 8080]
 *   curl 'http://127.0.0.1:8080/search?q=图书馆'               # "library"
 *   curl 'http://127.0.0.1:8080/search?q=图书馆&page=<next>'   # the following page
 *
 * Answers `{ results: [{ id, score, title, duplicateCount, duplicates }], next }`; `next` is null on
 * the last page. Bad input is a 400, an unreachable Elasticsearch a 503.
 */
import { createServer, type Server, type ServerResponse } from 'node:http'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { Client } from '@elastic/elasticsearch'
import { dedupSearch, type SearchClient } from '../src/elasticsearch/hook/index.js'
import { DedupError } from '../src/errors.js'

/** What the server needs: a client, the index, and the text fields to match `q` against. */
export interface SearchServerOptions {
  client: SearchClient
  index: string
  /** @default ['title^2', 'content'] */
  fields?: string[]
  /** Results per page. @default 10 */
  size?: number
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
  res.end(JSON.stringify(body))
}

/**
 * An http.Server answering `GET /search?q=…&page=…` with deduplicated results; call `listen` on it.
 * @example createSearchServer({ client, index: 'articles' }).listen(8080, '127.0.0.1')
 */
export function createSearchServer({ client, index, fields = ['title^2', 'content'], size = 10 }: SearchServerOptions): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const q = url.searchParams.get('q')?.trim() ?? ''
    if (req.method !== 'GET' || url.pathname !== '/search') return send(res, 404, { error: 'NOT_FOUND', message: 'Try GET /search?q=…' })
    if (q === '') return send(res, 400, { error: 'INVALID_OPTION', message: 'Expected a non-empty `q` parameter.' })
    dedupSearch<{ title?: string }>(
      client,
      { index, query: { multi_match: { query: q, fields } }, size, cursor: url.searchParams.get('page'), _source: ['title'] },
      { duplicateFields: ['title'] },
    )
      .then((page) =>
        send(res, 200, {
          results: page.results.map((r) => ({
            id: r.id,
            score: r.score,
            title: r.hit._source?.title ?? null,
            duplicateCount: r.duplicateCount,
            duplicates: r.duplicates.map((d) => ({ id: d.id, why: d.why, distance: d.distance })),
          })),
          next: page.next,
        }),
      )
      .catch((err: unknown) => {
        const code = err instanceof DedupError ? err.code : 'INTERNAL'
        const status = code === 'INVALID_OPTION' ? 400 : code === 'STORE_UNAVAILABLE' ? 503 : 500
        if (status === 500) console.error(err)
        send(res, status, { error: code, message: err instanceof Error ? err.message : String(err) })
      })
  })
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { index: { type: 'string' }, port: { type: 'string', default: '8080' } } })
  if (values.index === undefined) {
    console.error('usage: ES_URL=http://127.0.0.1:9200 tsx examples/search-server.ts --index <index> [--port 8080]')
    process.exitCode = 2
    return
  }
  const client = new Client({ node: process.env.ES_URL ?? 'http://127.0.0.1:9200' })
  const server = createSearchServer({ client, index: values.index })
  server.listen(Number(values.port), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${values.port}/search?q=…`))
  process.once('SIGINT', () => server.close(() => void client.close()))
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main()
