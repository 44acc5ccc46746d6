import { describe, expect, test, beforeAll } from 'vitest'
import { mkdtempSync, copyFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../../../src/cli/main.js'
import { fakeIO } from '../../helpers/cli.js'
import { ARTICLE_A, ARTICLE_B } from '../../fixtures/articles.js'

let dir: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'simdup-inspect-'))
  copyFileSync(new URL('../../../examples/news.jsonl', import.meta.url), join(dir, 'news.jsonl'))
  expect(await run(['index', 'news.jsonl', '--out', 'd.jsonl', '--store', 'st', '--quiet'], fakeIO(dir).io)).toBe(0)
})

const json = async (args: string[]) => {
  const f = fakeIO(dir)
  const code = await run([...args, '--store', 'st', '--json'], f.io)
  expect(code, f.stderr()).toBe(0)
  return JSON.parse(f.stdout()) as Record<string, unknown>
}

describe('inspection commands on the embedded store', () => {
  test('clusters: largest first, sizes add up', async () => {
    const r = (await json(['clusters'])) as { clusters: { clusterId: string; size: number }[] }
    expect(r.clusters.slice(0, 2)).toEqual([{ clusterId: 'lib-001', size: 3 }, { clusterId: 'net-001', size: 3 }]) // ties: smaller id first
    expect(r.clusters.map((c) => c.clusterId).sort()).toEqual(['farm-001', 'lib-001', 'net-001', 'short-1', 'tax-001'])
  })
  test('cluster: members with distance to the representative and layer', async () => {
    const r = (await json(['cluster', 'lib-001'])) as { size: number; members: { id: string; representative: boolean; layer: string | null; distanceToRepresentative: number }[] }
    expect(r.size).toBe(3)
    expect(r.members.find((m) => m.representative)!.id).toBe('lib-001')
    expect(r.members.find((m) => m.id === 'lib-002-mirror')).toMatchObject({ layer: 'url', distanceToRepresentative: 0 })
    const missing = fakeIO(dir)
    expect(await run(['cluster', 'nope', '--store', 'st'], missing.io)).toBe(2)
  })
  test('explain: the layer and rule that apply, or why not', async () => {
    expect(await json(['explain', 'net-001', 'net-002-ad'])).toMatchObject({ duplicate: true, layer: 'simhash', rule: 'minhash', sameCluster: true, versions: null })
    const no = await json(['explain', 'short-1', 'short-2']) // "version 1.2 released" vs "1.3"
    expect(no).toMatchObject({ duplicate: false, sameContent: false })
    expect((no.reasons as string[]).join(' ')).toMatch(/short/)
    const f = fakeIO(dir)
    await run(['explain', 'lib-001', 'tax-001', '--store', 'st'], f.io)
    expect(f.stdout()).toMatch(/verdict +not duplicates[\s\S]*why not/)
  })
  test('delete: a representative hands its cluster to the earliest remaining member', async () => {
    expect(await json(['delete', 'net-001'])).toEqual({ deleted: 1, reassigned: 2, notFound: [] })
    const r = (await json(['cluster', 'net-002-ad'])) as { size: number; members: { id: string; duplicateOf: string | null }[] }
    expect(r.size).toBe(2)
    expect(r.members.every((m) => m.duplicateOf !== 'net-001')).toBe(true)
  })
  test('reconcile on a consistent store changes nothing', async () => {
    expect(await json(['reconcile'])).toMatchObject({ pairs: 0, mergedClusters: 0, updated: 0 })
  })
})

describe('inspection commands show URL versions', () => {
  let vdir: string
  const PAGE = 'https://news.example.com/lib'
  beforeAll(async () => {
    vdir = mkdtempSync(join(tmpdir(), 'simdup-versions-'))
    copyFileSync(new URL('../../../examples/news.jsonl', import.meta.url), join(vdir, 'news.jsonl'))
    // Three crawls of one page: a text, another text, the first text again (a duplicate of v1 that supersedes v2).
    const [a, b] = [ARTICLE_A, ARTICLE_B]
    const lines = [{ id: 'v1', content: a, url: PAGE }, { id: 'v2', content: b, url: PAGE }, { id: 'v3', content: a, url: `${PAGE}?utm_source=x` }]
    writeFileSync(join(vdir, 'v.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    expect(await run(['index', 'v.jsonl', '--out', 'd.jsonl', '--store', 'st', '--quiet'], fakeIO(vdir).io)).toBe(0)
  })
  const vjson = async (args: string[]) => {
    const f = fakeIO(vdir)
    expect(await run([...args, '--store', 'st', '--json'], f.io), f.stderr()).toBe(0)
    return JSON.parse(f.stdout()) as Record<string, unknown>
  }

  test('cluster: which member supersedes which, which is newest, and the versions of the URL', async () => {
    const r = (await vjson(['cluster', 'v1'])) as { members: { id: string; supersedes: string | null; newestVersion: string | null }[]; versions: unknown[] }
    expect(r.members.map((m) => [m.id, m.supersedes, m.newestVersion])).toEqual([['v1', null, 'v3'], ['v3', 'v2', 'v3']])
    expect(r.versions).toEqual([
      { id: 'v3', newest: true, supersedes: 'v2', clusterId: 'v1', duplicateOf: 'v1' },
      { id: 'v2', newest: false, supersedes: 'v1', clusterId: 'v2', duplicateOf: null },
      { id: 'v1', newest: false, supersedes: null, clusterId: 'v1', duplicateOf: null },
    ])
    const f = fakeIO(vdir)
    expect(await run(['cluster', 'v2', '--store', 'st'], f.io)).toBe(0)
    expect(f.stdout()).toMatch(/v2 +d= 0 first +supersedes v1 +\(older version; newest v3\)/)
    expect(f.stdout()).toMatch(/versions of v2's URL, newest first:\n +newest v3 +supersedes v2 +\(cluster v1\)\n +v2 +supersedes v1\n +v1 +first +\(cluster v1\)/)
  })

  test('explain: for two documents of one URL, whether the later supersedes the earlier, and the newest', async () => {
    expect(await vjson(['explain', 'v2', 'v1'])).toMatchObject({ duplicate: false, versions: { later: 'v2', supersedes: 'v1', newest: 'v3' } })
    expect(await vjson(['explain', 'v1', 'v3'])).toMatchObject({ duplicate: true, layer: 'url', versions: { later: 'v3', supersedes: 'v2', newest: 'v3' } })
    const f = fakeIO(vdir)
    expect(await run(['explain', 'v1', 'v2', '--store', 'st'], f.io)).toBe(0)
    expect(f.stdout()).toMatch(/versions +v2 supersedes v1 \(a new version\); newest of the URL: v3/)
  })
})
