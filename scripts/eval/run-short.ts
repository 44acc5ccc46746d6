/**
 * Runs simdup and the MinHash LSH peers on each short-text kind (`short-kinds.ts`) and prints one
 * table: P, R, F1 per kind and system; then simdup's details per kind (recall per copy label,
 * false positives per label with examples, misses).
 *
 *   npx tsx scripts/eval/run-short.ts [--seed N] [--only short-reviews,short-ui,…] [--peers all|none] [--json out.json]
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { pathToFileURL } from 'node:url'
import { computeMetrics, type EvalMetrics } from './metrics.js'
import { runPeers } from './peers.js'
import { buildShortKinds, SHORT_KINDS } from './short-build.js'
import { evalPython } from './short-sources.js'
import type { EvalSystem } from './systems.js'
import type { KindStream } from './kinds.js'

/** One system's figures on one short kind. */
export interface ShortResult {
  kind: string
  system: string
  metrics: EvalMetrics
  /** Wall time of the run (the peers: both together, one process). */
  runMs: number
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}`

function printDetails(k: KindStream, r: ShortResult): void {
  const m = r.metrics
  console.log(`\n=== kind ${k.name} (${r.system})`)
  for (const n of k.notes) console.log(`  · ${n}`)
  console.log(`P ${pct(m.precision)}%  R ${pct(m.recall)}%  F1 ${pct(m.f1)}%   (TP ${m.tp}, FP ${m.fp}, FN ${m.fn}; ${m.docs} docs, ${m.trueDuplicates} true duplicates; ${(r.runMs / 1000).toFixed(1)} s)`)
  for (const row of m.recallByPerturbation) console.log(`  recall ${row.label.padEnd(28)} ${pct(row.recall).padStart(6)}%  (${row.tp}/${row.count})`)
  for (const row of m.recallByBucket) console.log(`  recall by length ${row.label.padEnd(18)} ${pct(row.recall).padStart(6)}%  (${row.tp}/${row.count})`)
  for (const row of m.falsePositives) {
    console.log(`  FP ${row.label.padEnd(28)} ${String(row.fp).padStart(5)} of ${row.docs} docs (distinct ${row.distinct}, wrong-group ${row.wrongGroup})`)
    for (const e of row.examples) console.log(`      ${e.id} ${JSON.stringify(e.text)}\n        → ${e.duplicateOf} ${JSON.stringify(e.otherText)}`)
  }
  for (const e of m.missExamples) console.log(`  missed ${e.label.padEnd(26)} ${e.id} ${JSON.stringify(e.text)}`)
}

/** The P/R/F1 table of every kind and system. */
export function printShortTable(results: readonly ShortResult[]): void {
  const systems = [...new Set(results.map((r) => r.system))]
  console.log('\n=== short-text kinds: P / R / F1 (%)')
  console.log(`  ${'kind'.padEnd(18)} ${systems.map((s) => s.padStart(22)).join(' ')}`)
  for (const kind of [...new Set(results.map((r) => r.kind))]) {
    const cells = systems.map((s) => {
      const m = results.find((r) => r.kind === kind && r.system === s)?.metrics
      return (m === undefined ? '-' : `${pct(m.precision)} / ${pct(m.recall)} / ${pct(m.f1)}`).padStart(22)
    })
    console.log(`  ${kind.padEnd(18)} ${cells.join(' ')}`)
  }
}

/**
 * Builds the short kinds and runs simdup (and the peers unless `peers` is false) on each.
 * @example await runShortKinds(1, () => createSimdupSystem(), console.error, { only: new Set(['short-ui']) })
 */
export async function runShortKinds(
  seed: number, makeSimdup: () => Promise<EvalSystem>, log: (s: string) => void, options: { only?: ReadonlySet<string>; peers?: boolean } = {},
): Promise<ShortResult[]> {
  const kinds = buildShortKinds(seed, log, options.only)
  const python = options.peers === false ? null : evalPython(log)
  const results: ShortResult[] = []
  for (const k of kinds) {
    const docs = k.docs.map((d) => ({ id: d.id, content: d.content, ...(d.url === undefined ? {} : { url: d.url }) }))
    const system = await makeSimdup()
    const t0 = performance.now()
    const decisions = await system.run(docs)
    const r: ShortResult = { kind: k.name, system: system.name, metrics: computeMetrics(k.docs, decisions, { examples: 3 }), runMs: performance.now() - t0 }
    await system.close?.()
    results.push(r)
    printDetails(k, r)
    if (python === null) continue
    const p0 = performance.now()
    const peers = await runPeers(python, docs)
    const peerMs = performance.now() - p0
    for (const [name, d] of peers) results.push({ kind: k.name, system: name, metrics: computeMetrics(k.docs, d, { examples: 3 }), runMs: peerMs })
  }
  if (results.length > 0) printShortTable(results)
  return results
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string', default: '1' },
      only: { type: 'string' },
      peers: { type: 'string', default: 'all' },
      json: { type: 'string' },
    },
  })
  const seed = Number(values.seed)
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed must be a non-negative integer, got ${values.seed}`)
  if (!['all', 'none'].includes(values.peers)) throw new Error(`--peers must be all or none, got ${values.peers}`)
  const only = values.only === undefined ? undefined : new Set(values.only.split(',').map((x) => x.trim()))
  for (const k of only ?? []) if (!(SHORT_KINDS as readonly string[]).includes(k)) throw new Error(`--only: unknown short kind ${k} (known: ${SHORT_KINDS.join(', ')})`)
  const { createSimdupSystem } = await import('./simdup-system.js')
  const log = (s: string): void => console.error(s)
  const results = await runShortKinds(seed, () => createSimdupSystem(), log, { ...(only === undefined ? {} : { only }), peers: values.peers === 'all' })
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(results, null, 2))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main()
