import type { InputDocument } from '../../src/types.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../fixtures/articles.js'
import { mulberry32 } from './random.js'

/** Random document streams full of copies (no vitest import: child processes of tests use it too). */

const SENTENCES = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D].flatMap((a) => a.split(/(?<=。)/)).filter((s) => s.length > 0)
/** Edits a copy gets: an ad line, a cut tail, two sentences swapped, a site prefix. */
const AD = '点击关注，获取更多精彩资讯。' // "follow us for more news"
const PREFIX = '【本站讯】' // "[this site reports]"

/**
 * A stream of `n` documents from `seed`: originals made of 4–8 sentences of the fixture articles
 * (so unrelated originals share sentences too), exact and edited copies of earlier documents,
 * some with the same URL (version chains: re-crawls of a page, edited or not, and pages whose
 * content changes), and (unless `reuseIds` is false) about one in twelve re-using an
 * earlier id with new content.
 */
export function copyStream(seed: number, n: number, reuseIds = true): InputDocument[] {
  const rnd = mulberry32(seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!
  const docs: InputDocument[] = []
  for (let i = 0; i < n; i++) {
    let content: string
    let from: InputDocument | undefined
    if (docs.length === 0 || rnd() < 0.35) {
      const k = 4 + Math.floor(rnd() * 5)
      content = Array.from({ length: k }, () => pick(SENTENCES)).join('')
    } else {
      from = pick(docs)
      const base = from.content
      const parts = base.split(/(?<=。)/)
      const edit = Math.floor(rnd() * 5)
      if (edit === 1) content = base + AD
      else if (edit === 2 && parts.length > 3) content = parts.slice(0, -1).join('')
      else if (edit === 3 && parts.length > 2) content = [parts[1], parts[0], ...parts.slice(2)].join('')
      else if (edit === 4) content = PREFIX + base
      else content = base
    }
    const id = reuseIds && docs.length > 0 && rnd() < 0.08 ? pick(docs).id : `d${i}`
    const doc: InputDocument = { id, content }
    // Version chains: a copy re-crawled under its original's URL (same or edited content), and
    // pages of a few URLs whose content changes altogether.
    if (from?.url != null && rnd() < 0.5) doc.url = from.url
    else if (rnd() < 0.15) doc.url = `https://news.example/a/${Math.floor(rnd() * 6)}`
    docs.push(doc)
  }
  return docs
}

