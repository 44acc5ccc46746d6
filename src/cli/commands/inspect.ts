import {
  createDeduplicator, OPTION_LIMITS, deleteDocuments, fingerprintToHex, hamming, reconcile, type FingerprintRecord, type FingerprintStore,
} from '../../index.js'
import { compareOrder, explainDocuments, terminalSafeJson, matchCandidate } from '../../internal.js'
import type { CliIO } from '../io.js'
import { UsageError, printable } from '../io.js'
import { parse, intFlag, kFlag, limitFlag, DEFAULT_K, K_RANGE } from '../args.js'
import { describeStore, openStoreFromFlags, STORE_FLAGS, STORE_HELP } from '../store-flags.js'
import { createProgress } from '../progress.js'

const COMMON = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, k: { type: 'string' }, 'text-field': { type: 'string' }, ...STORE_FLAGS } as const

export const INSPECT_HELP = {
  clusters: `simdup clusters [--top 20] [--min-size 2] [--json] [store flags]\n\nThe largest clusters (terms aggregation on cluster_id in Elasticsearch).\n\n  --top N            clusters shown: 1 to 10000 (default 20)\n  --min-size N       smallest cluster shown: 1 or more (default 2)\n  --json             one JSON object instead of text\n\nReads only: creates, locks and repairs nothing.\nExit codes: 0 shown, 2 no store in --store (or no --index).\n\n${STORE_HELP}`,
  cluster: `simdup cluster <ID> [--json] [--limit 1000] [--text-field content] [store flags]\n\nMembers of a cluster (its size, and how many are shown): id, distance to the representative,\nwhat decided it (its layer, or for a near-duplicate its rule and resemblance) and what it is a\nduplicate of; for members with a URL, the earlier version each supersedes and whether it is its URL's newest,
then the versions of ID's URL, newest first. ID is the cluster's id or the id of any member (its
cluster is shown). The embedded store\nkeeps fingerprints, not texts: texts side by side only on Elasticsearch, when the documents\ncarry the text field (--text-field, default content).\n\n  --limit N          members shown: 1 to 10000 (default 1000)\n  --text-field F     Elasticsearch source field with the text (default content)\n  --json             one JSON object instead of text\n\nReads only: creates, locks and repairs nothing.\nExit codes: 0 shown, 2 no such cluster or document, or no store in --store (or no --index).\n\n${STORE_HELP}`,
  explain: `simdup explain <A> <B> [--json] [--k ${DEFAULT_K}] [store flags]\n\nWhy two stored documents are (not) duplicates: the decision \`simdup index\` makes for the later\none against the earlier (layer, rule, distance, term-set or shingle resemblance), and clusters;\nfor two documents of one URL, whether the later supersedes the earlier, and the URL's newest.\n\n  --k N              SimHash bits (of 64) that may differ: ${K_RANGE}; limits the simhash\n                     and short-text rules, not the url, exact and minhash routes\n  --text-field F     Elasticsearch source field with the text, for its length (default content)\n  --json             one JSON object instead of text\n\nReads only: creates, locks and repairs nothing.\nExit codes: 0 explained, 2 an id is not in the store, or no store in --store (or no --index).\n\n${STORE_HELP}`,
  delete: `simdup delete <ID>... [--json] [store flags]\n\nDeletes documents; a deleted representative hands its cluster to the earliest remaining member.\n\n  --json             one JSON object instead of text\n\nExit codes: 0 all deleted, 2 some ids were not in the store (they are named; the others are deleted).\n\n${STORE_HELP}`,
  reconcile: `simdup reconcile [--k ${DEFAULT_K}] [--batch ${OPTION_LIMITS.pageSize.default}] [--json] [store flags]\n\nRe-decides every stored record as one sequential run would: its best match among the records\nfirst indexed before it, and that match's cluster. Merges clusters two indexers writing at once\nleft apart and repairs forward pointers. Two passes over the store. Idempotent.\n\n  --k N              SimHash bits (of 64) that may differ: ${K_RANGE}\n  --batch N          records per lookup: ${OPTION_LIMITS.pageSize.min} to ${OPTION_LIMITS.pageSize.max} (default ${OPTION_LIMITS.pageSize.default})\n  --json             one JSON object instead of text\n\n${STORE_HELP}`,
}

/** Opens the store for a command; the store must exist (delete, reconcile and the read commands never create one). */
async function withStore<T>(values: Parameters<typeof openStoreFromFlags>[0], io: CliIO, fn: (store: FingerprintStore, kind: string) => Promise<T>, readOnly = false): Promise<T> {
  const { store, kind } = await openStoreFromFlags(values, io, { readOnly, existing: true })
  try {
    return await fn(store, kind)
  } finally {
    await store.close()
  }
}

