import { describe, expect, test } from 'vitest'
import {
  createAnalyzer, createDeduplicator, deleteDocuments, hamming, newestVersion, openMemoryStore, reconcile, versionHistory, type FingerprintRecord, type FingerprintStore,
} from '../../../src/index.js'
import { minhashSimilarity } from '../../../src/internal.js'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../../fixtures/articles.js'

/** Issue 15, URL layer: the same URL with other content is a new version; the store holds which is newest. */

const analyzer = createAnalyzer()
const PAGE = 'https://news.example.com/lib'

async function dedup() {
  return createDeduplicator({ store: await openMemoryStore(), analyzer })
}

async function links(store: FingerprintStore): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {}
  for await (const batch of store.scan(100)) for (const r of batch) out[r.id] = r.supersedes ?? null
  return out
}

describe('URL versions', () => {
  test('the record of a new version stores which record it supersedes; the decision says the same', async () => {
    const d = await dedup()
    await d.add([{ id: 'v1', content: ARTICLE_A, url: PAGE }])
    const [v2] = await d.add([{ id: 'v2', content: ARTICLE_B, url: `${PAGE}?utm_source=wx` }])
    expect(v2).toMatchObject({ status: 'unique', supersedes: 'v1' })
    expect(await links(d.options.store)).toEqual({ v1: null, v2: 'v1' })
  })

  test('a page that goes back to an older text: a duplicate of that text, and a new version of the text just before it', async () => {
    const d = await dedup()
    const out = await d.add([
      { id: 'v1', content: ARTICLE_A, url: PAGE },
      { id: 'v2', content: ARTICLE_B, url: PAGE },
      { id: 'v3', content: ARTICLE_A, url: PAGE },
      // A same-content re-crawl of the newest text is a duplicate and no new version.
      { id: 'v3-again', content: ARTICLE_A, url: PAGE },
    ])
    expect(out.map((x) => [x.id, x.status, x.duplicateOf, x.supersedes ?? null])).toEqual([
      ['v1', 'unique', null, null],
      ['v2', 'unique', null, 'v1'],
      ['v3', 'duplicate', 'v1', 'v2'],
      ['v3-again', 'duplicate', 'v1', null],
    ])
    expect((await newestVersion(d, { url: PAGE }))?.id).toBe('v3-again')
  })

  test('newestVersion and versionHistory, by id or by any spelling of the URL; fragments are other pages', async () => {
    const d = await dedup()
    await d.add([
      { id: 's5-v1', content: ARTICLE_A, url: `${PAGE}#s5` },
      { id: 's6', content: ARTICLE_B, url: `${PAGE}#s6` },
      { id: 'bare', content: ARTICLE_D },
    ])
    await d.add([{ id: 's5-v2', content: ARTICLE_C, url: `HTTPS://News.Example.com:443/lib#s5` }])
    await d.add([{ id: 's5-v3', content: ARTICLE_D.slice(0, 80) + ARTICLE_B, url: `${PAGE}?utm_medium=x#s5` }])
    const history = await versionHistory(d, { id: 's5-v1' })
    expect(history.map((r) => [r.id, r.supersedes ?? null])).toEqual([['s5-v3', 's5-v2'], ['s5-v2', 's5-v1'], ['s5-v1', null]])
    expect((await newestVersion(d, { id: 's5-v2' }))?.id).toBe('s5-v3')
    expect((await newestVersion(d, { url: `${PAGE}#s5` }))?.id).toBe('s5-v3')
    expect((await newestVersion(d, { url: `${PAGE}#s6` }))?.id).toBe('s6')
    // No URL: its own only version. Unknown id or URL: none.
    expect((await versionHistory(d, { id: 'bare' })).map((r) => r.id)).toEqual(['bare'])
    expect(await newestVersion(d, { id: 'missing' })).toBeNull()
    expect(await newestVersion(d, { url: `${PAGE}#s7` })).toBeNull()
    await expect(newestVersion(d, { url: 'ftp://x' })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`url`/) })
  })

  test('deleting the newest version makes the one before it newest; deleting a middle one links its neighbours (or not, when they agree)', async () => {
    const d = await dedup()
    await d.add([
      { id: 'p1', content: ARTICLE_A, url: PAGE },
      { id: 'p2', content: ARTICLE_B, url: PAGE },
      { id: 'p3', content: ARTICLE_C, url: PAGE },
      { id: 'p4', content: ARTICLE_D, url: PAGE },
      { id: 'q1', content: ARTICLE_A, url: `${PAGE}/q` },
      { id: 'q2', content: ARTICLE_B, url: `${PAGE}/q` },
      { id: 'q3', content: ARTICLE_A, url: `${PAGE}/q` },
    ])
    const store = d.options.store
    expect(await links(store)).toMatchObject({ p2: 'p1', p3: 'p2', p4: 'p3', q2: 'q1', q3: 'q2' })
    await deleteDocuments(d, ['p4'])
    expect((await newestVersion(d, { url: PAGE }))?.id).toBe('p3')
    await deleteDocuments(d, ['p2', 'q2'])
    // p3 now follows p1 (other content); q3 follows q1 with the same text: no new version.
    expect(await links(store)).toEqual({ p1: null, p3: 'p1', q1: null, q3: null })
    // As a clean run of what is left decides.
    const clean = await dedup()
    await clean.add([
      { id: 'p1', content: ARTICLE_A, url: PAGE },
      { id: 'p3', content: ARTICLE_C, url: PAGE },
      { id: 'q1', content: ARTICLE_A, url: `${PAGE}/q` },
      { id: 'q3', content: ARTICLE_A, url: `${PAGE}/q` },
    ])
    expect(await links(store)).toEqual(await links(clean.options.store))
  })

  test('reconcile derives version links a store lacks (written before simdup stored them) and drops wrong ones; idempotent', async () => {
    const d = await dedup()
    await d.add([
      { id: 'v1', content: ARTICLE_A, url: PAGE },
      { id: 'v2', content: ARTICLE_B, url: PAGE },
      { id: 'v3', content: ARTICLE_C, url: PAGE },
      { id: 'x', content: ARTICLE_D },
    ])
    const store = d.options.store
    const right = await links(store)
    const all: FingerprintRecord[] = []
    for await (const batch of store.scan(100)) all.push(...batch)
    // An older store: no links; plus one wrong link.
    await store.put(all.map(({ supersedes: _, ...r }) => (r.id === 'x' ? { ...r, supersedes: 'v1' } : r)))
    expect(Object.values(await links(store)).filter((v) => v !== null)).toEqual(['v1'])
    const result = await reconcile(d)
    expect(result).toMatchObject({ versions: 3, pairs: 0 })
    expect(await links(store)).toEqual(right)
    expect(await reconcile(d)).toMatchObject({ versions: 0, updated: 0 })
  })
})

