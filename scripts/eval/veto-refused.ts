/**
 * The matches of one dumped eval stream (`SIMDUP_EVAL_DUMP`, simdup-system.ts) that the figure veto
 * refuses (issue 24): for each pair, the lines holding figures only one side has (text without
 * template filtering; `[chrome]` marks lines the veto skips). Run on a build without the veto to
 * see what it would cost.
 *
 *   npx tsx scripts/eval/veto-refused.ts <prefix>.<run>.jsonl
 */
import { readFileSync } from 'node:fs'
import { createDeduplicator, openMemoryStore } from '../../src/index.js'
import { prepareItem } from '../../src/engine/prepare.js'
import { figuresChanged } from '../../src/fingerprint/figure-veto.js'
import { figureLines } from './_figure-lines.js'
interface Row { id: string; duplicateOf: string | null; layer: string | null; content: string }
const file = process.argv[2]!
const rows = new Map(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row).map((r) => [r.id, r]))
const store = await openMemoryStore()
const o = createDeduplicator({ store }).options
const prep = (r: Row) => { const p = prepareItem({ value: { id: r.id, content: r.content } } as never, o); if (!p.ok) throw new Error(p.reason); return p.doc }
let n = 0
for (const r of rows.values()) {
  if (r.duplicateOf === null || r.layer === 'exact') continue
  const a = prep(r), c = prep(rows.get(r.duplicateOf)!)
  if (!figuresChanged(a.sketch, c.sketch)) continue
  n++
  console.log(`\n### ${r.id} ~ ${r.duplicateOf} (${r.layer}) len ${a.normalized.length}/${c.normalized.length}`)
  for (const l of figureLines(a.normalized, c.normalized, 200)) console.log(`  < ${l}`)
  for (const l of figureLines(c.normalized, a.normalized, 200)) console.log(`  > ${l}`)
}
console.log(`\n${n} matched pairs vetoed`)
await store.close()
