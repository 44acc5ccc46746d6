/**
 * Setup shared by the tests that damage an embedded store's log (commit-point, log-integrity):
 * a closed store written as frames of 10 records, and a one-bit flip of a byte of a file.
 */
import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FingerprintRecord } from '../../src/types.js'
import { openMemoryStore } from '../../src/store/embedded/store.js'
import { LOG_FILE } from '../../src/store/embedded/_log-format.js'
import { T0, flip, makeRecord } from './_records.js'

const BASE = { hi: 0x3fa20b11, lo: 0x9c00ffe1 }

/** Records `doc-<from>` … `doc-<to − 1>`, each its own fingerprint and time. */
export function records(from: number, to: number): FingerprintRecord[] {
  return Array.from({ length: to - from }, (_, k) => makeRecord(`doc-${from + k}`, flip(BASE, (from + k) % 64), { indexedAt: T0 + from + k }))
}

/** Writes a store in `dir` as `frames` puts of 10 records and closes it; the log's path and each frame's end offset. */
export async function writeFrames(dir: string, frames: number): Promise<{ dir: string; log: string; ends: number[] }> {
  const log = join(dir, LOG_FILE)
  const store = await openMemoryStore({ dir })
  const ends: number[] = []
  for (let f = 0; f < frames; f++) {
    await store.put(records(10 * f, 10 * f + 10))
    ends.push((await stat(log)).size)
  }
  await store.close()
  return { dir, log, ends }
}

/** Flips one bit of byte `at` of `file`; the damaged bytes. */
export async function flipByte(file: string, at: number): Promise<Buffer> {
  const bytes = await readFile(file)
  bytes[at]! ^= 0x10
  await writeFile(file, bytes)
  return bytes
}
