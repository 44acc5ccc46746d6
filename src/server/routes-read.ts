import type { FastifyInstance } from 'fastify'
import { DEFAULT_DEDUPLICATOR_OPTIONS, type Deduplicator } from '../index.js'
import { compareAnalyses, decideTexts, explainDocuments, guaranteedDistance, ruleEvidence } from '../internal.js'
import { HttpError } from './errors.js'
import { clusterView, histogram, recordView, type Histogram, type TextSource } from './inspect.js'
import { sharedPassages } from './passages.js'
import { CLUSTER_QUERY, CLUSTERS_QUERY, COMPARE_BODY, ERROR_RESPONSES, EXPLAIN_QUERY, ID_PARAMS } from './schemas.js'
import type { WriteQueue } from './write-queue.js'

/** Texts longer than this are cut in a pair view (the page shows them whole up to here). */
const PAIR_TEXT_CHARS = 200_000
/** A histogram is computed again when older than this, or after writes. */
const HISTOGRAM_TTL_MS = 10_000

/** The API's reads, compare and delete (writes: `POST /v1/documents` in app.ts). */
export async function readRoutes(app: FastifyInstance, ctx: { dedup: Deduplicator; queue: WriteQueue; texts: TextSource | null }): Promise<void> {
  const { dedup, queue, texts } = ctx
  const store = dedup.options.store
  const maxK = guaranteedDistance(dedup.options.blockScheme)
  const checkK = (k: number | undefined): number => {
    if (k === undefined) return dedup.options.maxDistance
    if (k > maxK) throw new HttpError(400, 'INVALID_OPTION', `Expected \`k\` to be an integer from 0 to ${maxK}, got \`${k}\`: with this store's block scheme the index finds every pair up to ${maxK} bits apart, not beyond.`)
    return k
  }

  app.get<{ Params: { id: string } }>('/v1/documents/:id', {
    schema: { summary: 'A stored document\'s record: its decision, cluster and fingerprint', params: ID_PARAMS, response: ERROR_RESPONSES },
  }, async (req) => {
    const record = (await queue.read(() => store.get([req.params.id]))).get(req.params.id)
    if (record === undefined) throw new HttpError(404, 'NOT_FOUND', `No document \`${req.params.id}\` in the store.`)
    return recordView(record)
  })

  app.delete<{ Params: { id: string } }>('/v1/documents/:id', {
    schema: { summary: 'Delete a document; its cluster elects a new representative if it was one', params: ID_PARAMS, response: ERROR_RESPONSES },
  }, async (req) => {
    const { id } = req.params
    if (!(await queue.read(() => store.get([id]))).has(id)) throw new HttpError(404, 'NOT_FOUND', `No document \`${id}\` in the store.`)
    return queue.delete([id])
  })

  app.post<{ Body: { a: string; b: string; k?: number; minhash?: boolean } }>('/v1/compare', {
    schema: { summary: 'The decision indexing makes for text b against text a (as `simdup compare --json`)', body: COMPARE_BODY, response: ERROR_RESPONSES },
  }, async (req) => {
    const k = checkK(req.body.k)
    const analyzer = dedup.options.analyzer
    const a = analyzer.analyze(req.body.a)
    const b = analyzer.analyze(req.body.b)
    const match = decideTexts(a, b, analyzer, { maxDistance: k, minhash: req.body.minhash !== false })
    // The rule the pair goes to, its resemblance and effective threshold, as `simdup compare --json` gives.
    const evidence = ruleEvidence(b.sketch, a.sketch, { analyzer, minResemblance: DEFAULT_DEDUPLICATOR_OPTIONS.minResemblance })
    return { ...compareAnalyses(a, b), k, nearDuplicate: match !== null, layer: match?.layer ?? null, rule: match?.rule ?? null, resemblance: match?.resemblance ?? null, evidence }
  })

  app.get<{ Querystring: { a: string; b: string; k?: number; texts?: boolean } }>('/v1/explain', {
    schema: { summary: 'Why two stored documents are (not) duplicates (as `simdup explain --json`)', querystring: EXPLAIN_QUERY, response: ERROR_RESPONSES },
  }, async (req) => {
    const { a, b } = req.query
    const k = checkK(req.query.k)
    await store.refresh()
    const { report, missing } = await queue.read(() => explainDocuments(store, a, b, { maxDistance: k }))
    if (report === null) throw new HttpError(404, 'NOT_FOUND', `Not in the store: ${missing.map((m) => `\`${m}\``).join(', ')}.`)
    const known = texts === null ? new Map<string, string>() : await texts([a, b])
    const ta = known.get(a)
    const tb = known.get(b)
    const both = ta !== undefined && tb !== undefined
    const out = { ...report, textLengths: both ? [ta.length, tb.length] : null }
    if (req.query.texts !== true) return out
    const cut = (t: string | undefined) => (t === undefined ? null : t.slice(0, PAIR_TEXT_CHARS))
    const shown = { a: cut(ta), b: cut(tb) }
    return { ...out, texts: shown, passages: shown.a !== null && shown.b !== null ? sharedPassages(shown.a, shown.b) : null }
  })

  app.get<{ Querystring: { top: number; min_size: number } }>('/v1/clusters', {
    schema: { summary: 'The largest clusters (as `simdup clusters --json`)', querystring: CLUSTERS_QUERY, response: ERROR_RESPONSES },
  }, async (req) => {
    await store.refresh()
    return queue.read(async () => ({ clusters: await store.topClusters(req.query.top, req.query.min_size), documents: await store.count() }))
  })

  app.get<{ Params: { id: string }; Querystring: { limit: number } }>('/v1/clusters/:id', {
    schema: { summary: 'A cluster\'s members (by the cluster\'s id or any member\'s), with the evidence of each decision', params: ID_PARAMS, querystring: CLUSTER_QUERY, response: ERROR_RESPONSES },
  }, async (req) => {
    await store.refresh()
    const view = await queue.read(() => clusterView(store, dedup, req.params.id, req.query.limit, texts))
    if (view === null) throw new HttpError(404, 'NOT_FOUND', `No cluster or document \`${req.params.id}\` in the store.`)
    return view
  })

  let cached: { at: number; commits: number; value: Promise<Histogram> } | null = null
  app.get('/v1/histogram', {
    schema: { summary: 'Distances (by layer) and MinHash resemblances of every stored duplicate to what it duplicates', response: ERROR_RESPONSES },
  }, async () => {
    const commits = dedup.stats.snapshot().docs
    if (cached === null || cached.commits !== commits || Date.now() - cached.at > HISTOGRAM_TTL_MS) {
      await store.refresh()
      const value = queue.read(() => histogram(store))
      value.catch(() => (cached = null))
      cached = { at: Date.now(), commits, value }
    }
    return cached.value
  })
}
