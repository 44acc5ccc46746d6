/**
 * runIndexJob, the job `simdup index` runs, as a library call: batches by count and bytes, the
 * worker pool, decisions in input order once stored, the stop signal and the final refresh.
 */
import { describe, expect, test } from 'vitest'
import { createDeduplicator, formatDecision, openMemoryStore, runIndexJob, type Decision, type JobDocument } from '../../../src/index.js'
import { type JobBatch } from '../../../src/internal.js'
import { parseJsonLine } from '../../../src/io/jsonl.js'
import { ARTICLE_A, ARTICLE_B } from '../../fixtures/articles.js'

/** Texts with copies: each article, a copy of it with a few characters changed, and a bad line. */
function jsonl(n: number): string {
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    const base = i % 2 === 0 ? ARTICLE_A : ARTICLE_B
    out.push(JSON.stringify({ id: `d${i}`, content: i % 3 === 0 ? base : `${base.slice(0, 40)}第${i}${base.slice(40)}` }))
    if (i % 7 === 3) out.push('{"id": "broken"')
  }
  return out.join('\n') + '\n'
}

async function* chunks(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size)
}

type JobLimits = { batchSize?: number; batchBytes?: number; workers?: number; signal?: AbortSignal; maxBatches?: number }

/** Runs a job from `input` (JSONL text) or `documents` on a fresh embedded store: its decisions, batches, result and refreshes. */
async function runOn<R>(source: { input: string } | { documents: JobDocument<R>[] }, options: JobLimits) {
  const store = await openMemoryStore()
  let refreshed = 0
  const refresh = store.refresh.bind(store)
  store.refresh = async () => {
    refreshed++
    await refresh()
  }
  const decisions: Decision[] = []
  const batches: JobBatch<R>[] = []
  const docs = 'documents' in source ? source.documents : []
  const result = await runIndexJob<R>({
    dedup: createDeduplicator({ store }),
    ...('input' in source ? { input: chunks(source.input, 333) } : { documents: (async function* () { yield* docs })() }),
    onDecisions: (d, batch) => {
      decisions.push(...d)
      batches.push(batch)
    },
    ...options,
  })
  await store.close()
  return { decisions, batches, result, refreshed }
}

const decide = (input: string, options: JobLimits) => runOn({ input }, options)

describe('runIndexJob', () => {
  test('decides a JSONL stream like one batch of the whole input, whatever the batch sizes, in input order, and refreshes once at the end', async () => {
    const input = jsonl(30)
    const whole = await decide(input, { batchSize: 100_000 })
    expect(whole.decisions.map((d) => d.status)).toContain('duplicate')
    expect(whole.decisions.map((d) => d.status)).toContain('rejected')
    for (const limits of [{ batchSize: 1 }, { batchSize: 4 }, { batchBytes: 5_000 }]) {
      const r = await decide(input, limits)
      expect(r.decisions.map(formatDecision)).toEqual(whole.decisions.map(formatDecision))
      expect(r.decisions.map((d) => d.line)).toEqual([...r.decisions.map((d) => d.line)].sort((a, b) => a! - b!))
      expect(r.result).toMatchObject({ docs: whole.decisions.length, stopped: false, workers: 1 })
      expect(r.result.summary).toEqual(whole.result.summary)
      expect(r.refreshed).toBe(1)
    }
  })

  test('with a worker pool: the same decisions', async () => {
    const input = jsonl(12)
    const here = await decide(input, { batchSize: 5 })
    const pooled = await decide(input, { batchSize: 5, workers: 2 })
    expect(pooled.result.workers).toBe(2)
    expect(pooled.decisions.map(formatDecision)).toEqual(here.decisions.map(formatDecision))
  })

  test('an aborted signal stops after the batch in flight: every decision given out is stored', async () => {
    const stop = new AbortController()
    const store = await openMemoryStore()
    const dedup = createDeduplicator({ store })
    const decisions: Decision[] = []
    const result = await runIndexJob({
      dedup, input: chunks(jsonl(30), 1000), batchSize: 4, signal: stop.signal,
      onDecisions: (d) => {
        decisions.push(...d)
        stop.abort()
      },
    })
    expect(result.stopped).toBe(true)
    expect(result.docs).toBe(decisions.length)
    expect(decisions.length).toBeLessThan(30)
    const stored = decisions.filter((d) => d.status !== 'rejected').map((d) => d.id!)
    expect((await store.get(stored)).size).toBe(new Set(stored).size)
    await store.close()
  })

  test('with a worker pool started early, the workers reject long documents at the deduplicator\'s maxContentLength', async () => {
    // The pool starts on `blockScheme` before the deduplicator is open; it used to keep the default
    // length limit (10 MB) whatever the deduplicator said, so workers accepted what it rejects.
    const input = jsonl(6)
    const run = async (workers: number) => {
      const store = await openMemoryStore()
      const dedup = createDeduplicator({ store, maxContentLength: 200 })
      const decisions: Decision[] = []
      await runIndexJob({ dedup: async () => dedup, input: chunks(input, 500), workers, blockScheme: { blocks: 4, minMatch: 1 }, onDecisions: (d) => void decisions.push(...d) })
      await store.close()
      return decisions
    }
    const here = await run(1)
    expect(here.filter((d) => d.reason?.includes('content')).length).toBeGreaterThan(0)
    expect((await run(2)).map(formatDecision)).toEqual(here.map(formatDecision))
  })
})

