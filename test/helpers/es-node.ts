/**
 * Finds an Elasticsearch 8 node for integration tests, trying in order:
 * 1. `ES_URL` (a node someone else runs; never stopped here),
 * 2. the node this test run's global setup started (test/setup/elasticsearch.ts, handed over with
 *    vitest's `inject`; stopped by that setup after the last file),
 * 3. a testcontainers container, only when a Docker engine answers,
 * 4. the loopback node of `scripts/es-start.sh` (Maven-built, no Docker).
 * Nothing here skips: when no node can be had it throws, so CI fails instead of passing empty.
 */
import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@elastic/elasticsearch'

/** The node test/setup/elasticsearch.ts started for the whole run (absent when it did not). */
export interface SharedElasticsearch {
  url: string
  source: ElasticsearchSource
}

declare module 'vitest' {
  export interface ProvidedContext {
    elasticsearch?: SharedElasticsearch
  }
}

/** Where the node came from. */
export type ElasticsearchSource = 'ES_URL' | 'testcontainers' | 'launcher'

type Found = Omit<AcquiredElasticsearch, 'version' | 'flavor' | 'nodes'>

/** A node ready for requests, and how to give it back. */
export interface AcquiredElasticsearch {
  /**
   * Node URL(s) as `--es` and the store's `node` take them: one URL, or several comma-separated
   * when `ES_URL` names a cluster (`ES_NODES=3 npm run es:start` prints such a list); may carry
   * credentials (testcontainers).
   */
  url: string
  /** The same URLs one by one, for `new Client({ nodes })`. */
  nodes: string[]
  /** `version.number` from `GET /`, e.g. `8.19.21`. */
  version: string
  /** `version.build_flavor` from `GET /`, e.g. `default`. */
  flavor: string
  source: ElasticsearchSource
  /**
   * Gives the node back: stops a testcontainers container; stops a launcher node when a test run
   * started it and no other test process still holds it; never stops `ES_URL`, the run's shared
   * node (its global setup does) or a node that a developer started with `npm run es:start`.
   */
  stop(): Promise<void>
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** Same version as the launcher (scripts/es/pom.xml), so both routes test one server. */
const DEFAULT_IMAGE = 'docker.elastic.co/elasticsearch/elasticsearch:8.19.21'
/** First launcher start downloads ~115 MB and compiles; later starts take 10–30 s. */
const LAUNCHER_TIMEOUT_MS = 10 * 60_000

interface RunResult { code: number; stdout: string; stderr: string }

function run(file: string, args: readonly string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: ROOT, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      // A missing program (ENOENT) and a timeout both count as a failed run, not a crash.
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1
      resolve({ code, stdout: String(stdout), stderr: String(stderr) })
    })
  })
}

/** Credentials in a URL must never reach a log line. */
function redact(url: string): string {
  return splitNodes(url)
    .map((one) => {
      const u = new URL(one)
      if (u.password !== '') u.password = '***'
      return u.toString().replace(/\/$/, '')
    })
    .join(',')
}

function splitNodes(url: string): string[] {
  return url.split(',').map((one) => one.trim()).filter((one) => one !== '')
}

/** Reads version and build flavour from `GET /`; throws if the node does not answer. */
async function describeNode(url: string): Promise<{ version: string; flavor: string }> {
  const client = new Client({ nodes: splitNodes(url), requestTimeout: 10_000, maxRetries: 1 })
  try {
    const info = await client.info()
    return { version: info.version.number, flavor: info.version.build_flavor }
  } finally {
    await client.close()
  }
}

/** `docker info` exits 0 only when an engine answers; the CLI alone (no daemon) fails fast. */
async function dockerEngineAnswers(): Promise<boolean> {
  const { code } = await run('docker', ['info', '--format', '{{.ServerVersion}}'], 5_000)
  return code === 0
}

async function fromContainer(): Promise<Found> {
  // Imported lazily: testcontainers is slow to load and useless without Docker.
  const { ElasticsearchContainer } = await import('@testcontainers/elasticsearch')
  const password = 'simdup-test'
  const container = await new ElasticsearchContainer(process.env.ES_IMAGE ?? DEFAULT_IMAGE).withPassword(password).start()
  const url = new URL(container.getHttpUrl())
  url.username = container.getUsername()
  url.password = password
  return {
    url: url.toString().replace(/\/$/, ''),
    source: 'testcontainers',
    stop: async () => {
      await container.stop()
    },
  }
}

/**
 * Several processes may share one launcher node (two test runs at once; test files when no global
 * setup started a node for them), so "stop it if I started it" is not enough: the first to finish
 * would pull the node from under the others. Each user holds a lease file; whoever leaves last
 * stops the node, and only if a test run started it (never a node a developer started with
 * `npm run es:start`).
 */
class LauncherLease {
  private readonly dir: string
  /** Holds the pid of the node a test run started, compared with es-start's PID file on stop. */
  private readonly owner: string
  private readonly lease: string
  private readonly pidFile: string

  constructor(port: string) {
    this.dir = join(ROOT, '.cache', 'es', `leases-${port}`)
    this.owner = join(this.dir, 'started-by-tests')
    this.lease = join(this.dir, `${process.pid}-${randomUUID()}`)
    this.pidFile = join(ROOT, '.cache', 'es', `es-${port}.pid`)
  }

  async take(): Promise<void> {
    await mkdir(this.dir, { recursive: true })
    await writeFile(this.lease, '')
  }

