import { describe, expect, it } from 'vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, type Decision, type InputDocument } from '../../../src/index.js'
import { TEMPLATE_FIRST_EPOCH } from '../../../src/engine/templates.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../../fixtures/articles.js'
import { runInBatches } from '../../helpers/rerun.js'

const analyzer = createAnalyzer()
/** The fixture articles' sentences (~40 characters each, all different). */
const SENTENCES = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D].flatMap((a) => a.split(/(?<=。)/)).filter((s) => s.length > 0)
/** Eight different articles of three lines each (no line shared by two of them). */
const ARTICLES = Array.from({ length: 8 }, (_, j) => [0, 1, 2].map((k) => SENTENCES[3 * j + k]!).join('\n'))
const HOSTS = ['a.example', 'b.example', 'c.example']
const COPIES = 12 * TEMPLATE_FIRST_EPOCH

/** The k-th copy of an article: every third one with its first three commas dropped (a light edit). */
function copyOf(article: string, k: number): string {
  if (k % 3 !== 1) return article
  let n = 0
  return article.replace(/，/g, (c) => (n++ < 3 ? '' : c))
}

/**
 * Issue 24 ("the site-template learner eats duplicated content"): a few articles each reposted
 * many times in a row on a few hosts, numbered ids, one URL per article and host. The copies of one
 * article are most of a host's recent pages, but they are one document: its lines must never
 * become template, or its next copies are fingerprinted on what is left (new clusters, and a
 * same-URL copy a "new version" of its own article).
 */
function repostStream(): InputDocument[] {
  const docs: InputDocument[] = []
  ARTICLES.forEach((article, j) => {
    for (let k = 0; k < COPIES; k++) {
      const host = HOSTS[k % HOSTS.length]!
      docs.push({ id: String(docs.length), content: copyOf(article, k), url: `https://${host}/news/${j}.html` })
    }
  })
  return docs
}

const summary = (ds: readonly Decision[]) => ({
  clusters: new Set(ds.map((d) => d.clusterId)).size,
  unique: ds.filter((d) => d.status === 'unique').length,
  supersedes: ds.filter((d) => d.supersedes !== undefined).length,
})

describe('templates are never learned from copies of one document (issue 24)', () => {
  it('articles reposted many times on a few hosts stay one cluster each, as without the layer', async () => {
    const docs = repostStream()
    const run = async (templates: boolean) => {
      const store = await openMemoryStore()
      const out = await runInBatches(createDeduplicator({ store, analyzer, templates }), docs, 1, 40)
      await store.close()
      return out
    }
    const off = await run(false)
    expect(summary(off)).toEqual({ clusters: ARTICLES.length, unique: ARTICLES.length, supersedes: 0 })
    const on = await run(true)
    expect(summary(on)).toEqual(summary(off))
    expect(on.map((d) => d.clusterId)).toEqual(off.map((d) => d.clusterId))
  })
})
