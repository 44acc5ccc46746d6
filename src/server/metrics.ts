import { Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Decision, FingerprintStore } from '../index.js'

/**
 * The service's Prometheus metrics, in a registry of its own (several servers in one process
 * each count their own). Labels are bounded sets: route patterns (never a path with an id in it),
 * decision status, layer and rule. No credential or document id is ever a label.
 */
export function createMetrics(store: FingerprintStore, queueDepth: () => number) {
  const registry = new Registry()
  const documents = new Counter({
    name: 'simdup_documents_total',
    help: 'Documents decided and committed, by decision status, layer and rule (none: unique or rejected).',
    labelNames: ['status', 'layer', 'rule'] as const,
    registers: [registry],
  })
  const requests = new Histogram({
    name: 'simdup_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  })
  const commits = new Histogram({
    name: 'simdup_commit_duration_seconds',
    help: 'Group commits: time to decide and durably store one batch.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  const commitSize = new Histogram({
    name: 'simdup_commit_documents',
    help: 'Documents per group commit.',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 500],
    registers: [registry],
  })
  new Gauge({
    name: 'simdup_queue_documents',
    help: 'Documents accepted and not yet committed (the write queue).',
    registers: [registry],
    collect() {
      this.set(queueDepth())
    },
  })
  new Gauge({
    name: 'simdup_store_documents',
    help: 'Live records in the store.',
    registers: [registry],
    async collect() {
      this.set(await store.count())
    },
  })
  // The embedded store's size on disk and in memory (`MemoryStore.stats()`); Elasticsearch reports its own.
  const stats = (store as { stats?: () => { logBytes: number; tableBytes: number } }).stats
  if (typeof stats === 'function') {
    new Gauge({
      name: 'simdup_store_log_bytes',
      help: 'Bytes of the embedded store\'s log on disk.',
      registers: [registry],
      collect() {
        this.set(stats.call(store).logBytes)
      },
    })
    new Gauge({
      name: 'simdup_store_table_bytes',
      help: 'Bytes of the embedded store\'s tables in memory (typed arrays and the id arena).',
      registers: [registry],
      collect() {
        this.set(stats.call(store).tableBytes)
      },
    })
  }
  return {
    registry,
    commit(decisions: readonly Decision[], seconds: number) {
      commits.observe(seconds)
      commitSize.observe(decisions.length)
      for (const d of decisions) documents.inc({ status: d.status, layer: d.layer ?? 'none', rule: d.rule ?? 'none' })
    },
    request(method: string, route: string, status: number, seconds: number) {
      requests.observe({ method, route, status: String(status) }, seconds)
    },
  }
}

export type Metrics = ReturnType<typeof createMetrics>
