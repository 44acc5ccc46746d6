import { join } from 'node:path'
import { countPuts } from './_codec.js'
import { LOG_FILE } from './_log-format.js'
import type { LogDamage } from './_replay.js'

/** Bytes of a store's log that were not read: where, how many, what they held, what became of them. */
export interface LogDamageReport {
  /** The log file. */
  path: string
  /** Byte offset of the first frame not read. */
  offset: number
  /** Bytes from `offset` to the end of the file. */
  bytes: number
  /** Records found whole in those bytes: a lower bound (the damage can hide more). */
  records: number
  /** What is wrong there. */
  reason: string
  /** A bad last frame (what a crash mid-write leaves), or a bad frame with more after it. */
  tail: boolean
  /** The bytes were cut from the log (a writable open cuts a torn tail; `repair` cuts any damage). */
  cut: boolean
  /** Where the cut bytes (or, after a repair, the whole old log) were copied; null if not copied. */
  savedTo: string | null
  /**
   * What of it a writer had acknowledged (its commit point lies past `offset`): bytes and entries
   * (records and deletes) lost. Null for a torn write that was never acknowledged.
   */
  acknowledged: { bytes: number; entries: number } | null
}

/** What `checkMemoryStore` / `repairMemoryStore` found (and did). */
export interface MemoryStoreCheck {
  dir: string
  /** Bytes of the log file (before a repair). */
  fileBytes: number
  /** Bytes of its valid prefix: what a repair keeps. */
  validBytes: number
  /** Live records in the valid prefix. */
  records: number
  /** What is past the valid prefix, or null when the log is whole. */
  damage: LogDamageReport | null
}

/** `damage` (what replay did not read) as reported to the store's user; `cut`: whether it was cut from the log. */
export function damageReport(dir: string, damage: LogDamage | null, cut: boolean): LogDamageReport | null {
  if (damage === null) return null
  return {
    path: join(dir, LOG_FILE),
    offset: damage.offset,
    bytes: damage.bytes,
    records: damage.payload === null ? 0 : countPuts(damage.payload, 0, damage.payload.length),
    reason: damage.reason,
    tail: damage.tail,
    cut,
    savedTo: damage.savedTo,
    acknowledged: damage.acknowledged,
  }
}