/** `withStore` for commands that only read: nothing is created, locked or repaired; a missing store or index is NOT_FOUND. */
async function withStoreReadOnly<T>(values: Parameters<typeof openStoreFromFlags>[0], io: CliIO, fn: (store: FingerprintStore, kind: string) => Promise<T>): Promise<T> {
  return withStore(values, io, fn, true)
}

/** Texts of documents from an Elasticsearch index's _source (empty for the embedded store). */
export async function fetchTexts(store: FingerprintStore, ids: string[], field: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  const es = store as FingerprintStore & { client?: { mget(a: object): Promise<{ docs: { _id: string; found?: boolean; _source?: Record<string, unknown> }[] }> }; options?: { index: string } }
  if (es.client === undefined || es.options === undefined || ids.length === 0) return out
  const res = await es.client.mget({ index: es.options.index, ids, _source: [field] })
  for (const d of res.docs) {
    const v = d._source?.[field]
    if (typeof v === 'string') out.set(d._id, v)
  }
  return out
}

/** Versions of a URL `simdup cluster` lists at most. */
const VERSIONS_SHOWN = 20

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s).replace(/\s+/g, ' ')

/** `simdup clusters`. */
export async function clustersCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parse(args, { ...COMMON, top: { type: 'string' }, 'min-size': { type: 'string' } })
  if (values.help) return void io.stdout.write(INSPECT_HELP.clusters + '\n'), 0
  const top = intFlag(values.top, 'top', 20, 1, 10_000)
  const minSize = intFlag(values['min-size'], 'min-size', 2, 1, 1_000_000_000)
  return withStoreReadOnly(values, io, async (store) => {
    await store.refresh()
    const clusters = await store.topClusters(top, minSize)
    if (values.json) io.stdout.write(terminalSafeJson({ clusters, documents: await store.count() }) + '\n')
    else {
      io.stdout.write(`${'size'.padStart(8)}  cluster\n`)
      for (const c of clusters) io.stdout.write(`${String(c.size).padStart(8)}  ${printable(c.clusterId)}\n`)
      if (clusters.length === 0) io.stdout.write(`(no cluster with at least ${minSize} members)\n`)
    }
    return 0
  })
}

