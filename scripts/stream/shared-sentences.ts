/**
 * The shared-sentence stream of scripts/bench-stream.ts and scripts/bench-es.ts: documents built
 * from a pool of real Chinese sentences (the corpus's zh_CN documents), ~55 % of them copies of an
 * earlier document in five kinds (exact, light edit, appended line, heavy edit, HTML-wrapped).
 * `streamFile(n, seed)` writes it once per (n, seed) under the OS temp directory and reuses it.
 */
import { createReadStream, createWriteStream, existsSync, renameSync } from 'node:fs'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Rng } from '../eval/prng.js'

// ---------------------------------------------------------------- stream generation

/** The stream's generator: sfc32 from (golden ratio, π, e, seed), as every run of this bench so far. */
export function prng(seed: number): () => number {
  const rng = Rng.fromState(0x9e3779b9, 0x243f6a88, 0xb7e15162, seed)
  return () => rng.next()
}

const HAN = /\p{Script=Han}/gu

/** Distinct sentences of the zh_CN documents. */
export async function sentencePool(): Promise<string[]> {
  const path = fileURLToPath(new URL('../../.cache/corpus/docs.jsonl', import.meta.url))
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run corpus\` first.`)
  const seen = new Set<string>()
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity })
  for await (const line of rl) {
    if (line.trim() === '') continue
    const { content, lang } = JSON.parse(line) as { content: string; lang: string }
    // zh_TW pages are mostly conversions of zh_CN ones: one script, ~40,000 distinct sentences.
    if (lang !== 'zh_CN') continue
    for (const raw of content.split(/(?<=[。！？])/u)) {
      const s = raw.replace(/\s+/gu, ' ').trim()
      if (s.length < 8 || s.length > 80 || !/[。！？]$/u.test(s)) continue
      if ((s.match(HAN)?.length ?? 0) < 4) continue
      seen.add(s)
    }
  }
  return [...seen].sort()
}

const KINDS = ['original', 'exact', 'light', 'appended', 'heavy', 'html'] as const

/** Writes the stream to `path` (n documents) and returns the count of each kind. */
export async function writeStream(path: string, n: number, seed: number): Promise<Record<string, number>> {
  const pool = await sentencePool()
  console.error(`sentence pool: ${pool.length} sentences`)
  const rand = prng(seed)
  const int = (k: number): number => Math.floor(rand() * k)
  const han = [...new Set(pool.join('').match(HAN) ?? [])]
  // Sentence lists of every document so far (copies copy the list, then edit it).
  const lists: Int32Array[] = []
  const counts: Record<string, number> = Object.fromEntries(KINDS.map((k) => [k, 0]))
  const tmp = `${path}.tmp`
  const out = createWriteStream(tmp)
  for (let i = 0; i < n; i++) {
    const copy = i > 0 && rand() < 0.55
    let list: Int32Array
    let kind: (typeof KINDS)[number] = 'original'
    if (!copy) {
      list = new Int32Array(4 + int(11))
      for (let j = 0; j < list.length; j++) list[j] = int(pool.length)
    } else {
      kind = KINDS[1 + int(5)]!
      list = lists[int(i)]!
      if (kind === 'heavy') {
        const edited = Array.from(list)
        for (let j = 0; j < edited.length; j++) if (rand() < 1 / 3) edited[j] = int(pool.length)
        if (edited.length > 4) edited.splice(int(edited.length), 1)
        list = Int32Array.from(edited)
      }
    }
    lists.push(list)
    counts[kind]!++
    let sentences = Array.from(list, (s) => pool[s]!)
    if (kind === 'light') {
      const edits = 2 + int(3)
      for (let e = 0; e < edits; e++) {
        const j = int(sentences.length)
        const chars = [...sentences[j]!]
        chars[int(chars.length)] = han[int(han.length)]!
        sentences[j] = chars.join('')
      }
    }
    if (kind === 'appended') sentences = [...sentences, pool[int(pool.length)]!]
    let content = ''
    for (let j = 0; j < sentences.length; j++) content += sentences[j]! + (j % 3 === 2 ? '\n' : '')
    if (kind === 'html') {
      const site = int(8)
      content =
        `<html><head><title>站点${site}</title><script>var s${site}=1;</script></head><body>` +
        `<div class="nav"><a href="/">首页</a> | <a href="/news">新闻</a> | <a href="/about">关于本站</a></div>` +
        sentences.map((s) => `<p>${s}</p>`).join('') +
        `<div class="footer">版权所有 © 站点${site} 京ICP备${10000 + site}号</div></body></html>`
    }
    if (!out.write(JSON.stringify({ id: `d${i}`, content }) + '\n')) await once(out, 'drain')
  }
  out.end()
  await once(out, 'finish')
  renameSync(tmp, path)
  return counts
}

/** The stream file of (n, seed), written when missing; the same path bench-stream.ts has always used. */
export async function streamFile(n: number, seed = 1): Promise<string> {
  const path = join(tmpdir(), `simdup-bench-stream-${n}-${seed}.jsonl`)
  if (!existsSync(path)) {
    const t = performance.now()
    const counts = await writeStream(path, n, seed)
    console.error(`stream written: ${path} (${((performance.now() - t) / 1000).toFixed(1)} s) ${JSON.stringify(counts)}`)
  } else {
    console.error(`stream reused: ${path}`)
  }
  return path
}
