/** What the CLI touches of the outside world; tests pass a fake. */
export interface CliIO {
  stdin: AsyncIterable<Uint8Array | string>
  /** The descriptor `stdin` reads (0 for the process's): to tell an output that is the file stdin is redirected from. */
  stdinFd?: number
  /**
   * Standard output. `flush` (optional) resolves once what was written is handed to the OS and
   * rejects with an `OutputError` when writing failed (a closed pipe, a full disk).
   */
  stdout: { write(text: string): unknown; flush?(): Promise<void> }
  stderr: { write(text: string): unknown; isTTY?: boolean }
  env: Record<string, string | undefined>
  cwd: string
}

/** A usage error (bad flag or argument): printed without a stack, then `see simdup <command> --help`; exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}

/** An input that cannot be used (missing, a directory, unreadable, nothing but rejected lines): one line, exit code 2. */
export class InputError extends Error {
  override name = 'InputError'
}

/**
 * Output that could not be written: names the file (or standard output) and the cause; exit code 1.
 * A closed pipe (`simdup … | head -1`) is not an error for the user: `closedPipe` makes the run end quietly with 0.
 */
export class OutputError extends Error {
  override name = 'OutputError'
  readonly closedPipe: boolean
  constructor(target: string, cause: unknown) {
    super(`cannot write ${target}: ${fsReason(cause)}`, { cause })
    this.closedPipe = (cause as NodeJS.ErrnoException | null)?.code === 'EPIPE'
  }
}

const REASONS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'it is a directory, not a file',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EPIPE: 'the reading end of the pipe was closed',
  EMFILE: 'too many open files',
  EIO: 'input/output error',
}

/** A file-system error in words, with its code: `no space left on the device (ENOSPC)`. */
export function fsReason(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code
  if (code === undefined) return err instanceof Error ? err.message : String(err)
  return `${REASONS[code] ?? (err as Error).message} (${code})`
}

/**
 * Text safe to print on a terminal, and told apart from look-alikes: control characters (ESC,
 * newlines, C1), line separators and every format character (bidi overrides, zero-width space and
 * joiners, soft hyphen, BOM: Unicode category Cf) shown as escapes, so ids that differ only by them
 * print differently.
 */
export function printable(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => {
    const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }
    const code = c.codePointAt(0)!
    return named[c] ?? (code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`)
  })
}
