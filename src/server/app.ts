import { createHash, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import Fastify, { LogController, type FastifyInstance, type FastifyRequest } from 'fastify'
import swagger from '@fastify/swagger'
import cors from '@fastify/cors'
import { formatDecision, type Deduplicator } from '../index.js'
import { parseJsonLine, readLines } from '../io/jsonl.js'
import type { IncomingItem } from '../engine/prepare.js'
import { HttpError, redact, toErrorResponse } from './errors.js'
import { createMetrics } from './metrics.js'
import { readRoutes } from './routes-read.js'
import type { TextSource } from './inspect.js'
import type { TextKeeper } from './texts.js'
import { WriteQueue } from './write-queue.js'
import { DOCUMENTS_BODY, ERROR_RESPONSES, DECISIONS_RESPONSE } from './schemas.js'

/** Options of `createServer`. */
export interface ServerOptions {
  /** Decides every write (its store is the service's store). */
  dedup: Deduplicator
  /** Texts kept by the server (`--keep-texts`, embedded store): written with each batch, shown by the page. @default null */
  keeper?: TextKeeper | null
  /** Where the page's texts come from when none are kept here (an Elasticsearch index's `_source`). @default null */
  texts?: TextSource | null
  /** Bearer token every request but `/healthz` and the page's files must carry; null: none. @default null */
  token?: string | null
  /** Origin allowed by CORS (`Access-Control-Allow-Origin`); null: no CORS headers. @default null */
  corsOrigin?: string | null
  /** Largest request body in bytes. @default 33554432 (32 MiB) */
  bodyLimit?: number
  /** Most documents in one request. @default 10000 */
  maxDocuments?: number
  /** Documents per group commit. @default 500 */
  batchSize?: number
  /** Documents accepted but not committed, at most (then 429). @default 20000 */
  maxQueued?: number
  /** Fewest waiting documents decided while the batch before them is committed (see `WriteQueueOptions.pipelineMin`). @default 16 */
  pipelineMin?: number
  /** Fastify's logger (pino) options; false: none. Request lines are never logged (they could carry ids); errors are, redacted. @default false */
  logger?: boolean | { level: string }
}

/** The defaults of `ServerOptions`. */
export const DEFAULT_SERVER_OPTIONS = Object.freeze({ bodyLimit: 32 * 2 ** 20, maxDocuments: 10_000, batchSize: 500, maxQueued: 20_000, pipelineMin: 16 })

/** The JSONL media types `POST /v1/documents` takes (any other body is JSON). */
const JSONL_TYPES = ['application/x-ndjson', 'application/jsonl', 'application/jsonlines', 'application/json-seq', 'text/plain']

/** The inspector page's files, read once (they ship in the package: assets/inspector/). */
const PAGE_DIR = new URL('../../assets/inspector/', import.meta.url)
const PAGE_FILES: Record<string, string> = { 'index.html': 'text/html; charset=utf-8', 'app.js': 'text/javascript; charset=utf-8', 'style.css': 'text/css; charset=utf-8' }

/** A running service: the Fastify instance and how to stop it. */
export interface Server {
  app: FastifyInstance
  queue: WriteQueue
  /** Stops taking requests, answers those in flight, commits everything accepted. The store stays open (the caller closes it). */
  close(): Promise<void>
}

/**
 * The HTTP service over a deduplicator: the JSON API (`/v1/…`), `/healthz`, `/metrics`,
 * `/openapi.json` and the inspector page at `/`. Every write goes through one `WriteQueue`.
 * @example
 * const server = await createServer({ dedup: createDeduplicator({ store }) })
 * await server.app.listen({ host: '127.0.0.1', port: 8080 })
 */
export async function createServer(options: ServerOptions): Promise<Server> {
  const o = { ...DEFAULT_SERVER_OPTIONS, ...options }
  const store = o.dedup.options.store
  const keeper = o.keeper ?? null
  const texts: TextSource | null = keeper !== null ? (ids) => keeper.get(ids) : (o.texts ?? null)
  let queue: WriteQueue | null = null
  const metrics = createMetrics(store, () => queue?.depth ?? 0)
  queue = new WriteQueue(o.dedup, { batchSize: o.batchSize, maxQueued: o.maxQueued, pipelineMin: o.pipelineMin, texts: keeper, onCommit: (d, s) => metrics.commit(d, s) })
  const writes = queue

  const app = Fastify({
    logger: o.logger ?? false,
    // No request lines: a URL carries document ids, and at 1,000 requests/s the log would be the bottleneck.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: o.bodyLimit,
    return503OnClosing: true,
    ajv: { customOptions: { coerceTypes: true, removeAdditional: false, allErrors: false } },
  })
  await app.register(swagger, {
    openapi: {
      info: { title: 'simdup', version: '1', description: 'Near-duplicate detection over HTTP. Decisions are those of `simdup index`.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  })
  if (o.corsOrigin != null) await app.register(cors, { origin: o.corsOrigin })

  app.addContentTypeParser(JSONL_TYPES, { parseAs: 'buffer' }, (_req, body, done) => done(null, body))
  app.setErrorHandler((err, req, reply) => {
    const r = toErrorResponse(err)
    if (r.status >= 500) req.log.error({ code: r.body.code, err: redact(String((err as Error)?.stack ?? err)) }, 'request failed')
    if (r.retryAfter !== undefined) void reply.header('retry-after', String(r.retryAfter))
    return reply.code(r.status).send(r.body)
  })
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ code: 'NOT_FOUND', message: `No route ${req.method} ${req.url.split('?')[0]}: see /openapi.json.` }))
  // While stopping, every answer closes its connection: a kept-alive connection that turns idle
  // after the close began would hold the process open until its keep-alive timeout.
  let stopping = false
  // Callback hooks, not async ones: an async hook costs every request a promise and a tick.
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (stopping) void reply.header('connection', 'close')
    done(null, payload)
  })
  app.addHook('onResponse', (req, reply, done) => {
    metrics.request(req.method, req.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000)
    done()
  })
  if (o.token != null) {
    const expected = digest(o.token)
    const open = new Set(['/healthz', '/', '/assets/app.js', '/assets/style.css'])
    app.addHook('onRequest', async (req) => {
      if (req.method === 'OPTIONS' || open.has(req.url.split('?')[0]!)) return
      const header = req.headers.authorization ?? ''
      const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim()
      if (given === undefined || !timingSafeEqual(digest(given), expected)) {
        throw new HttpError(401, 'UNAUTHORIZED', 'This server requires `Authorization: Bearer <token>` (the token given to `simdup serve` by --token-file or SIMDUP_TOKEN).')
      }
    })
  }

  app.post('/v1/documents', {
    schema: {
      summary: 'Decide and index one document, a JSON array of them, or JSONL',
      description: 'Decisions in order, one per document, with the fields of `simdup index`; a bad document gets a `rejected` decision and the others go on. 200 means every decision is committed (durable). `Accept: application/x-ndjson` answers JSONL (the CLI\'s lines).',
      body: DOCUMENTS_BODY,
      response: { 200: DECISIONS_RESPONSE, ...ERROR_RESPONSES },
    },
    // Each document is checked by the deduplicator and rejected on its own: a schema would refuse the whole body.
    validatorCompiler: () => () => true,
  }, async (req, reply) => {
    const items = await itemsOf(req)
    if (items.length === 0) throw new HttpError(400, 'INVALID_INPUT', 'The body holds no document: send one JSON object, a JSON array of them, or JSONL.')
    if (items.length > o.maxDocuments) throw new HttpError(413, 'INVALID_INPUT', `The body holds ${items.length} documents; at most ${o.maxDocuments} per request (split it).`)
    const decisions = await writes.submit(items)
    const lines = decisions.map(formatDecision)
    if (/application\/(x-ndjson|jsonl)/.test(req.headers.accept ?? '')) return reply.type('application/x-ndjson').send(lines.join('\n') + '\n')
    return reply.type('application/json').send(`{"decisions":[${lines.join(',')}]}`)
  })

  await readRoutes(app, { dedup: o.dedup, queue: writes, texts })

  app.get('/healthz', { schema: { summary: 'Liveness: the store answers', response: ERROR_RESPONSES } }, async () => ({ status: 'ok', documents: await writes.read(() => store.count()), queue: writes.depth }))
  app.get('/metrics', { schema: { summary: 'Prometheus metrics (text format)', hide: false } }, async (_req, reply) => {
    const text = await metrics.registry.metrics()
    return reply.type(metrics.registry.contentType).send(text)
  })
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger())

  const page = Object.fromEntries(Object.keys(PAGE_FILES).map((f) => [f, readFileSync(new URL(f, PAGE_DIR), 'utf8')]))
  const headers = {
    // The page runs only its own script and style, and talks only to this server.
    'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
  }
  app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.headers(headers).type(PAGE_FILES['index.html']!).send(page['index.html']))
  for (const f of ['app.js', 'style.css']) app.get(`/assets/${f}`, { schema: { hide: true } }, async (_req, reply) => reply.headers(headers).type(PAGE_FILES[f]!).send(page[f]))

  await app.ready()
  return {
    app,
    queue: writes,
    async close() {
      // Stops listening and answers the requests in flight (their writes are in the queue), then
      // commits whatever is left in it.
      stopping = true
      await app.close()
      await writes.drain()
      await keeper?.close()
    },
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}

/** The body as incoming items, numbered from 1: JSONL lines, the elements of an array, or one object. */
async function itemsOf(req: FastifyRequest): Promise<IncomingItem[]> {
  const body = req.body
  if (Buffer.isBuffer(body)) {
    const items: IncomingItem[] = []
    for await (const l of readLines(once(body))) items.push(parseJsonLine(l))
    return items
  }
  if (Array.isArray(body)) return body.map((value: unknown, i) => ({ value, line: i + 1 }))
  if (body !== null && typeof body === 'object') return [{ value: body, line: 1 }]
  throw new HttpError(400, 'INVALID_INPUT', 'Expected a JSON object (one document), a JSON array of documents, or JSONL (Content-Type: application/x-ndjson).')
}

async function* once(buf: Buffer): AsyncGenerator<Buffer> {
  yield buf
}
