/**
 * Runs a system on each real-world kind's stream (`kinds.ts`) and prints per-kind figures, then
 * the overall figures of the main stream and the kinds together (TP/FP/FN summed).
 */
import type { CorpusDoc } from '../corpus/types.js'
import { buildKinds, type KindDoc } from './kinds.js'
import { computeMetrics, type EvalMetrics } from './metrics.js'
import type { EvalDecision, EvalSystem } from './systems.js'

/** One kind's result. */
export interface KindResult {
  kind: string
  metrics: EvalMetrics
  /** New versions whose decision named the earlier version (`supersedes`), of those in the stream. */
  supersedes: { right: number; of: number; wrong: number }
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`

/** Recall of the true duplicates per `note` (how a copy was made), when copies carry one. */
function recallByNote(docs: readonly KindDoc[], decisions: readonly EvalDecision[]): [string, { count: number; tp: number }][] {
  const seen = new Set<string>()
  const group = new Map(docs.map((d) => [d.id, d.group]))
  const out = new Map<string, { count: number; tp: number }>()
  docs.forEach((d, i) => {
    const dup = seen.has(d.group)
    seen.add(d.group)
    if (!dup || d.note === undefined || d.note === 'shipped') return
    const row = out.get(d.note) ?? { count: 0, tp: 0 }
    row.count++
    const of = decisions[i]?.duplicateOf
    if (of !== null && of !== undefined && group.get(of) === d.group) row.tp++
    out.set(d.note, row)
  })
  return [...out].sort(([a], [b]) => a.localeCompare(b))
}

/**
 * @param others the same system's metrics on the other streams (main, real-html), for the overall line
 * @example await runKinds(corpus, 1, () => createSimdupSystem(), log, [{ name: 'main', metrics }])
 */
export async function runKinds(
  corpus: readonly CorpusDoc[], seed: number, makeSystem: () => Promise<EvalSystem>, log: (s: string) => void, others: readonly { name: string; metrics: EvalMetrics }[] = [],
  only?: ReadonlySet<string>,
): Promise<KindResult[]> {
  const kinds = buildKinds(corpus, seed, log).filter((k) => only === undefined || only.has(k.name))
  const results: KindResult[] = []
  for (const k of kinds) {
    const system = await makeSystem()
    const decisions = await system.run(k.docs.map((d) => ({ id: d.id, content: d.content, ...(d.url === undefined ? {} : { url: d.url }) })))
    await system.close?.()
    const metrics = computeMetrics(k.docs, decisions, { examples: 3 })
    const supersedes = { right: 0, of: 0, wrong: 0 }
    k.docs.forEach((d, i) => {
      const got = decisions[i]?.supersedes
      if (d.previous !== undefined) {
        supersedes.of++
        if (got === d.previous) supersedes.right++
      } else if (got !== undefined && k.docs.find((x) => x.id === got)?.url !== d.url) supersedes.wrong++
    })
    results.push({ kind: k.name, metrics, supersedes })
    const m = metrics
    console.log(`\n=== kind ${k.name} (${system.name})`)
    for (const n of k.notes) console.log(`  · ${n}`)
    console.log(`P ${pct(m.precision)}  R ${pct(m.recall)}  F1 ${pct(m.f1)}   (TP ${m.tp}, FP ${m.fp}, FN ${m.fn}; ${m.docs} docs, ${m.trueDuplicates} true duplicates)`)
    for (const row of m.recallByPerturbation) console.log(`  recall ${row.label.padEnd(22)} ${pct(row.recall).padStart(6)}  (${row.tp}/${row.count})`)
    for (const row of m.falsePositives) {
      console.log(`  FP ${row.label.padEnd(24)} ${String(row.fp).padStart(5)} of ${row.docs} docs (distinct ${row.distinct}, wrong-group ${row.wrongGroup})`)
      for (const e of row.examples) console.log(`      ${e.id} ${JSON.stringify(e.text)}\n        → ${e.duplicateOf} ${JSON.stringify(e.otherText)}`)
    }
    for (const [note, r] of recallByNote(k.docs, decisions)) console.log(`  recall by layout ${note.padEnd(16)} ${pct(r.tp / r.count).padStart(6)}  (${r.tp}/${r.count})`)
    for (const e of m.missExamples) console.log(`  missed ${e.label.padEnd(22)} ${e.id} ${JSON.stringify(e.text)}`)
    const rejected = decisions.filter((x) => x.rejected === true).length
    if (rejected > 0) console.log(`  rejected by the system: ${rejected} documents`)
    if (supersedes.of > 0 || supersedes.wrong > 0) console.log(`  supersedes: ${supersedes.right} of ${supersedes.of} new versions name their earlier version; ${supersedes.wrong} set across different URLs`)
  }
  if (results.length > 0) {
    const streams = [...others, ...results.map((r) => ({ name: r.kind, metrics: r.metrics }))]
    const all = streams.map((x) => x.metrics)
    const tp = all.reduce((a, m) => a + m.tp, 0)
    const flagged = all.reduce((a, m) => a + m.flagged, 0)
    const dups = all.reduce((a, m) => a + m.trueDuplicates, 0)
    console.log(`\n=== overall (${streams.map((x) => x.name).join(' + ')})`)
    console.log(`P ${pct(flagged === 0 ? 1 : tp / flagged)}  R ${pct(dups === 0 ? 1 : tp / dups)}   (TP ${tp}, FP ${flagged - tp}, FN ${dups - tp})`)
    console.log('  kind       P       R')
    for (const { name, metrics: m } of streams) {
      console.log(`  ${name.padEnd(10)} ${pct(m.precision).padStart(6)}  ${pct(m.recall).padStart(6)}`)
    }
  }
  return results
}
