/**
 * Canonical URLs for the url layer: two addresses of one page should give one string.
 */
import { DedupError, describeValue } from '../errors.js'

/**
 * Query parameters removed as tracking noise. A trailing `*` matches a prefix. Names compare
 * case-insensitively after percent-decoding. Covers analytics campaign tags, ad click ids,
 * mail-campaign ids and the share/referral tokens of Chinese platforms (Taobao `spm`/`scm`,
 * WeChat `isappinstalled`, Bilibili `vd_source`, Zhihu `utm_psn`, …). Deliberately absent:
 * `ref` (a branch or tag on code hosts), `id`, `page`, `p`, `source`.
 */
export const DEFAULT_TRACKING_PARAMS: readonly string[] = Object.freeze([
  'utm_*', 'gclid', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'fbclid', 'yclid', 'msclkid', 'twclid',
  'ttclid', 'li_fat_id', 'igshid', 'mc_cid', 'mc_eid', '_hsenc', '_hsmi', 'mkt_tok', 'oly_anon_id',
  'oly_enc_id', 'vero_id', '_ga', '_gl', 'spm', 'scm', 'from', 'isappinstalled', 'nsukey', 'wxshare_count',
  'share_token', 'share_source', 'share_medium', 'share_plat', 'share_from', 'share_tag', 'share_session_id',
  'shareuid', 'vd_source', 'xhsshare',
])

/** Options of {@link canonicalUrl}. */
export interface CanonicalUrlOptions {
  /** Treat `www.example.com` as `example.com`. Off: they can be different sites. @default false */
  stripWww?: boolean
  /**
   * Drop a last path segment `index.html`, `index.htm`, `index.shtml` or `default.htm(l)`: the
   * directory's own page on static servers. Script indexes (`index.php`, `default.aspx`) are kept,
   * since for them the file name can change what the query means.
   * @default true
   */
  stripIndex?: boolean
  /** Sort the query parameters by name (then value), keeping their raw text. @default true */
  sortQuery?: boolean
  /** Parameters to drop; see {@link DEFAULT_TRACKING_PARAMS}. @default DEFAULT_TRACKING_PARAMS */
  trackingParams?: readonly string[]
  /**
   * Keep the fragment (`#s5`). Off, `page#s5` and `page#s6` are one address, as for a browser. On,
   * they stay apart: the url layer keys documents with it, since section crawlers and RAG
   * chunkers key each section of a page as its own document by a fragment.
   * @default false
   */
  keepFragment?: boolean
}

const INDEX_FILES = new Set(['index.html', 'index.htm', 'index.shtml', 'default.htm', 'default.html'])

interface ParamMatcher {
  exact: ReadonlySet<string>
  prefixes: readonly string[]
}

function matcher(params: readonly string[]): ParamMatcher {
  const exact = new Set<string>()
  const prefixes: string[] = []
  for (const p of params) {
    const name = p.toLowerCase()
    if (name.endsWith('*')) prefixes.push(name.slice(0, -1))
    else exact.add(name)
  }
  return { exact, prefixes }
}

const DEFAULT_MATCHER = matcher(DEFAULT_TRACKING_PARAMS)

function isTracking(name: string, m: ParamMatcher): boolean {
  let key = name.toLowerCase()
  if (key.includes('%')) key = safeDecode(key)
  return m.exact.has(key) || m.prefixes.some((p) => key.startsWith(p))
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s // a malformed escape: compare the raw text
  }
}

const UNRESERVED = /[A-Za-z0-9\-._~]/

/** Decodes escapes of unreserved characters (`%7E` → `~`) and upper-cases the hex of the rest. */
function normalizeEscapes(s: string): string {
  if (!s.includes('%')) return s
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16))
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`
  })
}

function checkOptions(options: CanonicalUrlOptions): void {
  for (const key of ['stripWww', 'stripIndex', 'sortQuery', 'keepFragment'] as const) {
    const value: unknown = options[key]
    if (value !== undefined && typeof value !== 'boolean') {
      throw new DedupError('INVALID_OPTION', `Expected \`${key}\` to be a boolean, got ${describeValue(value)}.`)
    }
  }
  const params: unknown = options.trackingParams
  if (params !== undefined && (!Array.isArray(params) || !params.every((p) => typeof p === 'string'))) {
    throw new DedupError('INVALID_OPTION', `Expected \`trackingParams\` to be an array of strings, got ${describeValue(params)}.`)
  }
}

/**
 * Canonical form of an http(s) URL, or `null` for anything else (other schemes, relative or
 * unparseable input). Lower-cases scheme and host, turns IDN hosts into punycode, drops a
 * trailing dot on the host, user info, default ports, the fragment (except `#!` routes), tracking
 * parameters, empty parameters and a trailing slash (the root path becomes empty); resolves `.`
 * and `..` segments; normalises percent-escapes; sorts the query.
 *
 * @example canonicalUrl('HTTPS://例子.中国:443/a/b/?utm_source=x&b=2&a=1#top') // 'https://xn--fsqu00a.xn--fiqs8s/a/b?a=1&b=2'
 */
export function canonicalUrl(url: string, options: CanonicalUrlOptions = {}): string | null {
  checkOptions(options)
  if (typeof url !== 'string') return null
  let parsed: URL
  try {
    parsed = new URL(url.trim())
  } catch {
    return null
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null
  let host = parsed.hostname
  if (host.endsWith('.')) host = host.slice(0, -1)
  if (options.stripWww === true && host.startsWith('www.') && host.length > 4) host = host.slice(4)
  if (host === '') return null
  const port = parsed.port === '' ? '' : `:${parsed.port}`

  let path = normalizeEscapes(parsed.pathname)
  // Alternate until neither applies: "/a/index.html/" and "/index.html/index.html" both need it.
  const stripIndex = options.stripIndex ?? true
  for (;;) {
    while (path.endsWith('/')) path = path.slice(0, -1)
    const slash = path.lastIndexOf('/')
    if (!stripIndex || slash === -1 || !INDEX_FILES.has(path.slice(slash + 1))) break
    path = path.slice(0, slash)
  }

  const m = options.trackingParams === undefined ? DEFAULT_MATCHER : matcher(options.trackingParams)
  const params: [string, string][] = []
  for (const part of parsed.search.slice(1).split('&')) {
    if (part === '') continue
    const eq = part.indexOf('=')
    const name = normalizeEscapes(eq === -1 ? part : part.slice(0, eq))
    if (name === '' || isTracking(name, m)) continue
    // The value keeps its '=', so `?a` and `?a=` stay apart as servers may tell them apart.
    params.push([name, eq === -1 ? '' : normalizeEscapes(part.slice(eq))])
  }
  if (options.sortQuery ?? true) {
    params.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
  }
  const query = params.length === 0 ? '' : `?${params.map(([k, v]) => k + v).join('&')}`
  const keep = parsed.hash.length > 1 && (options.keepFragment === true || parsed.hash.startsWith('#!'))
  const fragment = keep ? normalizeEscapes(parsed.hash) : ''
  return `${parsed.protocol}//${host}${port}${path}${query}${fragment}`
}
