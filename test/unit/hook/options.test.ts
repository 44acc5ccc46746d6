import { describe, expect, test } from 'vitest'
import { resolveDedupSearchOptions, DEFAULT_DEDUP_SEARCH_OPTIONS } from '../../../src/elasticsearch/hook/options.js'
import { dedupSearch, type SearchClient } from '../../../src/elasticsearch/hook/search-hook.js'

describe('resolveDedupSearchOptions', () => {
  test('defaults, on a copy; explicit undefined keeps a default', () => {
    const given = { maxDistance: 2, duplicates: undefined }
    // A JS caller can pass undefined where TypeScript (exactOptionalPropertyTypes) would refuse it.
    const o = resolveDedupSearchOptions(given as never)
    expect(o).toMatchObject({ ...DEFAULT_DEDUP_SEARCH_OPTIONS, maxDistance: 2 })
    expect(given).toEqual({ maxDistance: 2, duplicates: undefined })
    expect(Object.isFrozen(o)).toBe(true)
  })

  test.each([
    [{ maxDistance: 17 }, /`maxDistance`.*0 to 16.*`17`/],
    [{ duplicates: 100 }, /`duplicates`.*0 to 99.*`100`/],
    [{ overfetch: -1 }, /`overfetch`.*0 to 1000/],
    [{ maxRounds: 0 }, /`maxRounds`.*1 to 20/],
    [{ cursorMemory: 2001 }, /`cursorMemory`.*0 to 2000/],
    [{ clusterField: '' }, /`clusterField`.*non-empty/],
    [{ duplicateFields: ['title', 3] }, /`duplicateFields`.*array of field names/],
  ])('rejects %j', (options, message) => {
    expect(() => resolveDedupSearchOptions(options as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringMatching(message) }))
  })
})

describe('dedupSearch request checks (before any request is sent)', () => {
  const calls: unknown[] = []
  /** Records calls; the checks below must reject before reaching it. */
  const client: SearchClient = {
    msearch: (params) => {
      calls.push(params)
      return Promise.reject(new Error('must not be called'))
    },
  }

  test.each([
    [{ index: 'a', from: 10 }, /`from`.*`cursor`/],
    [{ index: 'a', search_after: [1] }, /`search_after`.*collapse/],
    [{ index: 'a', collapse: { field: 'x' } }, /`collapse`.*clusterField/],
    [{ index: 'a', aggs: {} }, /`aggs`.*separate request/],
    [{ index: 'a', rescore: {} }, /`rescore`/],
    [{ index: '' }, /`index`/],
    [{ index: [] }, /`index`/],
    [{ index: 'a', size: 0 }, /`size`.*1 to 1000.*`0`/],
    [{ index: 'a', size: 2.5 }, /`size`/],
    [{ index: 'a', sort: [] }, /`sort`/],
    [{ index: 'a', cursor: 'nope' }, /`cursor`/],
  ])('rejects %j with INVALID_OPTION', async (request, message) => {
    await expect(dedupSearch(client, request as never)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(message) })
    expect(calls).toEqual([])
  })

  test('rejects something that is not a client', async () => {
    await expect(dedupSearch({} as never, { index: 'a' })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/`client`/) })
  })
})
