import { open, realpath, rename, stat, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { OutputError } from './io.js'

/** A file the CLI writes whole or not at all. */
export interface OutputFile {
  readonly path: string
  /** Appends text; rejects with an `OutputError` naming the file. */
  write(text: string): Promise<void>
  /** Makes the written text the file's content (rename over the old file). */
  commit(): Promise<void>
  /** Drops what was written; an earlier file at `path` stays as it was. */
  abort(): Promise<void>
}

/**
 * Opens `path` for writing through a temporary file in the same directory, renamed over `path` by
 * `commit`: a reader never sees a partial line, and a failed run (full disk, store down, killed)
 * leaves an earlier file untouched. A path that exists and is not a regular file (`/dev/stdout`, a
 * FIFO, `/dev/full`) is written directly.
 * @example const f = await openOutputFile('out.jsonl', 'decisions file out.jsonl'); await f.write(text); await f.commit()
 */
export async function openOutputFile(path: string, label: string): Promise<OutputFile> {
  const fail = (err: unknown): never => {
    throw new OutputError(label, err)
  }
  const existing = await stat(path).catch(() => null)
  const direct = existing !== null && !existing.isFile()
  if (existing?.isDirectory() === true) fail(Object.assign(new Error('is a directory'), { code: 'EISDIR' }))
  // A symbolic link is written through: the rename replaces the file it points to, not the link.
  const target = existing === null ? path : await realpath(path)
  // Dot-named and pid-tagged: hidden from globs like *.jsonl, and two runs never share one.
  const temp = direct ? target : join(dirname(target), `.${basename(target)}.${process.pid}.tmp`)
  const handle: FileHandle = await open(temp, 'w').catch(fail)
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await handle.close()
  }
  return {
    path,
    async write(text: string) {
      const bytes = Buffer.from(text, 'utf8')
      let done = 0
      try {
        while (done < bytes.length) done += (await handle.write(bytes, done)).bytesWritten
      } catch (err) {
        fail(err)
      }
    },
    async commit() {
      try {
        await handle.sync().catch((err: unknown) => {
          if (!direct) throw err // (character devices and FIFOs cannot fsync)
        })
        await close()
        if (!direct) await rename(temp, target)
      } catch (err) {
        fail(err)
      }
    },
    async abort() {
      await close().catch(() => undefined)
      if (!direct) await unlink(temp).catch(() => undefined)
    },
  }
}
