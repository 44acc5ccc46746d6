/**
 * Builds data/gram-freq.txt.gz: the global order of the short-text route's grams (see
 * src/fingerprint/_gram-order.ts). For each character bigram of the normalised text (content
 * units as src/fingerprint/short-grams.ts takes them), the number of lines of the Debian corpus
 * (docs.jsonl, every document) it occurs in; kept when it occurs in at least MIN_LINES lines.
 * Run once; the file is shipped and never follows the index.
 *
 *   SIMDUP_CORPUS_DIR=… npx tsx scripts/build-gram-freq.ts
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { createAnalyzer } from '../src/fingerprint/analyzer.js'
import { gramKeys } from '../src/fingerprint/short-grams.js'

const MIN_LINES = 3
const dir = process.env.SIMDUP_CORPUS_DIR ?? '.cache/corpus'
const analyzer = createAnalyzer()
const counts = new Map<number, number>()
let lines = 0
for (const line of readFileSync(join(dir, 'docs.jsonl'), 'utf8').split('\n')) {
  if (line === '') continue
  const doc = JSON.parse(line) as { content: string }
  const normalized = analyzer.analyze(doc.content).normalized
  for (const l of normalized.split('\n')) {
    const keys = gramKeys(l)
    if (keys.length === 0) continue
    lines++
    for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1)
  }
}
const kept = [...counts].filter(([, n]) => n >= MIN_LINES).sort((a, b) => b[1] - a[1] || a[0] - b[0])
const text = kept.map(([k, n]) => `${String.fromCharCode(k >>> 16, k & 0xffff)}\t${n}`).join('\n') + '\n'
const gz = gzipSync(Buffer.from(text, 'utf8'), { level: 9 })
writeFileSync(new URL('../data/gram-freq.txt.gz', import.meta.url), gz)
console.log(`${lines} lines, ${counts.size} distinct grams, ${kept.length} kept (≥ ${MIN_LINES} lines), ${gz.length} bytes`)
