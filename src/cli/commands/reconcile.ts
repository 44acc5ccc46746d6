import { createDeduplicator, OPTION_LIMITS, reconcile } from '../../index.js'
import { terminalSafeJson } from '../../internal.js'
import type { CliIO } from '../io.js'
import { parse, kFlag, limitFlag, DEFAULT_K, K_RANGE } from '../args.js'
import { withExistingStore, STORED_COMMAND_FLAGS, STORE_HELP } from '../store-flags.js'
import { createProgress } from '../progress.js'

export const RECONCILE_HELP = `simdup reconcile [--k ${DEFAULT_K}] [--batch ${OPTION_LIMITS.pageSize.default}] [--json] [store flags]\n\nRe-decides every stored record as one sequential run would: its best match among the records\nfirst indexed before it, and that match's cluster. Merges clusters two indexers writing at once\nleft apart and repairs forward pointers. Two passes over the store. Idempotent.\n\n  --k N              SimHash bits (of 64) that may differ: ${K_RANGE}\n  --batch N          records per lookup: ${OPTION_LIMITS.pageSize.min} to ${OPTION_LIMITS.pageSize.max} (default ${OPTION_LIMITS.pageSize.default})\n  --json             one JSON object instead of text\n\n${STORE_HELP}`

/** `simdup reconcile`. */
export async function reconcileCommand(args: string[], io: CliIO): Promise<number> {
  const { values } = parse(args, { ...STORED_COMMAND_FLAGS, batch: { type: 'string' } })
  if (values.help) return void io.stdout.write(RECONCILE_HELP + '\n'), 0
  const k = kFlag(values.k)
  const batchSize = limitFlag(values.batch, 'batch', OPTION_LIMITS.pageSize)
  return withExistingStore(values, io, async (store) => {
    const total = await store.count()
    // Two passes over the store (find matches, then rewrite).
    const progress = createProgress({ write: (t) => io.stderr.write(t), isTTY: io.stderr.isTTY === true, total: 2 * total, label: 'scanned' })
    const result = await reconcile(createDeduplicator({ store, maxDistance: k }), { batchSize, onProgress: (n) => progress.update(n, n) })
    progress.finish()
    io.stdout.write(values.json ? terminalSafeJson(result) + '\n' : `scanned ${result.scanned}, pairs ${result.pairs}, forward pointers ${result.forwardPointers}, merged clusters ${result.mergedClusters}, version links ${result.versions}, updated ${result.updated}\n`)
    return 0
  })
}
