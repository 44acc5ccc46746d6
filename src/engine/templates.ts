import { solidLength } from '../unicode.js'
import { labelOnly, lineShapeKey, mayHaveBylines, mayHaveLabels, mayHaveRelatedLists, relatedLists } from './line-shape.js'

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
 *   sent without a URL the signature of its head (`htmlSiteKey`: stylesheets, generator). Plain
 *   text with a URL has a host and teaches like a page.
 * - Lines are keyed by **shape** (`lineShape`, line-shape.ts): the values after chrome labels
 *   (来源, 作者, 发布时间, …), a breadcrumb's parts after the first, dates, times and the figures of a
 *   line with enough words are masked, punctuation dropped; "发布时间：2024-05-02 09:39 来源：某某日报"
 *   is one line on every page of a site.
 * - A line counts **once per different document** of the host, never for copies of one: a unique
 *   document counts its lines; a duplicate counts them only when it brings a line (shape) that its
 *   cluster's documents did not have. That lets a site whose chrome outweighs its pages' text
 *   learn it (its pages look like duplicates of one another until then, but each brings its own
 *   text), while an article reposted a thousand times (exact, or with a comma or a date changed)
 *   counts once. The keys of each cluster's documents are kept (bounded; a cluster forgotten, or
 *   first indexed by an earlier job, restarts from the next copy, which counts nothing).
 * - A host's counts are read at **epochs**: when its number of different documents reaches 8, 16,
 *   32, … (each doubling). A line then becomes template when at least
 *   `max(TEMPLATE_MIN_DOCS, TEMPLATE_MIN_SHARE × documents)` of them hold it: with the share at
 *   one half, a line on most of a site's different pages, which says nothing about any one page.
 * - The first line of every hosted document, when it looks like a headline (short, no full stop),
 *   is learned as one at once: related-headline lists name other pages' headlines.
 *
 * Applying (every document): left out of the text that is fingerprinted are the lines that are
 * template on **any** host, runs of {@link HEADLINE_BLOCK_MIN} or more adjacent lines that are
 * known headlines (never the text's own first line), and lines that are chrome by their shape
 * alone (`labelOnly`: labelled values, dates and tool words only, or a dated byline;
 * `relatedLists`: a related-headline list under its heading; no learning needed). Applying
 * the union, not the document's own host's set, keeps a page and its copy elsewhere (a mirror, a
 * repost, a plain-text copy) comparable: both lose the same lines. A document left with too
 * little text keeps it whole ({@link TEMPLATE_MIN_KEPT_CHARS}).
 *
 * Determinism: the state before a document depends only on the decisions of the documents before
 * it in input order, so decisions do not depend on the batch size, and a re-run (which repeats the
 * first run's decisions) replays the same learning. The learner lives in the deduplicator (one per
 * job): a new job over the same store learns again from its own documents.
 */

/** Least number of a host's different documents that hold a line before it can be template. */
export const TEMPLATE_MIN_DOCS = 5
/** Least share of a host's different documents that hold a line before it can be template. */
export const TEMPLATE_MIN_SHARE = 0.5
/** A host's first epoch, in different documents; later epochs at each doubling. */
export const TEMPLATE_FIRST_EPOCH = 8
/**
 * Lines with fewer non-space characters than this are never template (a single character says
 * nothing of a page; buttons such as 关注, 相关推荐 are two to four).
 */
export const TEMPLATE_MIN_LINE_CHARS = 2
/**
 * Least non-space characters that must be left for the filtered text to be used: a document that
 * is all template (an index page, a stub) keeps its whole text, as without the layer.
 */
export const TEMPLATE_MIN_KEPT_CHARS = 20
/** A headline: a line of at least this many non-space characters (and at most {@link HEADLINE_MAX_CHARS}) without a full stop. */
export const HEADLINE_MIN_CHARS = 5
/** A headline: a line of 5 to this many non-space characters without a full stop. */
export const HEADLINE_MAX_CHARS = 40
/** Least adjacent lines that are other pages' headlines to be left out as a related-headline block. */
export const HEADLINE_BLOCK_MIN = 2
/** Lines tracked per host before the lines seen on one document only are forgotten (bounded memory). */
const MAX_LINES_PER_HOST = 1 << 16
/** Lines tracked over all hosts before the lines seen on one document only are forgotten. */
const MAX_LINES_TOTAL = 1 << 22
/** Line keys remembered for the clusters (what their documents said), over all clusters. */
const MAX_CLUSTER_KEYS = 1 << 21
/** Headlines remembered over all hosts; later ones are not learned (bounded memory). */
const MAX_HEADLINES = 1 << 20

class HostState {
  docs = 0
  readonly counts = new Map<number, number>()
  nextEpochAt = TEMPLATE_FIRST_EPOCH
}

/** A normalised text cut into lines, each keyed by its shape (null: too short to count). */
export interface TextLines {
  lines: string[]
  keys: (number | null)[]
  /** Which lines are chrome by their shape alone (`labelOnly`); null: none. */
  chrome: boolean[] | null
}

/** Splits a normalised text into lines and keys each by its shape (`lineShape`, `lineShapeKey`). */
export function textLines(normalized: string): TextLines {
  const lines = normalized.split('\n')
  const keys = lines.map((l) => (solidLength(l) >= TEMPLATE_MIN_LINE_CHARS ? lineKey(l) : null))
  let chrome: boolean[] | null = null
  if (mayHaveLabels(normalized) || mayHaveBylines(normalized)) {
    chrome = lines.map(labelOnly)
    if (!chrome.includes(true)) chrome = null
  }
  if (mayHaveRelatedLists(normalized)) {
    const related = relatedLists(lines)
    if (related !== null) chrome = chrome === null ? related : chrome.map((c, i) => c || related[i]!)
  }
  return { lines, keys, chrome }
}

/** Whether a normalised text may lose lines to the layer before anything is learned (labelled chrome lines, bylines, related-headline lists). */
export function mayHaveChromeLines(normalized: string): boolean {
  return mayHaveLabels(normalized) || mayHaveBylines(normalized) || mayHaveRelatedLists(normalized)
}

function lineKey(line: string): number | null {
  return lineShapeKey(line)
}

/** Whether a line can be a page's headline (short, no full stop). */
function headlineLike(line: string): boolean {
  const n = solidLength(line)
  return n >= HEADLINE_MIN_CHARS && n <= HEADLINE_MAX_CHARS && !line.includes('。')
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

/** What the deduplicator decided for a document the learner is shown. */
export interface TemplateDecision {
  /** The document's cluster (its own id when it is unique). */
  clusterId: string
  /** Whether it was decided a duplicate (of that cluster). */
  duplicate: boolean
}

/**
 * The online template learner (see the module comment).
 * @example
 * const t = new HostTemplates()
 * const lines = textLines(normalized)
 * t.filter(lines)                   // the text without template lines, or null
 * t.observe('docs.example', lines, { clusterId: 'a', duplicate: false })  // after the decision
 */
export class HostTemplates {
  private readonly hosts = new Map<string, HostState>()
  private readonly template = new Set<number>()
  /** Line keys of each cluster's documents (insertion order = least recently seen first). */
  private readonly clusters = new Map<string, Set<number>>()
  private clusterKeys = 0
  /** First lines (headlines) of the documents of every host. */
  private readonly headlines = new Set<number>()
  private tracked = 0
  /** Bumped whenever a line becomes template or a headline is learned: a filter made before may be stale. */
  version = 0

  /** Template lines and headlines known so far. */
  get size(): number {
    return this.template.size + this.headlines.size
  }

  /**
   * The text without its template lines, labelled chrome lines and related-headline blocks, or
   * null when there are none
   * or too little would be left ({@link TEMPLATE_MIN_KEPT_CHARS}).
   */
  filter(text: TextLines): string | null {
    if (this.size === 0 && text.chrome === null) return null
    const drop = this.headlineBlocks(text)
    const kept: string[] = []
    let dropped = false
    let solid = 0
    for (let i = 0; i < text.lines.length; i++) {
      const key = text.keys[i]
      if (drop[i] === true || text.chrome?.[i] === true || (key !== null && key !== undefined && this.template.has(key))) {
        dropped = true
        continue
      }
      kept.push(text.lines[i]!)
      solid += solidLength(text.lines[i]!)
    }
    if (!dropped || solid < TEMPLATE_MIN_KEPT_CHARS) return null
    return kept.join('\n').trim()
  }

  /**
   * Runs of at least {@link HEADLINE_BLOCK_MIN} adjacent keyed lines that are headlines of pages
   * seen before (a "related articles" list), never the text's own first line (its headline).
   */
  private headlineBlocks(text: TextLines): boolean[] {
    const drop: boolean[] = []
    if (this.headlines.size === 0) return drop
    const keyed: number[] = []
    for (let i = 0; i < text.keys.length; i++) if (text.keys[i] != null) keyed.push(i)
    let run: number[] = []
    const close = (): void => {
      if (run.length >= HEADLINE_BLOCK_MIN) for (const i of run) drop[i] = true
      run = []
    }
    for (let j = 1; j < keyed.length; j++) {
      const i = keyed[j]!
      if (this.headlines.has(text.keys[i]!) && headlineLike(text.lines[i]!)) run.push(i)
      else close()
    }
    close()
    return drop
  }

  /**
   * Shows the learner a decided document. Its lines count for its host once per *different*
   * document: a unique document, or a duplicate that brings a line its cluster's documents did
   * not have (a page whose shared chrome made it look like another, before that chrome was
   * learned). A copy of a document (exact, or with a comma or a date changed: lines are keyed by
   * shape) counts nothing, however often it is reposted. At the host's next epoch, learns its
   * template lines.
   */
  observe(host: string, text: TextLines, decision: TemplateDecision): void {
    const keys = new Set<number>()
    for (const key of text.keys) if (key !== null) keys.add(key)
    const different = this.remember(decision, keys)
    this.learnHeadline(text)
    if (!different) return
    let s = this.hosts.get(host)
    if (s === undefined) {
      s = new HostState()
      this.hosts.set(host, s)
    }
    for (const key of keys) {
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

  /**
   * Adds a document's line keys to its cluster's; whether it is a different document (see
   * `observe`). A duplicate of a cluster the learner never saw (indexed by an earlier job) is
   * taken as a copy: it starts the cluster's keys.
   */
  private remember(decision: TemplateDecision, keys: ReadonlySet<number>): boolean {
    const known = this.clusters.get(decision.clusterId)
    let different = !decision.duplicate
    if (known === undefined) {
      this.clusters.set(decision.clusterId, new Set(keys))
      this.clusterKeys += keys.size
    } else {
      this.clusters.delete(decision.clusterId) // most recently seen last
      this.clusters.set(decision.clusterId, known)
      for (const key of keys) {
        if (known.has(key)) continue
        different = true
        known.add(key)
        this.clusterKeys++
      }
    }
    for (const [id, lines] of this.clusters) {
      if (this.clusterKeys <= MAX_CLUSTER_KEYS || id === decision.clusterId) break
      this.clusters.delete(id)
      this.clusterKeys -= lines.size
    }
    return different
  }

  /** The text's first keyed line, when it looks like a headline, is one from now on. */
  private learnHeadline(text: TextLines): void {
    if (this.headlines.size >= MAX_HEADLINES) return
    const i = text.keys.findIndex((k) => k !== null)
    if (i < 0 || !headlineLike(text.lines[i]!)) return
    const key = text.keys[i]!
    if (this.headlines.has(key)) return
    this.headlines.add(key)
    this.version++
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
