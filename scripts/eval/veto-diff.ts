/**
 * Per-document decisions of two builds on one eval stream, side by side (issue 24, the figure
 * veto's cost on long kinds). Each build run with `SIMDUP_EVAL_DUMP=<prefix>` writes one
 * `<prefix>.<run>.jsonl` per stream (simdup-system.ts). Lists the documents whose decision
 * differs; for each, the pair the first build matched (or the second), whether this build's
 * veto refuses it (`figuresChanged`, on the text without template filtering), and the lines
 * holding the figures only one side has.
 *
 *   npx tsx scripts/eval/veto-diff.ts <prefixA> <prefixB> <run> [--lines]
 */
import { readFileSync } from 'node:fs'
import { createDeduplicator, openMemoryStore } from '../../src/index.js'
import { prepareItem } from '../../src/engine/prepare.js'
import { figuresChanged } from '../../src/fingerprint/figure-veto.js'
import { figureLines } from './_figure-lines.js'

interface Row { id: string; duplicateOf: string | null; layer: string | null; content: string }
const [pa, pb, run] = process.argv.slice(2)
const showLines = process.argv.includes('--lines')
const load = (p: string): Map<string, Row> => new Map(readFileSync(`${p}.${run}.jsonl`, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row).map((r) => [r.id, r]))
const A = load(pa!)
const B = load(pb!)
const store = await openMemoryStore()
const o = createDeduplicator({ store }).options
const prep = (r: Row) => {
  const p = prepareItem({ value: { id: r.id, content: r.content } } as never, o)
  if (!p.ok) throw new Error(p.reason)
  return p.doc
}
let n = 0
for (const [id, a] of A) {
  const b = B.get(id)
  if (b === undefined || a.duplicateOf === b.duplicateOf) continue
  n++
  const other = a.duplicateOf ?? b.duplicateOf!
  const da = prep(a)
  const dc = prep(A.get(other)!)
  const veto = figuresChanged(da.sketch, dc.sketch)
  console.log(`\n### ${id}: A ${a.duplicateOf ?? '-'} (${a.layer ?? ''})  B ${b.duplicateOf ?? '-'} (${b.layer ?? ''})  pair ${id}~${other} veto=${veto} len=${da.normalized.length}/${dc.normalized.length}`)
  if (showLines || veto) {
    for (const l of figureLines(da.normalized, dc.normalized, 160)) console.log(`  < ${l}`)
    for (const l of figureLines(dc.normalized, da.normalized, 160)) console.log(`  > ${l}`)
  }
}
console.log(`\n${n} documents decided differently`)
await store.close()
