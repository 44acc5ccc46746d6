import { DedupError, describeValue, integerOption } from '../errors.js'
import { OPTION_LIMITS } from './options.js'

/** Limits of one batch: documents and input bytes. */
export interface BatchLimits {
  /** Most items in a batch. @default 500 (range 1–100 000: `OPTION_LIMITS.batchSize`) */
  batchSize?: number
  /**
   * Most input bytes in a batch (the items' `sizeOf`; UTF-8 bytes of a JSONL line). Bounds the
   * memory a batch holds however large its documents: an item larger than this is a batch on its
   * own. @default 67_108_864 (64 MiB; range 1 byte to 4 GiB: `OPTION_LIMITS.batchBytes`)
   */
  batchBytes?: number
}

/**
 * Groups `items` into batches of at most `batchSize` items and `batchBytes` bytes (by `sizeOf`),
 * in order: the way `simdup index` feeds `runBatches`, so that peak memory follows the bytes in
 * flight rather than the document count (12 lines of 7 MB are two batches, not one).
 * @example for await (const batch of batchesOf(readLines(input), { batchSize: 500 }, lineBytes)) …
 */
export async function* batchesOf<T>(items: AsyncIterable<T> | Iterable<T>, limits: BatchLimits, sizeOf: (item: T) => number): AsyncGenerator<T[]> {
  // A store round trip of more documents than the limit gains nothing and holds them all.
  const { batchSize: count, batchBytes: bytesLimit } = OPTION_LIMITS
  const maxItems = limits.batchSize ?? count.default
  const maxBytes = limits.batchBytes ?? bytesLimit.default
  integerOption('batchSize', maxItems, count.min, count.max)
  if (!Number.isInteger(maxBytes) || maxBytes < bytesLimit.min || maxBytes > bytesLimit.max) throw new DedupError('INVALID_OPTION', `Expected \`batchBytes\` to be an integer from ${bytesLimit.min} to ${bytesLimit.max} (4 GiB), got ${describeValue(maxBytes)}.`)
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
