import { mkdir, open, readFile, truncate, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { ReindexCheckpoint } from './checkpoint.js'

/**
 * The job's rejects file: cut back on open to what the checkpoint covers (a killed process may
 * have appended past it), then appended to, one synced write a batch. Rejected documents carry no
 * dedup record, so on a resume the lines kept are how a re-read recognises them (`rejectedBefore`).
 */
export class RejectsFile {
  /** `_index` NUL `_id` of the documents listed before this process (resumes only). */
  readonly rejectedBefore = new Set<string>()

  private constructor(
    private readonly handle: FileHandle | null,
    /** The file's length: what the next checkpoint records. */
    public bytes: number,
  ) {}

  /** No file (`rejectsFile` null): nothing is written and nothing was rejected before. */
  static none(): RejectsFile {
    return new RejectsFile(null, 0)
  }

  static async open(file: string, cp: ReindexCheckpoint | null): Promise<RejectsFile> {
    await mkdir(dirname(file), { recursive: true })
    const bytes = cp?.rejectsBytes ?? 0
    await truncate(file, bytes).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err
    })
    const rejectedBefore: string[] = []
    if (cp !== null && bytes > 0) {
      for (const line of (await readFile(file, 'utf8')).split('\n')) {
        if (line === '') continue
        const r = JSON.parse(line) as { _index?: string; _id?: string }
        rejectedBefore.push(`${r._index}\u0000${r._id}`)
      }
    }
    const rejects = new RejectsFile(await open(file, 'a'), bytes)
    for (const key of rejectedBefore) rejects.rejectedBefore.add(key)
    return rejects
  }

  /** Appends `text` (whole lines) and syncs it, before the checkpoint that counts it is written. */
  async append(text: string): Promise<void> {
    if (this.handle === null || text === '') return
    const bytes = Buffer.from(text)
    await this.handle.write(bytes)
    await this.handle.sync()
    this.bytes += bytes.length
  }

  async close(): Promise<void> {
    await this.handle?.close()
  }
}