/** `simdup cluster ID`. */
export async function clusterCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { ...COMMON, limit: { type: 'string' } })
  if (values.help) return void io.stdout.write(INSPECT_HELP.cluster + '\n'), 0
  if (positionals.length !== 1) throw new UsageError('Expected one id (of a cluster or of any of its members).')
  const id = positionals[0]!
  const limit = intFlag(values.limit, 'limit', 1000, 1, 10_000)
  return withStoreReadOnly(values, io, async (store, kind) => {
    await store.refresh()
    let clusterId = id
    let members = await store.members(id, limit)
    if (members.length === 0) {
      // The id of a member: show its cluster.
      const record = (await store.get([id])).get(id)
      if (record !== undefined) {
        clusterId = record.clusterId
        members = await store.members(clusterId, limit)
        if (!values.json) io.stdout.write(`${printable(id)} is a member of cluster ${printable(clusterId)}\n`)
      }
    }
    if (members.length === 0) {
      io.stderr.write(`simdup cluster: no cluster or document \`${printable(id)}\` in the ${describeStore(values, io)} (ids of clusters: simdup clusters)\n`)
      return 2
    }
    members.sort(compareOrder)
    const size = members.length < limit ? members.length : await store.clusterSize(clusterId)
    const rep = members.find((m) => m.id === clusterId) ?? members[0]!
    const rules = await memberRules(store, members, kFlag(values.k))
    const texts = await fetchTexts(store, members.map((m) => m.id), values['text-field'] ?? 'content')
    // Versions: the newest record of each member's URL, and the history of the asked document's URL.
    const urls = [...new Set(members.map((m) => m.urlHash).filter((h): h is string => h !== null))]
    const newestOf = new Map<string, string>()
    if (urls.length > 0) (await store.byUrl(urls, 1)).forEach((list, i) => list[0] !== undefined && newestOf.set(urls[i]!, list[0].id))
    const asked = members.find((m) => m.id === id) ?? rep
    const history = asked.urlHash === null ? [] : (await store.byUrl([asked.urlHash], VERSIONS_SHOWN))[0]!
    const rows = members.map((m) => ({
      id: m.id,
      representative: m.id === rep.id,
      duplicateOf: m.duplicateOf,
      layer: m.layer,
      rule: rules.get(m.id)?.rule ?? null,
      resemblance: rules.get(m.id)?.resemblance ?? null,
      distanceToRepresentative: hamming(m.fingerprint, rep.fingerprint),
      simhash: fingerprintToHex(m.fingerprint),
      indexedAt: new Date(m.indexedAt).toISOString(),
      text: texts.get(m.id) ?? null,
      supersedes: m.supersedes ?? null,
      newestVersion: m.urlHash === null ? null : newestOf.get(m.urlHash) ?? null,
    }))
    const versions = history.map((v, i) => ({ id: v.id, newest: i === 0, supersedes: v.supersedes ?? null, clusterId: v.clusterId, duplicateOf: v.duplicateOf }))
    if (values.json) {
      io.stdout.write(terminalSafeJson({ clusterId, size, shown: members.length, members: rows, versionsOf: asked.id, versions }) + '\n')
      return 0
    }
    io.stdout.write(`cluster ${printable(clusterId)}: ${size} member(s)${size > members.length ? `, showing ${members.length} (--limit N shows more)` : ''}\n`)
    const repText = texts.get(rep.id)
    for (const r of rows) {
      const version = r.supersedes === null ? '' : `  supersedes ${printable(r.supersedes)}`
      const older = r.newestVersion === null || r.newestVersion === r.id ? '' : `  (older version; newest ${printable(r.newestVersion)})`
      const by = r.layer === null ? 'first' : r.rule === null ? r.layer : `${r.rule}${r.resemblance === null ? '' : ` ${r.resemblance.toFixed(2)}`}`
      const head = `${r.representative ? '*' : ' '} ${printable(r.id).padEnd(24)} d=${String(r.distanceToRepresentative).padStart(2)} ${by.padEnd(15)} ${r.duplicateOf === null ? '' : `dup of ${printable(r.duplicateOf)}`}${version}${older}`
      io.stdout.write(head.trimEnd() + '\n')
      if (r.text !== null && repText !== undefined && !r.representative) {
        io.stdout.write(`    rep │ ${printable(clip(repText, 60))}\n    doc │ ${printable(clip(r.text, 60))}\n`)
      }
    }
    if (texts.size === 0) io.stdout.write(noTextsNote(kind, values.index ?? 'simdup', values['text-field'] ?? 'content'))
    if (versions.length > 1) {
      io.stdout.write(`versions of ${printable(asked.id)}'s URL, newest first${versions.length === VERSIONS_SHOWN ? ` (the ${VERSIONS_SHOWN} newest)` : ''}:\n`)
      for (const v of versions) {
        const what = v.supersedes !== null ? `supersedes ${printable(v.supersedes)}` : v.duplicateOf !== null ? `same text as ${printable(v.duplicateOf)}` : 'first'
        io.stdout.write(`  ${v.newest ? 'newest' : '      '} ${printable(v.id).padEnd(24)} ${what}${v.clusterId === clusterId ? '' : `  (cluster ${printable(v.clusterId)})`}\n`)
      }
    }
    return 0
  })
}

/**
 * The rule that made each simhash-layer member a duplicate of its `duplicateOf`, and its evidence,
 * verified again as `explain` does (records keep the layer, not the rule): the members hold most
 * targets; the others are read in one `get`. Members whose match no longer verifies (another
 * --k than the index's) get none.
 */
async function memberRules(store: FingerprintStore, members: readonly FingerprintRecord[], k: number): Promise<Map<string, { rule: string | null; resemblance: number | null }>> {
  const out = new Map<string, { rule: string | null; resemblance: number | null }>()
  const byId = new Map(members.map((m) => [m.id, m]))
  const near = members.filter((m) => m.layer === 'simhash' && m.duplicateOf !== null)
  const missing = [...new Set(near.map((m) => m.duplicateOf!).filter((id) => !byId.has(id)))]
  if (missing.length > 0) for (const [id, r] of await store.get(missing)) byId.set(id, r)
  const options = createDeduplicator({ store, maxDistance: k }).options
  for (const m of near) {
    const target = byId.get(m.duplicateOf!)
    const match = target === undefined ? null : matchCandidate(m, target, options)
    if (match !== null && match.layer === 'simhash') out.set(m.id, { rule: match.rule, resemblance: match.resemblance })
  }
  return out
}

