/**
 * The public surface, as a library user sees it: every name (types included) the built entry
 * points' declarations export, read with the TypeScript compiler from dist/ (rebuilt by the test
 * setup when stale). At most 40 for `simdup` and 25 for `simdup/elasticsearch` (issue 27), each
 * with a doc comment; what the CLI and server share beyond them is in the internal entries, which
 * package.json `exports` does not list.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

/** Each exported name of the declaration file, and whether what it names has a doc comment. */
function exportsOf(dts: string): { name: string; documented: boolean }[] {
  const file = `${ROOT}${dts}`
  const program = ts.createProgram([file], { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true })
  const checker = program.getTypeChecker()
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
    return { name: symbol.name, documented: ts.displayPartsToString(target.getDocumentationComment(checker)).trim() !== '' }
  })
}

const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { exports: Record<string, { types: string }> }

describe.each([
  ['.', 40],
  ['./elasticsearch', 25],
])('entry point %s', (entry, limit) => {
  const names = exportsOf(pkg.exports[entry]!.types.slice(2))

  test(`exports at most ${limit} names, types included`, () => {
    expect(names.length).toBeGreaterThan(10)
    expect(names.length, names.map((n) => n.name).join(' ')).toBeLessThanOrEqual(limit)
  })

  test('documents every name it exports', () => {
    expect(names.filter((n) => !n.documented).map((n) => n.name)).toEqual([])
  })
})

test('the CLI helpers are internal: not in the public entry points, nor in package.json exports', () => {
  const publicNames = new Set([...exportsOf('dist/index.d.ts'), ...exportsOf('dist/elasticsearch/index.d.ts')].map((n) => n.name))
  for (const helper of ['terminalSafeJson', 'compareOrder', 'parseDuration', 'compareAnalyses', 'ruleEvidence', 'explainDocuments', 'parseFieldList', 'defaultCheckpointFile']) {
    expect(publicNames.has(helper), helper).toBe(false)
  }
  expect(Object.keys(pkg.exports).filter((k) => k.includes('internal'))).toEqual([])
  // The type `Deduplicator.decide` takes, and the one `prepare` takes, can be named.
  expect(publicNames.has('PreparedItem') && publicNames.has('IncomingItem')).toBe(true)
})
