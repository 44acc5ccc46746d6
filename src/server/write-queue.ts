import { deleteDocuments, type Decision, type Deduplicator } from '../index.js'
import type { IncomingItem, PreparedItem } from '../engine/prepare.js'
import { HttpError } from './errors.js'
import type { TextKeeper } from './texts.js'

/** Options of `WriteQueue`. */
export interface WriteQueueOptions {
  /** Most documents decided in one group commit (one candidate lookup, one `put`). @default 500 */
  batchSize?: number
  /** Most documents accepted but not yet committed; a request that would pass it is refused with BUSY (429). @default 20000 */
  maxQueued?: number
  /** Where the texts go (`--keep-texts`); null: not kept. @default null */
  texts?: TextKeeper | null
  /**
   * Fewest documents waiting for the writer to decide them while the batch before them is still
   * being committed (pipelined); with fewer, it waits for that commit, and they join the next
   * batch with whatever arrives meanwhile. Deciding a batch has a fixed cost: on a machine whose
   * fdatasync is short next to it, one-document batches decided back to back cost more CPU than
   * they save waiting. @default 16
   */
  pipelineMin?: number
  /** After each group commit: its decisions and how long it took. */
  onCommit?(decisions: readonly Decision[], seconds: number): void
}

type Job =
  | { kind: 'documents'; items: PreparedItem[]; texts: { id: string; content: string }[]; resolve(d: Decision[]): void; reject(err: unknown): void }
  | { kind: 'delete'; ids: string[]; resolve(r: { deleted: number; reassigned: number }): void; reject(err: unknown): void }

/** Seconds a client is told to wait when the queue is full. */
const RETRY_AFTER_SECONDS = 1

/** Batches decided and written but not yet committed, at most, while the next one is decided. */
const MAX_STAGED = 2

/**
 * Every write of the service goes through this one queue, in the order it was accepted: runs of
 * document requests are decided together in group commits of up to `batchSize` documents (one
 * lookup, one `put`), deletes one at a time between them. The deduplicator is the
 * same for every batch and decides as it does for `simdup index` (its decisions do not depend on
 * where batches end), so the decisions equal one sequential run of the documents in acceptance
 * order. Commits are pipelined: while one batch's fdatasync runs, the next batch is decided and
 * written (it sees the batch before it: the store's `stage`). A request's promise resolves only
 * once its batch is durable: what was acknowledged survives kill -9. Documents are validated and
 * fingerprinted (`prepare`, CPU only) before they are queued.
 *
 * Reads of the service go through `read`, so that they never see a record that is decided but
 * not yet committed: a read waits while the writer has such records (the writer lets waiting
 * readers in at the next point where it has none), and the writer decides no batch while a read
 * runs.
 */
export class WriteQueue {
  private readonly jobs: Job[] = []
  private readonly batchSize: number
  private readonly maxQueued: number
  private readonly texts: TextKeeper | null
  /** Documents accepted (being prepared, queued or in a batch not yet committed). */
  private held = 0
  private running: Promise<void> | null = null
  private closing = false
  /** Batches decided (their records seen by the writer) whose commit has not ended. */
  private readonly staged = new Set<Promise<void>>()
  /** The writer is deciding a batch or running a delete. */
  private writing = false
  /** Reads running, reads waiting to be let in, and the writer waiting for the reads to end. */
  private readers = 0
  private readonly waiting: (() => void)[] = []
  private readersDone: (() => void) | null = null
  /** The store stages batches (`FingerprintStore.stage`): reads must wait for their commits. */
  private readonly staging: boolean
  private readonly pipelineMin: number
  /** Documents in `jobs`; wakes the writer waiting for enough of them. */
  private queued = 0
  private arrived: (() => void) | null = null
  /**
   * Set when a staged batch's commit failed: the store's tables then hold records that were never
   * committed (the embedded store applies a batch when it writes it, and a failed fdatasync fails
   * its log for good), so every later write and read is refused with it, until a restart reopens
   * the store from what was committed.
   */
  private failure: HttpError | null = null