/** The lines of `jsonl(n)` as documents of another source: each ref is its line number. */
function asDocuments(text: string, skip: (line: number) => boolean = () => false): JobDocument<number>[] {
  return text.trimEnd().split('\n').map((l, i) => {
    const parsed = parseJsonLine({ line: i + 1, text: l })
    const input = 'value' in parsed ? { value: parsed.value } : { rejected: parsed.rejected }
    return { input, ref: i + 1, skip: skip(i + 1) }
  })
}

const decideDocuments = (documents: JobDocument<number>[], options: JobLimits) => runOn({ documents }, options)

describe('runIndexJob on documents (the source reindex walks)', () => {
  test('decides documents as the same JSONL lines, without line numbers; each batch gives back its refs', async () => {
    const text = jsonl(20)
    const lines = await decide(text, { batchSize: 6 })
    for (const workers of [1, 2]) {
      const docs = await decideDocuments(asDocuments(text), { batchSize: 6, workers })
      expect(docs.decisions.map((d) => d.line)).toEqual(docs.decisions.map(() => null))
      // A JSONL line's own parse error names its line; a document's has none.
      const lineless = (d: Decision) => formatDecision({ ...d, line: null, reason: d.reason?.replace(/^line \d+: /, '') ?? null })
      expect(docs.decisions.map(lineless)).toEqual(lines.decisions.map(lineless))
      expect(docs.batches.map((b) => b.number)).toEqual(docs.batches.map((_, i) => i + 1))
      expect(docs.batches.flatMap((b) => b.refs)).toEqual(asDocuments(text).map((d) => d.ref))
      expect(docs.batches.every((b) => b.refs.length === 6 || b === docs.batches.at(-1))).toBe(true)
      expect(docs.result).toMatchObject({ docs: lines.decisions.length, batches: docs.batches.length, stopped: false, workers })
    }
  })

  test('skipped documents stay in their batch (refs, skipped) but are not decided', async () => {
    const text = jsonl(20)
    const skip = (line: number) => line % 3 === 0
    const { decisions, batches } = await decideDocuments(asDocuments(text, skip), { batchSize: 5 })
    const all = asDocuments(text)
    expect(batches.map((b) => b.refs.length).slice(0, -1)).toEqual(batches.slice(0, -1).map(() => 5))
    expect(batches.flatMap((b) => b.skipped)).toEqual(all.map((d) => d.ref).filter(skip))
    expect(batches.flatMap((b) => b.decided)).toEqual(all.map((d) => d.ref).filter((l) => !skip(l)))
    expect(decisions.length).toBe(all.length - all.filter((d) => skip(d.ref)).length)
  })

  test('maxBatches stops after that many batches; a limit the source never reaches is not a stop', async () => {
    const docs = asDocuments(jsonl(20))
    const n = Math.ceil(docs.length / 4)
    const stopped = await decideDocuments(docs, { batchSize: 4, maxBatches: 2 })
    expect(stopped.result).toMatchObject({ stopped: true, batches: 2, docs: 8 })
    expect(stopped.batches.flatMap((b) => b.refs)).toEqual(docs.slice(0, 8).map((d) => d.ref))
    expect((await decideDocuments(docs, { batchSize: 4, maxBatches: n })).result).toMatchObject({ stopped: false, batches: n, docs: docs.length })
  })

  test('exactly one source: input or documents', async () => {
    const dedup = createDeduplicator({ store: await openMemoryStore() })
    await expect(runIndexJob({ dedup, onDecisions: () => undefined })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/exactly one of `input`.*neither/) })
    await expect(runIndexJob({ dedup, input: chunks('', 1), documents: (async function* () {})(), onDecisions: () => undefined })).rejects.toMatchObject({ code: 'INVALID_OPTION' })
  })
})
