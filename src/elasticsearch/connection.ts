import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Client, ClientOptions } from '@elastic/elasticsearch'
import { elastic } from './client.js'
import { DedupError, describeValue } from '../errors.js'
import { Redactor, displayUrl } from './redaction.js'
import { parseNodeUrls, type ElasticsearchAuth, type ElasticsearchStoreOptions, type ResolvedElasticsearchStoreOptions } from './options.js'

/** The client a store talks through, how its node(s) show in messages, and the credentials to keep out of them. */
export interface Connection {
  readonly client: Client
  /** The node(s) as shown in messages (credentials removed). */
  readonly node: string
  /** Whether the store made the client (and so closes it). */
  readonly owns: boolean
  readonly redactor: Redactor
}

/** The @elastic/elasticsearch range simdup supports (package.json `peerDependencies`). */
export const CLIENT_RANGE = '^8.19.2'

/**
 * Refuses an @elastic/elasticsearch client of another major version than 8, with what to install:
 * a 9.x client asks an Elasticsearch 8 node for version-9 answers, and every request fails with
 * "Accept version must be either version 8 or 7". null (version unknown): no check.
 * @example checkClientVersion('9.0.2') // throws INVALID_OPTION naming `npm install @elastic/elasticsearch@8`
 */
export function checkClientVersion(version: string | null): void {
  if (version === null || version.split('.')[0] === '8') return
  throw new DedupError(
    'INVALID_OPTION',
    `simdup/elasticsearch needs the @elastic/elasticsearch client 8.x (peer dependency ${CLIENT_RANGE}), found ${version}: ` +
      'a client of another major version fails every request to an Elasticsearch 8 node ("Accept version must be either version 8 or 7"). ' +
      'Install the 8.x client: npm install @elastic/elasticsearch@8',
  )
}

let installed: string | null | undefined
/** The version of the @elastic/elasticsearch package this module loads (read once); null when unknown. */
export function installedClientVersion(): string | null {
  if (installed !== undefined) return installed
  try {
    const main = createRequire(import.meta.url).resolve('@elastic/elasticsearch')
    installed = (JSON.parse(readFileSync(join(dirname(main), 'package.json'), 'utf8')) as { version?: string }).version ?? null
  } catch {
    installed = null
  }
  return installed
}

/**
 * The caller's client, or one made from the options' nodes, auth and CA file: the transport
 * retries only to move to another node (the store retries with back-off itself).
 */
export function connect(options: ElasticsearchStoreOptions<Client>, resolved: ResolvedElasticsearchStoreOptions): Connection {
  checkClientVersion(installedClientVersion())
  const redactor = new Redactor(secretsOf(options.node, options.auth))
  let client: Client
  let node: string
  const owns = options.client === undefined
  if (options.client !== undefined) {
    client = options.client
    const first = client.connectionPool.connections[0]
    node = first === undefined ? '(client)' : displayUrl(first.url.toString())
  } else {
    const nodes = parseNodeUrls(options.node)
    node = nodes.map(displayUrl).join(',')
    const clientOptions: ClientOptions = {
      nodes,
      // The store retries with back-off itself. The transport retries only to move to another
      // node: a connection error marks the node dead and the next attempt goes to a live one.
      maxRetries: nodes.length - 1,
      // The client also marks a node dead when it answers 503, which a live node does for a red
      // index; the default weighted pool can then find no node at all ("no living connections")
      // for a minute. This pool tries every node when all are marked dead.
      ConnectionPool: elastic.ClusterConnectionPool,
      requestTimeout: resolved.requestTimeoutMs,
    }
    if (options.auth !== undefined) clientOptions.auth = options.auth
    if (options.caFile !== undefined) {
      try {
        clientOptions.tls = { ca: readFileSync(options.caFile) }
      } catch (cause) {
        throw new DedupError('INVALID_OPTION', `Expected \`caFile\` to be a readable PEM file, got ${describeValue(options.caFile)}.`, { cause })
      }
    }
    try {
      client = new elastic.Client(clientOptions)
    } catch (cause) {
      throw new DedupError('INVALID_OPTION', redactor.text(`Cannot configure an Elasticsearch client for ${node}.`), { cause: redactor.error(cause) })
    }
  }
  return { client, node, owns, redactor }
}

/** Every credential connection options carry (passwords in node URLs, `auth`), for redaction: the store's and a reindex job's. */
export function secretsOf(node: string | readonly string[] | undefined, auth: ElasticsearchAuth | undefined): string[] {
  const out: string[] = []
  for (const one of node === undefined ? [] : typeof node === 'string' ? node.split(',') : node) {
    try {
      const u = new URL(String(one).trim())
      if (u.password !== '') out.push(u.password, decodeURIComponent(u.password), `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`)
    } catch {
      // An unparsable URL fails validation; nothing to collect.
    }
  }
  if (auth !== undefined) {
    if ('password' in auth) out.push(auth.password, `${auth.username}:${auth.password}`)
    else if (typeof auth.apiKey === 'string') out.push(auth.apiKey)
    else out.push(auth.apiKey.api_key, `${auth.apiKey.id}:${auth.apiKey.api_key}`)
  }
  return out
}
