/**
 * Titles that say nothing about a page, so the title layer must not match documents on them.
 */
import { normalizeText } from './text.js'
import { resolveNormalizeOptions } from './options.js'

/** Normalisation of titles (one line). */
export const TITLE_NORMALIZE_OPTIONS = resolveNormalizeOptions({ keepLineBreaks: false })

/**
 * Titles that name no particular page (compared after {@link normalizeText} — so Traditional
 * forms such as 首頁 match too — ignoring case, spaces and punctuation, and a trailing number as
 * in "新建网页 1"). Glosses: 首页/主页 home page, 无标题 untitled, 新闻 news, 欢迎 welcome,
 * 登录 log in, 注册 sign up, 关于我们 about us, 联系我们 contact us, 搜索 search, 页面不存在/
 * 页面未找到 page not found, 错误 error, 提示 notice, 加载中 loading.
 */
export const DEFAULT_GENERIC_TITLES: readonly string[] = Object.freeze([
  '首页', '主页', '网站首页', '官网', '官方网站', 'home', 'homepage', 'home page', 'index', 'default',
  'untitled', 'untitled document', 'untitled page', 'no title', 'document', 'new page', 'blank', 'page',
  '无标题', '无标题文档', '无标题页', '新建网页', '新闻', '新闻中心', '资讯', 'news', 'welcome', 'welcome to nginx',
  '欢迎', '欢迎光临', '欢迎访问', '欢迎您', 'login', 'log in', 'sign in', 'sign up', 'register', '登录', '注册',
  '用户登录', 'about', 'about us', '关于我们', 'contact', 'contact us', '联系我们', 'search', 'search results',
  '搜索', '搜索结果', '404', '404 not found', 'not found', 'page not found', '403', '403 forbidden',
  'forbidden', '500', '500 internal server error', 'internal server error', '502 bad gateway',
  '503 service unavailable', 'error', '错误', '出错了', '提示', '提示信息', '系统提示', '页面不存在',
  '页面未找到', '找不到页面', '访问的页面不存在', 'loading', '加载中', 'redirecting', '跳转中', 'null', 'undefined',
])

/** Options of {@link isGenericTitle}. */
export interface GenericTitleOptions {
  /**
   * The site's name or host; a title that is only the site name (plus generic parts) is generic.
   * @default undefined (site unknown: a lone name counts as a real title)
   */
  siteName?: string
  /**
   * Replaces {@link DEFAULT_GENERIC_TITLES}. The built-in suffix rule ("…官网", "…首页": official
   * site, home page) and the bare-domain rule still apply.
   * @default DEFAULT_GENERIC_TITLES
   */
  genericTitles?: readonly string[]
}

// Keys keep letters and digits only, so "404 - Not Found!" and "404 not found" meet.
function key(s: string): string {
  return normalizedKey(normalizeText(s, TITLE_NORMALIZE_OPTIONS))
}

// The key of a text normalised already, or of a piece of one: normalisation is idempotent, and
// what it would still change in a piece (edge whitespace) the key drops anyway.
function normalizedKey(s: string): string {
  return s.replace(/[^\p{L}\p{N}]+/gu, '')
}

function keySet(titles: readonly string[]): ReadonlySet<string> {
  return new Set(titles.map(key))
}

let defaultKeys: ReadonlySet<string> | undefined

function defaultGenericKeys(): ReadonlySet<string> {
  return (defaultKeys ??= keySet(DEFAULT_GENERIC_TITLES))
}

// Separators between a page's own title and the site's name: "标题 - 网站", "首页 | 网站".
const SEPARATORS = /\s+[-–—~·•]\s+|\s*[|丨_»›:/\\]+\s*|[–—]+/
const SUFFIXES = ['官网', '官方网站', '首页', '主页', 'homepage']
const DOMAIN = /^(?:[a-z0-9-]+\.)+[a-z]{2,}$/
const TRAILING_NUMBER = /\d+$/

// `part` is normalised text or a piece of it.
function isGenericPart(part: string, generic: ReadonlySet<string>, site: string): boolean {
  const k = normalizedKey(part)
  if (k === '' || k === site || generic.has(k)) return true
  const stem = k.replace(TRAILING_NUMBER, '')
  if (stem === '' || generic.has(stem)) return true // "2024", "新建网页 1" (new web page 1)
  if (DOMAIN.test(part.trim())) return true
  return SUFFIXES.some((s) => k.endsWith(s))
}

/**
 * True when a title says nothing about the page: empty, only punctuation, symbols or digits, a generic
 * word (home, 首页, untitled, 无标题, 新闻, 404 not found … see {@link DEFAULT_GENERIC_TITLES}), a bare
 * domain, "<site>官网", or such a part plus one other part ("首页 - 新华网", "新华网 | 新闻": home
 * page/news of a site), or only the given `siteName`. A title with three or more parts names a page.
 *
 * @example isGenericTitle('首頁 | 某某公司') // true ("home page | some company")
 * @example isGenericTitle('杭州今日天气晴') // false ("Hangzhou sunny today")
 */
export function isGenericTitle(title: string | null | undefined, options: GenericTitleOptions = {}): boolean {
  if (typeof title !== 'string') return true
  const generic = options.genericTitles === undefined ? defaultGenericKeys() : keySet(options.genericTitles)
  const site = options.siteName === undefined ? '' : key(options.siteName.replace(/^www\./i, ''))
  return isGenericNormalizedTitle(normalizeText(title, TITLE_NORMALIZE_OPTIONS), generic, site)
}

/**
 * {@link isGenericTitle} of a title normalised already with {@link TITLE_NORMALIZE_OPTIONS}, with the
 * default generic titles and no site name: the engine's per-document check, without normalising again.
 * @example isGenericNormalizedTitle(normalizeText('首頁', TITLE_NORMALIZE_OPTIONS)) // true
 */
export function isGenericNormalizedTitle(whole: string, generic: ReadonlySet<string> = defaultGenericKeys(), site = ''): boolean {
  if (isGenericPart(whole, generic, site)) return true
  const parts = whole.split(SEPARATORS).filter((p) => normalizedKey(p) !== '')
  if (parts.length <= 1) return false
  if (site !== '' && parts.every((p) => isGenericPart(p, generic, site))) return true
  return parts.length === 2 && parts.some((p) => isGenericPart(p, generic, site))
}
