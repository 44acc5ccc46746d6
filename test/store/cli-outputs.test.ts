/**
 * `simdup index -` with standard input redirected from a file: an output that is that file is
 * refused (issue 26), through the real binary (the check reads descriptor 0).
 */
import { spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { ARTICLE_A } from '../fixtures/articles.js'

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'simdup.js')

test('an output that is the file standard input comes from is refused; the input stays whole', () => {
  const work = mkdtempSync(join(tmpdir(), 'simdup-stdin-'))
  const input = join(work, 'in.jsonl')
  writeFileSync(input, JSON.stringify({ id: 'a', content: ARTICLE_A }) + '\n')
  const before = readFileSync(input, 'utf8')
  for (const flags of [['--out', 'in.jsonl'], ['--out', 'o.jsonl', '--rejects', 'in.jsonl']]) {
    const fd = openSync(input, 'r')
    const r = spawnSync(process.execPath, [BIN, 'index', '-', '--store', 's', ...flags], { cwd: work, stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, ES_URL: '' } })
    closeSync(fd)
    expect([r.status, r.stderr]).toEqual([2, `simdup index: ${flags.at(-2)} is the input file (standard input is read from it): it would be replaced; choose another file.\nsee simdup index --help\n`])
    expect(readFileSync(input, 'utf8')).toBe(before)
  }
})
