/**
 * The pipeline as it was before issue 15 (commit 9928b8b, the parent of the first real-chrome
 * change to src/normalize/html.ts), so a benchmark can time it next to today's in one run: issue
 * 15 asks HTML to keep ≥ 0.5× of that path's throughput and plain text to stay as it was.
 *
 * Its `src/` and `data/` are taken out of this checkout's git history into
 * `.cache/before-issue15/` (inside the project, so its imports resolve to the project's
 * node_modules: that commit's dependencies are today's). Needs a git checkout with that commit.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The parent of 65ecf58, the first commit of issue 15's HTML work. */
export const BEFORE_ISSUE_15 = '9928b8b83a489f768ca661a9e9c4610b7a28944a'

/** What the benchmarks call of the old pipeline (its public API of then). */
export interface BeforeIssue15 {
  normalizeContent(content: string): string
  createDeduplicator(options: { store: unknown }): { add(docs: { id: string; content: string; url?: string }[]): Promise<unknown[]> }
  openMemoryStore(): Promise<{ close(): Promise<void> }>
}

/**
 * The old pipeline's modules, or null (with the reason on stderr) when git or the commit is missing.
 * @example const before = await loadBeforeIssue15(); before?.normalizeContent('<p>x</p>')
 */
export async function loadBeforeIssue15(): Promise<BeforeIssue15 | null> {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const dir = join(root, '.cache', 'before-issue15')
  const done = join(dir, `.${BEFORE_ISSUE_15}`)
  if (!existsSync(done)) {
    try {
      mkdirSync(dir, { recursive: true })
      const tar = execFileSync('git', ['-C', root, 'archive', BEFORE_ISSUE_15, 'src', 'data'], { maxBuffer: 1 << 28 })
      execFileSync('tar', ['-x', '-C', dir], { input: tar })
      writeFileSync(done, '')
    } catch (e) {
      console.error(`the pipeline before issue 15 (${BEFORE_ISSUE_15.slice(0, 7)}) is not in this checkout's git history: ${(e as Error).message.split('\n')[0]}`)
      return null
    }
  }
  const mod = (await import(join(dir, 'src', 'index.ts'))) as BeforeIssue15
  return mod
}
