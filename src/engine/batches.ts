import { DedupError, describeValue } from '../errors.js'

/** Limits of one batch: documents and input bytes. */
export interface BatchLimits {
  /** Most items in a batch. @default 500 (range 1 to `MAX_BATCH_SIZE`, 100 000) */
  batchSize?: number
  /**
   * Most input bytes in a batch (the items' `sizeOf`; UTF-8 bytes of a JSONL line). Bounds the
   * memory a batch holds however large its documents: an item larger than this is a batch on its
   * own. @default 67_108_864 (64 MiB)
   */
  batchBytes?: number
}

/** Defaults of `BatchLimits`. */
export const DEFAULT_BATCH_LIMITS = Object.freeze({ batchSize: 500, batchBytes: 64 * 1024 * 1024 })

/** Largest `batchSize`: a store round trip of more documents than this gains nothing and holds them all. */
export const MAX_BATCH_SIZE = 100_000

/**
 * Groups `items` into batches of at most `batchSize` items and `batchBytes` bytes (by `sizeOf`),
 * in order: the way `simdup index` feeds `runBatches`, so that peak memory follows the bytes in
 * flight rather than the document count (12 lines of 7 MB are two batches, not one).
 * @example for await (const batch of batchesOf(readLines(input), { batchSize: 500 }, lineBytes)) …
 */
export async function* batchesOf<T>(items: AsyncIterable<T> | Iterable<T>, limits: BatchLimits, sizeOf: (item: T) => number): AsyncGenerator<T[]> {
  const maxItems = limits.batchSize ?? DEFAULT_BATCH_LIMITS.batchSize
  const maxBytes = limits.batchBytes ?? DEFAULT_BATCH_LIMITS.batchBytes
  if (!Number.isInteger(maxItems) || maxItems < 1 || maxItems > MAX_BATCH_SIZE) throw new DedupError('INVALID_OPTION', `Expected \`batchSize\` to be an integer from 1 to ${MAX_BATCH_SIZE}, got ${describeValue(maxItems)}.`)
  if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new DedupError('INVALID_OPTION', `Expected \`batchBytes\` to be an integer ≥ 1, got ${describeValue(maxBytes)}.`)
  let batch: T[] = []
  let bytes = 0
  for await (const item of items) {
    const size = sizeOf(item)
    if (batch.length > 0 && bytes + size > maxBytes) {
      yield batch
      batch = []
      bytes = 0
    }
    batch.push(item)
    bytes += size
    if (batch.length >= maxItems) {
      yield batch
      batch = []
      bytes = 0
    }
  }
  if (batch.length > 0) yield batch
}
