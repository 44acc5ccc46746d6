import { DedupError } from '../errors.js'
import { UsageError, type CliIO } from './io.js'

type Command = (args: string[], io: CliIO) => Promise<number>

// Each command's module is imported when it runs: `simdup index` on the embedded store never loads
// the Elasticsearch client (a one-document run took 1.31 s before, 0.82 s after; scripts/bench-startup.ts).
const COMMANDS: Record<string, { load: () => Promise<Command>; summary: string }> = {
  index: { load: async () => (await import('./commands/index-jsonl.js')).indexCommand, summary: 'deduplicate and index a JSONL file (or - for stdin)' },
  fingerprint: { load: async () => (await import('./commands/fingerprint.js')).fingerprintCommand, summary: 'print the SimHash of a text' },
  compare: { load: async () => (await import('./commands/fingerprint.js')).compareCommand, summary: 'distance and shared terms of two texts' },
  reconcile: { load: async () => (await import('./commands/inspect.js')).reconcileCommand, summary: 'merge near-duplicate clusters that concurrent indexers left apart' },
  clusters: { load: async () => (await import('./commands/inspect.js')).clustersCommand, summary: 'the largest duplicate clusters' },
  cluster: { load: async () => (await import('./commands/inspect.js')).clusterCommand, summary: 'members of one cluster, with distances and texts' },
  explain: { load: async () => (await import('./commands/inspect.js')).explainCommand, summary: 'why two stored documents are (not) duplicates' },
  delete: { load: async () => (await import('./commands/inspect.js')).deleteCommand, summary: 'delete documents; clusters elect a new representative' },
  store: { load: async () => (await import('./commands/store.js')).storeCommand, summary: 'check or repair an embedded store (store check | store repair)' },
  reindex: { load: async () => (await import('./commands/reindex.js')).reindexCommand, summary: 'add dedup fields to an existing Elasticsearch index (--dest copy or --in-place)' },
}

export const MAIN_HELP = () => `simdup: near-duplicate detection for (mostly Chinese) text

Usage: simdup <command> [options]   (simdup <command> --help for its options)

Commands:
${Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`).join('\n')}

Environment: ES_URL, ES_API_KEY, ES_USERNAME / ES_PASSWORD, ES_CA_CERT (Elasticsearch commands).
`

/**
 * Runs the CLI with explicit I/O; returns the exit code (0 ok, 2 usage/input error, 1 bug/fatal).
 * @example process.exitCode = await run(process.argv.slice(2), nodeIO())
 */
export async function run(argv: string[], io: CliIO): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(MAIN_HELP())
    return name === undefined ? 2 : 0
  }
  if (name === '--version') {
    io.stdout.write('simdup 0.1.0\n')
    return 0
  }
  const command = COMMANDS[name]
  if (command === undefined) {
    io.stderr.write(`simdup: unknown command \`${name}\`.\n\n${MAIN_HELP()}`)
    return 2
  }
  try {
    return await (await command.load())(rest, io)
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`simdup ${name}: ${err.message}\n`)
      return 2
    }
    // NOT_FOUND: a mistyped --store / --index of a read-only command, a missing reindex source.
    if (err instanceof DedupError && (err.code === 'INVALID_OPTION' || err.code === 'INVALID_JSONL' || err.code === 'NOT_FOUND')) {
      io.stderr.write(`simdup ${name}: ${err.message}\n`)
      return 2
    }
    if (err instanceof DedupError) {
      // Store down, corrupt or of another version: a clear message, plus its cause.
      const cause = err.cause instanceof Error ? `\n  caused by: ${err.cause.message}` : ''
      io.stderr.write(`simdup ${name}: ${err.code}: ${err.message}${cause}\n`)
      return 1
    }
    io.stderr.write(`simdup ${name}: unexpected error\n${(err as Error)?.stack ?? String(err)}\n`)
    return 1
  }
}

/** The real process I/O. */
export function nodeIO(): CliIO {
  return { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() }
}

/** Entry point of the `simdup` bin. */
export async function main(): Promise<void> {
  process.exitCode = await run(process.argv.slice(2), nodeIO())
}
