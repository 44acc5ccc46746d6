import { open, type FileHandle } from 'node:fs/promises'

/** Where one kept text is in the file. */
interface Slot {
  offset: number
  length: number
}

/**
 * The texts `simdup serve --keep-texts` was given, so that its inspector page can show two
 * members side by side: the embedded store keeps fingerprints only. One append-only JSONL file
 * (`texts.jsonl` in the store directory), one `{"id","content"}` line per document (the last one
 * of an id wins; `{"id","deleted":true}` drops it), an in-memory index of offsets, read back on
 * open. Written before the batch's records are put, without fsync: texts are for display, and a
 * torn last line after a crash is skipped on open (that document shows "text not kept").
 */
export class TextKeeper {
  private constructor(private readonly fh: FileHandle, private size: number, private readonly slots: Map<string, Slot>) {}

  static async open(path: string): Promise<TextKeeper> {
    const fh = await open(path, 'a+')
    const slots = new Map<string, Slot>()
    const data = await fh.readFile()
    let start = 0
    let good = 0
    while (start < data.length) {
      const nl = data.indexOf(0x0a, start)
      if (nl < 0) break // a torn last line: never acknowledged as kept
      try {
        const line = JSON.parse(data.subarray(start, nl).toString('utf8')) as { id?: unknown; content?: unknown; deleted?: unknown }
        if (typeof line.id === 'string') {
          if (line.deleted === true) slots.delete(line.id)
          else if (typeof line.content === 'string') slots.set(line.id, { offset: start, length: nl - start })
        }
      } catch {
        // A damaged line: skipped.
      }
      start = nl + 1
      good = start
    }
    if (good < data.length) await fh.truncate(good)
    return new TextKeeper(fh, good, slots)
  }

  /** Appends the texts of a batch (one write). */
  async keep(docs: readonly { id: string; content: string }[]): Promise<void> {
    if (docs.length === 0) return
    const parts: Buffer[] = []
    let at = this.size
    const placed: [string, Slot][] = []
    for (const d of docs) {
      const line = Buffer.from(JSON.stringify({ id: d.id, content: d.content }) + '\n')
      placed.push([d.id, { offset: at, length: line.length - 1 }])
      parts.push(line)
      at += line.length
    }
    const buf = Buffer.concat(parts)
    await this.fh.write(buf, 0, buf.length, this.size)
    this.size = at
    for (const [id, slot] of placed) this.slots.set(id, slot)
  }

  /** Forgets the texts of deleted documents. */
  async forget(ids: readonly string[]): Promise<void> {
    const known = ids.filter((id) => this.slots.has(id))
    if (known.length === 0) return
    const buf = Buffer.from(known.map((id) => JSON.stringify({ id, deleted: true }) + '\n').join(''))
    await this.fh.write(buf, 0, buf.length, this.size)
    this.size += buf.length
    for (const id of known) this.slots.delete(id)
  }

  /** The kept texts of `ids` (ids without one are absent). */
  async get(ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    for (const id of new Set(ids)) {
      const slot = this.slots.get(id)
      if (slot === undefined) continue
      const buf = Buffer.alloc(slot.length)
      await this.fh.read(buf, 0, slot.length, slot.offset)
      out.set(id, (JSON.parse(buf.toString('utf8')) as { content: string }).content)
    }
    return out
  }

  close(): Promise<void> {
    return this.fh.close()
  }
}
