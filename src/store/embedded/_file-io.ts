import { writeSync } from 'node:fs'
import { open, stat, type FileHandle } from 'node:fs/promises'

/** Writes all of `buf` at `position`. */
export async function writeAll(fh: FileHandle, buf: Buffer, position: number): Promise<void> {
  let done = 0
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done, position + done)
    done += bytesWritten
  }
}

/**
 * `writeAll`, synchronous: for the writes of a commit (a frame, a commit point), which go to the
 * page cache and take microseconds; each asynchronous write is a round trip through libuv's thread
 * pool (a worker woken, the loop woken back), which on a busy machine waits for a core each way.
 * Only the fdatasync, which waits for the disk, stays asynchronous.
 */
export function writeAllSync(fh: FileHandle, buf: Buffer, position: number): void {
  let done = 0
  while (done < buf.length) done += writeSync(fh.fd, buf, done, buf.length - done, position + done)
}

/** fsync a directory so a rename or create in it is durable. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r')
  try {
    await fh.sync()
  } finally {
    await fh.close()
  }
}

/** Whether `path` exists. */
export async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false)
}
