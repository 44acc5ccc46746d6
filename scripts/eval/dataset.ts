/**
 * The labelled evaluation stream, built deterministically from the corpus and a seed.
 *
 * - Long originals: zh_CN corpus documents of ≥ 100 characters, de-duplicated among themselves by
 *   the oracle (character 5-gram Jaccard ≥ 0.5, exact; one kept per connected group), so that
 *   real near-duplicates inside Debian (coreutils pages sharing their boilerplate, the same page
 *   in two sections) are not counted as distinct.
 * - `latin-*`: the kept originals that are mostly Latin script (< 5% Han among letters), with
 *   their own copies; they check that non-Chinese text still works.
 * - Long copies: for each perturbation of perturb.ts, copies of randomly chosen originals.
 * - `real-zh-tw`: the Debian zh_TW twin of a kept original (same page path), when the oracle,
 *   after opencc tw→cn, finds it a near-duplicate (5-gram Jaccard ≥ 0.5): real Traditional text.
 * - Short texts (shorts.ts): distinct titles / sentences, their copies, and near-miss negatives.
 *
 * Ground truth: a group is an original and its copies; a document is a true duplicate iff an
 * earlier document of the stream is in its group. Each copy (and near-miss) comes after its
 * source; everything else is shuffled.
 */
import { Converter } from 'opencc-js'
import type { CorpusDoc } from '../corpus/types.js'
import type { ChromeLang } from './chrome.js'
import { jaccard, shingleSet, similarityGroups } from './oracle.js'
import { LONG_PERTURBATIONS, perturb, type LongPerturbation, type Page } from './perturb.js'
import { Rng } from './prng.js'
import {
  nearMiss, perturbShort, shortCandidates, shortKey, SHORT_PERTURBATIONS, vocabulary,
} from './shorts.js'
import type { EvalDoc } from './systems.js'

/** Sizes of the stream's parts. */
export interface DatasetOptions {
  seed: number
  /** Long originals need at least this many characters. @default 100 */
  minLongChars: number
  /** Copies per long perturbation. @default 200 */
  longCopies: number
  /** Copies per Latin perturbation. @default 50 */
  latinCopies: number
  /** Real zh_TW twins. @default 200 */
  realTwins: number
  /** Distinct short texts. @default 2000 */
  shortOriginals: number
  /** Copies per short perturbation. @default 200 */
  shortCopies: number
  /** Near-miss short negatives. @default 300 */
  shortNearMisses: number
}

/** Default sizes: ~8k documents, ~2,000 labelled duplicates. */
export const DEFAULT_DATASET_OPTIONS: DatasetOptions = {
  seed: 1,
  minLongChars: 100,
  longCopies: 200,
  latinCopies: 50,
  realTwins: 200,
  shortOriginals: 2000,
  shortCopies: 200,
  shortNearMisses: 300,
}

/** Part of the stream a document belongs to. */
export type DocKind = 'long' | 'latin' | 'short'

/** Perturbations applied to Latin documents. */
export const LATIN_PERTURBATIONS = ['html-chrome', 'sentence-delete', 'typos', 'truncate'] as const

/** A stream document with its labels (systems see only the `EvalDoc` fields). */
export interface LabelledDoc extends EvalDoc {
  /** Ground-truth group: an original and its copies share it. */
  group: string
  kind: DocKind
  /** `original`, a long perturbation, `latin-*`, `real-zh-tw`, `short-original`, `short-*`. */
  perturbation: string
  /** Corpus document the text comes from. */
  sourceId: string
  /** How it was made, e.g. `opencc cn→twp` or `3 of 31 sentences`. */
  note: string
  /** Length class of the group's original: `short`, `<300`, `300-1k`, `1k-5k`, `>=5k`. */
  bucket: string
}

/** The stream and how it was made. */
export interface Dataset {
  seed: number
  options: DatasetOptions
  docs: LabelledDoc[]
  /** Documents per perturbation label. */
  composition: Record<string, number>
  /** Facts about the construction worth printing (oracle group counts, eligible twins…). */
  facts: Record<string, number>
}

/** Share of Han characters among Han + ASCII letters (a char-code loop: a Unicode-property regex over ~5 M characters takes a second). */
function hanRatio(s: string): number {
  let han = 0
  let latin = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if ((c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0xf900 && c <= 0xfaff)) han++
    else if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) latin++
  }
  return han + latin === 0 ? 0 : han / (han + latin)
}

function bucketOf(chars: number): string {
  if (chars < 300) return '<300'
  if (chars < 1000) return '300-1k'
  if (chars < 5000) return '1k-5k'
  return '>=5k'
}

