/**
 * Hot-cluster streams of real text (issue 25): a few articles reposted thousands of times with
 * 0–3 characters changed per copy, and a control stream of the same size and text lengths
 * without them. The articles are documents of the Debian corpus (`SIMDUP_CORPUS_DIR`, see
 * scripts/corpus), so fingerprints, bands and prefix terms are those of real text.
 *
 *   npx tsx scripts/hot-stream.ts --articles 20 --copies 10000 [--control] [--seed 1] > hot.jsonl
 *
 * Used by scripts/bench-hot.ts. Deterministic for a seed and corpus.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { fileURLToPath } from 'node:url'

export interface StreamDoc {
  id: string
  content: string
}

/** mulberry32: seeded numbers in [0, 1). */
export function rng(seed: number): () => number {
  let s = seed | 0
  return () => {
    s = (s + 0x6d2b79f5) | 0
    let t = Math.imul(s ^ (s >>> 15), 1 | s)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Chinese texts of the corpus between `min` and `max` characters, in corpus order. */
export function corpusTexts(min = 600, max = 4000, dir = process.env.SIMDUP_CORPUS_DIR ?? '.cache/corpus'): string[] {
  const out: string[] = []
  for (const line of readFileSync(join(dir, 'docs.jsonl'), 'utf8').split('\n')) {
    if (line === '') continue
    const d = JSON.parse(line) as { lang?: string; content?: string }
    const c = d.content ?? ''
    if (c.length < min || c.length > max || !(d.lang ?? '').startsWith('zh')) continue
    // Mostly Chinese prose (man pages with little text are option tables).
    let han = 0
    for (const ch of c) if (ch >= '\u4e00' && ch <= '\u9fff') han++
    if (han >= 0.3 * c.length) out.push(c)
  }
  if (out.length === 0) throw new Error(`no corpus texts in ${dir}/docs.jsonl: build the corpus (scripts/corpus/build.ts) or set SIMDUP_CORPUS_DIR`)
  return out
}

const EDIT_CHARS = '的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处理府研质信'

/** `text` with 0–3 characters substituted, inserted or deleted at random places. */
export function editText(text: string, r: () => number): string {
  return editChars(text, Math.floor(r() * 4), r)
}

/** `text` with `edits` characters of `alphabet` substituted, inserted or deleted at random places (also the bounds tests' streams). */
export function editChars(text: string, edits: number, r: () => number, alphabet = EDIT_CHARS): string {
  const chars = [...text]
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(r() * chars.length)
    const ch = alphabet[Math.floor(r() * alphabet.length)]!
    const kind = Math.floor(r() * 3)
    if (kind === 0) chars[at] = ch
    else if (kind === 1) chars.splice(at, 0, ch)
    else chars.splice(at, 1)
  }
  return chars.join('')
}

/**
 * `articles` corpus texts, each copied `copies` times (the first copy unedited, each later one
 * 0–3 characters off the article), shuffled into one stream: `articles × copies` documents.
 */
export function hotStream(articles: number, copies: number, seed = 1, texts = corpusTexts()): StreamDoc[] {
  const r = rng(seed)
  const picked = pickTexts(texts, articles, r)
  const order: number[] = []
  for (let a = 0; a < articles; a++) for (let c = 0; c < copies; c++) order.push(a)
  shuffle(order, r)
  const made = new Array<number>(articles).fill(0)
  return order.map((a, i) => {
    const k = made[a]!++
    return { id: `hot-${i}`, content: k === 0 ? picked[a]! : editText(picked[a]!, r) }
  })
}

/**
 * The control: as many documents of the same lengths (600–2,000 characters) without hot
 * clusters: each made of sentences drawn at random from the corpus texts' sentences, edited 0–3
 * characters; two documents share a sentence now and then, a whole text only by chance.
 */
export function controlStream(n: number, seed = 1, texts = corpusTexts()): StreamDoc[] {
  const r = rng(seed ^ 0x5bd1e995)
  const sentences = [...new Set(texts.flatMap((t) => t.split(/(?<=[。！？\n])/)).map((x) => x.trim()).filter((x) => x.length >= 8 && x.length <= 200))]
  const out: StreamDoc[] = []
  for (let i = 0; i < n; i++) {
    const len = 600 + Math.floor(r() * 1400)
    let content = ''
    while (content.length < len) content += sentences[Math.floor(r() * sentences.length)]! + '\n'
    out.push({ id: `ctl-${i}`, content: editText(content, r) })
  }
  return out
}

function pickTexts(texts: readonly string[], n: number, r: () => number): string[] {
  if (n > texts.length) throw new Error(`asked for ${n} articles, the corpus has ${texts.length} usable texts`)
  const idx = texts.map((_t, i) => i)
  shuffle(idx, r)
  return idx.slice(0, n).map((i) => texts[i]!)
}

function shuffle<T>(xs: T[], r: () => number): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1))
    ;[xs[i], xs[j]] = [xs[j]!, xs[i]!]
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { articles: { type: 'string', default: '20' }, copies: { type: 'string', default: '10000' }, control: { type: 'boolean', default: false }, seed: { type: 'string', default: '1' } } })
  const articles = Number(values.articles)
  const copies = Number(values.copies)
  const seed = Number(values.seed)
  const docs = values.control ? controlStream(articles * copies, seed) : hotStream(articles, copies, seed)
  for (const d of docs) process.stdout.write(JSON.stringify(d) + '\n')
}
