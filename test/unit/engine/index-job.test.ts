/**
 * runIndexJob, the job `simdup index` runs, as a library call: batches by count and bytes, the
 * worker pool, decisions in input order once stored, the stop signal and the final refresh.
 */
import { describe, expect, test } from 'vitest'
import { createDeduplicator, formatDecision, openMemoryStore, runIndexJob, type Decision } from '../../../src/index.js'
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

async function decide(input: string, options: { batchSize?: number; batchBytes?: number; workers?: number; signal?: AbortSignal }) {
  const store = await openMemoryStore()
  let refreshed = 0
  const refresh = store.refresh.bind(store)
  store.refresh = async () => {
    refreshed++
    await refresh()
  }
  const dedup = createDeduplicator({ store })
  const decisions: Decision[] = []
  const result = await runIndexJob({ dedup, input: chunks(input, 333), onDecisions: (d) => void decisions.push(...d), ...options })
  await store.close()
  return { decisions, result, refreshed }
}

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
})
