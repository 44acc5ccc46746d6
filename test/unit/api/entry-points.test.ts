/**
 * The two entry points (package.json `exports`): `simdup` is the explicit public list and never
 * loads the Elasticsearch client; `simdup/elasticsearch` holds the store, reindex and search hook.
 * Run on the built package (dist/, rebuilt by the test setup when stale) in child processes, so
 * what one import loads is not hidden by what this process loaded before.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

// A module resolve hook that fails any import of an @elastic/* package, registered before the import.
const HOOK = `export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@elastic/')) throw new Error('resolved ' + specifier)
  return next(specifier, context)
}`
const REGISTER = `import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}))`

/** Imports `specifier` (a package name, resolved through package.json `exports`) in a child process with the hook; prints its export names. */
function importWithoutElastic(specifier: string): { status: number | null; stdout: string; stderr: string } {
  const script = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m).sort()))`
  const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(REGISTER)}`, '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

describe('entry points', () => {
  test("import 'simdup' loads no @elastic module, and exports the public list only", () => {
    const r = importWithoutElastic('simdup')
    expect(r.stderr).not.toMatch(/resolved @elastic/)
    expect(r.status).toBe(0)
    const names = JSON.parse(r.stdout) as string[]
    expect(names).toContain('createDeduplicator')
    expect(names).toContain('openMemoryStore')
    expect(names).not.toContain('createElasticsearchStore')
    // Internals stay internal.
    for (const internal of ['HASH_OUT', 'runBatches', 'fromPortable', 'prepareItem', 'candidateQuery', 'popcount32', 'createPreparePool', 'batchesOf', 'readLines', 'parseJsonLine', 'tryCreateNodeRsSegmenter', 'runJob']) {
      expect(names).not.toContain(internal)
    }
    // Issue 12: at most 30 runtime names; issue 27 moved the CLI's and server's helpers (ruleEvidence,
    // explainDocuments, decideTexts, parseDuration, …) to the internal entry, leaving 18. Option ranges
    // and defaults are one object each (OPTION_LIMITS, DEFAULT_DEDUPLICATOR_OPTIONS with its layers).
    // Every name, types included: public-names.test.ts.
    expect(names.length).toBeLessThanOrEqual(20)
    for (const replaced of ['DEFAULT_BATCH_LIMITS', 'MAX_BATCH_SIZE', 'DEFAULT_LAYERS', 'DEFAULT_BLOCK_SCHEME']) expect(names).not.toContain(replaced)
    expect(names).toEqual(expect.arrayContaining(['runIndexJob', 'OPTION_LIMITS', 'DEFAULT_DEDUPLICATOR_OPTIONS']))
  })

  test("import 'simdup/elasticsearch' gives the store, reindex and the search hook (and does load the client: the hook works)", () => {
    const r = importWithoutElastic('simdup/elasticsearch')
    expect(r.status).not.toBe(0)
    expect(r.stderr).toMatch(/resolved @elastic\/elasticsearch/)
    const plain = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('simdup/elasticsearch'); console.log(Object.keys(m).sort().join(' '))"], { cwd: ROOT, encoding: 'utf8' })
    expect(plain.status).toBe(0)
    expect(plain.stdout.trim().split(' ')).toEqual(expect.arrayContaining(['createElasticsearchStore', 'reindex', 'dedupSearch']))
  })
})

test("without @elastic/elasticsearch installed (an optional peer dependency), 'simdup' works and 'simdup/elasticsearch' names the package to install", () => {
  // Resolving the package fails as Node fails it for a package that is not installed.
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier === '@elastic/elasticsearch') {
      const err = new Error("Cannot find package '@elastic/elasticsearch' imported from " + context.parentURL)
      err.code = 'ERR_MODULE_NOT_FOUND'
      throw err
    }
    return next(specifier, context)
  }`
  const register = `import { register } from 'node:module'
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}))`
  const run = (script: string) => spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' })
  expect(run("await import('simdup'); console.log('ok')").stdout.trim()).toBe('ok')
  const es = run("try { await import('simdup/elasticsearch') } catch (err) { console.log(JSON.stringify({ name: err.name, code: err.code, message: err.message })) }")
  expect(JSON.parse(es.stdout)).toEqual({
    name: 'DedupError',
    code: 'INVALID_OPTION',
    message: expect.stringMatching(/needs the package @elastic\/elasticsearch, an optional peer dependency .*npm install @elastic\/elasticsearch@8/),
  })
})
