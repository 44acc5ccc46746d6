import { describe, expect, test, beforeAll } from 'vitest'
import { spawn, spawnSync } from 'node:child_process'
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C } from '../fixtures/articles.js'

const BIN = fileURLToPath(new URL('../../bin/simdup.js', import.meta.url))
const simdup = (args: string[], cwd: string, input?: string) =>
  spawnSync(process.execPath, [BIN, ...args], { cwd, input, encoding: 'utf8', env: { ...process.env, ES_URL: '' } })

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'simdup-bin-'))
})

describe('the simdup binary', () => {
  test('index: decisions file, summary on stderr, exit 0 even with rejects; a 20 MB line and invalid UTF-8 are rejected', () => {
    const lines = [
      JSON.stringify({ id: 'a', content: ARTICLE_A, url: 'https://example.com/a?utm_source=x' }),
      JSON.stringify({ id: 'b', content: ARTICLE_B }),
      JSON.stringify({ id: 'huge', content: '字'.repeat(7_000_000) }), // 21 MB of UTF-8
      JSON.stringify({ id: 'a-copy', content: ARTICLE_A, url: 'https://EXAMPLE.com/a' }), // same page, same text: a url duplicate
    ]
    const bytes = Buffer.concat([
      Buffer.from(lines.join('\n') + '\n'),
      Buffer.from([0x7b, 0x22, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), // {"id":"<invalid>"}
      Buffer.from(JSON.stringify({ id: 'junk', content: '\u0001\u0002\u0003\u0004abc\u0005\u0006\u0007\u0008' }) + '\n'),
    ])
    writeFileSync(join(dir, 'in.jsonl'), bytes)
    const r = simdup(['index', 'in.jsonl', '--out', 'out.jsonl', '--store', 'st'], dir)
    expect(r.status).toBe(0)
    const out = readFileSync(join(dir, 'out.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(out.map((d) => [d.line, d.status])).toEqual([
      [1, 'unique'],
      [2, 'unique'],
      [3, 'rejected'],
      [4, 'duplicate'],
      [5, 'rejected'],
      [6, 'rejected'],
    ])
    expect(out[2]!.reason).toMatch(/line 3: line is longer than the limit of \d+ bytes/)
    expect(out[3]).toMatchObject({ layer: 'url', duplicate_of: 'a' })
    expect(out[4]!.reason).toMatch(/line 5: line is not valid UTF-8/)
    expect(out[5]!.reason).toMatch(/line 6: .*control characters/)
    expect(readFileSync(join(dir, 'out.rejects.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3)
    expect(r.stderr).toMatch(/docs 6 +unique 2 +duplicates 1 \(url 1\) +clusters 2 +rejected 3/)
  })

  test('fingerprint and compare from the command line; --help; unknown flag → exit 2', () => {
    expect(simdup(['fingerprint', ARTICLE_A], dir).stdout).toMatch(/^[0-9a-f]{16}\n$/)
    expect(simdup(['compare', ARTICLE_A, ARTICLE_B], dir).stdout).toMatch(/not duplicates/)
    expect(simdup(['--help'], dir).stdout).toMatch(/Commands:[\s\S]*index[\s\S]*reconcile/)
    const bad = simdup(['index', 'in.jsonl', '--frobnicate'], dir)
    expect(bad.status).toBe(2)
    expect(bad.stderr).toMatch(/^simdup index: unknown option `--frobnicate`.\nsee simdup index --help\n$/)
  })

  test('--workers 2 gives the same decisions as one thread', () => {
    const docs = Array.from({ length: 60 }, (_, i) => JSON.stringify({ id: `d${i}`, content: [ARTICLE_A, ARTICLE_B, ARTICLE_C][i % 3]! + (i % 2 === 0 ? '' : '（完）') + (i > 30 ? `第${i}号` : '') }))
    writeFileSync(join(dir, 'w.jsonl'), docs.join('\n') + '\n')
    const one = simdup(['index', 'w.jsonl', '--out', 'w1.jsonl', '--store', 'w1', '--batch', '7'], dir)
    const two = simdup(['index', 'w.jsonl', '--out', 'w2.jsonl', '--store', 'w2', '--batch', '7', '--workers', '2'], dir)
    expect(one.status).toBe(0)
    expect(two.status).toBe(0)
    expect(two.stderr).toMatch(/docs\/s, 2 workers/)
    expect(readFileSync(join(dir, 'w2.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'w1.jsonl'), 'utf8'))
  })

  test('a store that cannot open ends the run with exit 1 (a regular file is no store: not "retry later") and stops the worker pool started beside it', () => {
    writeFileSync(join(dir, 'one.jsonl'), JSON.stringify({ id: 'a', content: ARTICLE_A }) + '\n')
    writeFileSync(join(dir, 'not-a-dir'), 'a file where the store directory should be')
    // Workers left running would keep the process alive: the timeout turns a hang into a failure.
    const r = spawnSync(process.execPath, [BIN, 'index', 'one.jsonl', '--store', 'not-a-dir', '--workers', '2'], { cwd: dir, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ES_URL: '' } })
    expect(r.signal).toBeNull()
    expect(r.status).toBe(1)
    expect(r.stderr).toMatch(/STORE_REQUEST_FAILED: Cannot open the store in .*not-a-dir/)
  })

  // A real read-only filesystem: a read-only bind mount in a private mount namespace (root ignores
  // directory permissions, so a chmod would prove nothing). Skipped where mounts are not allowed;
  // test/store/log-integrity.test.ts checks the read-only open writes nothing, anywhere.
  const readOnlyMounts = spawnSync('unshare', ['-m', 'sh', '-c', 'd=$(mktemp -d) && mount --bind "$d" "$d" && mount -o remount,bind,ro "$d" && ! touch "$d/x" 2>/dev/null; r=$?; rmdir "$d"; exit $r']).status === 0
  test.skipIf(!readOnlyMounts)('on a read-only filesystem: clusters works; creating a store there says the filesystem is read-only', () => {
    copyFileSync(new URL('../../examples/news.jsonl', import.meta.url), join(dir, 'ro-news.jsonl'))
    expect(simdup(['index', 'ro-news.jsonl', '--store', 'ro-st', '--quiet'], dir).status).toBe(0)
    /** `simdup args…` with `dir` mounted read-only (the mount ends with the namespace). */
    const readOnly = (args: string[]) =>
      spawnSync('unshare', ['-m', 'sh', '-c', 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && cd "$1" && shift && exec "$@"', 'sh', dir, process.execPath, BIN, ...args], { encoding: 'utf8', env: { ...process.env, ES_URL: '' } })
    const clusters = readOnly(['clusters', '--store', 'ro-st', '--json'])
    expect(clusters.status, clusters.stderr).toBe(0)
    expect(JSON.parse(clusters.stdout)).toMatchObject({ documents: 14 })
    const created = readOnly(['index', 'ro-news.jsonl', '--store', 'ro-new', '--quiet'])
    expect(created.status).toBe(1) // not 4 ("retry later"): a retry will not help
    expect(created.stderr).toMatch(/STORE_REQUEST_FAILED: Cannot open the store in .*ro-new: the directory cannot be created: the filesystem is read-only \(EROFS\)/)
  })

  describe('output failures (issue 11.4)', () => {
    const many = () => {
      writeFileSync(join(dir, 'many.jsonl'), Array.from({ length: 3000 }, (_, i) => JSON.stringify({ id: `m${i}`, content: `第${i}号文档，编号${i * 7}。` })).join('\n') + '\n') // "document no. i"
      return 'many.jsonl'
    }
    test('| head -1: exit 0, no stack trace', () => {
      const input = many()
      for (const cmd of [`index ${input} --store p1 --batch 10`, 'clusters --store p1 --min-size 1 --top 3000']) {
        const r = spawnSync('bash', ['-c', `node ${JSON.stringify(BIN)} ${cmd} | head -1 >/dev/null; echo "exit=\${PIPESTATUS[0]}" >&2`], { cwd: dir, encoding: 'utf8', env: { ...process.env, ES_URL: '' } })
        expect(r.stderr).toMatch(/exit=0\n$/)
        expect(r.stderr).not.toMatch(/Unhandled|EPIPE|at .*\.js:\d+/)
      }
    })
    test('standard output on a full disk (/dev/full): a clear message, exit 1', () => {
      const full = openSync('/dev/full', 'w')
      try {
        const r = spawnSync(process.execPath, [BIN, 'index', many(), '--store', 'p2'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', full, 'pipe'], env: { ...process.env, ES_URL: '' } })
        expect(r.status).toBe(1)
        expect(r.stderr).toMatch(/^simdup index: cannot write to standard output: no space left on the device \(ENOSPC\)\n$/m)
        expect(r.stderr).not.toMatch(/Unhandled|unexpected error/)
      } finally {
        closeSync(full)
      }
    })
    test('Ctrl-C: stops after the batches in flight with exit 130; --out holds whole lines, each one stored; no temporary file left', async () => {
      const work = mkdtempSync(join(tmpdir(), 'simdup-sigint-'))
      writeFileSync(join(work, 'big.jsonl'), Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ id: `b${i}`, content: `第${i}号文档，编号${i * 7}。` })).join('\n') + '\n')
      const child = spawn(process.execPath, [BIN, 'index', 'big.jsonl', '--out', 'out.jsonl', '--store', 'st', '--batch', '50', '--quiet'], { cwd: work, env: { ...process.env, ES_URL: '' } })
      let stderr = ''
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
      // Signal once some decisions are written (the temporary file beside --out has grown).
      const temp = join(work, `.out.jsonl.${child.pid}.tmp`)
      for (let i = 0; i < 600 && (statSync(temp, { throwIfNoEntry: false })?.size ?? 0) < 10_000; i++) await new Promise((r) => setTimeout(r, 50))
      child.kill('SIGINT')
      expect(await exited).toBe(130)
      const out = readFileSync(join(work, 'out.jsonl'), 'utf8')
      expect(out.endsWith('\n')).toBe(true)
      const decided = out.trim().split('\n').map((l) => JSON.parse(l) as { id: string; line: number })
      expect(decided.length).toBeGreaterThan(0)
      expect(decided.length).toBeLessThan(30_000)
      expect(decided.map((d) => d.line)).toEqual(decided.map((_, i) => i + 1))
      expect(stderr).toContain(`stopped by a signal after deciding ${decided.length} line(s)`)
      expect(readdirSync(work).sort()).toEqual(['big.jsonl', 'out.jsonl', 'st'])
      const stored = JSON.parse(simdup(['clusters', '--store', 'st', '--json'], work).stdout) as { documents: number }
      expect(stored.documents).toBe(decided.length)
    }, 60_000)
    test('--out on a full device: the error names the file', () => {
      const r = simdup(['index', many(), '--store', 'p3', '--out', '/dev/full'], dir)
      expect(r.status).toBe(1)
      expect(r.stderr).toMatch(/simdup index: cannot write decisions file \/dev\/full: no space left on the device \(ENOSPC\)/)
    })
    // A 64 kB tmpfs needs root and mount rights; where they are missing, /dev/full above covers the message.
    const small = join(tmpdir(), `simdup-small-${process.pid}`)
    const mount = () => spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', small]).status === 0
    mkdirSync(small, { recursive: true })
    const canMount = mount() && spawnSync('umount', [small]).status === 0
    test.runIf(canMount)('--out on a full disk: the earlier file stays whole, no partial line, no temporary file left', () => {
      expect(mount()).toBe(true)
      try {
        writeFileSync(join(small, 'out.jsonl'), '{"earlier":"run"}\n')
        const r = simdup(['index', many(), '--store', 'p4', '--out', join(small, 'out.jsonl')], dir)
        expect(r.status).toBe(1)
        expect(r.stderr).toMatch(/cannot write decisions file .*out\.jsonl: no space left on the device \(ENOSPC\)/)
        expect(readFileSync(join(small, 'out.jsonl'), 'utf8')).toBe('{"earlier":"run"}\n')
        expect(readdirSync(small)).toEqual(['out.jsonl'])
      } finally {
        spawnSync('umount', [small])
      }
    })
  })
})
