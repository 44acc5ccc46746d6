/**
 * The indices an Elasticsearch test file creates, and admin calls with plain fetch (tests stay off
 * the client the store wraps). Names carry the process id, so test files running at once on one
 * shared node never touch each other's indices; `drop` deletes this file's after each test.
 */

/** The URL without `user:pass@` (a testcontainers node carries credentials in it). */
export function withoutCredentials(url: string): URL {
  const u = new URL(url)
  u.username = ''
  u.password = ''
  return u
}

/**
 * One admin call to `node` with plain fetch: credentials in the URL become a Basic header (fetch
 * refuses URLs with credentials). `json` is null for an empty answer.
 * @example await esAdmin(es.nodes[0]!, 'GET', `/${index}/_mapping`)
 */
export async function esAdmin(node: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const u = new URL(node)
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (u.username !== '') headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`
  const res = await fetch(new URL(path, withoutCredentials(node)), { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  const text = await res.text()
  return { status: res.status, json: text === '' ? null : (JSON.parse(text) as unknown) }
}

/** Index names `<prefix>-<pid>-<n>` handed out by this file, deleted by `drop`. */
export class TestIndices {
  /** Names handed out (or pushed by the test) since the last `drop`. */
  readonly created: string[] = []
  private n = 0

  /** `node`: the node's URL, asked when needed (the node is acquired in `beforeAll`). */
  constructor(private readonly node: () => string, private readonly prefix: string) {}

  /** A fresh index name, to be deleted by the next `drop`. */
  next(): string {
    const name = `${this.prefix}-${process.pid}-${++this.n}`
    this.created.push(name)
    return name
  }

  /** `esAdmin` on this file's node. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    return esAdmin(this.node(), method, path, body)
  }

  /** Deletes every index in `created` (an absent one is fine), for `afterEach`. */
  async drop(): Promise<void> {
    for (const index of this.created.splice(0)) {
      const { status } = await this.admin('DELETE', `/${index}`)
      if (status !== 200 && status !== 404) throw new Error(`deleting ${index} answered ${status}`)
    }
  }
}
