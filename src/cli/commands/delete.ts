import { createDeduplicator, deleteDocuments } from '../../index.js'
import { terminalSafeJson } from '../../internal.js'
import type { CliIO } from '../io.js'
import { UsageError, printable } from '../io.js'
import { parse } from '../args.js'
import { describeStore, withExistingStore, STORED_COMMAND_FLAGS, STORE_HELP } from '../store-flags.js'

export const DELETE_HELP = `simdup delete <ID>... [--json] [store flags]\n\nDeletes documents; a deleted representative hands its cluster to the earliest remaining member.\n\n  --json             one JSON object instead of text\n\nExit codes: 0 all deleted, 2 some ids were not in the store (they are named; the others are deleted).\n\n${STORE_HELP}`

/** `simdup delete ID...`. */
export async function deleteCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, STORED_COMMAND_FLAGS)
  if (values.help) return void io.stdout.write(DELETE_HELP + '\n'), 0
  if (positionals.length === 0) throw new UsageError('Expected at least one id.')
  return withExistingStore(values, io, async (store) => {
    await store.refresh()
    const found = await store.get(positionals)
    const notFound = [...new Set(positionals.filter((id) => !found.has(id)))]
    const result = await deleteDocuments(createDeduplicator({ store }), positionals)
    io.stdout.write(values.json ? terminalSafeJson({ ...result, notFound }) + '\n' : `deleted ${result.deleted}, re-pointed ${result.reassigned} record(s)\n`)
    if (notFound.length === 0) return 0
    io.stderr.write(`simdup delete: not in the ${describeStore(values, io)}: ${notFound.map(printable).join(', ')}\n`)
    return 2
  })
}
