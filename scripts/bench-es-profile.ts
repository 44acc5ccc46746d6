/**
 * Where Elasticsearch spends a batch's candidate lookups on a loaded index, by part of the query:
 * a batch of stored records (a random sample of the index) is asked as the store asks a batch of
 * new documents (hot band terms apart, the rest in union searches, see src/elasticsearch/_lookup.ts),
 * with the search profiler on; the profile's times are summed by clause (content / URL hash terms,
 * band terms, block clauses, popcount range), collector and fetch. Run it against the index of a
 * running or loaded bench (it only reads):
 *
 *   npx tsx scripts/bench-es-profile.ts --es http://127.0.0.1:9200 --index simdup-bench-stream-<pid> [--batch 500] [--rounds 3]
 *
 * The profiler's own overhead inflates the times; compare parts with each other, and one size of
 * the index with another.
 */
import { Client, type estypes } from '@elastic/elasticsearch'
import { parseArgs } from 'node:util'
import type { CandidateQuery } from '../src/types.js'
import { sourceToRecord, DEDUP_SOURCE_FIELDS } from '../src/elasticsearch/_document.js'
import { bandFrequencyRequest, bandTermsOf, groupLookups, hotBandSearches, hotBandTerms, unionSearchBody, withoutBands, type Lookup } from '../src/elasticsearch/_lookup.js'
import { DEFAULT_ELASTICSEARCH_STORE_OPTIONS } from '../src/elasticsearch/store.js'
import { blockSetFormats, type IndexContext } from '../src/elasticsearch/_index-setup.js'

const { values } = parseArgs({
  options: {
    es: { type: 'string', default: 'http://127.0.0.1:9200' },
    index: { type: 'string' },
    batch: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
    /** Unprofiled instead: the union searches as they are against the same without block clauses, alternated, by `took`. */
    ab: { type: 'boolean', default: false },
  },
})
if (values.index === undefined) throw new Error('--index is required')
const client = new Client({ node: values.es })
const index = values.index
const { maxPerBand, msearchSize } = DEFAULT_ELASTICSEARCH_STORE_OPTIONS

interface ProfileNode { type: string; description: string; time_in_nanos: number; breakdown?: Record<string, number>; children?: ProfileNode[] }
interface ShardProfile {
  searches: { query: ProfileNode[]; collector: { time_in_nanos: number }[] }[]
  fetch?: { time_in_nanos: number }
}

/** The part of the union query a profiled clause belongs to. */
function partOf(node: ProfileNode): string {
  const d = node.description
  if (d.includes('dedup.block_sets')) return 'block sets'
  if (d.includes('dedup.blocks')) return 'blocks (with popcount range)'
  if (d.includes('dedup.bands')) return 'band terms'
  if (d.includes('dedup.content_hash')) return 'content hash terms'
  if (d.includes('dedup.url_hash')) return 'url hash terms'
  if (d.includes('dedup.popcount')) return 'popcount range'
  if (d.includes('dedup.seq')) return 'seq range'
  return 'other'
}

/** Adds each child clause of the top-level disjunction to `out`, by part (the whole tree's root time as 'query, total'). */
function tally(root: ProfileNode, out: Map<string, number>): void {
  out.set('query, total', (out.get('query, total') ?? 0) + root.time_in_nanos)
  const visit = (n: ProfileNode): void => {
    // The disjunction of routes: a clause per route (and per lookup for block clauses).
    if ((n.children?.length ?? 0) > 3 || n.description.startsWith('dedup.')) {
      for (const c of n.children ?? []) {
        out.set(partOf(c), (out.get(partOf(c)) ?? 0) + c.time_in_nanos)
        // Where a part's time goes (create_weight, build_scorer: term lookups; next_doc/advance: postings).
        for (const [k, ns] of Object.entries(c.breakdown ?? {})) if (!k.endsWith('_count') && ns > 0) out.set(`${partOf(c)}: ${k}`, (out.get(`${partOf(c)}: ${k}`) ?? 0) + ns)
      }
      return
    }
    for (const c of n.children ?? []) visit(c)
  }
  visit(root)
}

async function profiled(bodies: Record<string, unknown>[], out: Map<string, number>): Promise<number> {
  const searches: estypes.MsearchRequestItem[] = []
  for (const body of bodies) searches.push({}, { ...body, profile: true } as estypes.MsearchMultisearchBody)
  const t = performance.now()
  const res = await client.msearch({ index, searches })
  const ms = performance.now() - t
  let hits = 0
  for (const r of res.responses) {
    if ('error' in r) throw new Error(JSON.stringify(r.error))
    hits += r.hits.hits.length
    for (const shard of (r as unknown as { profile: { shards: ShardProfile[] } }).profile.shards) {
      for (const s of shard.searches) {
        for (const q of s.query) tally(q, out)
        for (const c of s.collector) out.set('collector', (out.get('collector') ?? 0) + c.time_in_nanos)
      }
      out.set('fetch', (out.get('fetch') ?? 0) + (shard.fetch?.time_in_nanos ?? 0))
    }
  }
  out.set('wall ms', (out.get('wall ms') ?? 0) + ms * 1e6)
  return hits
}

