import { DedupError, describeValue } from '../errors.js'
import { htmlToText, looksLikeHtml, type HtmlToTextOptions } from './html.js'
import type { NormalizeOptions } from './options.js'
import { normalizeText } from './text.js'

/** Options of {@link normalizeContent}: HTML handling plus {@link NormalizeOptions}. */
export interface NormalizeContentOptions extends NormalizeOptions, HtmlToTextOptions {
  /** Treat the content as HTML: `'auto'` asks {@link looksLikeHtml}. @default 'auto' */
  html?: 'auto' | boolean
}

/**
 * The normalise stage for a document body: {@link htmlToText} when the content is HTML, then
 * {@link normalizeText}. Idempotent on plain text; never throws on any string.
 *
 * @example normalizeContent('<div class="nav">首頁</div><p>軟體更新</p>') // '软件更新' ("software update")
 */
export function normalizeContent(content: string, options: NormalizeContentOptions = {}): string {
  const html = options.html ?? 'auto'
  if (html !== 'auto' && typeof html !== 'boolean') {
    throw new DedupError('INVALID_OPTION', `Expected \`html\` to be 'auto', true or false, got ${describeValue(html)}.`)
  }
  const asHtml = html === 'auto' ? looksLikeHtml(content) : html
  return normalizeText(asHtml ? htmlToText(content, options) : content, options)
}