  constructor(private readonly dedup: Deduplicator, private readonly options: WriteQueueOptions = {}) {
    this.batchSize = options.batchSize ?? 500
    this.maxQueued = options.maxQueued ?? 20_000
    this.texts = options.texts ?? null
    this.staging = dedup.options.store.stage !== undefined
    this.pipelineMin = options.pipelineMin ?? 16
  }

  /** Documents accepted and not yet committed (the `simdup_queue_documents` gauge). */
  get depth(): number {
    return this.held
  }

  /**
   * Runs `read` (store reads) when no record is decided but uncommitted, and keeps the writer
   * from deciding while it runs: a read sees only committed records, and every record committed
   * before it began.
   */
  async read<T>(read: () => Promise<T>): Promise<T> {
    // A store without `stage` shows a batch only once it is committed: nothing to keep reads from.
    if (!this.staging) return read()
    this.checkFailed()
    if (this.writing || this.staged.size > 0 || this.readersDone !== null || this.waiting.length > 0) {
      // Let in (and counted) by the writer.
      await new Promise<void>((resolve) => this.waiting.push(resolve))
    } else this.readers++
    try {
      this.checkFailed()
      return await read()
    } finally {
      if (--this.readers === 0 && this.readersDone !== null) this.readersDone()
    }
  }

  /**
   * Decides documents after everything accepted before them; resolves with their decisions
   * (in order, one per item) once they are stored. Throws BUSY when the queue is full.
   */
  async submit(items: readonly IncomingItem[]): Promise<Decision[]> {
    this.reserve(items.length)
    let prepared: PreparedItem[]
    try {
      prepared = await this.dedup.prepareBatch(items)
    } catch (err) {
      this.held -= items.length
      throw err
    }
    const texts: { id: string; content: string }[] = []
    if (this.texts !== null) {
      prepared.forEach((p, i) => {
        const item = items[i]!
        if (p.ok && 'value' in item) texts.push({ id: p.doc.id, content: (item.value as { content: string }).content })
      })
    }
    return new Promise((resolve, reject) => {
      this.jobs.push({ kind: 'documents', items: prepared, texts, resolve, reject })
      this.queued += prepared.length
      if (this.arrived !== null && this.queued >= this.pipelineMin) this.arrived()
      this.kick()
    })
  }

  /** Deletes documents in turn with the writes (`deleteDocuments`: clusters elect a new representative). */
  delete(ids: readonly string[]): Promise<{ deleted: number; reassigned: number }> {
    this.reserve(0)
    return new Promise((resolve, reject) => {
      this.jobs.push({ kind: 'delete', ids: [...ids], resolve, reject })
      this.kick()
    })
  }

  /** Refuses new work; resolves once everything accepted is committed (SIGTERM). */
  async drain(): Promise<void> {
    this.closing = true
    while (this.running !== null || this.staged.size > 0) {
      if (this.running !== null) await this.running
      await this.settle()
    }
  }

  /** Throws the failure of a commit, if one failed (see `failure`). */
  private checkFailed(): void {
    if (this.failure !== null) throw this.failure
  }

  /** A staged batch's commit failed: from now on every write and read is refused. */
  private failed(cause: unknown): void {
    if (this.failure !== null) return
    const reason = cause instanceof Error ? cause.message : String(cause)
    this.failure = new HttpError(503, 'STORE_UNAVAILABLE', `A commit to the store failed (${reason}); its batch was not acknowledged, and the store's tables may hold it, so this server takes no more reads or writes. Restart it: the store reopens from what was committed (everything acknowledged).`, { cause })
  }

