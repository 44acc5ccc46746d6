/**
 * Upper bound of cross-document boilerplate removal on eval kind (a) (docs/HTML.md): batch, every
 * page known up front. Lines of the extracted, normalised text that occur in at least
 * max(5, share × the host's pages) pages of one host are dropped before simdup fingerprints them.
 *
 *   npx tsx scripts/eval/real-html-templates.ts
 */
import { buildRealHtmlDataset } from './real-html.js'
import { computeMetrics } from './metrics.js'
import { createSimdupSystem } from './simdup-system.js'
import { htmlToText } from '../../src/normalize/html.js'
import { normalizeText } from '../../src/normalize/text.js'
const ds = buildRealHtmlDataset({ seed: 1, sites: 'old' })
const host = (id: string) => (id.startsWith('rewrapped-into-debref') || id.startsWith('debref') ? 'debref' : 'lo')
const texts = ds.docs.map((d) => normalizeText(htmlToText(d.html)))
for (const minShare of [0, 0.01, 0.02, 0.05]) {
  const counts = new Map<string, number>()
  const hostDocs = new Map<string, number>()
  ds.docs.forEach((d, i) => {
    const h = host(d.id)
    hostDocs.set(h, (hostDocs.get(h) ?? 0) + 1)
    for (const l of new Set(texts[i]!.split('\n'))) counts.set(`${h}\u0000${l}`, (counts.get(`${h}\u0000${l}`) ?? 0) + 1)
  })
  const docs = ds.docs.map((d, i) => {
    const h = host(d.id)
    const limit = Math.max(5, minShare * hostDocs.get(h)!)
    const kept = minShare === 0 ? texts[i]! : texts[i]!.split('\n').filter((l) => (counts.get(`${h}\u0000${l}`) ?? 0) < limit).join('\n')
    return { id: d.id, content: kept.trim() === '' ? texts[i]! : kept }
  })
  const sys = await createSimdupSystem()
  const dec = await sys.run(docs)
  const m = computeMetrics(ds.docs, dec)
  console.log(`template lines: in >= max(5, ${minShare} x host docs) docs of the host${minShare === 0 ? ' (off)' : ''}: P ${(m.precision * 100).toFixed(1)} R ${(m.recall * 100).toFixed(1)} FP ${m.fp} FN ${m.fn}`)
}
