import { resolve } from 'node:path'
import { OPTION_LIMITS } from '../../index.js'
import { parseDuration } from '../../internal.js'
import {
  reindex, DEFAULT_REINDEX_OPTIONS, REINDEX_LIMITS, type ElasticsearchAuth, type ReindexOptions, type ReindexResult,
} from '../../elasticsearch/index.js'
import { parseFieldList, defaultCheckpointFile } from '../../elasticsearch/internal.js'
import type { CliIO } from '../io.js'
import { UsageError } from '../io.js'
import { parse, intFlag, kFlag, limitFlag, K_RANGE } from '../args.js'
import { createProgress, formatSeconds } from '../progress.js'
import { decidedBy } from '../summary.js'
import { DECISION_FLAGS, esFlag } from '../store-flags.js'
import { analyzerOptionsFromFlags, ANALYZER_FLAGS, ANALYZER_HELP } from '../analyzer-flags.js'

export const REINDEX_HELP = `simdup reindex --es URL --source INDEX (--dest INDEX | --in-place) [options]

Walks an existing Elasticsearch index in one global order (point in time + search_after),
decides every document against all documents before it, and writes simdup's \`dedup\` object:
into copies in --dest (created with the source's mapping plus the dedup fields), or --in-place
into the source documents (partial updates; no other field is touched). The first document of a
cluster in walk order is its representative. Progress is checkpointed after every acknowledged
batch: run the same command again to continue a stopped or killed run; a finished job is not
redone (--restart forces it).

  --source INDEX     index (or alias) to read
  --dest INDEX       write copies with dedup fields here (created if missing)
  --shards N         primary shards of a --dest this job creates: ${OPTION_LIMITS.shards.min} to ${OPTION_LIMITS.shards.max} (default: the source's)
  --replicas N       replicas of each shard of that --dest: ${OPTION_LIMITS.replicas.min} to ${OPTION_LIMITS.replicas.max} (default: the source's)
  --in-place         write the dedup fields into the source documents instead
  --fields T,C,U     source fields holding title, content, url (default title,content,url);
                     dotted paths reach nested objects; leave an entry empty for none (",body,")
  --id-field F       source field holding the id (default _id; --dest only)
  --sort FIELD       walk in ascending FIELD order (date, number or keyword): the earliest
                     document becomes the cluster's representative (default: index order)
  --slices N         parallel sliced readers, merged back into one order: ${REINDEX_LIMITS.slices.min} to ${REINDEX_LIMITS.slices.max} (default ${DEFAULT_REINDEX_OPTIONS.slices})
  --batch N          documents per batch, one lookup + write + checkpoint: ${REINDEX_LIMITS.batchSize.min} to ${REINDEX_LIMITS.batchSize.max} (${DEFAULT_REINDEX_OPTIONS.batchSize})
  --window DUR       only match documents at most DUR earlier by --sort (a date field), e.g. 7d
  --checkpoint FILE  progress file (default .simdup/reindex-<source>-<dest|in-place>.json)
  --rejects FILE     rejected documents, JSONL (default: the checkpoint with .rejects.jsonl)
  --restart          ignore the checkpoint and start over (also allows an existing --dest)
  --keep-alive T     point-in-time keep-alive; a run resumed within it continues exactly (10m)
  --k N              SimHash bits (of 64) that may differ for a near-duplicate: ${K_RANGE.replace(' (', '\n                     (')}; does not limit the url, exact and minhash routes
  --title            also match on equal, non-generic titles (off by default)
  --no-url           skip the canonical-URL layer
  --no-exact         skip the exact-content layer
  --no-minhash       no MinHash route: changes decisions (lower recall), not cost: the sketch
                     is still computed and stored
  --no-templates     keep every line: do not learn the lines on most pages of a site (its
                     template) and leave them out of later documents' fingerprints
  --workers N        worker threads for fingerprinting: ${REINDEX_LIMITS.workers.min} to ${REINDEX_LIMITS.workers.max} (default ${REINDEX_LIMITS.workers.default}: in-process)
  --quiet            no progress, no summary
${ANALYZER_HELP}
Elasticsearch:
  --es URL[,URL…]    node, or several nodes of a cluster comma-separated (env ES_URL);
                     user:pass@ in a URL is used, never shown
  --es-api-key KEY   API key (env ES_API_KEY); or env ES_USERNAME + ES_PASSWORD
  --es-ca FILE       CA certificate (PEM) for https (env ES_CA_CERT)
  Credentials given as arguments are visible in \`ps\`: prefer the environment variables.

Exit codes: 0 done (or already done), 130 stopped by Ctrl-C (run again to continue),
2 usage error or unusable source, 3 conflict (the checkpoint is held by another process or
belongs to another job, --dest exists), 4 Elasticsearch unreachable, 1 Elasticsearch refusing
(the checkpoint keeps what is done).

Example:
  simdup reindex --es http://127.0.0.1:9200 --source news --dest news-dedup \\
    --fields headline,body,link --sort published_at --slices 2`

