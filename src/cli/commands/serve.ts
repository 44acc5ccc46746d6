import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { isIP } from 'node:net'
import { createDeduplicator, OPTION_LIMITS, type FingerprintStore } from '../../index.js'
import { parseDuration } from '../../internal.js'
import type { CliIO } from '../io.js'
import { InputError, UsageError, fsReason } from '../io.js'
import { parse, intFlag, kFlag, limitFlag } from '../args.js'
import { describeStore, indexLayoutFromFlags, INDEX_LAYOUT_HELP, openStoreFromFlags, STORE_HELP, WRITE_FLAGS } from '../store-flags.js'
import { analyzerOptionsFromFlags, ANALYZER_FLAGS, ANALYZER_HELP } from '../analyzer-flags.js'
import { fetchTexts } from './inspect.js'

/** Shortest bearer token accepted (a guessable token protects nothing). */
const MIN_TOKEN_CHARS = 16

export const SERVE_HELP = `simdup serve [--store DIR | --es URL[,URL…] --index NAME] [--host 127.0.0.1] [--port 8080]

Deduplication as an HTTP service (docs/SERVER.md): a versioned JSON API that decides documents
exactly as \`simdup index\` does, and a cluster inspector page at /.

  POST   /v1/documents        one document, a JSON array, or JSONL: decisions in order
  GET    /v1/documents/{id}   a stored record        DELETE /v1/documents/{id}
  POST   /v1/compare          two texts: the decision and its evidence
  GET    /v1/explain?a=&b=    two stored documents   GET /v1/clusters?top=&min_size=
  GET    /v1/clusters/{id}    a cluster's members    GET /v1/histogram
  GET    /healthz  /metrics (Prometheus)  /openapi.json

Writes are decided in group commits through one queue, in the order the server accepted them:
the decisions equal one sequential \`simdup index\` run of the documents in that order. A 200 means
the decisions are stored (fsync'd on the embedded store). One server per embedded store (its lock);
any number per Elasticsearch index (then run \`simdup reconcile\` now and then).

  --host ADDR        address to listen on (default 127.0.0.1); any other address requires a token
  --port N           port, 0 for any free one (default 8080)
  --token-file FILE  bearer token every request must carry (env SIMDUP_TOKEN); at least
                     ${MIN_TOKEN_CHARS} characters. /healthz and the page's files are open; the page asks for it
  --cors ORIGIN      allow browser calls from ORIGIN (default: no CORS headers)
  --keep-texts       keep the texts given (embedded store: DIR/texts.jsonl) so that the page shows
                     members side by side; otherwise the store keeps fingerprints only. On
                     Elasticsearch the page reads --text-field from the documents' _source
  --text-field F     Elasticsearch source field with the text (default content)
  --batch N          most documents per group commit: ${OPTION_LIMITS.batchSize.min} to ${OPTION_LIMITS.batchSize.max} (default 500)
  --max-queue N      most documents accepted and not yet stored; then 429 + Retry-After (default 20000)
  --pipeline-min N   embedded store: fewest waiting documents decided while the batch before them
                     is fsync'd; fewer wait for that fsync and join the next batch (default 16;
                     1 pipelines every batch, for a disk whose fsync is slow next to a decision)
  --max-docs N       most documents per request (default 10000)
  --max-body-mb N    largest request body in MiB: 1 to 1024 (default 32)
  --k N, --window DUR, --title, --no-url, --no-exact, --no-minhash, --no-templates,
  --blocks M, --min-match S   as for simdup index
  --log LEVEL        server log on stderr (pino JSON): error, warn, info (default warn). Never
                     request lines, tokens or credentials
${ANALYZER_HELP}
${STORE_HELP}
${INDEX_LAYOUT_HELP}

SIGTERM or Ctrl-C: stops listening, answers the requests in flight, stores everything accepted, exits 0.
Exit codes: 2 usage error, 3 the store is held by another process, 4 store unavailable, 5 the
store was written by another simdup version.`

const FLAGS = {
  host: { type: 'string' },
  port: { type: 'string' },
  'token-file': { type: 'string' },
  cors: { type: 'string' },
  'keep-texts': { type: 'boolean' },
  'text-field': { type: 'string' },
  batch: { type: 'string' },
  'max-queue': { type: 'string' },
  'pipeline-min': { type: 'string' },
  'max-docs': { type: 'string' },
  'max-body-mb': { type: 'string' },
  log: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...WRITE_FLAGS,
  ...ANALYZER_FLAGS,
} as const

/** Whether an address only this machine can reach (the one case a server may run without a token). */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true
  if (isIP(host) === 4) return host.startsWith('127.')
  return host === '::1'
}

