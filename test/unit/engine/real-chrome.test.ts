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