const FLAGS = {
  es: { type: 'string' },
  'es-api-key': { type: 'string' },
  'es-ca': { type: 'string' },
  source: { type: 'string' },
  dest: { type: 'string' },
  shards: { type: 'string' },
  replicas: { type: 'string' },
  'in-place': { type: 'boolean' },
  fields: { type: 'string' },
  'id-field': { type: 'string' },
  sort: { type: 'string' },
  slices: { type: 'string' },
  batch: { type: 'string' },
  checkpoint: { type: 'string' },
  rejects: { type: 'string' },
  restart: { type: 'boolean' },
  'keep-alive': { type: 'string' },
  workers: { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  ...DECISION_FLAGS,
  ...ANALYZER_FLAGS,
} as const

/** `simdup reindex`: dedup fields for an existing Elasticsearch index. Returns the exit code. */
export async function reindexCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, FLAGS)
  if (values.help) {
    io.stdout.write(REINDEX_HELP + '\n')
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`Unexpected argument \`${positionals[0]}\`.`)
  const node = values.es ?? io.env.ES_URL
  if (node === undefined) throw new UsageError('Expected --es URL (or ES_URL): reindex reads and writes Elasticsearch.')
  esFlag(node, values.es === undefined)
  if (values.source === undefined) throw new UsageError('Expected --source INDEX.')
  if ((values.dest === undefined) === (values['in-place'] !== true)) throw new UsageError('Expected exactly one of --dest INDEX or --in-place.')
  const apiKey = values['es-api-key'] ?? io.env.ES_API_KEY
  let auth: ElasticsearchAuth | undefined
  if (apiKey !== undefined) auth = { apiKey }
  else if (io.env.ES_USERNAME !== undefined && io.env.ES_PASSWORD !== undefined) auth = { username: io.env.ES_USERNAME, password: io.env.ES_PASSWORD }
  const caFile = values['es-ca'] ?? io.env.ES_CA_CERT
  const dest = values.dest ?? null
  const checkpointFile = resolve(io.cwd, values.checkpoint ?? defaultCheckpointFile(values.source, dest))
  const workers = limitFlag(values.workers, 'workers', REINDEX_LIMITS.workers)
  const analyzer = analyzerOptionsFromFlags(values, io)

  const quiet = values.quiet === true
  const say = (text: string) => {
    if (!quiet) io.stderr.write(text)
  }
  let progress: ReturnType<typeof createProgress> | null = null
  // First Ctrl-C: finish the batch in flight, checkpoint, stop. A second one ends the process as usual.
  const abort = new AbortController()
  const onSignal = () => {
    say('\nstopping after the batch in flight (Ctrl-C again to kill; the checkpoint keeps what is done)\n')
    abort.abort()
  }
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  const options: ReindexOptions = {
    node,
    source: values.source,
    ...(dest === null ? { inPlace: true } : { dest }),
    ...(values.shards === undefined ? {} : { shards: limitFlag(values.shards, 'shards', OPTION_LIMITS.shards) }),
    ...(values.replicas === undefined ? {} : { replicas: limitFlag(values.replicas, 'replicas', OPTION_LIMITS.replicas) }),
    ...(auth === undefined ? {} : { auth }),
    ...(caFile === undefined ? {} : { caFile: resolve(io.cwd, caFile) }),
    ...(values.fields === undefined ? {} : { fields: parseFieldList(values.fields) }),
    ...(values['id-field'] === undefined ? {} : { idField: values['id-field'] }),
    ...(values.sort === undefined ? {} : { sort: values.sort }),
    ...(values.window === undefined ? {} : { windowMs: parseDuration(values.window) }),
    ...(values['keep-alive'] === undefined ? {} : { keepAlive: values['keep-alive'] }),
    slices: intFlag(values.slices, 'slices', DEFAULT_REINDEX_OPTIONS.slices, REINDEX_LIMITS.slices.min, REINDEX_LIMITS.slices.max),
    batchSize: limitFlag(values.batch, 'batch', REINDEX_LIMITS.batchSize),
    checkpointFile,
    rejectsFile: values.rejects === undefined ? checkpointFile.replace(/(\.json)?$/, '.rejects.jsonl') : resolve(io.cwd, values.rejects),
    restart: values.restart === true,
    workers,
    dedup: {
      maxDistance: kFlag(values.k),
      // Plain options (no Analyzer instance), so worker threads can rebuild the same analyzer.
      analyzer,
      layers: { url: !values['no-url'], exact: !values['no-exact'], title: values.title === true },
      minhash: values['no-minhash'] !== true,
      templates: values['no-templates'] !== true,
    },
    signal: abort.signal,
    log: (message) => say(`${message}\n`),
    onProgress: (p) => {
      // Rate and ETA cover this process's share: a resumed run starts with the earlier counts.
      // Made at the first report (the total comes with it), so it starts its clock where the job did.
      progress ??= createProgress({ write: say, isTTY: io.stderr.isTTY === true, total: Math.max(0, p.total - p.docsAtStart), label: 'reindexed', elapsedMs: p.elapsedMs })
      progress.update(p.counts.docs - p.docsAtStart, p.counts.docs - p.docsAtStart)
    },
  }

  let result: ReindexResult
  try {
    result = await reindex(options)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
  }
  ;(progress as ReturnType<typeof createProgress> | null)?.finish()
  if (!quiet) io.stderr.write(formatReindexSummary(result) + '\n')
  return result.status === 'stopped' && abort.signal.aborted ? 130 : 0
}

