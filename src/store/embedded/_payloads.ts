import type { FingerprintRecord, PutResult } from '../../types.js'
import { DedupError, describeValue } from '../../errors.js'
import { recordProblem } from '../validate.js'
import type { LayoutRegistry } from './_block-layout.js'
import { ByteWriter, LOG_EXPLICIT_LAYOUT, encodeDelete, encodeLayout, encodePut } from './_codec.js'
import type { Tables } from './_tables.js'
import { MAX_VERSIONS, type VersionRegistry } from './_versions.js'

/** A put or delete larger than this is written as several frames (replay reads a frame whole). */
const MAX_PAYLOAD_BYTES = 32 << 20

/**
 * The log payloads of a put of `records` (the valid ones; the others in `failed`), split at
 * MAX_PAYLOAD_BYTES. A record without `seq` keeps its id's number in `tables` (or the first one
 * given to that id earlier in this call), else takes `freshSeq()`. Interns versions and marks new
 * block layouts as in the log (their definitions go in the payload before the first record using them).
 */
export function putPayloads(records: readonly FingerprintRecord[], tables: Tables, layouts: LayoutRegistry, registry: VersionRegistry, freshSeq: () => number): { payloads: Buffer[]; written: number; failed: PutResult['failed'] } {
  const failed: PutResult['failed'] = []
  const payloads: Buffer[] = []
  let w = new ByteWriter(Math.min(records.length * 128 + 64, MAX_PAYLOAD_BYTES + 4096))
  let written = 0
  // Ids put earlier in this call whose number is not in the tables yet (a repeated id keeps its first).
  const batchSeqs = new Map<string, number>()
  for (const given of records) {
    const problem = recordProblem(given) ?? (registry.accepts(given.version) ? null : `Record ${describeValue(given.id)}: more than ${MAX_VERSIONS} distinct \`version\` values in one store; re-index old versions away first.`)
    if (problem !== null) {
      const id = given !== null && typeof given === 'object' && typeof given.id === 'string' ? given.id : ''
      failed.push({ id, error: new DedupError('INVALID_DOCUMENT', problem) })
      continue
    }
    let r = given
    if (r.seq === undefined) {
      let seq = batchSeqs.get(r.id)
      if (seq === undefined) {
        const row = tables.rowOf(r.id)
        seq = row >= 0 ? tables.seqOf(row) : freshSeq()
      }
      r = { ...r, seq }
    }
    batchSeqs.set(r.id, r.seq!)
    registry.intern(r.version)
    let layout = layouts.match(r.fingerprint.hi, r.fingerprint.lo, r.blocks)
    if (layout < 0) layout = LOG_EXPLICIT_LAYOUT
    else if (!layouts.inLog[layout]) {
      const l = layouts.layouts[layout]!
      encodeLayout(w, layout, l.widths, l.padded)
      // Marked now, not after the write: a failed write fails the log, so nothing follows it.
      layouts.inLog[layout] = true
    }
    encodePut(w, r, layout)
    written++
    if (w.pos >= MAX_PAYLOAD_BYTES) {
      payloads.push(w.view())
      w = new ByteWriter(MAX_PAYLOAD_BYTES + 4096)
    }
  }
  if (w.pos > 0) payloads.push(w.view())
  return { payloads, written, failed }
}

/** The log payloads of deletes of `ids` (distinct, non-empty), split at MAX_PAYLOAD_BYTES. */
export function deletePayloads(ids: readonly string[]): Buffer[] {
  const payloads: Buffer[] = []
  let w = new ByteWriter(Math.min(ids.length * 24 + 16, MAX_PAYLOAD_BYTES + 4096))
  for (const id of ids) {
    encodeDelete(w, id)
    if (w.pos < MAX_PAYLOAD_BYTES) continue
    payloads.push(w.view())
    w = new ByteWriter(MAX_PAYLOAD_BYTES + 4096)
  }
  if (w.pos > 0) payloads.push(w.view())
  return payloads
}
