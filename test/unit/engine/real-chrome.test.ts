import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { createDeduplicator, openMemoryStore } from '../../../src/index.js'

const fixture = (name: string): string => readFileSync(join(import.meta.dirname, '../../fixtures/html', `${name}.html`), 'utf8')

// Issue 15, failure mode 1 (real site chrome): two different short sections of one Debian
// Reference chapter, each page carrying the chapter's table of contents, which is larger than
// either section. The default engine must not call them duplicates, and must still find a section
// re-published inside another site's real chrome (a LibreOffice help page).
it('pages sharing a large table of contents are not duplicates; the same section in other chrome is', async () => {
  const store = await openMemoryStore()
  const dedup = createDeduplicator({ store })
  const decisions = await dedup.add([
    { id: 'ch04-s3', content: fixture('debref-ch04-s3') },
    { id: 'ch04-s4', content: fixture('debref-ch04-s4') },
    { id: 'lo-autokorr', content: fixture('lo-autokorr-06000000') },
    { id: 'lo-wrapping-ch04-s3', content: fixture('lo-wrapping-debref-ch04-s3') },
  ])
  await store.close()
  expect(decisions.map((d) => [d.id, d.duplicateOf])).toEqual([
    ['ch04-s3', null],
    ['ch04-s4', null],
    ['lo-autokorr', null],
    ['lo-wrapping-ch04-s3', 'ch04-s3'],
  ])
})

// Issue 15, short pages of one manual: LibreOffice help pages of 130–300 characters whose 5-gram
// resemblance is 0.48–0.59 (the oracle: not duplicates), while the 512-bin sketch, densified from
// 120–300 shingles, estimated 0.61–0.62. The estimate of so few shingles must clear the threshold
// by its larger error (sparseSketchMargin); a light edit of such a page still must match.
it('short pages of one manual under the resemblance line are not duplicates by a noisy estimate; a copy with an added line is', async () => {
  const store = await openMemoryStore()
  const dedup = createDeduplicator({ store })
  const copy = fixture('lo-shared-autokorr-10000000').replace('</h1>', '</h1><p>转载自 LibreOffice 帮助。</p>')
  const decisions = await dedup.add([
    { id: 'autokorr-10', content: fixture('lo-shared-autokorr-10000000') },
    { id: 'autokorr-12', content: fixture('lo-shared-autokorr-12000000') },
    { id: 'chart-0508', content: fixture('lo-schart-01-05080000') },
    { id: 'chart-0503', content: fixture('lo-schart-01-05030000') },
    { id: 'autokorr-10-copy', content: copy },
  ])
  await store.close()
  expect(decisions.map((d) => [d.id, d.duplicateOf])).toEqual([
    ['autokorr-10', null],
    ['autokorr-12', null],
    ['chart-0508', null],
    ['chart-0503', null],
    ['autokorr-10-copy', 'autokorr-10'],
  ])
})
