/** What the CLI touches of the outside world; tests pass a fake. */
export interface CliIO {
  stdin: AsyncIterable<Uint8Array | string>
  stdout: { write(text: string): unknown }
  stderr: { write(text: string): unknown; isTTY?: boolean }
  env: Record<string, string | undefined>
  cwd: string
}

/** A usage error: printed without a stack, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError'
}
