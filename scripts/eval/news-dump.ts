/**
 * Reads short-news errors by eye: runs simdup on the `short-news` kind and prints, for N false
 * positives and N misses, both texts as they were fingerprinted (after normalisation and the
 * template layer), with the rule that matched.
 *
 *   npx tsx scripts/eval/news-dump.ts [--seed N] [--n 30] [--kind short-news]
 */
import { parseArgs } from 'node:util'
import { buildShortKinds } from './short-build.js'
import { createDeduplicator, openMemoryStore } from '../../src/index.js'
import { Deduplicator } from '../../src/engine/deduplicator.js'

const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, n: { type: 'string', default: '30' }, kind: { type: 'string', default: 'short-news' } } })
const n = Number(values.n)
const [k] = buildShortKinds(Number(values.seed), () => {}, new Set([values.kind]))
if (k === undefined) throw new Error('no kind')
const seen = new Map<string, string>()
const proto = Deduplicator.prototype as unknown as Record<string, (...a: unknown[]) => { id: string; normalized: string }>
const orig = proto.withoutTemplate!
const filteredText = new Map<unknown, string>()
proto.withoutTemplate = function (this: unknown, d: unknown, cache: unknown) {
  const out = orig.call(this, d, cache) as { id: string; normalized: string }
  const f = (cache as Map<unknown, { kept: string | null }>).get(d)
  seen.set(out.id, f?.kept ?? `[UNFILTERED] ${out.normalized}`)
  filteredText.set(d, '')
  return out
}
const store = await openMemoryStore()
const dedup = createDeduplicator({ store })
const dec = new Map<string, { duplicateOf: string | null; layer: string | null; rule: string | null }>()
for (let i = 0; i < k.docs.length; i += 500) {
  for (const x of await dedup.add(k.docs.slice(i, i + 500).map((d) => ({ id: d.id, content: d.content, ...(d.url === undefined ? {} : { url: d.url }) })))) {
    const y = x as unknown as { id: string; duplicateOf: string | null; layer?: string | null; rule?: string | null }
    dec.set(y.id, { duplicateOf: y.duplicateOf, layer: y.layer ?? null, rule: y.rule ?? null })
  }
}
const group = new Map(k.docs.map((d) => [d.id, d.group]))
const label = new Map(k.docs.map((d) => [d.id, d.perturbation]))
const firstOf = new Map<string, string>()
const fps: string[] = []
const misses: string[] = []
for (const d of k.docs) {
  const g = d.group
  const dd = dec.get(d.id)!
  const trueDup = firstOf.has(g)
  if (dd.duplicateOf !== null && group.get(dd.duplicateOf) !== g) fps.push(d.id)
  else if (trueDup && dd.duplicateOf === null) misses.push(d.id)
  if (!firstOf.has(g)) firstOf.set(g, d.id)
}
const show = (t: string | undefined): string => (t ?? '?').split('\n').map((l) => `      | ${l}`).join('\n')
console.log(`FP ${fps.length}, missed ${misses.length}`)
for (const id of fps.slice(0, n)) {
  const dd = dec.get(id)!
  console.log(`\n## FP ${id} (${label.get(id)}) → ${dd.duplicateOf} (${label.get(dd.duplicateOf!)}) layer ${dd.layer} rule ${dd.rule}`)
  console.log(show(seen.get(id)))
  console.log('    vs')
  console.log(show(seen.get(dd.duplicateOf!)))
}
for (const id of misses.slice(0, n)) {
  const src = firstOf.get(group.get(id)!)!
  console.log(`\n## MISS ${id} (${label.get(id)}) of ${src} (${label.get(src)}) → ${dec.get(id)!.duplicateOf}`)
  console.log(show(seen.get(id)))
  console.log('    vs')
  console.log(show(seen.get(src)))
}
await store.close()
