import { describe, expect, it } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { canonicalUrl, DEFAULT_TRACKING_PARAMS } from '../../../src/normalize/index.js'

describe('canonicalUrl', () => {
  const rows: [name: string, input: string, expected: string | null][] = [
    ['lower-cases scheme and host, keeps path case', 'HTTP://Example.COM/Path/File', 'http://example.com/Path/File'],
    ['root path becomes empty', 'https://example.com/', 'https://example.com'],
    ['root without slash is the same', 'https://example.com', 'https://example.com'],
    ['drops default ports', 'http://example.com:80/a', 'http://example.com/a'],
    ['drops https default port', 'https://example.com:443/a', 'https://example.com/a'],
    ['keeps other ports', 'http://example.com:8080/a', 'http://example.com:8080/a'],
    ['drops the fragment', 'https://example.com/a#section-2', 'https://example.com/a'],
    ['keeps a hash-bang route', 'https://example.com/#!/post/1', 'https://example.com#!/post/1'],
    ['drops the trailing slash', 'https://example.com/a/b/', 'https://example.com/a/b'],
    ['resolves dot segments', 'https://example.com/a/./b/../c', 'https://example.com/a/c'],
    ['drops index.html', 'https://example.com/docs/index.html', 'https://example.com/docs'],
    // Regression: the slash was stripped after the index check, so a second pass changed the URL.
    ['drops index.html behind a trailing slash', 'https://example.com/docs/index.html/', 'https://example.com/docs'],
    ['escaped dot segments resolve like plain ones', 'https://example.com/a/%2e%2E/b/%2e', 'https://example.com/b'],
    ['keeps index.php', 'https://example.com/index.php?id=5', 'https://example.com/index.php?id=5'],
    ['drops tracking parameters', 'https://example.com/a?utm_source=wx&utm_medium=x&gclid=1&fbclid=2&id=7', 'https://example.com/a?id=7'],
    ['drops Chinese platform share tokens', 'https://item.taobao.com/item.htm?id=1&spm=a21&scm=b&from=timeline&isappinstalled=0', 'https://item.taobao.com/item.htm?id=1'],
    ['tracking names match case-insensitively', 'https://example.com/?UTM_Source=x&FBCLID=y&q=1', 'https://example.com?q=1'],
    ['sorts parameters', 'https://example.com/s?b=2&a=1&c=3', 'https://example.com/s?a=1&b=2&c=3'],
    ['repeated names sort by value', 'https://example.com/s?t=b&t=a', 'https://example.com/s?t=a&t=b'],
    ['drops empty parameters and a bare ?', 'https://example.com/s?&&', 'https://example.com/s'],
    ['keeps a name without value apart from name=', 'https://example.com/s?b&a=', 'https://example.com/s?a=&b'],
    ['decodes unreserved escapes, upper-cases the rest', 'https://example.com/%7euser/%e4%b8%ad?q=%2f%41', 'https://example.com/~user/%E4%B8%AD?q=%2FA'],
    ['percent-encodes non-ASCII paths', 'https://example.com/新闻/1', 'https://example.com/%E6%96%B0%E9%97%BB/1'], // news
    ['IDN host to punycode', 'https://例子.中国/', 'https://xn--fsqu00a.xn--fiqs8s'], // example.China
    ['drops user info', 'https://user:secret@example.com/a', 'https://example.com/a'],
    ['drops a trailing dot on the host', 'https://example.com./a', 'https://example.com/a'],
    ['keeps www by default', 'https://www.example.com/a', 'https://www.example.com/a'],
    ['trims surrounding whitespace', '  https://example.com/a \n', 'https://example.com/a'],
    ['IPv6 host', 'http://[::1]:8080/a/', 'http://[::1]:8080/a'],
    ['not http(s)', 'ftp://example.com/a', null],
    ['mailto', 'mailto:a@example.com', null],
    ['javascript', 'javascript:alert(1)', null],
    ['relative', '/a/b', null],
    ['garbage', 'not a url', null],
    ['empty', '', null],
  ]
  it.each(rows)('%s', (_name, input, expected) => {
    expect(canonicalUrl(input)).toBe(expected)
    if (expected !== null) expect(canonicalUrl(expected)).toBe(expected)
  })

  it('stripWww: true treats www.host as host', () => {
    expect(canonicalUrl('https://WWW.example.com/a', { stripWww: true })).toBe('https://example.com/a')
    expect(canonicalUrl('https://www/a', { stripWww: true })).toBe('https://www/a') // a host named "www" stays
  })
  it('stripIndex: false keeps index.html', () => {
    expect(canonicalUrl('https://example.com/index.html', { stripIndex: false })).toBe('https://example.com/index.html')
  })
  it('keepFragment: true keeps a section fragment (the url layer keys page#s5 and page#s6 apart)', () => {
    expect(canonicalUrl('https://Site.example/ch06.html#s5', { keepFragment: true })).toBe('https://site.example/ch06.html#s5')
    expect(canonicalUrl('https://site.example/ch06.html#', { keepFragment: true })).toBe('https://site.example/ch06.html')
    expect(canonicalUrl('https://site.example/ch06.html#s5')).toBe('https://site.example/ch06.html')
  })
  it('sortQuery: false keeps the order', () => {
    expect(canonicalUrl('https://example.com/?b=2&a=1', { sortQuery: false })).toBe('https://example.com?b=2&a=1')
  })
  it('trackingParams replaces the list; * is a prefix', () => {
    expect(canonicalUrl('https://example.com/?utm_source=x&sid=1&x_a=1&x_b=2&y=3', { trackingParams: ['sid', 'x_*'] })).toBe('https://example.com?utm_source=x&y=3')
  })
  it('exports its tracking list, with the utm_ prefix and no ref', () => {
    expect(DEFAULT_TRACKING_PARAMS).toContain('utm_*')
    expect(DEFAULT_TRACKING_PARAMS).toContain('spm')
    expect(DEFAULT_TRACKING_PARAMS).not.toContain('ref') // a branch name on code hosts
    expect(Object.isFrozen(DEFAULT_TRACKING_PARAMS)).toBe(true)
  })
  it('rejects invalid options', () => {
    expect(() => canonicalUrl('https://a.com', { stripWww: 1 as unknown as boolean })).toThrow(/`stripWww`.*boolean/)
    expect(() => canonicalUrl('https://a.com', { trackingParams: 'utm_*' as unknown as string[] })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }))
  })

  test.prop([fc.webUrl({ withQueryParameters: true, withFragments: true })])('is idempotent on web URLs', (url) => {
    const once = canonicalUrl(url)
    expect(once).not.toBeNull()
    expect(canonicalUrl(once!)).toBe(once)
  })
  // Pieces that interact: dot segments spelled with escapes, index files behind slashes,
  // separators inside escapes, tracking names, IDN, junk escapes.
  const piece = fc.constantFrom('a', 'B', '.', '..', '%2e', '%2E%2e', 'index.html', '', '%7e', '%41', '%2f', '中', '%zz', ' ', '?', '#', '#!', '&', '=', '+', '%26', 'utm_source=1', 'www.', ':80', '@', '\\', '%00')
  test.prop([fc.constantFrom('http://', 'https://', 'HTTP://www.'), fc.array(piece, { maxLength: 12 })])(
    'is idempotent on adversarial URLs', (scheme, parts) => {
      const once = canonicalUrl(`${scheme}Example.com/${parts.join('/')}`)
      if (once !== null) expect(canonicalUrl(once)).toBe(once)
    })
  test.prop([fc.string({ unit: 'binary', maxLength: 80 })])('never throws, returns null or an http(s) URL', (s) => {
    const out = canonicalUrl(s)
    if (out !== null) expect(out).toMatch(/^https?:\/\/[^/?#]/)
  })
})
