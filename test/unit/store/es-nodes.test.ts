import { createServer } from 'node:net'
import { describe, expect, test } from 'vitest'
import { createElasticsearchStore } from '../../../src/elasticsearch/store.js'
import { parseNodeUrls, resolveElasticsearchStoreOptions } from '../../../src/elasticsearch/options.js'

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('node URLs', () => {
  test('one URL, a comma-separated list (as es:start prints) and an array give the same nodes', () => {
    const list = 'http://127.0.0.1:9250,http://127.0.0.1:9251, http://127.0.0.1:9252'
    const want = ['http://127.0.0.1:9250', 'http://127.0.0.1:9251', 'http://127.0.0.1:9252']
    expect(parseNodeUrls(list)).toEqual(want)
    expect(parseNodeUrls(want)).toEqual(want)
    expect(parseNodeUrls('https://u:p@es.example:443')).toEqual(['https://u:p@es.example:443'])
    expect(() => resolveElasticsearchStoreOptions({ node: want, index: 'simdup' })).not.toThrow()
  })

  test('a bad entry is named by position, never echoed (it may hold a password)', () => {
    const bad = 'http://127.0.0.1:9250,ftp://u:s3cret@host'
    expect(() => parseNodeUrls(bad)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringMatching(/`node` \(entry 2 of 2\)/) }))
    expect(() => parseNodeUrls(bad)).not.toThrow(/s3cret/)
    for (const node of ['', 'http://a:9200,', [], ['http://a:9200', 42], 'localhost:9200', 'http://']) {
      expect(() => resolveElasticsearchStoreOptions({ node, index: 'simdup' } as never), JSON.stringify(node)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringMatching(/`node`/) }))
    }
  })

  test('no node answering: STORE_UNAVAILABLE naming every node, with no password in the message', async () => {
    const [a, b] = [await closedPort(), await closedPort()]
    const err: unknown = await createElasticsearchStore({ node: `http://elastic:s3cret@127.0.0.1:${a},http://elastic:s3cret@127.0.0.1:${b}`, index: 'simdup', retries: 0 }).catch(
      (e: unknown) => e,
    )
    expect(err).toMatchObject({ code: 'STORE_UNAVAILABLE' })
    const message = (err as Error).message
    expect(message).toContain(`http://127.0.0.1:${a},http://127.0.0.1:${b}`)
    expect(message).not.toMatch(/s3cret/)
    expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).not.toMatch(/s3cret/)
  })
})
