import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { nearDuplicateDocs, postDocuments, startServe, type ServeProcess } from '../helpers/serve.js'
import { ARTICLE_C } from '../fixtures/articles.js'

// Child processes (the server, the CLI) on a loaded machine: a longer limit than the default 30 s.
vi.setConfig({ testTimeout: 120_000 })

// The inspector page of `simdup serve`, driven in a real headless Chromium (Debian's `chromium`
// package, through puppeteer-core): open it, click into a cluster, open a pair, check what is shown.
// The screenshot is kept in .cache/test-results/serve-page.png. In CI (CI=true) a missing Chromium
// fails the test (`.ci/run` installs it); elsewhere the suite is reported as skipped.

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p !== undefined && p !== '' && existsSync(p))
const IN_CI = process.env.CI === 'true'
const SHOTS = fileURLToPath(new URL('../../.cache/test-results/', import.meta.url))

/** An id and a text a careless page would turn into markup (and run). */
const XSS_ID = '<img src=x onerror="window.__xss=1">'
const XSS_TEXT = `<script>window.__xss=2</script>${ARTICLE_C}`

describe.runIf(CHROMIUM !== undefined || IN_CI)('the inspector page in headless Chromium', () => {
  let dir: string
  let server: ServeProcess
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    if (CHROMIUM === undefined) throw new Error('Chromium not found (CI=true): install Debian\'s `chromium` package (.ci/run does) or set CHROMIUM_PATH.')
    dir = mkdtempSync(join(tmpdir(), 'simdup-serve-page-'))
    server = await startServe(['--store', 'store', '--keep-texts'], { cwd: dir })
    const docs = [...nearDuplicateDocs('p', 24), { id: XSS_ID, content: XSS_TEXT }, { id: 'xss-copy', content: `${XSS_TEXT}（完）` }]
    expect((await postDocuments(server.url, docs)).status).toBe(200)
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
    page = await browser.newPage()
    await page.setViewport({ width: 1400, height: 1000 })
    await page.goto(server.url, { waitUntil: 'networkidle0' })
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop('SIGKILL')
  })

  test('largest clusters, a cluster\'s members with their evidence, a pair side by side with shared passages marked', async () => {
    const api = (await (await fetch(`${server.url}/v1/clusters?top=50`)).json()) as { clusters: { clusterId: string; size: number }[] }
    await page.waitForSelector('#clusters a')
    const listed = await page.$$eval('#clusters a', (links) => links.map((a) => a.textContent))
    expect(listed).toEqual(api.clusters.map((c) => c.clusterId))
    expect(await page.$eval('#store-size', (e) => e.textContent)).toBe('26 documents')

    // Into the largest cluster.
    await page.click('#clusters li:first-child a')
    await page.waitForSelector('#members tbody tr')
    const rows = await page.$$eval('#members tbody tr', (trs) => trs.map((tr) => ({ rep: tr.classList.contains('rep'), cells: [...tr.querySelectorAll('td')].map((td) => td.textContent) })))
    expect(rows).toHaveLength(api.clusters[0]!.size)
    expect(rows[0]!.rep).toBe(true)
    expect(rows[0]!.cells.slice(1, 3)).toEqual(['first', '–'])
    const view = (await (await fetch(`${server.url}/v1/clusters/${encodeURIComponent(api.clusters[0]!.clusterId)}`)).json()) as { members: { id: string; layer: string | null; rule: string | null; distance: number | null; resemblance: number | null }[] }
    // Each member's evidence as the API gives it: layer, rule, distance, resemblance.
    rows.forEach((r, i) => {
      const m = view.members[i]!
      expect(r.cells.slice(0, 1).concat(r.cells.slice(2, 6))).toEqual([m.id, m.layer ?? '–', m.rule ?? '–', m.distance === null ? '–' : String(m.distance), m.resemblance === null ? '–' : m.resemblance.toFixed(2)])
    })
    expect(rows.some((r) => r.cells[3] === 'minhash' || r.cells[3] === 'simhash')).toBe(true)
    expect(await page.$eval('#detail', (e) => e.textContent)).not.toMatch(/null|undefined/)
    mkdirSync(SHOTS, { recursive: true })
    await page.screenshot({ path: join(SHOTS, 'serve-page-cluster.png'), fullPage: true })

    // A member next to what it duplicates.
    await page.click('#members tbody tr:nth-child(2) a.pair-link')
    await page.waitForSelector('#verdict')
    expect(await page.$eval('#verdict', (e) => e.textContent)).toMatch(/^duplicates: (simhash|exact|url) layer/)
    const sides = await page.$$eval('.pair .text', (boxes) => boxes.map((b) => ({ text: b.textContent, marks: [...b.querySelectorAll('mark')].map((m) => m.textContent ?? '') })))
    expect(sides).toHaveLength(2)
    const [a, b] = sides as [{ text: string; marks: string[] }, { text: string; marks: string[] }]
    expect(a.marks.length).toBeGreaterThan(0)
    for (const m of a.marks) {
      expect(m.length).toBeGreaterThanOrEqual(8)
      expect(b.text).toContain(m.slice(0, 8)) // every marked passage starts with 8 characters the other text has
    }
    await page.screenshot({ path: join(SHOTS, 'serve-page.png'), fullPage: true })
  })

  test('lookup by id shows its cluster; the histogram is drawn', async () => {
    await page.goto(`${server.url}/#/`, { waitUntil: 'networkidle0' })
    await page.type('#lookup-id', 'p9')
    await page.click('#lookup button')
    await page.waitForFunction('document.querySelector("#detail h2")?.textContent?.startsWith("Cluster ")')
    expect(await page.$eval('#detail', (e) => e.textContent)).toContain('p9 is a member of this cluster.')
    expect(await page.$$eval('#histogram svg', (s) => s.length)).toBe(2)
    expect(await page.$$eval('#histogram svg rect', (r) => r.length)).toBeGreaterThan(3)
  })

  test('ids and texts are shown as text, never run as markup', async () => {
    await page.goto(`${server.url}/#/pair/${encodeURIComponent(XSS_ID)}/xss-copy`, { waitUntil: 'networkidle0' })
    await page.waitForSelector('.pair .text')
    expect(await page.evaluate('window.__xss')).toBeUndefined()
    expect(await page.$$eval('#detail img, #detail script', (e) => e.length)).toBe(0)
    expect(await page.$eval('.pair h3 a', (e) => e.textContent)).toBe(XSS_ID)
    expect(await page.$eval('.pair .text', (e) => e.textContent)).toBe(XSS_TEXT)
  })
})
