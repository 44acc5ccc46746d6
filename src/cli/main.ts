import { DedupError, type DedupErrorCode } from '../index.js'
import { readFileSync } from 'node:fs'
import { InputError, OutputError, UsageError, printable, type CliIO } from './io.js'
import { closest } from './args.js'

type Command = (args: string[], io: CliIO) => Promise<number>

// Each command's module is imported when it runs: `simdup index` on the embedded store never loads
// the Elasticsearch client (a one-document run took 1.31 s before, 0.82 s after; scripts/bench-startup.ts).
const COMMANDS: Record<string, { load: () => Promise<Command>; summary: string }> = {
  index: { load: async () => (await import('./commands/index-jsonl.js')).indexCommand, summary: 'deduplicate and index a JSONL file (or - for stdin)' },
  fingerprint: { load: async () => (await import('./commands/fingerprint.js')).fingerprintCommand, summary: 'print the SimHash of a text' },
  compare: { load: async () => (await import('./commands/fingerprint.js')).compareCommand, summary: 'the decision index makes for two texts, its rule and evidence, shared terms' },
  reconcile: { load: async () => (await import('./commands/reconcile.js')).reconcileCommand, summary: 'merge near-duplicate clusters that concurrent indexers left apart' },
  clusters: { load: async () => (await import('./commands/inspect.js')).clustersCommand, summary: 'the largest duplicate clusters' },
  cluster: { load: async () => (await import('./commands/inspect.js')).clusterCommand, summary: 'members of a cluster (by any member\'s id), with distances and layers' },
  explain: { load: async () => (await import('./commands/inspect.js')).explainCommand, summary: 'why two stored documents are (not) duplicates' },
  delete: { load: async () => (await import('./commands/delete.js')).deleteCommand, summary: 'delete documents; clusters elect a new representative' },
  serve: { load: async () => (await import('./commands/serve.js')).serveCommand, summary: 'deduplicate over HTTP: a JSON API and a cluster inspector page' },
  store: { load: async () => (await import('./commands/store.js')).storeCommand, summary: 'check or repair an embedded store (store check | store repair)' },
  reindex: { load: async () => (await import('./commands/reindex.js')).reindexCommand, summary: 'add dedup fields to an existing Elasticsearch index (--dest copy or --in-place)' },
}

export const MAIN_HELP = () => `simdup: near-duplicate detection for (mostly Chinese) text

Usage: simdup <command> [options]   (simdup <command> --help for its options)

Commands:
${Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`).join('\n')}

