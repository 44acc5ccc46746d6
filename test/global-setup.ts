import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * The CLI tests run the real `bin/simdup.js`, which loads dist/: build it once per test run.
 * Type errors are reported by `npm run typecheck`; tsc still emits, so only a crash stops here.
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('..', import.meta.url))
  const r = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], { cwd: root, encoding: 'utf8' })
  if (r.error !== undefined || r.status === null) throw new Error(`building dist/ failed: ${r.error?.message ?? r.signal}`)
  if (r.status !== 0) process.stderr.write(`tsc reported type errors while building dist/ (see npm run typecheck):\n${r.stdout.slice(0, 2000)}\n`)
}
