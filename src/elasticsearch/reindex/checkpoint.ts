import { mkdir, open, readFile, rename } from 'node:fs/promises'
import { dirname } from 'node:path'
import { DedupError, describeValue } from '../../errors.js'
import type { ReindexCounts } from './options.js'
import type { SortValue } from './_sort.js'
import { acquireLockFile, type DirLock } from '../../store/lock.js'

/** Bumped when the checkpoint layout changes; another format is refused rather than guessed at. */
export const CHECKPOINT_FORMAT = 1

/** What must stay the same for a run to continue a checkpoint: anything that changes decisions or order. */
export interface ReindexJob {
  source: string
  dest: string | null
  fields: { title: string | null; content: string; url: string | null }
  idField: string
  sort: string | null
  windowMs: number | null
  batchSize: number
  /** Fingerprint version plus every decision setting. */
  decider: string
}

/**
 * The durable state of a reindex job. `segments` are the clock intervals (ms, inclusive) in
 * which each process wrote records that a checkpoint covers: a record whose `indexed_at` lies in
 * one was decided by this job in walk order; anything else (older data, the unacknowledged tail
 * of a killed process) is ignored as a candidate and redone.
 */
export interface ReindexCheckpoint {
  format: number
  job: ReindexJob
  /** Clock of the job's first batch. */
  runStartedAt: number
  segments: [number, number][]
  /** `sort` of the last document whose batch was written durably; null before the first batch. */
  after: SortValue[] | null
  pitId: string | null
  reader: 'pit' | 'scroll'
  counts: ReindexCounts
  /** Length of the rejects file that the counts cover (a resume cuts anything after it). */
  rejectsBytes: number
  total: number
  done: boolean
  topClusters: { clusterId: string; size: number }[]
  updatedAt: string
}

/** Reads a checkpoint; null when the file does not exist. Throws INVALID_OPTION on one that cannot be used. */
export async function readCheckpoint(file: string): Promise<ReindexCheckpoint | null> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw err
  }
  let cp: ReindexCheckpoint
  try {
    cp = JSON.parse(text) as ReindexCheckpoint
  } catch (cause) {
    throw new DedupError('STORE_CORRUPT', `Checkpoint ${file} is not valid JSON; delete it or pass \`restart\` to start over.`, { cause })
  }
  if (cp === null || typeof cp !== 'object' || cp.format !== CHECKPOINT_FORMAT || !Array.isArray(cp.segments) || typeof cp.job !== 'object') {
    throw new DedupError('SNAPSHOT_VERSION', `Checkpoint ${file} has format ${describeValue(cp?.format)}, expected ${CHECKPOINT_FORMAT}; pass \`restart\` to start over.`)
  }
  return cp
}

/**
 * Writes a checkpoint atomically and durably: a temp file, fsync, rename over the old one, then
 * fsync of the directory so the rename itself survives a crash.
 */
export async function writeCheckpoint(file: string, cp: ReindexCheckpoint): Promise<void> {
  await mkdir(dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  const fh = await open(tmp, 'w')
  try {
    await fh.writeFile(JSON.stringify(cp, null, 1) + '\n')
    await fh.sync()
  } finally {
    await fh.close()
  }
  await rename(tmp, file)
  const dir = await open(dirname(file), 'r')
  try {
    await dir.sync()
  } finally {
    await dir.close()
  }
}

/** Names the settings in which a checkpoint's job differs from this run's. */
export function jobDifferences(saved: ReindexJob, now: ReindexJob): string[] {
  const out: string[] = []
  for (const key of Object.keys(now) as (keyof ReindexJob)[]) {
    if (JSON.stringify(saved[key]) !== JSON.stringify(now[key])) out.push(`${key} (checkpoint ${JSON.stringify(saved[key])}, now ${JSON.stringify(now[key])})`)
  }
  return out
}

/**
 * Takes `<file>.lock` so two processes never advance one checkpoint: an OS lock that ends with its
 * process (kill -9 included; `acquireLockFile`).
 */
export async function lockCheckpoint(file: string): Promise<DirLock> {
  await mkdir(dirname(file), { recursive: true })
  const lock = `${file}.lock`
  return acquireLockFile(lock, {
    held: (pid) => `Checkpoint ${file} is in use by ${pid === null ? 'another process' : `process ${pid}`}. Wait for it to finish (the lock ends with its process).`,
    unstable: `Cannot take the lock ${lock}: it keeps changing hands.`,
  })
}
