import { describe, expect, test } from 'vitest'
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { run } from '../../../src/cli/main.js'
import { LOG_FILE } from '../../../src/store/embedded/_log-format.js'
import { forgetLastCommit } from '../../../src/store/embedded/_commit-point.js'
import { fakeIO } from '../../helpers/cli.js'

/** A directory holding news.jsonl indexed into `st` in batches of 5 (4 log frames for 17 lines). */
async function indexed(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'simdup-store-cli-'))
  copyFileSync(new URL('../../../examples/news.jsonl', import.meta.url), join(dir, 'news.jsonl'))
  expect(await run(['index', 'news.jsonl', '--out', 'd.jsonl', '--store', 'st', '--batch', '5', '--quiet'], fakeIO(dir).io)).toBe(0)
  return dir
}

const cli = async (args: string[], cwd: string) => {
  const f = fakeIO(cwd)
  const code = await run(args, f.io)
  return { code, stdout: f.stdout(), stderr: f.stderr() }
}

describe('read-only commands and the store log', () => {
  test('clusters, cluster and explain on a mistyped --store create nothing, say the store does not exist, exit 2', async () => {
    const dir = await indexed()
    const before = readdirSync(dir).sort()
    for (const args of [['clusters'], ['cluster', 'lib-001'], ['explain', 'net-001', 'net-002-ad']]) {
      const r = await cli([...args, '--store', 'sst'], dir)
      expect(r.code, args[0]).toBe(2)
      expect(r.stderr).toMatch(new RegExp(`simdup ${args[0]}: There is no simdup store in .*sst: it does not exist`))
      expect(readdirSync(dir).sort()).toEqual(before)
    }
  })

  test('a damaged last frame: clusters warns (bytes, records) and leaves the log alone; store check exits 1; store repair cuts it and says what it dropped', async () => {
    const dir = await indexed()
    const log = join(dir, 'st', LOG_FILE)
    await forgetLastCommit(join(dir, 'st')) // a torn write: its writer died before acknowledging it
    const bytes = readFileSync(log)
    bytes[bytes.length - 5]! ^= 0x01
    writeFileSync(log, bytes)

    const clusters = await cli(['clusters', '--store', 'st', '--json'], dir)
    expect(clusters.code).toBe(0)
    expect(clusters.stderr).toMatch(/store\.log has a damaged tail that was not read: \d+ byte\(s\) from offset \d+, holding at least 4 record\(s\): the last frame fails its checksum.*simdup store repair/)
    expect(JSON.parse(clusters.stdout)).toMatchObject({ documents: 10 }) // 14 stored records, 4 of them in the damaged frame
    expect(readFileSync(log)).toEqual(bytes)
    expect(readdirSync(join(dir, 'st'))).not.toContain('LOCK')

    const check = await cli(['store', 'check', '--store', 'st'], dir)
    expect(check.code).toBe(1)
    expect(check.stdout).toMatch(/damage +\d+ byte\(s\) from offset \d+, holding at least 4 record\(s\)/)
    expect(readFileSync(log)).toEqual(bytes)

    const repair = await cli(['store', 'repair', '--store', 'st', '--json'], dir)
    expect(repair.code, repair.stderr).toBe(0)
    const report = JSON.parse(repair.stdout) as { validBytes: number; records: number; damage: { savedTo: string; records: number } }
    expect(report).toMatchObject({ records: 10, damage: { records: 4, cut: true } })
    expect(statSync(log).size).toBe(report.validBytes)
    expect(readFileSync(report.damage.savedTo)).toEqual(bytes)
    expect((await cli(['store', 'check', '--store', 'st'], dir)).code).toBe(0)
  })

  test('a damaged last frame met by simdup index: cut, reported on stderr with bytes and records, its bytes kept aside', async () => {
    const dir = await indexed()
    const log = join(dir, 'st', LOG_FILE)
    await forgetLastCommit(join(dir, 'st')) // a torn write: its writer died before acknowledging it
    const bytes = readFileSync(log)
    bytes[bytes.length - 5]! ^= 0x01
    writeFileSync(log, bytes)
    const r = await cli(['index', 'news.jsonl', '--out', 'again.jsonl', '--store', 'st', '--quiet'], dir)
    expect(r.code, r.stderr).toBe(0)
    const m = /store\.log had a damaged tail .*: cut (\d+) byte\(s\) from offset (\d+), holding at least 4 record\(s\): the last frame fails its checksum\. The bytes were copied to (\S+)\.\n/.exec(r.stderr)
    expect(m, r.stderr).not.toBeNull()
    const [, cut, offset, savedTo] = m!
    expect(readFileSync(savedTo!)).toEqual(bytes.subarray(Number(offset)))
    expect(Number(cut)).toBe(bytes.length - Number(offset))
  })

  test('ids that are not valid Unicode are rejected with a reason naming the field and line; neither becomes a record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-store-cli-'))
    writeFileSync(join(dir, 'ids.jsonl'), [
      '{"id":"a\\ud800","content":"今天天气很好我们去公园散步吧"}',
      '{"id":"a\\udbff","content":"明天要下雨记得带伞出门吧朋友"}',
      '{"id":"b\\ud83d\\ude00","content":"后天放假大家一起去爬山看风景"}',
    ].join('\n') + '\n')
    const r = await cli(['index', 'ids.jsonl', '--out', 'd.jsonl', '--store', 'st', '--quiet'], dir)
    expect(r.code).toBe(0)
    const out = readFileSync(join(dir, 'd.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; status: string; reason: string | null })
    expect(out.map((d) => [d.id, d.status])).toEqual([['a\ud800', 'rejected'], ['a\udbff', 'rejected'], ['b\ud83d\ude00', 'unique']])
    expect(out[0]!.reason).toMatch(/^line 1: field `id` is not valid Unicode: a lone surrogate \\uD800 at character 2/)
    expect(out[1]!.reason).toMatch(/^line 2: field `id` is not valid Unicode/)
    const clusters = await cli(['clusters', '--store', 'st', '--json'], dir)
    expect(JSON.parse(clusters.stdout)).toMatchObject({ documents: 1 })
  })
})

describe('simdup index batches by bytes as well as by documents', () => {
  /** Frames in a store log: one per batch the run wrote. */
  function frames(log: string): number {
    const bytes = readFileSync(log)
    let n = 0
    for (let at = 16; at < bytes.length; at += 12 + bytes.readUInt32LE(at)) n++
    return n
  }

  test('--batch-mb cuts a batch once it holds that many MiB of input; the default (64) keeps small files in one batch', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'simdup-store-cli-'))
    // Three lines of 0.625 MB (225 k characters, nearly all 3-byte UTF-8): with 1 MiB batches, 1 + 1 + 1.
    const docs = ['春', '夏', '秋'].map((c, i) => JSON.stringify({ id: `big-${i}`, content: `${c}天的故事第${i}章。`.repeat(25_000) }))
    writeFileSync(join(dir, 'big.jsonl'), docs.join('\n') + '\n')
    const small = await cli(['index', 'big.jsonl', '--out', 'a.jsonl', '--store', 'a', '--quiet'], dir)
    expect(small.code, small.stderr).toBe(0)
    expect(frames(join(dir, 'a', LOG_FILE))).toBe(1)
    const cut = await cli(['index', 'big.jsonl', '--out', 'b.jsonl', '--store', 'b', '--quiet', '--batch-mb', '1'], dir)
    expect(cut.code, cut.stderr).toBe(0)
    expect(frames(join(dir, 'b', LOG_FILE))).toBe(3)
    expect(readFileSync(join(dir, 'b.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'a.jsonl'), 'utf8'))
  })
})