describe('urlMinResemblance: a looser content check for same-URL pairs (off by default)', () => {
  // A re-crawl that kept the first part of the page and replaced the rest: estimated 5-gram
  // resemblance between 0.5 and 0.6, SimHash far apart. Found among cut points of the fixtures.
  function recrawl(): { before: string; after: string; resemblance: number } {
    const before = ARTICLE_A + ARTICLE_B
    for (let keep = before.length - 10; keep > 0; keep -= 5) {
      const after = before.slice(0, keep) + ARTICLE_C.slice(0, 60)
      const [x, y] = [analyzer.analyze(before), analyzer.analyze(after)]
      const resemblance = minhashSimilarity(x.sketch!, y.sketch!)
      if (resemblance >= 0.52 && resemblance < 0.58 && hamming(x.fingerprint, y.fingerprint) > 3) return { before, after, resemblance }
    }
    throw new Error('no cut point gives a resemblance between 0.52 and 0.58')
  }

  test('by default a new version; with 0.5 a duplicate by the url layer; other URLs are not loosened', async () => {
    const { before, after } = recrawl()
    const strict = await dedup()
    const [, a] = await strict.add([{ id: 'v1', content: before, url: PAGE }, { id: 'v2', content: after, url: PAGE }])
    expect(a).toMatchObject({ status: 'unique', supersedes: 'v1' })
    const loose = createDeduplicator({ store: await openMemoryStore(), analyzer, urlMinResemblance: 0.5 })
    const [, b] = await loose.add([{ id: 'v1', content: before, url: PAGE }, { id: 'v2', content: after, url: PAGE }])
    expect(b).toMatchObject({ status: 'duplicate', duplicateOf: 'v1', layer: 'url', rule: 'minhash' })
    expect(b!.supersedes).toBeUndefined()
    // The same two texts under two URLs: the content rules as they are (0.6).
    const other = createDeduplicator({ store: await openMemoryStore(), analyzer, urlMinResemblance: 0.5 })
    const [, c] = await other.add([{ id: 'w1', content: before, url: `${PAGE}/w1` }, { id: 'w2', content: after, url: `${PAGE}/w2` }])
    expect(c).toMatchObject({ status: 'unique' })
  })

  test('urlMinResemblance must be above 0 and at most 1', () => {
    expect(() => createDeduplicator({ store: {} as FingerprintStore, analyzer, urlMinResemblance: 0 })).toThrow(/`urlMinResemblance`/)
  })
})