  private reserve(n: number): void {
    this.checkFailed()
    if (this.closing) throw new HttpError(503, 'STORE_UNAVAILABLE', 'The server is shutting down: it takes no more writes.', { retryAfter: RETRY_AFTER_SECONDS })
    // One request larger than the whole queue still goes in alone (the body limit bounds it).
    if (this.held > 0 && this.held + n > this.maxQueued) {
      throw new HttpError(429, 'BUSY', `The write queue is full (${this.held} documents waiting, at most ${this.maxQueued}): retry after ${RETRY_AFTER_SECONDS} s.`, { retryAfter: RETRY_AFTER_SECONDS })
    }
    this.held += n
  }

  private kick(): void {
    if (this.running !== null) return
    this.running = this.run().finally(() => {
      this.running = null
      if (this.jobs.length > 0) this.kick()
      else this.admit()
    })
  }

  /** With the writer stopped and nothing staged, lets the waiting reads in. */
  private admit(): void {
    if (this.running !== null || this.writing || this.staged.size > 0) return
    for (const go of this.waiting.splice(0)) {
      this.readers++
      go()
    }
  }

  /** Waits until every staged batch's commit has ended. */
  private async settle(): Promise<void> {
    while (this.staged.size > 0) await Promise.all(this.staged)
  }

  /** Lets the waiting reads in once nothing is staged, and waits for every read to end. */
  private async letReadersIn(): Promise<void> {
    await this.settle()
    for (const go of this.waiting.splice(0)) {
      this.readers++
      go()
    }
    if (this.readers > 0) {
      await new Promise<void>((resolve) => (this.readersDone = resolve))
      this.readersDone = null
    }
  }

  private async run(): Promise<void> {
    while (this.jobs.length > 0) {
      if (this.waiting.length > 0 || this.readers > 0) await this.letReadersIn()
      if (this.failure !== null) {
        for (const job of this.jobs.splice(0)) {
          if (job.kind === 'documents') {
            this.queued -= job.items.length
            this.held -= job.items.length
          }
          job.reject(this.failure)
        }
        break
      }
      const first = this.jobs[0]!
      if (first.kind === 'delete') {
        this.jobs.shift()
        this.writing = true
        try {
          const result = await deleteDocuments(this.dedup, first.ids)
          await this.texts?.forget(first.ids)
          first.resolve(result)
        } catch (err) {
          first.reject(err)
        } finally {
          this.writing = false
        }
        continue
      }
      if (this.staged.size >= MAX_STAGED || (this.staged.size > 0 && this.queued < this.pipelineMin)) {
        await Promise.race([...this.staged, new Promise<void>((resolve) => (this.arrived = resolve))])
        this.arrived = null
        continue
      }
      const group: Extract<Job, { kind: 'documents' }>[] = []
      let n = 0
      for (let next = this.jobs[0]; next !== undefined && next.kind === 'documents' && (n === 0 || n + next.items.length <= this.batchSize); next = this.jobs[0]) {
        group.push(next)
        n += next.items.length
        this.queued -= next.items.length
        this.jobs.shift()
      }
      const began = performance.now()
      const fail = (err: unknown): void => {
        for (const job of group) job.reject(err)
      }
      this.writing = true
      try {
        if (this.texts !== null) await this.texts.keep(group.flatMap((j) => j.texts))
        const { decisions, durable } = await this.dedup.decideStaged(group.flatMap((j) => j.items))
        // Answered once committed; the next batch is decided meanwhile.
        const committed: Promise<void> = durable.then(() => {
          this.options.onCommit?.(decisions, (performance.now() - began) / 1000)
          let at = 0
          for (const job of group) {
            job.resolve(decisions.slice(at, at + job.items.length))
            at += job.items.length
          }
        }, (err: unknown) => {
          this.failed(err)
          fail(err)
        }).finally(() => {
          this.held -= n
          this.staged.delete(committed)
          this.admit()
        })
        this.staged.add(committed)
      } catch (err) {
        fail(err)
        this.held -= n
      } finally {
        this.writing = false
      }
    }
  }
}
