/**
 * Vitest global setup of every test run: brings dist/ and data/idf.bin up to date when they are
 * older than what they are built from, so a bare `vitest run` never tests a stale build. The CLI
 * tests (test/store, test/integration) run the real `bin/simdup.js`, which loads dist/; the unit
 * test of the IDF pack reads data/idf.bin.
 *
 * Up to date (the usual case, e.g. after `npm ci` or an earlier run) costs one walk over src/ and
 * dist/ (milliseconds). Otherwise it runs the two steps of `npm run build` (tsc, then
 * scripts/build-data.mjs) and deletes dist/ files whose source is gone (a moved or removed module
 * must not keep working from dist/). tsc still emits on type errors: those are reported here and
 * fail `npm run typecheck`, not the run; only a crash of either step stops the run.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync, rmdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** What the build reads: every file and folder under src/ (a folder's mtime moves when a file in it is added, removed or renamed) and these files. */
const INPUT_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'data/idf.txt.gz', 'scripts/build-data.mjs']
/** What the build writes last (tsc rewrites every output, so one stands for all). */
const OUTPUT_FILES = ['dist/index.js', 'dist/cli/main.js', 'data/idf.bin']

/** Paths under `dir` (relative to it), folders included. */
function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
}

/** Why the build under `root` (the repository) is stale (a sentence), or null when it is up to date. */
export function staleReason(root = ROOT): string | null {
  const at = (path: string): string => join(root, path)
  let oldest = Infinity
  for (const file of OUTPUT_FILES) {
    if (!existsSync(at(file))) return `${file} is missing`
    oldest = Math.min(oldest, statSync(at(file)).mtimeMs)
  }
  const inputs = [...INPUT_FILES, 'src', ...walk(at('src')).map((p) => join('src', p))]
  for (const input of inputs) {
    if (existsSync(at(input)) && statSync(at(input)).mtimeMs > oldest) return `${input} is newer than the build`
  }
  const orphan = orphans(root)[0]
  return orphan === undefined ? null : `${orphan} has no source in src/`
}

/** dist/ files whose source file in src/ no longer exists. */
export function orphans(root = ROOT): string[] {
  const at = (path: string): string => join(root, path)
  if (!existsSync(at('dist'))) return []
  return walk(at('dist'))
    .filter((p) => /\.(?:d\.ts|js)(?:\.map)?$/.test(p))
    .filter((p) => !existsSync(at(join('src', p.replace(/\.(?:d\.ts|js)(?:\.map)?$/, '.ts')))))
    .map((p) => join('dist', p))
}

function step(args: string[], what: string): string {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' })
  if (r.error !== undefined || r.status === null) throw new Error(`${what} failed: ${r.error?.message ?? r.signal}`)
  if (r.status !== 0 && what !== 'tsc') throw new Error(`${what} failed (exit ${r.status}):\n${r.stderr.slice(-2000)}`)
  return r.status === 0 ? '' : r.stdout
}

export default function setup(): void {
  const at = (path: string): string => join(ROOT, path)
  const reason = staleReason()
  if (reason === null) return
  process.stderr.write(`[build] ${reason}: building dist/ and data/idf.bin (npm run build)\n`)
  const typeErrors = step(['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], 'tsc')
  if (typeErrors !== '') process.stderr.write(`[build] tsc reported type errors (see npm run typecheck):\n${typeErrors.slice(0, 2000)}\n`)
  step(['scripts/build-data.mjs'], 'scripts/build-data.mjs')
  for (const file of orphans()) rmSync(at(file))
  // Folders the removed files leave empty, deepest first.
  for (const dir of walk(at('dist')).map((p) => at(join('dist', p))).filter((p) => statSync(p).isDirectory()).sort((a, b) => b.length - a.length)) {
    if (readdirSync(dir).length === 0) rmdirSync(dir)
  }
  const still = staleReason()
  if (still !== null) throw new Error(`dist/ is still stale after building: ${still} (a file dated in the future?)`)
  process.stderr.write('[build] done\n')
}