/** The union body without its block clauses (the key and band routes only). */
function withoutBlocks(body: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(body) as { query: { bool: { filter: { bool?: { should?: Record<string, unknown>[] } }[] } } }
  const or = copy.query.bool.filter[0]!.bool!
  or.should = or.should!.filter((c) => !JSON.stringify(c).includes('dedup.blocks'))
  return copy
}

/** Sum of `took` (ms) and hits of one `_msearch` of `bodies`. */
async function took(bodies: Record<string, unknown>[]): Promise<[number, number]> {
  const searches: estypes.MsearchRequestItem[] = []
  for (const body of bodies) searches.push({}, body as estypes.MsearchMultisearchBody)
  const res = await client.msearch({ index, searches })
  let ms = 0
  let hits = 0
  for (const r of res.responses) {
    if ('error' in r) throw new Error(JSON.stringify(r.error))
    ms += r.took
    hits += r.hits.hits.length
  }
  return [ms, hits]
}

const count = (await client.count({ index })).count
// Ask as the store does: by the block sets the store's own rule picks on open (blockSetFormats:
// the newest format that every index maps and every record carries), else by blocks.
const ctx = { client, index, node: values.es, options: DEFAULT_ELASTICSEARCH_STORE_OPTIONS, request: <T>(_action: string, fn: () => Promise<T>) => fn() } as unknown as IndexContext
const useSets = (await blockSetFormats(ctx, await client.indices.getMapping({ index }))).lookup
const segments = (await client.cat.segments({ index, format: 'json' })).length
console.log(`${index}: ${count} records, ${segments} segments, block ${useSets === null ? 'clauses' : `sets (format ${useSets})`}; batches of ${values.batch} random records, ${values.rounds} rounds`)
const union = new Map<string, number>()
const hot = new Map<string, number>()
let unionHits = 0
let hotHits = 0
let hotSearches = 0
let unionSearches = 0
for (let round = 0; round < Number(values.rounds); round++) {
  const sample = await client.search({
    index, size: Number(values.batch), _source: DEDUP_SOURCE_FIELDS,
    query: { function_score: { query: { match_all: {} }, functions: [{ random_score: { seed: round, field: '_seq_no' } }] } },
  })
  const lookups: Lookup[] = []
  for (const hit of sample.hits.hits) {
    const r = sourceToRecord(String(hit._id), hit._source)
    if (r === null) continue
    const q: CandidateQuery = {
      fingerprint: r.fingerprint, blocks: r.blocks, minMatch: 3, maxDistance: 3, contentHash: r.contentHash, urlHash: r.urlHash, titleHash: null, excludeId: r.id,
    }
    if (r.bands !== undefined) q.bands = r.bands
    lookups.push({ at: lookups.length, query: q })
  }
  const tv = await client.termvectors({ index, ...bandFrequencyRequest(bandTermsOf(lookups)) })
  const hotTerms = hotBandTerms(tv, maxPerBand)
  const rest = lookups.map((l) => ({ at: l.at, query: withoutBands(l.query, hotTerms) }))
  const groups = groupLookups(rest, msearchSize, useSets)
  unionSearches += groups.length
  if (values.ab) {
    const full = groups.map((g) => unionSearchBody(g.map((l) => l.query), 10_000, useSets))
    const keysAndBands = full.map(withoutBlocks)
    // Alternated, the order flipped each round.
    const pair = round % 2 === 0 ? [full, keysAndBands] : [keysAndBands, full]
    for (const bodies of pair) {
      const [ms, hits] = await took(bodies)
      const name = bodies === full ? 'union as asked' : 'union without block clauses'
      union.set(`${name}: took ms`, (union.get(`${name}: took ms`) ?? 0) + ms * 1e6)
      union.set(`${name}: hits`, (union.get(`${name}: hits`) ?? 0) + hits * 1e6)
    }
    continue
  }
  unionHits += await profiled(groups.map((g) => unionSearchBody(g.map((l) => l.query), 10_000, useSets)), union)
  const searches = [...hotBandSearches(lookups, hotTerms, maxPerBand).values()].map((s) => s.body)
  hotSearches += searches.length
  if (searches.length > 0) hotHits += await profiled(searches, hot)
}
const show = (name: string, m: Map<string, number>, searches: number, hits: number): void => {
  console.log(`${name}: ${searches} searches, ${hits} hits`)
  for (const [k, ns] of [...m].sort((a, b) => b[1] - a[1])) console.log(`  ${k}\t${(ns / 1e6).toFixed(1)} ms`)
}
show('union searches', union, unionSearches, unionHits)
show('hot band term searches (asked without the cache)', hot, hotSearches, hotHits)
await client.close()
