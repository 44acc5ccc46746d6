import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D } from '../fixtures/articles.js'

export const BIN = fileURLToPath(new URL('../../bin/simdup.js', import.meta.url))

/**
 * util-linux's `setpriv`, when there: a child started through `setpriv --pdeathsig SIGKILL` is
 * killed by the kernel when the process that started it dies, even by SIGKILL (a test runner
 * killed by a timeout), where no exit hook runs. setpriv execs the command, so the pid is the
 * child's own.
 */
const SETPRIV = process.platform === 'linux' ? ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p)) ?? null : null

/** Children of this process still running: killed when it exits, however its tests ended. */
const live = new Set<ChildProcess>()
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL')
})

/**
 * `node …args` as a child that does not outlive this process: killed by the kernel when this
 * process dies (`setpriv --pdeathsig`, Linux) and by an exit hook otherwise. A test runner that
 * is killed or stops early leaves no `simdup serve` behind holding a store's lock and a port.
 */
export function spawnOwned(args: string[], options: SpawnOptions): ChildProcess {
  const proc = SETPRIV === null ? spawn(process.execPath, args, options) : spawn(SETPRIV, ['--pdeathsig', 'SIGKILL', '--', process.execPath, ...args], options)
  live.add(proc)
  proc.once('exit', () => live.delete(proc))
  return proc
}

/** A `simdup serve` child process listening on a free port. */
export interface ServeProcess {
  url: string
  proc: ChildProcess
  stderr(): string
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/**
 * Starts `node bin/simdup.js serve --port 0 …args` and resolves once it listens (its stderr line
 * `listening on URL`); rejects with its stderr when it exits first.
 */
export function startServe(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<ServeProcess> {
  const proc = spawnOwned([BIN, 'serve', '--port', '0', ...args], { cwd: options.cwd, env: { ...process.env, ES_URL: '', SIMDUP_TOKEN: '', ...options.env } })
  let stderr = ''
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })))
  return new Promise((resolve, reject) => {
    proc.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString()
      const url = /listening on (http:\/\/\S+) /.exec(stderr)?.[1]
      if (url !== undefined) {
        resolve({
          url,
          proc,
          stderr: () => stderr,
          async stop(signal = 'SIGTERM') {
            if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
            return exited
          },
        })
      }
    })
    void exited.then(({ code, signal }) => reject(new Error(`simdup serve exited (${code ?? signal}) before listening:\n${stderr}`)))
  })
}

/** Runs `node bin/simdup.js …args` to the end. */
export function runCli(args: string[], options: { cwd: string; input?: string; env?: Record<string, string> }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawnOwned([BIN, ...args], { cwd: options.cwd, env: { ...process.env, ES_URL: '', ...options.env } })
    let stdout = ''
    let stderr = ''
    p.stdout!.on('data', (c: Buffer) => (stdout += c.toString()))
    p.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
    p.on('close', (code) => resolve({ code, stdout, stderr }))
    p.stdin!.end(options.input ?? '')
  })
}

/**
 * `n` documents, most of them near-duplicates of four articles (suffixes, truncations, a number
 * appended), so that a decision depends on which of its near-duplicates came first.
 */
export function nearDuplicateDocs(prefix: string, n: number): { id: string; content: string }[] {
  const arts = [ARTICLE_A, ARTICLE_B, ARTICLE_C, ARTICLE_D]
  return Array.from({ length: n }, (_, i) => {
    const a = arts[i % 4]!
    const variant = Math.floor(i / 4) % 5
    const cut = a.slice(0, Math.floor(a.length * (0.55 + 0.09 * variant)))
    const content = variant === 0 ? a : variant === 1 ? `${a}（完）` : variant === 2 ? cut : `${cut}。第${Math.floor(i / 20)}期`
    return { id: `${prefix}${i}`, content }
  })
}

/** POST /v1/documents with a JSON body; the parsed answer and status. */
export async function postDocuments(url: string, docs: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/v1/documents`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(docs) })
  return { status: res.status, headers: res.headers, body: (await res.json()) as { decisions: Record<string, unknown>[] } & { code?: string; message?: string } }
}

/** A decision without its `line` (the place in a request, not in a run). */
export function withoutLine(d: Record<string, unknown>): Record<string, unknown> {
  const { line: _line, ...rest } = d
  return rest
}
