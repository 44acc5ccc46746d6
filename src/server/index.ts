/**
 * `simdup/server`: deduplication as an HTTP service (what `simdup serve` runs), for programs that
 * start it themselves. docs/SERVER.md.
 * @example
 * import { createDeduplicator, openMemoryStore } from 'simdup'
 * import { createServer } from 'simdup/server'
 * const server = await createServer({ dedup: createDeduplicator({ store: await openMemoryStore({ dir: '.simdup' }) }) })
 * await server.app.listen({ host: '127.0.0.1', port: 8080 })
 */
export { createServer, DEFAULT_SERVER_OPTIONS, type Server, type ServerOptions } from './app.js'
export { TextKeeper } from './texts.js'
export { HTTP_STATUS, type ErrorBody } from './errors.js'
export type { TextSource } from './inspect.js'
export { sharedPassages, type Span } from './passages.js'
