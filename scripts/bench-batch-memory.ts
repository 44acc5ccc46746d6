/**
 * Peak RSS of the real `simdup index` binary (dist/, so `npm run build` first) on files of a few
 * very large documents: N lines of about S MB each, made by concatenating bench-corpus documents
 * (mostly Chinese, ~4 M characters a line at 7 MB). A batch is cut by documents (--batch, 500) and
 * by input bytes (--batch-mb, 64): without the byte bound, every line of such a file is one batch
 * and peak memory grows with the number of lines. maxRSS is the process's (worker threads
 * included), from `process.resourceUsage()` at exit.
 *
 *   npx tsx scripts/bench-batch-memory.ts [--lines 12,24,48] [--mb 7] [--batch-mb 64|none] [--workers 1]
 *
 * `--batch-mb none` passes no --batch-mb (to measure a build from before the flag existed).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadCorpus } from './corpus/load.js'

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '12,24,48' },
    mb: { type: 'string', default: '7' },
    'batch-mb': { type: 'string', default: '64' },
    workers: { type: 'string', default: '1' },
  },
})
const bin = new URL('../bin/simdup.js', import.meta.url).pathname
const corpus = await loadCorpus({ log: (l) => console.error(l) })
const dir = mkdtempSync(join(tmpdir(), 'simdup-bench-rss-'))
const preload = join(dir, 'rss.mjs')
writeFileSync(preload, "process.on('exit', () => process.stderr.write(`maxRSS ${process.resourceUsage().maxRSS}\\n`))\n")

/** `lines` documents of about `mb` MB of UTF-8 each, cycling through the corpus. */
function write(lines: number, mb: number): string {
  const path = join(dir, `big-${lines}x${mb}.jsonl`)
  const out: string[] = []
  let k = 0
  for (let i = 0; i < lines; i++) {
    const parts: string[] = []
    let bytes = 0
    while (bytes < mb * 1e6) {
      const c = corpus[k++ % corpus.length]!.content
      parts.push(c)
      bytes += Buffer.byteLength(c) + 1
    }
    out.push(JSON.stringify({ id: `big-${i}`, content: parts.join('\n') }))
  }
  writeFileSync(path, out.join('\n') + '\n')
  return path
}

console.log(`| lines × MB | input MB | --workers | --batch-mb | peak RSS MB | seconds |`)
console.log(`|---|---|---|---|---|---|`)
for (const lines of values.lines.split(',').map(Number)) {
  const path = write(lines, Number(values.mb))
  const store = join(dir, 'store')
  rmSync(store, { recursive: true, force: true })
  const started = performance.now()
  const r = spawnSync(process.execPath, ['--import', preload, bin, 'index', path, '--store', store, '--out', '/dev/null', '--quiet', '--workers', values.workers, ...(values['batch-mb'] === 'none' ? [] : ['--batch-mb', values['batch-mb']])], { encoding: 'utf8' })
  const seconds = (performance.now() - started) / 1000
  const rss = /maxRSS (\d+)/.exec(r.stderr)
  if (r.status !== 0 || rss === null) throw new Error(`simdup index failed (${r.status}): ${r.stderr}`)
  console.log(`| ${lines} × ${values.mb} | ${(statSync(path).size / 1e6).toFixed(0)} | ${values.workers} | ${values['batch-mb']} | ${(Number(rss[1]) / 1024).toFixed(0)} | ${seconds.toFixed(1)} |`)
  rmSync(path)
}
rmSync(dir, { recursive: true, force: true })
