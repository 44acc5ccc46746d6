/**
 * CLI exit codes follow the error's cause (docs/CLI.md, "Exit codes"): one mapping, `exitCodeOf`,
 * checked for every DedupError code, and end to end for the causes a user meets.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { EXIT_CODES, exitCodeOf, run } from '../../../src/cli/main.js'
import { InputError, OutputError, UsageError } from '../../../src/cli/io.js'
import { DedupError, type DedupErrorCode } from '../../../src/errors.js'
import { openMemoryStore, type MemoryStore } from '../../../src/store/embedded/index.js'
import { LOG_FILE } from '../../../src/store/embedded/_log-format.js'
import { fakeIO } from '../../helpers/cli.js'

const cli = async (args: string[], cwd: string, stdin = '') => {
  const f = fakeIO(cwd, stdin)
  const code = await run(args, f.io)
  return { code, stdout: f.stdout(), stderr: f.stderr() }
}

const LINES = '{"id":"a","content":"市图书馆本周宣布启动全民阅读计划，面向全体市民免费开放"}\n'

const open: MemoryStore[] = []
afterEach(async () => {
  for (const s of open.splice(0)) await s.close()
})

describe('exitCodeOf: one exit per cause', () => {
  // By cause: 2 usage or input, 3 conflict, 4 store unavailable, 5 version mismatch, 1 other failures.
  const expected: Record<DedupErrorCode, number> = {
    INVALID_OPTION: 2,
    INVALID_INPUT: 2,
    INVALID_DOCUMENT: 2,
    NOT_FOUND: 2,
    CONFLICT: 3,
    STORE_UNAVAILABLE: 4,
    SNAPSHOT_VERSION: 5,
    STORE_REQUEST_FAILED: 1,
    STORE_CORRUPT: 1,
    UNAUTHORIZED: 2,
    BUSY: 4,
  }
  test.each(Object.entries(expected))('DedupError %s → exit %i', (code, exit) => {
    expect(exitCodeOf(new DedupError(code as DedupErrorCode, 'x'))).toBe(exit)
    expect(EXIT_CODES[code as DedupErrorCode]).toBe(exit)
  })

  test('the CLI\'s own errors: usage and input 2, output 1 (a closed pipe 0), anything else 1', () => {
    expect(exitCodeOf(new UsageError('x'))).toBe(2)
    expect(exitCodeOf(new InputError('x'))).toBe(2)
    expect(exitCodeOf(new OutputError('standard output', Object.assign(new Error('full'), { code: 'ENOSPC' })))).toBe(1)
    expect(exitCodeOf(new OutputError('standard output', Object.assign(new Error('closed'), { code: 'EPIPE' })))).toBe(0)
    expect(exitCodeOf(new TypeError('a bug'))).toBe(1)
  })
})

describe('exit codes end to end', () => {
  test('a store held by another process: CONFLICT, exit 3 (not a usage error), naming the holder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-exit-'))
    open.push(await openMemoryStore({ dir: join(dir, 'st') }))
    const r = await cli(['index', '-', '--store', 'st', '--quiet'], dir, LINES)
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(new RegExp(`CONFLICT: Cannot open the store in .*st for writing: .*${process.pid}`))
  })

  test('a --store directory holding other files: CONFLICT, exit 3', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-exit-'))
    mkdirSync(join(dir, 'st'))
    writeFileSync(join(dir, 'st', 'notes.txt'), 'not a store')
    const r = await cli(['index', '-', '--store', 'st', '--quiet'], dir, LINES)
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/CONFLICT: There is no simdup store in .*st: it holds other files/)
  })

  test('a read-only command on a missing store: NOT_FOUND, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-exit-'))
    const r = await cli(['clusters', '--store', 'nowhere'], dir)
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/There is no simdup store in .*nowhere/)
  })

  test('a log damaged in the middle: STORE_CORRUPT, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-exit-'))
    const many = Array.from({ length: 40 }, (_, i) => JSON.stringify({ id: `d${i}`, content: `第${i}号文件：市图书馆本周宣布启动全民阅读计划，面向全体市民免费开放。${'文'.repeat(i)}` })).join('\n') + '\n'
    expect((await cli(['index', '-', '--store', 'st', '--batch', '5', '--quiet'], dir, many)).code).toBe(0)
    const log = join(dir, 'st', LOG_FILE)
    const bytes = readFileSync(log)
    bytes[Math.floor(bytes.length / 3)]! ^= 0x01
    writeFileSync(log, bytes)
    const r = await cli(['clusters', '--store', 'st'], dir)
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/STORE_CORRUPT/)
  })

  test('an unreachable Elasticsearch node: STORE_UNAVAILABLE, exit 4', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-exit-'))
    const r = await cli(['clusters', '--es', 'http://127.0.0.1:1', '--index', 'x'], dir)
    expect(r.stderr).toMatch(/STORE_UNAVAILABLE/)
    expect(r.code).toBe(4)
  })
})
