import { expect, test } from 'vitest'
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TextKeeper } from '../../../src/server/texts.js'

test('TextKeeper: the last text of an id wins, deletes are kept, a torn last line is cut on open', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'simdup-texts-')), 'texts.jsonl')
  const k = await TextKeeper.open(path)
  await k.keep([{ id: 'a', content: '北京大学' }, { id: 'b', content: 'Peking "University"\n' }])
  await k.keep([{ id: 'a', content: '北京大學' }]) // re-indexed: Traditional form
  await k.forget(['b', 'never-kept'])
  expect(await k.get(['a', 'b', 'c'])).toEqual(new Map([['a', '北京大學']]))
  await k.close()
  appendFileSync(path, '{"id":"c","content":"a crash mid-wri') // never acknowledged
  const again = await TextKeeper.open(path)
  expect(await again.get(['a', 'b', 'c'])).toEqual(new Map([['a', '北京大學']]))
  await again.keep([{ id: 'c', content: '清华' }])
  expect(await again.get(['c', 'a'])).toEqual(new Map([['c', '清华'], ['a', '北京大學']]))
  await again.close()
  expect(readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as object)).toHaveLength(5)
})
