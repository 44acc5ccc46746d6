/**
 * Child process of lock.test.ts and scripts/faults: opens the store in argv[2] for writing and
 * prints `open` (or the error's code), then holds it until its stdin ends. With argv[3] = `put`,
 * it then puts one record per line read from stdin, printing `put N` once each put resolves (or
 * the error's code and stops).
 */
import { createInterface } from 'node:readline'
import { openMemoryStore } from '../../src/store/embedded/store.js'
import { DedupError } from '../../src/errors.js'
import { crashRecord } from './_crash-plan.js'

const dir = process.argv[2]
if (dir === undefined) throw new Error('usage: _lock-holder.ts DIR [put]')
let store
try {
  store = await openMemoryStore({ dir })
  process.stdout.write('open\n')
} catch (err) {
  process.stdout.write(`${err instanceof DedupError ? err.code : String(err)}\n`)
  process.exit(0)
}
let n = 0
for await (const line of createInterface({ input: process.stdin })) {
  if (process.argv[3] !== 'put') continue
  try {
    await store.put([crashRecord(`${line}-${n}`, 0)])
    process.stdout.write(`put ${++n}\n`)
  } catch (err) {
    process.stdout.write(`${err instanceof DedupError ? err.code : String(err)}\n`)
    break
  }
}
await store.close().catch(() => {})