  async markStarted(nodePid: string): Promise<void> {
    await writeFile(this.owner, nodePid)
  }

  /** Drops this lease; true when it was the last one on a node that a test run started. */
  async release(): Promise<boolean> {
    await rm(this.lease, { force: true })
    const others = (await readdir(this.dir)).filter((name) => /^\d+-/.test(name) && processAlive(Number(name.split('-')[0])))
    if (others.length > 0) return false
    const started = await readFile(this.owner, 'utf8').catch(() => '')
    const running = await readFile(this.pidFile, 'utf8').catch(() => '')
    await rm(this.owner, { force: true })
    return started !== '' && started.trim() === running.trim()
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function fromLauncher(): Promise<Found> {
  const lease = new LauncherLease(process.env.ES_PORT ?? '9200')
  await lease.take() // before starting, so a finishing file cannot stop the node in between
  const started = await run('bash', ['scripts/es-start.sh'], LAUNCHER_TIMEOUT_MS)
  const lines = started.stdout.trim().split('\n')
  const url = lines.at(-1) ?? ''
  if (started.code !== 0 || !url.startsWith('http')) {
    await lease.release()
    throw new Error(
      `No Elasticsearch node: ES_URL is unset, no Docker engine answers, and scripts/es-start.sh failed ` +
        `(exit ${started.code}). Its output ends with:\n${started.stderr.split('\n').slice(-30).join('\n')}`,
    )
  }
  // es-start.sh prints "started pid N" only when it launched the node itself.
  const nodePid = lines.find((line) => line.startsWith('started pid '))?.slice('started pid '.length)
  if (nodePid !== undefined) await lease.markStarted(nodePid)
  return {
    url,
    source: 'launcher',
    stop: async () => {
      if (!(await lease.release())) return
      const stopped = await run('bash', ['scripts/es-stop.sh'], 60_000)
      if (stopped.code !== 0) throw new Error(`scripts/es-stop.sh failed (exit ${stopped.code}): ${stopped.stderr}`)
    },
  }
}

/**
 * Returns a running Elasticsearch 8 node, starting one if needed, and logs one line naming its
 * version, build flavour and source.
 *
 * @param options.shared Use the node the run's global setup started (default true; the setup itself
 *   passes false: `inject` only works inside a test file).
 * @example
 * const es = await acquireElasticsearch()
 * const client = new Client({ nodes: es.nodes })
 * // … tests …
 * await client.close(); await es.stop()
 */
export async function acquireElasticsearch(options: { shared?: boolean } = {}): Promise<AcquiredElasticsearch> {
  const envUrl = process.env.ES_URL
  // Imported here, not at the top: the global setup imports this file, and vitest's runtime cannot load there.
  const shared = options.shared === false ? undefined : (await import('vitest')).inject('elasticsearch')
  const node: Found =
    envUrl !== undefined && envUrl !== ''
      ? { url: envUrl, source: 'ES_URL', stop: async () => {} }
      : shared !== undefined
        ? { ...shared, stop: async () => {} }
        : (await dockerEngineAnswers())
          ? await fromContainer()
          : await fromLauncher()

  let about: { version: string; flavor: string }
  try {
    about = await describeNode(node.url)
  } catch (err) {
    await node.stop()
    throw new Error(`Elasticsearch from ${node.source} at ${redact(node.url)} does not answer GET /`, { cause: err })
  }
  console.info(`[es-node] Elasticsearch ${about.version} (${about.flavor}) from ${node.source} at ${redact(node.url)}`)
  return { ...node, ...about, nodes: splitNodes(node.url) }
}

/**
 * Shards and replicas for the indices the tests create, from `SIMDUP_TEST_SHARDS` and
 * `SIMDUP_TEST_REPLICAS` (unset: the store's defaults, 1 and 0). Set them to run the suites on a
 * cluster, e.g. `SIMDUP_TEST_SHARDS=3 SIMDUP_TEST_REPLICAS=1` on three nodes. Spread into store
 * options; `testIndexSettings()` gives the same as index settings, `testIndexFlags()` as CLI flags.
 */
export function testIndexOptions(): { shards?: number; replicas?: number } {
  const read = (name: string): number | undefined => {
    const text = process.env[name]
    if (text === undefined || text === '') return undefined
    if (!/^\d+$/.test(text)) throw new Error(`${name} must be a whole number, got ${JSON.stringify(text)}`)
    return Number(text)
  }
  const shards = read('SIMDUP_TEST_SHARDS')
  const replicas = read('SIMDUP_TEST_REPLICAS')
  return { ...(shards === undefined ? {} : { shards }), ...(replicas === undefined ? {} : { replicas }) }
}

/** `testIndexOptions()` as the settings of an index a test creates itself. */
export function testIndexSettings(): { number_of_shards?: number; number_of_replicas?: number } {
  const o = testIndexOptions()
  return { ...(o.shards === undefined ? {} : { number_of_shards: o.shards }), ...(o.replicas === undefined ? {} : { number_of_replicas: o.replicas }) }
}

/** `testIndexOptions()` as `simdup index` / `simdup reindex` flags. */
export function testIndexFlags(): string[] {
  const o = testIndexOptions()
  return [...(o.shards === undefined ? [] : ['--shards', String(o.shards)]), ...(o.replicas === undefined ? [] : ['--replicas', String(o.replicas)])]
}
