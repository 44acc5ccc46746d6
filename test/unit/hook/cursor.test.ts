import { describe, expect } from 'vitest'
import { fc, test } from '@fast-check/vitest'
import { decodeCursor, encodeCursor, clusterKeyHash, type DedupCursor } from '../../../src/elasticsearch/hook/cursor.js'
import { arbFingerprint } from '../../helpers/fingerprints.js'

const arbCursor: fc.Arbitrary<DedupCursor> = fc.record({
  request: fc.stringMatching(/^[0-9a-f]{12}$/),
  groups: fc.nat(999_999_999),
  singles: fc.nat(999_999_999),
  fingerprints: fc.array(arbFingerprint, { maxLength: 40 }),
  clusters: fc.array(fc.string({ minLength: 1 }).map(clusterKeyHash), { maxLength: 40 }),
})

describe('cursor', () => {
  test.prop([arbCursor])('round-trips and is URL-safe', (c) => {
    const text = encodeCursor(c, 2000)
    expect(text).toMatch(/^[A-Za-z0-9_.-]+$/)
    expect(encodeURIComponent(text)).toBe(text)
    expect(decodeCursor(text)).toEqual(c)
  })

  test.prop([arbCursor, fc.nat(10)])('keeps only the newest `memory` fingerprints and clusters', (c, memory) => {
    const back = decodeCursor(encodeCursor(c, memory))
    expect(back.fingerprints).toEqual(memory === 0 ? [] : c.fingerprints.slice(-memory))
    expect(back.clusters).toEqual(memory === 0 ? [] : c.clusters.slice(-memory))
    expect([back.groups, back.singles]).toEqual([c.groups, c.singles])
  })

  test('200 remembered hits fit in a URL (under 4 kB)', () => {
    const c: DedupCursor = {
      request: 'a1b2c3d4e5f6',
      groups: 1234,
      singles: 56,
      fingerprints: Array.from({ length: 200 }, (_, i) => ({ hi: i * 7919, lo: 0xffffffff - i })),
      clusters: Array.from({ length: 200 }, (_, i) => clusterKeyHash(`cluster-${i}`)),
    }
    expect(encodeCursor(c, 200).length).toBeLessThan(4000)
  })

  // Each row pins one way a hand-edited or truncated cursor could slip through.
  test.each([
    ['not a string', 42, /not a string/],
    ['empty', '', /version 1/],
    ['another version', '2.a1b2c3d4e5f6.0.0..', /version 1/],
    ['bad request hash', '1.XYZ.0.0..', /request hash/],
    ['negative offset', '1.a1b2c3d4e5f6.-1.0..', /offsets/],
    ['non-numeric offset', '1.a1b2c3d4e5f6.1e3.0..', /offsets/],
    ['truncated fingerprints', '1.a1b2c3d4e5f6.0.0.AAAA.', /truncated fingerprints/],
    ['truncated clusters', '1.a1b2c3d4e5f6.0.0..AAAA', /truncated cluster/],
    ['not base64url', '1.a1b2c3d4e5f6.0.0.+/==.', /encoding/],
  ])('rejects a cursor that is %s', (_why, value, message) => {
    expect(() => decodeCursor(value)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', message: expect.stringMatching(message) }))
  })
})
