import { resolve } from 'node:path'
import { OPTION_LIMITS, openMemoryStore, type FingerprintStore } from '../index.js'
import type { LogDamageReport } from '../internal.js'
import type { ElasticsearchAuth } from '../elasticsearch/index.js'
import { limitFlag } from './args.js'
import type { CliIO } from './io.js'
import { UsageError } from './io.js'

export const STORE_FLAGS = {
  store: { type: 'string' },
  es: { type: 'string' },
  index: { type: 'string' },
  'es-api-key': { type: 'string' },
  'es-ca': { type: 'string' },
} as const

export const STORE_HELP = `Store (embedded by default; Elasticsearch with --es or ES_URL):
  --store DIR        embedded store directory (default ./.simdup)
  --es URL[,URL…]    Elasticsearch node, or several nodes of a cluster comma-separated (env
                     ES_URL); user:pass@ in a URL is used, never printed
  --index NAME       Elasticsearch index (default simdup)
  --es-api-key KEY   API key (env ES_API_KEY); or env ES_USERNAME + ES_PASSWORD
  --es-ca FILE       CA certificate (PEM) for https (env ES_CA_CERT)
  Credentials given as arguments (--es-api-key, user:pass@ in --es) are visible to other users
  of the machine in \`ps\`: prefer the environment variables.`

/** How documents are decided (k, window, layers, routes): the same flags on index, serve and reindex. */
export const DECISION_FLAGS = {
  k: { type: 'string' },
  window: { type: 'string' },
  title: { type: 'boolean' },
  'no-url': { type: 'boolean' },
  'no-exact': { type: 'boolean' },
  'no-minhash': { type: 'boolean' },
  'no-templates': { type: 'boolean' },
} as const

/** The block scheme of a new index (index, serve; reindex keeps the destination's own). */
export const BLOCK_SCHEME_FLAGS = {
  blocks: { type: 'string' },
  'min-match': { type: 'string' },
} as const

/** Flags of the commands that may create the index (\`simdup index\`). */
export const INDEX_LAYOUT_FLAGS = {
  shards: { type: 'string' },
  replicas: { type: 'string' },
} as const

export const INDEX_LAYOUT_HELP = `  --shards N         primary shards of an index simdup creates: ${OPTION_LIMITS.shards.min} to ${OPTION_LIMITS.shards.max} (default ${OPTION_LIMITS.shards.default})
  --replicas N       replicas of each shard: ${OPTION_LIMITS.replicas.min} to ${OPTION_LIMITS.replicas.max} (default ${OPTION_LIMITS.replicas.default}; 1 on a cluster, so a lost node
                     loses nothing); an existing index keeps its own settings`

/** The flags of a command that decides documents into a store it may create (index, serve): how, where, and the new index's layout. */
export const WRITE_FLAGS = { ...DECISION_FLAGS, ...BLOCK_SCHEME_FLAGS, ...STORE_FLAGS, ...INDEX_LAYOUT_FLAGS } as const

/** `--shards` / `--replicas` as store options (absent flags leave the store's defaults). */
export function indexLayoutFromFlags(values: { shards?: string | undefined; replicas?: string | undefined }): { shards?: number; replicas?: number } {
  return {
    ...(values.shards === undefined ? {} : { shards: limitFlag(values.shards, 'shards', OPTION_LIMITS.shards) }),
    ...(values.replicas === undefined ? {} : { replicas: limitFlag(values.replicas, 'replicas', OPTION_LIMITS.replicas) }),
  }
}

/**
 * The --es value (or ES_URL) checked in the flag's terms: each comma-separated node an http:// or
 * https:// URL. `127.0.0.1:9200` is a usage error that names --es and shows the fix, rather than
 * the library's message about its `node` option.
 */
export function esFlag(value: string, fromEnv: boolean): string {
  const name = fromEnv ? 'ES_URL' : '--es'
  for (const part of value.split(',').map((p) => p.trim())) {
    let ok = false
    try {
      ok = ['http:', 'https:'].includes(new URL(part).protocol)
    } catch {
      ok = false
    }
    if (!ok) {
      const fix = /^[\w.-]+(:\d+)?(\/.*)?$/.test(part) ? ` (write \`http://${part}\`, or https:// for TLS)` : ''
      throw new UsageError(`Expected ${name} to be an http:// or https:// URL such as http://127.0.0.1:9200 (several nodes comma-separated), got \`${part.replace(/^(.*\/\/)?[^/@]*@/, '$1[redacted]@')}\`${fix}.`)
    }
  }
  return value
}

