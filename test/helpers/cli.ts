import { Readable } from 'node:stream'
import type { CliIO } from '../../src/cli/io.js'

/** A fake CLI I/O capturing stdout/stderr. */
export function fakeIO(cwd: string, stdin = '', isTTY = false) {
  const out: string[] = []
  const err: string[] = []
  const io: CliIO = {
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t), isTTY },
    env: {},
    cwd,
  }
  return { io, stdout: () => out.join(''), stderr: () => err.join('') }
}
