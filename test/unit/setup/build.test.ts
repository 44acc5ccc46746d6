/** The freshness rule of test/setup/build.ts (whether a test run rebuilds dist/), on a made-up tree. */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { orphans, staleReason } from '../../setup/build.js'

const INPUTS = ['src/index.ts', 'src/cli/main.ts', 'src/normalize/opencc-dicts.d.ts', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'data/idf.txt.gz', 'scripts/build-data.mjs']
const OUTPUTS = ['dist/index.js', 'dist/index.d.ts', 'dist/index.js.map', 'dist/cli/main.js', 'dist/cli/main.d.ts.map', 'data/idf.bin']
/** Sources an hour ago, the build ten minutes later. */
const SOURCE_TIME = new Date(Date.now() - 3_600_000)
const BUILD_TIME = new Date(SOURCE_TIME.getTime() + 600_000)

let root: string
const at = (path: string): string => join(root, path)
function write(path: string, time: Date): void {
  mkdirSync(dirname(at(path)), { recursive: true })
  writeFileSync(at(path), '')
  utimesSync(at(path), time, time)
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'simdup-build-'))
  for (const path of INPUTS) write(path, SOURCE_TIME)
  for (const path of OUTPUTS) write(path, BUILD_TIME)
  // Creating the files moved their folders' times to now; a folder under src/ counts as a source.
  for (const dir of ['src', 'src/cli', 'src/normalize']) utimesSync(at(dir), SOURCE_TIME, SOURCE_TIME)
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

describe('staleReason (does a test run rebuild dist/ and data/idf.bin?)', () => {
  test('up to date when every output is newer than every source', () => {
    expect(staleReason(root)).toBeNull()
    expect(orphans(root)).toEqual([])
  })

  test('a source edited after the build', () => {
    utimesSync(at('src/cli/main.ts'), new Date(), new Date())
    expect(staleReason(root)).toBe(`${join('src', 'cli', 'main.ts')} is newer than the build`)
  })

  test('the IDF text or the tsconfig changed: data/idf.bin or dist/ is older than it', () => {
    utimesSync(at('data/idf.txt.gz'), new Date(), new Date())
    expect(staleReason(root)).toBe('data/idf.txt.gz is newer than the build')
    utimesSync(at('data/idf.txt.gz'), SOURCE_TIME, SOURCE_TIME)
    utimesSync(at('tsconfig.build.json'), new Date(), new Date())
    expect(staleReason(root)).toBe('tsconfig.build.json is newer than the build')
  })

  test('a source removed: its folder is newer than the build, and its outputs are orphans', () => {
    rmSync(at('src/cli/main.ts'))
    expect(staleReason(root)).toBe(`${join('src', 'cli')} is newer than the build`)
    expect(orphans(root).sort()).toEqual([join('dist', 'cli', 'main.d.ts.map'), join('dist', 'cli', 'main.js')])
  })

  test('an output whose source is gone (moved before this build), even with every time in order', () => {
    write('dist/store/elasticsearch.js', BUILD_TIME)
    expect(staleReason(root)).toBe(`${join('dist', 'store', 'elasticsearch.js')} has no source in src/`)
  })

  test('an output missing', () => {
    rmSync(at('data/idf.bin'))
    expect(staleReason(root)).toBe('data/idf.bin is missing')
  })
})