function readToken(values: { 'token-file'?: string | undefined }, io: CliIO): string | null {
  let token: string | undefined
  if (values['token-file'] !== undefined) {
    try {
      token = readFileSync(resolve(io.cwd, values['token-file']), 'utf8').trim()
    } catch (err) {
      throw new InputError(`cannot read --token-file ${values['token-file']}: ${fsReason(err)}`)
    }
  } else if (io.env.SIMDUP_TOKEN !== undefined && io.env.SIMDUP_TOKEN !== '') token = io.env.SIMDUP_TOKEN.trim()
  if (token === undefined) return null
  if (token.length < MIN_TOKEN_CHARS || /\s/.test(token)) {
    throw new UsageError(`The bearer token must be at least ${MIN_TOKEN_CHARS} characters with no spaces (e.g. \`openssl rand -hex 24\`); the one given has ${token.length}.`)
  }
  return token
}

/** `simdup serve`: runs until SIGTERM / SIGINT; returns the exit code. */
export async function serveCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, FLAGS)
  if (values.help) {
    io.stdout.write(SERVE_HELP + '\n')
    return 0
  }
  if (positionals.length > 0) throw new UsageError('simdup serve takes no positional argument.')
  const host = values.host ?? '127.0.0.1'
  const port = intFlag(values.port, 'port', 8080, 0, 65_535)
  const token = readToken(values, io)
  if (!isLoopback(host) && token === null) {
    throw new UsageError(`--host ${host} can be reached from other machines: give a bearer token (--token-file FILE or SIMDUP_TOKEN), or bind 127.0.0.1.`)
  }
  const blocks = limitFlag(values.blocks, 'blocks', OPTION_LIMITS.blocks)
  const minMatch = intFlag(values['min-match'], 'min-match', Math.max(OPTION_LIMITS.minMatch.min, blocks - 3), OPTION_LIMITS.minMatch.min, blocks - 1)
  const blockScheme = values.blocks === undefined && values['min-match'] === undefined ? undefined : { blocks, minMatch }
  const k = kFlag(values.k, blockScheme)
  const batchSize = intFlag(values.batch, 'batch', 500, OPTION_LIMITS.batchSize.min, OPTION_LIMITS.batchSize.max)
  const maxQueued = intFlag(values['max-queue'], 'max-queue', 20_000, 1, 10_000_000)
  const pipelineMin = intFlag(values['pipeline-min'], 'pipeline-min', 16, 1, 1_000_000)
  const maxDocuments = intFlag(values['max-docs'], 'max-docs', 10_000, 1, 1_000_000)
  const bodyLimit = intFlag(values['max-body-mb'], 'max-body-mb', 32, 1, 1024) * 2 ** 20
  const windowMs = values.window === undefined ? undefined : parseDuration(values.window)
  const level = values.log ?? 'warn'
  if (!['error', 'warn', 'info'].includes(level)) throw new UsageError(`Expected --log to be error, warn or info, got \`${level}\`.`)
  const analyzer = analyzerOptionsFromFlags(values, io)
  const esUrl = values.es ?? (io.env.ES_URL === '' ? undefined : io.env.ES_URL)
  if (values['keep-texts'] === true && esUrl !== undefined) throw new UsageError('--keep-texts is for the embedded store; on Elasticsearch the page reads --text-field from the documents.')

  // Loaded only here: the server's framework is not needed by any other command.
  const { createServer, TextKeeper } = await import('../../server/index.js')
  const { store, kind } = await openStoreFromFlags(values, io, { layout: indexLayoutFromFlags(values) })
  let closeStore: FingerprintStore | null = store
  try {
    const dedup = createDeduplicator({
      store,
      maxDistance: k,
      ...(blockScheme === undefined ? {} : { blockScheme }),
      minhash: values['no-minhash'] !== true,
      templates: values['no-templates'] !== true,
      analyzer,
      layers: { url: !values['no-url'], exact: !values['no-exact'], title: values.title === true },
      ...(windowMs === undefined ? {} : { windowMs }),
    })
    await dedup.checkVersions()
    const keeper = values['keep-texts'] === true ? await TextKeeper.open(join(resolve(io.cwd, values.store ?? '.simdup'), 'texts.jsonl')) : null
    const field = values['text-field'] ?? 'content'
    const server = await createServer({
      dedup,
      keeper,
      texts: kind === 'elasticsearch' ? (ids) => fetchTexts(store, [...ids], field) : null,
      token,
      corsOrigin: values.cors ?? null,
      bodyLimit,
      maxDocuments,
      batchSize,
      maxQueued,
      pipelineMin,
      logger: { level },
    })
    const stopped = new Promise<string>((done) => {
      process.once('SIGTERM', () => done('SIGTERM'))
      process.once('SIGINT', () => done('SIGINT'))
    })
    const address = await server.app.listen({ host, port })
    io.stderr.write(`simdup serve: listening on ${address} (${describeStore(values, io)}, ${await store.count()} documents${token === null ? '' : ', bearer token required'}${keeper === null ? '' : ', keeping texts'})\n`)
    const signal = await stopped
    io.stderr.write(`simdup serve: ${signal}: draining\n`)
    await server.close()
    closeStore = null
    await store.close()
    io.stderr.write('simdup serve: stopped; everything acknowledged is stored\n')
    return 0
  } finally {
    await closeStore?.close()
  }
}
