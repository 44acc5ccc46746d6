import { spawn } from 'node:child_process'
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { LOG_FILE } from '../../src/store/embedded/_log-format.js'
import { copyStream } from '../helpers/copy-stream.js'

const BIN = join(import.meta.dirname, '..', '..', 'bin', 'simdup.js')

/**
 * `simdup index` through the binary (dist/, built by the global setup), as a real child process.
 * With `killAtLogBytes`, it is SIGKILLed as soon as the store's log reaches that size: at a
 * random point of a run, often in the middle of a batch's write. `extra`: more flags (--resume).
 */
export async function indexChild(input: string, store: string, out: string, killAtLogBytes?: number, extra: string[] = []): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'index', input, '--store', store, '--out', out, '--batch', '75', '--workers', '1', '--quiet', ...extra], {
    stdio: ['ignore', 'ignore', 'pipe'],
    // The embedded store: an ES_URL in the environment would make it an Elasticsearch run.
    env: { ...process.env, ES_URL: '' },
  })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  let timer: NodeJS.Timeout | undefined
  if (killAtLogBytes !== undefined) {
    const log = join(store, LOG_FILE)
    timer = setInterval(() => {
      void stat(log).then(
        (s) => {
          if (s.size >= killAtLogBytes && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
        },
        () => undefined,
      )
    }, 2)
  }
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      clearInterval(timer)
      resolve({ code, signal, stderr })
    })
  })
}

/**
 * The setup of a crash test: a new directory (pushed to `dirs` for clean-up) holding `input.jsonl`,
 * 1,500 documents of `copyStream(seed)` (URLs, version chains, exact and near copies), and one
 * clean, uninterrupted `simdup index` of it into `clean/`: its decisions and its log's size.
 */
export async function cleanIndexRun(dirs: string[], prefix: string, seed: number): Promise<{ dir: string; input: string; cleanDecisions: string; fullLog: number }> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  dirs.push(dir)
  const input = join(dir, 'input.jsonl')
  await writeFile(input, copyStream(seed, 1500, false).map((d) => JSON.stringify(d)).join('\n') + '\n')
  const clean = await indexChild(input, join(dir, 'clean'), join(dir, 'clean.jsonl'))
  expect(clean, clean.stderr).toMatchObject({ code: 0, signal: null })
  const cleanDecisions = await readFile(join(dir, 'clean.jsonl'), 'utf8')
  const fullLog = (await stat(join(dir, 'clean', LOG_FILE))).size
  return { dir, input, cleanDecisions, fullLog }
}
