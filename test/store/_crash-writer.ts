/**
 * Child process of crash.test.ts: opens the store in argv[2] and puts batches from batch
 * argv[3] on, forever, printing each batch number on stdout after its put resolves. The parent
 * kills it with SIGKILL at some point mid-run.
 */
import { writeSync } from 'node:fs'
import { openMemoryStore } from '../../src/store/embedded/store.js'
import { batchPlan, crashRecord } from './_crash-plan.js'

const dir = process.argv[2]
const first = Number(process.argv[3] ?? 0)
if (dir === undefined) throw new Error('usage: _crash-writer.ts DIR [FIRST_BATCH]')
const store = await openMemoryStore({ dir })
for (let b = first; ; b++) {
  const result = await store.put(batchPlan(b).map(([id, gen]) => crashRecord(id, gen)))
  if (result.failed.length > 0) throw new Error(`batch ${b}: ${result.failed[0]!.error.message}`)
  // Synchronous write: the number is out before the next put starts.
  writeSync(1, `${b}\n`)
}
