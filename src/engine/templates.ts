import { contentKey } from '../fingerprint/hash.js'
import { solidLength } from '../unicode.js'

/**
 * Cross-document boilerplate: lines that recur across many documents of one host are that site's
 * template, not content (the CCNet paragraph idea, learned online). Extraction drops the chrome
 * that structure marks (tags, names, link density); what it cannot see — a footer paragraph in a
 * plain `div`, a keyword line, a chapter title repeated on every chunk of a chapter, a licence line
 * on every page — recurs verbatim on the host's pages, and two pages sharing only that must not
 * look alike.
 *
 * Learning (per host):
 * - A document's host is its URL's host name (lower-cased, `www.` dropped), or for an HTML page
 *   sent without a URL the signature of its head (`htmlSiteKey`: stylesheets, generator).
 * - Every document teaches the learner, each line once per document, except exact copies of an
 *   earlier document (the exact layer's duplicates). Duplicates by the near-duplicate rules count:
 *   while the chrome is not yet learned, pages whose chrome outweighs their text look like
 *   duplicates of each other, and "unique only" would never learn it.
 * - A host's counts are read at **epochs**: when its number of counted documents reaches 8, 16,
 *   32, … (each doubling). A line then becomes template when at least
 *   `max(TEMPLATE_MIN_DOCS, TEMPLATE_MIN_SHARE × documents)` of them hold it: with the share at
 *   one half, a line on most of a site's pages, which says nothing about any one page. A text
 *   reposted many times on one host becomes template only if its copies are most of that host.
 *
 * Applying (every document): the lines that are template on **any** host are left out of the text
 * that is fingerprinted. Applying the union, not the document's own host's set, keeps a page and
 * its copy elsewhere (a mirror, a repost, a plain-text copy) comparable: both lose the same lines.
 * A document left with too little text keeps it whole ({@link TEMPLATE_MIN_KEPT_CHARS}).
 *
 * Determinism: the state before a document depends only on the decisions of the documents before
 * it in input order, so decisions do not depend on the batch size, and a re-run (which repeats the
 * first run's decisions) replays the same learning. The learner lives in the deduplicator (one per
 * job): a new job over the same store learns again from its own documents.
 */

/** Least number of a host's counted documents that hold a line before it can be template. */
export const TEMPLATE_MIN_DOCS = 5
/** Least share of a host's counted documents that hold a line before it can be template. */
export const TEMPLATE_MIN_SHARE = 0.5
/** A host's first epoch, in counted documents; later epochs at each doubling. */
export const TEMPLATE_FIRST_EPOCH = 8
/** Lines with fewer non-space characters than this hold no 5-gram: never template. */
export const TEMPLATE_MIN_LINE_CHARS = 5
/**
 * Least non-space characters that must be left for the filtered text to be used: a document that
 * is all template (an index page, a stub) keeps its whole text, as without the layer.
 */
export const TEMPLATE_MIN_KEPT_CHARS = 20
/** Lines tracked per host before the lines seen on one document only are forgotten (bounded memory). */
const MAX_LINES_PER_HOST = 1 << 16
/** Lines tracked over all hosts before the lines seen on one document only are forgotten. */
const MAX_LINES_TOTAL = 1 << 22

class HostState {
  docs = 0
  readonly counts = new Map<number, number>()
  nextEpochAt = TEMPLATE_FIRST_EPOCH
}

/** A normalised text cut into lines, each keyed (null: too short to count). */
export interface TextLines {
  lines: string[]
  keys: (number | null)[]
}

/** Splits a normalised text into lines and keys them (52 bits of the line's content key). */
export function textLines(normalized: string): TextLines {
  const lines = normalized.split('\n')
  const keys = lines.map((l) => (solidLength(l) >= TEMPLATE_MIN_LINE_CHARS ? parseInt(contentKey(l.trim()).slice(0, 13), 16) : null))
  return { lines, keys }
}

/** The host key of a canonical URL: its host name, lower-cased, without a leading `www.`; null without one. */
export function hostOf(url: string | null): string | null {
  if (url === null) return null
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase()
  } catch {
    return null
  }
  if (host === '') return null
  return host.startsWith('www.') ? host.slice(4) : host
}

/**
 * The online template learner (see the module comment).
 * @example
 * const t = new HostTemplates()
 * const lines = textLines(normalized)
 * t.filter(lines)                   // the text without template lines, or null
 * t.observe('docs.example', lines)  // after the document was decided (not an exact copy)
 */
export class HostTemplates {
  private readonly hosts = new Map<string, HostState>()
  private readonly template = new Set<number>()
  private tracked = 0
  /** Bumped whenever a line becomes template: a filter made before may be stale. */
  version = 0

  /** Template lines known so far. */
  get size(): number {
    return this.template.size
  }

  /**
   * The text without its template lines, or null when none is template or too little would be
   * left ({@link TEMPLATE_MIN_KEPT_CHARS}).
   */
  filter(text: TextLines): string | null {
    if (this.template.size === 0) return null
    const kept: string[] = []
    let dropped = false
    let solid = 0
    for (let i = 0; i < text.lines.length; i++) {
      const key = text.keys[i]
      if (key !== null && key !== undefined && this.template.has(key)) {
        dropped = true
        continue
      }
      kept.push(text.lines[i]!)
      solid += solidLength(text.lines[i]!)
    }
    if (!dropped || solid < TEMPLATE_MIN_KEPT_CHARS) return null
    return kept.join('\n').trim()
  }

  /** Counts a document's lines for its host; at the host's next epoch, learns its template lines. */
  observe(host: string, text: TextLines): void {
    let s = this.hosts.get(host)
    if (s === undefined) {
      s = new HostState()
      this.hosts.set(host, s)
    }
    const seen = new Set<number>()
    for (const key of text.keys) {
      if (key === null || seen.has(key)) continue
      seen.add(key)
      const n = s.counts.get(key)
      if (n === undefined) this.tracked++
      s.counts.set(key, (n ?? 0) + 1)
    }
    s.docs++
    if (s.docs === s.nextEpochAt) {
      s.nextEpochAt *= 2
      const least = Math.max(TEMPLATE_MIN_DOCS, Math.ceil(TEMPLATE_MIN_SHARE * s.docs))
      const before = this.template.size
      for (const [key, n] of s.counts) if (n >= least) this.template.add(key)
      if (this.template.size !== before) this.version++
    }
    if (s.counts.size > MAX_LINES_PER_HOST) this.forgetSingles([s])
    if (this.tracked > MAX_LINES_TOTAL) this.forgetSingles(this.hosts.values())
  }

  /** Drops the lines seen on one document only (deterministic: depends on the state alone). */
  private forgetSingles(states: Iterable<HostState>): void {
    for (const s of states) {
      for (const [key, n] of s.counts) {
        if (n === 1) {
          s.counts.delete(key)
          this.tracked--
        }
      }
    }
  }
}
