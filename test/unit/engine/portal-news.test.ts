import { describe, expect, it } from 'vitest'
import { createAnalyzer, createDeduplicator, openMemoryStore, type InputDocument } from '../../../src/index.js'
import { NEWS, portalA, portalB } from '../../fixtures/portal-news.js'

const analyzer = createAnalyzer()

// Issue 24: short news (60–130 characters) inside portal chrome whose lines change from page to
// page (date, source, author, editor, views, breadcrumb section, prev/next and related headlines)
// and outweigh the item. Portal A publishes 20 items; portal B reposts each in its own layout.
describe('short news under portal chrome (issue 24)', () => {
  it('a repost on another portal is found once the portals\' chrome shapes are known; different items never merge', async () => {
    const docs: InputDocument[] = [
      ...NEWS.map((item, i) => ({ id: `a${i}`, content: portalA(i, item), url: `https://news-a.example/n/${i}.html` })),
      ...NEWS.map((item, i) => ({ id: `b${i}`, content: portalB(i, item), url: `https://news-b.example/p/${1000 + i}.html` })),
    ]
    const store = await openMemoryStore()
    const decisions = await createDeduplicator({ store, analyzer }).add(docs)
    await store.close()
    const wrong = decisions.filter((d) => d.duplicateOf !== null && d.duplicateOf.slice(1) !== d.id?.slice(1)).map((d) => `${d.id}→${d.duplicateOf}`)
    expect(wrong).toEqual([])
    const found = decisions.filter((d) => d.id?.startsWith('b') === true && d.duplicateOf === `a${d.id.slice(1)}`).map((d) => d.id)
    // Every repost is found: the first two, whose originals were fingerprinted before any related
    // headline under them was known, by the exact short-text route (containment of the item).
    expect(found).toEqual(NEWS.map((_, i) => `b${i}`))
  })
})
