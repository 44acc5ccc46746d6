/**
 * What a thread pays before its first document: loading the IDF table from its text and from its
 * binary pack (data/idf.bin), building the @node-rs/jieba dictionary, and the wall time of the
 * real `simdup index` binary (dist/, so `npm run build` first) on a one-document file.
 * Medians of `--runs` interleaved runs.
 *
 *   npx tsx scripts/bench-startup.ts [--runs 7]
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { DEFAULT_IDF_FILES, loadIdf } from '../src/fingerprint/_data.js'
import { tryCreateNodeRsSegmenter } from '../src/segment/node-rs.js'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } })
const runs = Number(values.runs)
if (!existsSync(DEFAULT_IDF_FILES.pack)) {
  console.error('data/idf.bin is missing: run npm run build first.')
  process.exit(2)
}
const textOnly = { text: DEFAULT_IDF_FILES.text, pack: new URL('file:///nonexistent/idf.bin') }
const dir = mkdtempSync(join(tmpdir(), 'simdup-bench-startup-'))
writeFileSync(join(dir, 'one.jsonl'), JSON.stringify({ id: 'a', content: '北京大学的学生在图书馆学习。' }) + '\n')
const bin = new URL('../bin/simdup.js', import.meta.url).pathname

const time = (fn: () => unknown) => {
  const t = performance.now()
  fn()
  return performance.now() - t
}
const rows: Record<string, number[]> = { 'IDF table from text': [], 'IDF table from pack': [], '@node-rs/jieba dictionary': [], 'simdup index, one document (wall)': [] }
for (let r = 0; r < runs; r++) {
  rows['IDF table from text']!.push(time(() => loadIdf(textOnly)))
  rows['IDF table from pack']!.push(time(() => loadIdf(DEFAULT_IDF_FILES)))
  rows['@node-rs/jieba dictionary']!.push(time(() => tryCreateNodeRsSegmenter()))
  rmSync(join(dir, 'store'), { recursive: true, force: true })
  rows['simdup index, one document (wall)']!.push(time(() => {
    const p = spawnSync(process.execPath, [bin, 'index', join(dir, 'one.jsonl'), '--out', join(dir, 'out.jsonl'), '--store', join(dir, 'store'), '--quiet'])
    if (p.status !== 0) throw new Error(`simdup index failed: ${p.stderr.toString()}`)
  }))
}
if (loadIdf(DEFAULT_IDF_FILES).size !== loadIdf(textOnly).size) throw new Error('pack and text disagree')
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
console.log(`startup costs, median of ${runs} runs (ms):`)
for (const [name, xs] of Object.entries(rows)) console.log(`${name.padEnd(36)} ${median(xs).toFixed(0).padStart(6)}`)
rmSync(dir, { recursive: true, force: true })