Environment: ES_URL, ES_API_KEY, ES_USERNAME / ES_PASSWORD, ES_CA_CERT (Elasticsearch commands;
prefer them to credentials as arguments, which other users see in \`ps\`).

Exit codes: 0 done, 1 failed (store request failed, store corrupt, output not writable), 2 usage
or input error (bad flag, unreadable input, every input line rejected, an id not in the store),
3 conflict (held by another process, or the target exists), 4 store unavailable (retry later),
5 version mismatch (written by another simdup), 130 stopped by Ctrl-C (index --resume, reindex:
run again to continue). The error codes behind each: docs/CLI.md, "Exit codes".
`

/**
 * Runs the CLI with explicit I/O; returns the exit code: 0 done, 2 usage or input error (bad flag,
 * missing or unreadable input, an input of which every line was rejected, an id that is not in
 * the store), a DedupError's code mapped by `EXIT_CODES` (3 conflict, 4 store unavailable, 5
 * version mismatch, 1 other failures), 1 for a bug. docs/CLI.md, "Exit codes".
 * @example process.exitCode = await run(process.argv.slice(2), nodeIO())
 */
export async function run(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(MAIN_HELP())
    return name === undefined ? 2 : 0
  }
  if (name === '--version') {
    io.stdout.write(`simdup ${packageVersion()}\n`)
    return 0
  }
  // Own keys only: `constructor`, `__proto__`, `toString` are not commands.
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (command === undefined) {
    const near = closest(name, Object.keys(COMMANDS))
    io.stderr.write(`simdup: unknown command \`${printable(name)}\`.${near === null ? '' : ` Did you mean \`simdup ${near}\`?`}\n\n${MAIN_HELP()}`)
    return 2
  }
  try {
    const code = await (await command.load())(rest, io)
    await io.stdout.flush?.()
    return code
  } catch (err) {
    return report(name, err, io)
  }
}

/**
 * The exit code of each error code: the one place the CLI maps causes to exits (docs/CLI.md,
 * "Exit codes", is the table). 2 usage or input, 3 conflict, 4 store unavailable (worth a retry),
 * 5 version mismatch, 1 any other failure.
 */
export const EXIT_CODES: Readonly<Record<DedupErrorCode, number>> = Object.freeze({
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
})

/**
 * The exit code of anything a command throws: the one mapping from causes to exits. A DedupError
 * by its code (`EXIT_CODES`), the CLI's own usage and input errors 2, an output failure 1 (0 for a
 * closed pipe: `simdup … | head` got what it wanted), anything else (a bug) 1.
 */
export function exitCodeOf(err: unknown): number {
  if (err instanceof DedupError) return EXIT_CODES[err.code]
  if (err instanceof UsageError || err instanceof InputError) return 2
  if (err instanceof OutputError) return err.closedPipe ? 0 : 1
  return 1
}

/** Whether `err` is the missing optional peer dependency @elastic/elasticsearch (an embedded-only install). */
function isClientMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === 'ERR_MODULE_NOT_FOUND' && /'@elastic\/elasticsearch'/.test((err as Error).message)
}

function report(name: string, err: unknown, io: CliIO): number {
  if (isClientMissing(err)) {
    io.stderr.write(`simdup ${name}: Elasticsearch needs the @elastic/elasticsearch client 8.x, an optional peer dependency that is not installed: npm install @elastic/elasticsearch@8\n`)
    return 2
  }
  const exit = exitCodeOf(err)
  if (err instanceof UsageError || (err instanceof DedupError && err.code === 'INVALID_OPTION')) {
    io.stderr.write(`simdup ${name}: ${err.message}\nsee simdup ${name} --help\n`)
  } else if (err instanceof InputError || err instanceof OutputError || (err instanceof DedupError && exit === 2)) {
    // Input, not-found (a mistyped --store / --index of a read-only command, a missing reindex
    // source) and output errors: the message says it all. A closed pipe says nothing.
    if (exit !== 0) io.stderr.write(`simdup ${name}: ${err.message}\n`)
  } else if (err instanceof DedupError) {
    // A conflict, a store down, failing, corrupt or of another version: the code, the message, its cause.
    // A cause with no message (a 401 to a HEAD request has no body) adds nothing: left out.
    const cause = err.cause instanceof Error && err.cause.message.trim() !== '' ? `\n  caused by: ${err.cause.message}` : ''
    io.stderr.write(`simdup ${name}: ${err.code}: ${err.message}${cause}\n`)
  } else {
    io.stderr.write(`simdup ${name}: unexpected error\n${(err as Error)?.stack ?? String(err)}\n`)
  }
  return exit
}

/** The real process I/O. */
export function nodeIO(): CliIO {
  return { stdin: process.stdin, stdinFd: 0, stdout: guardedOutput(process.stdout, 'to standard output'), stderr: process.stderr, env: process.env, cwd: process.cwd() }
}

/**
 * Standard output that never throws Node's "Unhandled 'error' event": a write error (EPIPE from
 * `| head`, ENOSPC from `> /dev/full`) is kept, later writes are dropped, and `flush` reports it.
 */
export function guardedOutput(stream: NodeJS.WritableStream & { writableNeedDrain?: boolean }, target: string): CliIO['stdout'] {
  let failed: unknown = null
  stream.on('error', (err) => {
    failed ??= err
  })
  return {
    write(text: string) {
      if (failed === null) stream.write(text)
    },
    async flush() {
      // A write error is emitted on a later tick (SyncWriteStream, pipes): let it arrive first.
      await new Promise((resolve) => setImmediate(resolve))
      if (failed === null && stream.writableNeedDrain === true) {
        await new Promise<void>((resolve) => {
          const done = () => {
            stream.off('drain', done)
            stream.off('error', done)
            resolve()
          }
          stream.on('drain', done)
          stream.on('error', done)
        })
      }
      if (failed !== null) throw new OutputError(target, failed)
    },
  }
}

/** Entry point of the `simdup` bin. */
export async function main(): Promise<void> {
  // A closed stderr (`2>&1 | head`) must not crash the process either.
  process.stderr.on('error', () => undefined)
  const io = nodeIO()
  process.exitCode = await run(process.argv.slice(2), io)
}

/** The installed package's version (package.json two folders up, from src/cli or dist/cli). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown }
  return typeof pkg.version === 'string' ? pkg.version : 'unknown'
}
