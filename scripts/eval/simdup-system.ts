/** simdup itself as an EvalSystem: the default configuration on an in-memory store. */
import { createDeduplicator, openMemoryStore, type DeduplicatorOptions } from '../../src/index.js'
import type { EvalSystem } from './systems.js'
import { appendFileSync } from 'node:fs'

/** `SIMDUP_EVAL_DUMP=prefix`: each run's decisions (id, duplicateOf, content) to `prefix.<run>.jsonl`, for diffing two builds' per-document decisions. */
let dumpRun = 0

/**
 * @param given overrides of the default Deduplicator options (for ablations in the eval), over
 * those of the environment variable `SIMDUP_EVAL_OPTIONS` (JSON, e.g. `{"templates":false}`), so
 * any eval script can be re-run as an ablation (run.ts too, which passes `urlMinResemblance`).
 * @example const system = await createSimdupSystem()
 */
export async function createSimdupSystem(given: Partial<Omit<DeduplicatorOptions, 'store'>> = {}, name = 'simdup'): Promise<EvalSystem> {
  // SIMDUP_EVAL_OPTIONS applies under the options a caller passes (run.ts passes urlMinResemblance).
  const options = { ...envOptions(), ...given }
  return {
    name,
    async run(docs) {
      // SIMDUP_EVAL_STORE_OPTIONS: the embedded store's options (JSON), e.g. bounds off for a brute-force comparison.
      const store = await openMemoryStore(JSON.parse(process.env.SIMDUP_EVAL_STORE_OPTIONS ?? '{}') as Parameters<typeof openMemoryStore>[0])
      const dedup = createDeduplicator({ ...options, store })
      const out = []
      const dump = process.env.SIMDUP_EVAL_DUMP
      const run = dumpRun++
      const text = new Map(docs.map((d) => [d.id, d.content]))
      for (let i = 0; i < docs.length; i += 500) {
        const decisions = await dedup.add(docs.slice(i, i + 500).map((d) => ({ id: d.id, content: d.content, ...(d.title === undefined ? {} : { title: d.title }), ...(d.url === undefined ? {} : { url: d.url }) })))
        if (dump !== undefined && dump !== '') appendFileSync(`${dump}.${run}.jsonl`, decisions.map((x) => JSON.stringify({ id: x.id, duplicateOf: x.duplicateOf, layer: x.layer, content: text.get(x.id ?? '') }) + '\n').join(''))
        for (const x of decisions) out.push({ id: x.id ?? '', duplicateOf: x.duplicateOf, clusterId: x.clusterId ?? x.id ?? '', ...(x.supersedes === undefined ? {} : { supersedes: x.supersedes }), ...(x.status === 'rejected' ? { rejected: true } : {}) })
      }
      await store.close()
      // SIMDUP_EVAL_DECISIONS=file: every decision of every run appended as JSONL (to diff two versions' decisions).
      const decisionsFile = process.env.SIMDUP_EVAL_DECISIONS
      if (decisionsFile !== undefined && decisionsFile !== '') appendFileSync(decisionsFile, out.map((x) => JSON.stringify(x)).join('\n') + '\n')
      return out
    },
  }
}

function envOptions(): Partial<Omit<DeduplicatorOptions, 'store'>> {
  const raw = process.env.SIMDUP_EVAL_OPTIONS
  return raw === undefined || raw === '' ? {} : (JSON.parse(raw) as Partial<Omit<DeduplicatorOptions, 'store'>>)
}