/** Corpus id of a document's twin in the other script: `man/zh_CN/…` ↔ `man/zh_TW/…`. */
function twinId(id: string): string {
  return id.replace(/^(\w+)\/zh_CN\//, '$1/zh_TW/')
}

/** A Page for perturbation from a corpus doc. */
function pageOf(d: CorpusDoc): Page {
  return { content: d.content, title: d.title }
}

/** Stable, label-free URL of an original ('#' would be dropped by URL canonicalisation). */
function originalUrl(d: CorpusDoc): string {
  return `https://debian-docs.example.org/${d.id.replace(/#/g, '/')}`
}

interface Draft {
  doc: Omit<LabelledDoc, 'id'>
  /** Position key: originals draw it, copies draw one after their source's. */
  key: number
}

/**
 * Build the labelled stream.
 * @example const ds = buildDataset(await loadCorpus(), { seed: 7 }); ds.docs.length // ≈ 8,000
 */
export function buildDataset(corpus: readonly CorpusDoc[], partial: Partial<DatasetOptions> = {}): Dataset {
  const options: DatasetOptions = { ...DEFAULT_DATASET_OPTIONS, ...partial }
  const root = new Rng(options.seed)
  const facts: Record<string, number> = {}

  // 1. Originals: zh_CN documents, near-duplicates among them removed by the oracle.
  const cn = corpus.filter((d) => d.lang === 'zh_CN' && d.content.length >= options.minLongChars)
  const groups = similarityGroups(cn.map((d) => d.content), 5, 0.5)
  const kept = cn.filter((_, i) => groups[i] === i)
  facts['zh_CN docs >= minLongChars'] = cn.length
  facts['oracle groups (kept originals)'] = kept.length
  const isLatin = kept.map((d) => hanRatio(d.content) < 0.05)
  const latinOriginals = kept.filter((_, i) => isLatin[i])
  const longOriginals = kept.filter((_, i) => !isLatin[i])

  const drafts: Draft[] = []
  const keyRng = root.fork('keys')
  const after = (key: number): number => key + (1 - key) * keyRng.next()
  let groupCounter = 0
  const newGroup = (): string => `g${groupCounter++}`

  interface OriginalRef {
    doc: CorpusDoc
    group: string
    key: number
    bucket: string
  }
  const addOriginal = (d: CorpusDoc, kind: DocKind, perturbation: string): OriginalRef => {
    const ref = { doc: d, group: newGroup(), key: keyRng.next(), bucket: bucketOf(d.content.length) }
    drafts.push({
      key: ref.key,
      doc: {
        content: d.content, title: d.title, url: originalUrl(d), group: ref.group, kind, perturbation,
        sourceId: d.id, note: '', bucket: ref.bucket,
      },
    })
    return ref
  }
  const longRefs = longOriginals.map((d) => addOriginal(d, 'long', 'original'))
  const latinRefs = latinOriginals.map((d) => addOriginal(d, 'latin', 'latin-original'))

  // 2. Copies of long and Latin originals.
  const cnTitles = corpus.filter((d) => d.lang === 'zh_CN').map((d) => d.title).filter((t) => t.length >= 4)
  const latinTitles = latinOriginals.map((d) => d.title)
  const hanPool = Array.from(
    root.fork('han-pool').sample(longOriginals, 300).map((d) => d.content).join('').matchAll(/\p{Script=Han}/gu),
    (m) => m[0],
  )
  const addCopies = (refs: readonly OriginalRef[], kind: DocKind, perturbation: LongPerturbation, label: string, count: number, lang: ChromeLang): void => {
    const rng = root.fork(`copies:${label}`)
    let made = 0
    for (const ref of rng.shuffle(refs)) {
      if (made >= count) break
      const r = perturb(pageOf(ref.doc), perturbation, { rng, lang, otherTitles: lang === 'zh' ? cnTitles : latinTitles, hanPool })
      if (r === null) continue
      drafts.push({
        key: after(ref.key),
        doc: {
          content: r.content, title: r.title, url: r.url ?? `https://repost-${rng.int(1, 40)}.example.net/p/${rng.int(100000, 999999)}.html`,
          group: ref.group, kind, perturbation: label, sourceId: ref.doc.id, note: r.note, bucket: ref.bucket,
        },
      })
      made++
    }
    facts[`${label} made`] = made
  }
  for (const p of LONG_PERTURBATIONS) addCopies(longRefs, 'long', p, p, options.longCopies, 'zh')
  for (const p of LATIN_PERTURBATIONS) addCopies(latinRefs, 'latin', p, `latin-${p}`, options.latinCopies, 'en')

  // 3. Real zh_TW twins that the oracle confirms as near-duplicates (checked in random order
  // until enough are found: converting and shingling all ~3k twins would double the build time).
  const byId = new Map(corpus.map((d) => [d.id, d]))
  const twToCn = Converter({ from: 'tw', to: 'cn' })
  const twinRng = root.fork('twins')
  let twinsChecked = 0
  let twinsMade = 0
  for (const ref of twinRng.shuffle(longRefs)) {
    if (twinsMade >= options.realTwins) break
    const twin = byId.get(twinId(ref.doc.id))
    if (twin === undefined || twin.lang !== 'zh_TW') continue
    twinsChecked++
    if (jaccard(shingleSet(twToCn(twin.content), 5), shingleSet(ref.doc.content, 5)) < 0.5) continue
    drafts.push({
      key: after(ref.key),
      doc: {
        content: twin.content, title: twin.title, url: originalUrl(twin), group: ref.group, kind: 'long',
        perturbation: 'real-zh-tw', sourceId: twin.id, note: 'Debian zh_TW translation', bucket: ref.bucket,
      },
    })
    twinsMade++
  }
  facts['zh_TW twins checked'] = twinsChecked
  facts['zh_TW twins the oracle accepts (used)'] = twinsMade

  // 4. Short texts: distinct originals, copies, near-misses.
  const shortRng = root.fork('shorts')
  const candidates = shortCandidates(corpus.filter((d) => d.lang === 'zh_CN'), shortRng, 2)
  const seenKeys = new Set<string>()
  const unique = candidates.filter((c) => {
    const k = shortKey(c.text)
    if (k === '' || seenKeys.has(k)) return false
    seenKeys.add(k)
    return true
  })
  // Short texts are near-duplicates of each other at character-bigram Jaccard ≥ 0.5: keep one.
  // A short text that is most of a long original's Chinese (≥ 25% of its Han characters, found
  // verbatim in it) is left out too: whether such a pair is a duplicate is a matter of opinion.
  const hanOnly = (t: string): string => t.replace(/[^\p{Script=Han}]/gu, '')
  const smallOriginals = longRefs.map((r) => hanOnly(r.doc.content)).filter((h) => h.length > 0 && h.length <= 4 * 80)
  const dominatesAnOriginal = (text: string): boolean => {
    const h = hanOnly(text)
    return smallOriginals.some((o) => h.length * 4 >= o.length && o.includes(h))
  }
  const c = (i: number): string => (unique[i] as { text: string }).text
  const shortGroups = similarityGroups(unique.map((c) => c.text), 2, 0.5)
  const distinctShorts = unique.filter((_, i) => shortGroups[i] === i && !dominatesAnOriginal(c(i)))
  facts['short candidates (unique)'] = unique.length
  facts['short candidates (oracle-distinct, not the bulk of a long original)'] = distinctShorts.length
  const chosenShorts = shortRng.sample(distinctShorts, options.shortOriginals)
  const allShortKeys = new Set(unique.map((c) => shortKey(c.text)))
  const shortRefs = chosenShorts.map((c) => {
    const ref = { text: c.text, from: c.from, group: newGroup(), key: keyRng.next() }
    drafts.push({
      key: ref.key,
      doc: { content: c.text, group: ref.group, kind: 'short', perturbation: 'short-original', sourceId: c.from, note: '', bucket: 'short' },
    })
    return ref
  })
  for (const p of SHORT_PERTURBATIONS) {
    const rng = root.fork(`copies:${p}`)
    let made = 0
    for (const ref of rng.shuffle(shortRefs)) {
      if (made >= options.shortCopies) break
      const r = perturbShort(ref.text, p, rng)
      if (r === null) continue
      drafts.push({
        key: after(ref.key),
        doc: { content: r.text, group: ref.group, kind: 'short', perturbation: p, sourceId: ref.from, note: r.note, bucket: 'short' },
      })
      made++
    }
    facts[`${p} made`] = made
  }
  const vocab = vocabulary(chosenShorts.map((c) => c.text))
  const nearRng = root.fork('near-miss')
  let nearMade = 0
  for (const ref of nearRng.shuffle(shortRefs)) {
    if (nearMade >= options.shortNearMisses) break
    const r = nearMiss(ref.text, nearRng, vocab)
    if (r === null) continue
    const k = shortKey(r.text)
    if (allShortKeys.has(k)) continue // the "changed" text is another real text of the corpus
    allShortKeys.add(k)
    drafts.push({
      key: after(ref.key),
      doc: {
        content: r.text, group: newGroup(), kind: 'short', perturbation: 'short-near-miss',
        sourceId: ref.from, note: `${r.note} (of: ${ref.text})`, bucket: 'short',
      },
    })
    nearMade++
  }
  facts['short-near-miss made'] = nearMade

  // 5. Order by key (ties cannot reorder a copy before its source: its key is strictly larger
  // unless the draw is 0, and then the stable sort keeps insertion order, source first).
  drafts.sort((a, b) => a.key - b.key)
  const docs: LabelledDoc[] = drafts.map((d, i) => ({ id: `d${String(i).padStart(5, '0')}`, ...d.doc }))
  const composition: Record<string, number> = {}
  for (const d of docs) composition[d.perturbation] = (composition[d.perturbation] ?? 0) + 1
  return { seed: options.seed, options, docs, composition, facts }
}

/**
 * The documents as systems see them: only id, content, title and url.
 * @example toEvalDocs(ds.docs)[0] // → { id: 'd00000', content: '…', title: '…', url: '…' }
 */
export function toEvalDocs(docs: readonly LabelledDoc[]): EvalDoc[] {
  return docs.map((d) => {
    const e: EvalDoc = { id: d.id, content: d.content }
    if (d.title !== undefined) e.title = d.title
    if (d.url !== undefined) e.url = d.url
    return e
  })
}
