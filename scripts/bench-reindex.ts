/**
 * Wall time of `simdup reindex --dest` on the bench corpus (the Debian corpus, ~7,300 documents)
 * loaded into a source index, for one or more builds of simdup (their `bin/simdup.js`) taken in
 * turn every round, so that two versions of the code compare on the same node under the same load
 * (medians over rounds). It also checks that every build wrote the same decisions: the `dedup`
 * fields (cluster, duplicate of, layer, distance, fingerprint) of every copy must be equal.
 *
 *   npx tsx scripts/bench-reindex.ts --es http://127.0.0.1:9200 [--bin a/bin/simdup.js,b/bin/simdup.js]
 *     [--rounds 3] [--workers 1] [--batch 500] [--json FILE]
 *
 * Indices are named after this process (`bench-reindex-<pid>-…`) and deleted at the end.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { Client } from '@elastic/elasticsearch'
import { loadCorpus } from './corpus/load.js'

const { values } = parseArgs({
  options: {
    es: { type: 'string' },
    bin: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    workers: { type: 'string', default: '1' },
    batch: { type: 'string', default: '500' },
    json: { type: 'string' },
  },
})
const node = values.es ?? process.env.ES_URL
if (node === undefined) throw new Error('Expected --es URL (or ES_URL).')
const bins = (values.bin ?? new URL('../bin/simdup.js', import.meta.url).pathname).split(',').map((b) => resolve(b))
const rounds = Number(values.rounds)
const client = new Client({ node })
const prefix = `bench-reindex-${process.pid}`
const source = `${prefix}-source`
const dir = mkdtempSync(join(tmpdir(), 'simdup-bench-reindex-'))

const corpus = await loadCorpus({ log: (l) => console.error(l) })
await client.indices.create({ index: source, settings: { number_of_shards: 1, number_of_replicas: 0 } })
for (let i = 0; i < corpus.length; i += 500) {
  const operations = corpus.slice(i, i + 500).flatMap((d, k) => [
    { index: { _index: source, _id: d.id } },
    // A date per document in corpus order, so that --sort walks the corpus order.
    { title: d.title, content: d.content, published: new Date(Date.UTC(2020, 0, 1) + (i + k) * 60_000).toISOString() },
  ])
  const res = await client.bulk({ operations })
  if (res.errors) throw new Error('bulk load of the source failed')
}
await client.indices.refresh({ index: source })
console.error(`source ${source}: ${corpus.length} documents; ${bins.length} build(s), ${rounds} round(s), --workers ${values.workers}`)

/** The decision fields of every copy in `index`, by id. */
async function decisionsOf(index: string): Promise<Map<string, string>> {
  await client.indices.refresh({ index })
  const out = new Map<string, string>()
  // A point in time walked in `_shard_doc` order (sorting on `_id` needs fielddata, off by default).
  const pit = await client.openPointInTime({ index, keep_alive: '1m' })
  let after: (string | number)[] | undefined
  try {
    for (;;) {
      const res = await client.search<{ dedup?: Record<string, unknown> }>({
        pit: { id: pit.id, keep_alive: '1m' }, size: 2000, sort: ['_shard_doc'] as never, _source: ['dedup'], ...(after === undefined ? {} : { search_after: after }),
      })
      const hits = res.hits.hits
      if (hits.length === 0) break
      for (const h of hits) {
        const x = h._source?.dedup
        out.set(h._id!, x === undefined ? 'none' : JSON.stringify([x.cluster_id, x.duplicate_of, x.layer, x.distance, x.simhash]))
      }
      after = hits[hits.length - 1]!.sort as (string | number)[]
    }
  } finally {
    await client.closePointInTime({ id: pit.id }).catch(() => undefined)
  }
  return out
}

const times: number[][] = bins.map(() => [])
let reference: Map<string, string> | null = null
const mismatches: string[] = []
const created: string[] = []
try {
  for (let r = 0; r < rounds; r++) {
    for (const [b, bin] of bins.entries()) {
      const dest = `${prefix}-dest-${b}-${r}`
      const checkpoint = join(dir, `${dest}.json`)
      created.push(dest)
      const t0 = performance.now()
      const run = spawnSync(process.execPath, [
        bin, 'reindex', '--es', node, '--source', source, '--dest', dest, '--sort', 'published', '--quiet',
        '--workers', values.workers, '--batch', values.batch, '--checkpoint', checkpoint,
      ], { encoding: 'utf8' })
      const seconds = (performance.now() - t0) / 1000
      if (run.status !== 0) throw new Error(`${bin} exited ${run.status}: ${run.stderr}`)
      times[b]!.push(seconds)
      const got = await decisionsOf(dest)
      if (reference === null) reference = got
      else {
        const differ = [...reference].filter(([id, d]) => got.get(id) !== d).length + (got.size !== reference.size ? 1 : 0)
        if (differ > 0) mismatches.push(`${bin} round ${r + 1}: ${differ} document(s) differ from the first run`)
      }
      console.error(`round ${r + 1} build ${b + 1}: ${seconds.toFixed(1)} s`)
      await client.indices.delete({ index: dest }).catch(() => undefined)
    }
  }
} finally {
  for (const index of [source, ...created]) await client.indices.delete({ index }, { ignore: [404] }).catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const rows = bins.map((bin, b) => ({ bin, seconds: times[b]!, median: median(times[b]!), docsPerSecond: Math.round(corpus.length / median(times[b]!)) }))
console.log('| build | median s | docs/s | runs (s) |\n|---|---|---|---|')
for (const row of rows) console.log(`| ${row.bin} | ${row.median.toFixed(1)} | ${row.docsPerSecond} | ${row.seconds.map((s) => s.toFixed(1)).join(', ')} |`)
console.log(mismatches.length === 0 ? `decisions: identical in every run (${reference?.size ?? 0} documents)` : `decisions differ:\n${mismatches.join('\n')}`)
if (values.json !== undefined) writeFileSync(values.json, JSON.stringify({ documents: corpus.length, workers: Number(values.workers), rows, mismatches }, null, 2))
if (mismatches.length > 0) process.exitCode = 1
