/**
 * Dumps simdup's errors on eval kind (a), one pair a line: each false positive with the page it was
 * called a duplicate of, each miss with its nearest earlier true duplicate; the oracle's Jaccard on
 * the main elements (oj), the same on simdup's extracted text (ej), SimHash distance, MinHash
 * estimate, lengths. `--tp` adds the true positives.
 *
 *   npx tsx scripts/eval/real-html-pairs.ts [--tp]
 */
import { buildRealHtmlDataset, toRealHtmlEvalDocs } from './real-html.js'
import { shingleSet, jaccard } from './oracle.js'
import { createSimdupSystem } from './simdup-system.js'
import { createAnalyzer } from '../../src/index.js'
import { hamming } from '../../src/fingerprint/hamming.js'
import { minhashPart, minhashSimilarity } from '../../src/fingerprint/minhash.js'

const ds = buildRealHtmlDataset({ seed: 1, sites: 'old' })
const docs = toRealHtmlEvalDocs(ds.docs)
const byId = new Map(ds.docs.map((d, i) => [d.id, { d, e: docs[i]!, idx: i }]))
const sys = await createSimdupSystem()
const decisions = await sys.run(docs.map((d) => ({ ...d })))
const an = createAnalyzer()
const A = new Map<string, ReturnType<typeof an.analyze>>()
const get = (id: string) => { let a = A.get(id); if (!a) { a = an.analyze(byId.get(id)!.e.content); A.set(id, a) } return a }
const S = new Map<string, Float64Array>()
const sh = (t: string) => { let s = S.get(t); if (!s) { s = shingleSet(t, 5); S.set(t, s) } return s }
function row(kind: string, a: string, b: string): void {
  const da = byId.get(a)!, db = byId.get(b)!
  const oj = jaccard(sh(da.d.main), sh(db.d.main))
  const xa = get(a), xb = get(b)
  const ej = jaccard(sh(xa.normalized), sh(xb.normalized))
  const dist = hamming(xa.fingerprint, xb.fingerprint)
  const mh = xa.sketch?.startsWith('m:') && xb.sketch?.startsWith('m:') ? minhashSimilarity(minhashPart(xa.sketch), minhashPart(xb.sketch)) : NaN
  console.log([kind, a, b, 'oj=' + oj.toFixed(3), 'ej=' + ej.toFixed(3), 'd=' + dist, 'mh=' + mh.toFixed(2), 'len=' + xa.normalized.length + '/' + xb.normalized.length, 'main=' + da.d.main.length + '/' + db.d.main.length, xa.short ? 'S' : '', xb.short ? 'S' : ''].join('\t'))
}
const dec = new Map(decisions.map((x) => [x.id, x]))
for (const d of ds.docs) {
  const x = dec.get(d.id)!
  const dupOf = x.duplicateOf
  if (dupOf) {
    const ok = byId.get(dupOf)!.d.group === d.group
    if (!ok) row('FP', d.id, dupOf)
    else if (process.argv.includes('--tp')) row('TP', d.id, dupOf)
  } else if (d.group !== d.id) {
    // earliest-index same group members before d
    let best: string | null = null; let bj = -1
    for (const o of ds.docs) { if (o.id === d.id) break; if (o.group === d.group) { const j = jaccard(sh(o.main), sh(d.main)); if (j > bj) { bj = j; best = o.id } } }
    if (best) row('FN', d.id, best)
  }
}