/** The end-of-run summary: counts by layer, largest clusters, rejects, elapsed time and rate. */
export function formatReindexSummary(r: ReindexResult): string {
  const c = r.counts
  const layers = decidedBy(c.byLayer, c.byRule)
  const lines: string[] = []
  const how = [r.reader ?? '', r.resumed === null ? '' : `resumed (${r.resumed})`].filter(Boolean).join(', ')
  if (r.status === 'already-done') lines.push(`already done: this job finished earlier (checkpoint ${r.checkpointFile}); nothing written. Use --restart to run it again.`)
  else if (r.status === 'stopped') lines.push(`stopped after ${r.batches} batches; run the same command again to continue.`)
  lines.push(`target ${r.target}${how === '' ? '' : ` (${how})`}: ${c.docs} of ${r.total} source documents decided`)
  lines.push(
    `docs ${c.docs}  unique ${c.unique}  duplicates ${c.duplicates}${layers === '' ? '' : ` (${layers})`}  clusters ${r.clusters}  rejected ${c.rejected}` +
      (c.skipped > 0 ? `  skipped ${c.skipped}` : '') +
      (c.copied > 0 ? `  copied ${c.copied}` : ''),
  )
  if (r.topClusters.length > 0) lines.push(`largest clusters: ${r.topClusters.map((t) => `${t.clusterId} (${t.size})`).join(', ')}`)
  if (c.rejected > 0 && r.rejectsFile !== null) lines.push(`rejects: ${r.rejectsFile}`)
  if (r.status !== 'already-done') lines.push(`${formatSeconds(r.elapsedMs / 1000)} elapsed, ${Math.round(r.docsPerSecond)} docs/s`)
  return lines.join('\n')
}