/**
 * Why `cluster` shows no texts, by store: the embedded store keeps fingerprints only; an
 * Elasticsearch index `simdup index --es` wrote holds dedup records only (no text, nothing for a
 * search to find). The paths to a searchable content index with dedup fields: reindex, or the
 * library's store with `ensureIndex: 'add-fields'` on the content index.
 */
export function noTextsNote(kind: string, index: string, field: string): string {
  if (kind !== 'elasticsearch') return '(no texts: the embedded store keeps fingerprints only; on Elasticsearch, documents with a `content` field show their texts side by side)\n'
  return `(no texts: the documents of index \`${printable(index)}\` have no \`${printable(field)}\` field. \`simdup index --es\` stores dedup records only, not the texts, so this index is not searchable by content. ` +
    'For a content index with dedup fields, run `simdup reindex` on the index that holds your documents, or index them yourself and ' +
    "write the dedup fields with the library's Elasticsearch store and `ensureIndex: 'add-fields'`; --text-field names another text field)\n"
}

/** `simdup explain A B`. */
export async function explainCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, COMMON)
  if (values.help) return void io.stdout.write(INSPECT_HELP.explain + '\n'), 0
  if (positionals.length !== 2) throw new UsageError('Expected two document ids.')
  const k = kFlag(values.k)
  return withStoreReadOnly(values, io, async (store) => {
    await store.refresh()
    const [ida, idb] = positionals as [string, string]
    const { report, missing } = await explainDocuments(store, ida, idb, { maxDistance: k })
    if (report === null) {
      io.stderr.write(`simdup explain: not in the ${describeStore(values, io)}: ${missing.map(printable).join(', ')}\n`)
      return 2
    }
    const texts = await fetchTexts(store, [ida, idb], values['text-field'] ?? 'content')
    if (values.json) {
      io.stdout.write(terminalSafeJson({ ...report, textLengths: texts.size === 2 ? [texts.get(ida)!.length, texts.get(idb)!.length] : null }) + '\n')
      return 0
    }
    io.stdout.write(report.lines.map(printable).join('\n') + '\n')
    if (texts.size === 2) {
      // compare takes texts or @files: say how to get the two texts into files, with this index's names.
      const field = values['text-field'] ?? 'content'
      io.stdout.write(`texts        ${texts.get(ida)!.length} / ${texts.get(idb)!.length} chars (to compare them term by term, save each document's \`${printable(field)}\` to a file, e.g. a.txt and b.txt, then: simdup compare @a.txt @b.txt)\n`)
    }
    return 0
  })
}

/** `simdup delete ID...`. */
export async function deleteCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, COMMON)
  if (values.help) return void io.stdout.write(INSPECT_HELP.delete + '\n'), 0
  if (positionals.length === 0) throw new UsageError('Expected at least one id.')
  return withStore(values, io, async (store) => {
    await store.refresh()
    const found = await store.get(positionals)
    const notFound = [...new Set(positionals.filter((id) => !found.has(id)))]
    const result = await deleteDocuments(createDeduplicator({ store }), positionals)
    io.stdout.write(values.json ? terminalSafeJson({ ...result, notFound }) + '\n' : `deleted ${result.deleted}, re-pointed ${result.reassigned} record(s)\n`)
    if (notFound.length === 0) return 0
    io.stderr.write(`simdup delete: not in the ${describeStore(values, io)}: ${notFound.map(printable).join(', ')}\n`)
    return 2
  })
}

/** `simdup reconcile`. */
export async function reconcileCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parse(args, { ...COMMON, batch: { type: 'string' } })
  if (values.help) return void io.stdout.write(INSPECT_HELP.reconcile + '\n'), 0
  const k = kFlag(values.k)
  const batchSize = limitFlag(values.batch, 'batch', OPTION_LIMITS.pageSize)
  return withStore(values, io, async (store) => {
    const total = await store.count()
    // Two passes over the store (find matches, then rewrite).
    const progress = createProgress({ write: (t) => io.stderr.write(t), isTTY: io.stderr.isTTY === true, total: 2 * total, label: 'scanned' })
    const result = await reconcile(createDeduplicator({ store, maxDistance: k }), { batchSize, onProgress: (n) => progress.update(n, n) })
    progress.finish()
    io.stdout.write(values.json ? terminalSafeJson(result) + '\n' : `scanned ${result.scanned}, pairs ${result.pairs}, forward pointers ${result.forwardPointers}, merged clusters ${result.mergedClusters}, version links ${result.versions}, updated ${result.updated}\n`)
    return 0
  })
}