type StoreFlagValues = { store?: string | undefined; es?: string | undefined; index?: string | undefined; 'es-api-key'?: string | undefined; 'es-ca'?: string | undefined }

/** Where the store flags point: an Elasticsearch index or an embedded store directory. */
export function describeStore(values: StoreFlagValues, io: CliIO): string {
  const url = values.es ?? (io.env.ES_URL === '' ? undefined : io.env.ES_URL)
  return url === undefined ? `embedded store ${resolve(io.cwd, values.store ?? '.simdup')}` : `Elasticsearch index ${values.index ?? 'simdup'}`
}

/** The embedded store's directory the flags name, or null when they name Elasticsearch. */
export function embeddedStoreDir(values: StoreFlagValues, io: CliIO): string | null {
  const url = values.es ?? (io.env.ES_URL === '' ? undefined : io.env.ES_URL)
  return url === undefined ? resolve(io.cwd, values.store ?? '.simdup') : null
}

/**
 * What a store's open found wrong with its log, for stderr: bytes and records not read (and
 * whether they were cut and where they went), and what to do about them.
 */
export function formatDamage(d: LogDamageReport, dir: string): string {
  const what = `${d.bytes} byte(s) from offset ${d.offset}, holding at least ${d.records} record(s): ${d.reason}`
  if (d.cut) {
    return `simdup: warning: ${d.path} had a damaged tail (what a crash mid-write leaves; its records were never acknowledged): cut ${what}.${d.savedTo === null ? '' : ` The bytes were copied to ${d.savedTo}.`}\n`
  }
  return `simdup: warning: ${d.path} has a damaged tail that was not read: ${what}. It is left in the file; \`simdup store repair --store ${dir}\` cuts it (copying the log aside first). (If simdup index is writing to this store right now, that is its unfinished write.)\n`
}

/**
 * Opens the store the flags name: Elasticsearch with --es / ES_URL, else the embedded store in
 * --store (default ./.simdup). `readOnly` (clusters, cluster, explain): nothing is created, locked
 * or repaired; a store or index that does not exist is NOT_FOUND. `existing` (delete, reconcile;
 * implied by `readOnly`): the store must exist (NOT_FOUND), but is opened for writing. `layout`: shards / replicas of
 * an index the store creates (`simdup index --shards/--replicas`).
 */
export async function openStoreFromFlags(
  values: StoreFlagValues,
  io: CliIO,
  { readOnly = false, existing = readOnly, layout = {} }: { readOnly?: boolean; existing?: boolean; layout?: { shards?: number; replicas?: number } } = {},
): Promise<{ store: FingerprintStore; kind: 'memory' | 'elasticsearch' }> {
  const url = values.es ?? (io.env.ES_URL === '' ? undefined : io.env.ES_URL)
  if (url === undefined) {
    if (values.index !== undefined) throw new UsageError('--index needs --es URL (or ES_URL).')
    if (Object.keys(layout).length > 0) throw new UsageError('--shards and --replicas need --es URL (or ES_URL): the embedded store has no shards.')
    const dir = resolve(io.cwd, values.store ?? '.simdup')
    const store = await openMemoryStore({ dir, readOnly, create: !existing })
    const damage = store.stats().damage
    if (damage !== null) io.stderr.write(formatDamage(damage, dir))
    return { store, kind: 'memory' }
  }
  if (values.store !== undefined) throw new UsageError('Use either --store (embedded) or --es (Elasticsearch), not both.')
  esFlag(url, values.es === undefined)
  const apiKey = values['es-api-key'] ?? io.env.ES_API_KEY
  let auth: ElasticsearchAuth | undefined
  if (apiKey !== undefined) auth = { apiKey }
  else if (io.env.ES_USERNAME !== undefined && io.env.ES_PASSWORD !== undefined) auth = { username: io.env.ES_USERNAME, password: io.env.ES_PASSWORD }
  const caFile = values['es-ca'] ?? io.env.ES_CA_CERT
  // Loaded only here: the Elasticsearch client is the CLI's heaviest import.
  const { createElasticsearchStore } = await import('../elasticsearch/index.js')
  const store = await createElasticsearchStore({
    node: url,
    index: values.index ?? 'simdup',
    ...layout,
    ...(existing ? { ensureIndex: 'existing' as const } : {}),
    ...(auth === undefined ? {} : { auth }),
    ...(caFile === undefined ? {} : { caFile: resolve(io.cwd, caFile) }),
  })
  return { store, kind: 'elasticsearch' }
}
