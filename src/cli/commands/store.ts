import { resolve } from 'node:path'
import { checkMemoryStore, repairMemoryStore } from '../../index.js'
import type { MemoryStoreCheck } from '../../internal.js'
import type { CliIO } from '../io.js'
import { UsageError } from '../io.js'
import { parse } from '../args.js'

export const STORE_COMMAND_HELP = `simdup store check [--store DIR] [--json]
simdup store repair [--store DIR] [--json]

The embedded store's log, checked without writing to it (check), or cut back to its valid
prefix (repair). A log whose last frame is damaged (what a crash mid-write leaves), or whose
frame in the middle is damaged, holds records past the damage that cannot be read: check says
where, how many bytes and at least how many records, and what of it had been acknowledged
(before the commit point in store.log.commit: damage, not a torn write); repair copies the whole log to
store.log.before-repair-<time> and then cuts it after the valid prefix, saying what it dropped.

  --store DIR   embedded store directory (default ./.simdup)
  --json        one JSON object instead of text

Exit codes: 0 the log is whole (check) or was repaired (repair); 1 check found damage, or the
store cannot be read (bad header); 2 usage error or no store in DIR; 3 the store is held by
another process (repair); 5 another format version.`

const FLAGS = { store: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const

/** `simdup store check|repair`. */
export async function storeCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, FLAGS)
  if (values.help) return void io.stdout.write(STORE_COMMAND_HELP + '\n'), 0
  const action = positionals[0]
  if (positionals.length !== 1 || (action !== 'check' && action !== 'repair')) {
    throw new UsageError('Expected `check` or `repair` (simdup store check | simdup store repair).')
  }
  const dir = resolve(io.cwd, values.store ?? '.simdup')
  const result = action === 'check' ? await checkMemoryStore(dir) : await repairMemoryStore(dir)
  if (values.json) io.stdout.write(JSON.stringify(result) + '\n')
  else io.stdout.write(describe(result, action))
  return action === 'check' && result.damage !== null ? 1 : 0
}

function describe(r: MemoryStoreCheck, action: 'check' | 'repair'): string {
  const lines = [`store    ${r.dir} (store.log: ${r.fileBytes} bytes)`, `valid    ${r.validBytes} bytes, ${r.records} live record(s)`]
  const d = r.damage
  if (d === null) lines.push('damage   none: every frame of the log was read')
  else {
    const tail = d.tail ? 'a damaged last frame (what a crash mid-write leaves)' : 'a damaged frame with more data after it'
    lines.push(`damage   ${d.bytes} byte(s) from offset ${d.offset}, holding at least ${d.records} record(s): ${d.reason}; ${tail}`)
    if (d.acknowledged !== null) {
      lines.push(`lost     ${d.acknowledged.bytes} byte(s) and ${d.acknowledged.entries} entr${d.acknowledged.entries === 1 ? 'y' : 'ies'} (records or deletes) that were acknowledged (before the commit point): not a torn write; the file was damaged or cut`)
    }
    if (action === 'check') lines.push(`repair   simdup store repair --store ${r.dir}   (keeps the ${r.validBytes} valid bytes; copies the whole log aside first)`)
    else lines.push(`repaired dropped those ${d.bytes} byte(s); kept ${r.validBytes} bytes and ${r.records} record(s); the old log is in ${d.savedTo}`)
  }
  return lines.join('\n') + '\n'
}
