import { DedupError } from '../index.js'
import { UsageError, type CliIO } from './io.js'
import { indexCommand } from './commands/index-jsonl.js'
import { fingerprintCommand, compareCommand } from './commands/fingerprint.js'
import { clustersCommand, clusterCommand, explainCommand, deleteCommand, reconcileCommand } from './commands/inspect.js'
import { reindexCommand } from './commands/reindex.js'

type Command = (args: string[], io: CliIO) => Promise<number>

const COMMANDS: Record<string, { run: Command; summary: string }> = {
  index: { run: indexCommand, summary: 'deduplicate and index a JSONL file (or - for stdin)' },
  fingerprint: { run: fingerprintCommand, summary: 'print the SimHash of a text' },
  compare: { run: compareCommand, summary: 'distance and shared terms of two texts' },
  reconcile: { run: reconcileCommand, summary: 'merge near-duplicate clusters that concurrent indexers left apart' },
  clusters: { run: clustersCommand, summary: 'the largest duplicate clusters' },
  cluster: { run: clusterCommand, summary: 'members of one cluster, with distances and texts' },
  explain: { run: explainCommand, summary: 'why two stored documents are (not) duplicates' },
  delete: { run: deleteCommand, summary: 'delete documents; clusters elect a new representative' },
  reindex: { run: reindexCommand, summary: 'add dedup fields to an existing Elasticsearch index (--dest copy or --in-place)' },
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
    return await command.run(rest, io)
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`simdup ${name}: ${err.message}\n`)
      return 2
    }
    if (err instanceof DedupError && (err.code === 'INVALID_OPTION' || err.code === 'INVALID_JSONL')) {
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
