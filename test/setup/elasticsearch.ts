/**
 * Vitest global setup of the integration project: one Elasticsearch node for the whole test run.
 *
 * With `ES_URL` set (CI, `.ci/run`, or a node you started), it does nothing: every test file uses
 * that node and nobody stops it. Otherwise it finds or starts one (a testcontainers container when
 * a Docker engine answers, else the launcher node of scripts/es-start.sh on `ES_PORT`) before the
 * first file, hands its URL to the test files (`acquireElasticsearch()` reads it with vitest's
 * `inject`), and stops it after the last file (only if this run started it; see
 * test/helpers/es-node.ts). Before, each file acquired the node and the last file holding it
 * stopped it, so files that did not overlap restarted it several times a run.
 */
import type { TestProject } from 'vitest/node'
import { acquireElasticsearch } from '../helpers/es-node.js'

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if ((process.env.ES_URL ?? '') !== '') return undefined
  const es = await acquireElasticsearch({ shared: false })
  project.provide('elasticsearch', { url: es.url, source: es.source })
  return async () => {
    await es.stop()
  }
}
