// Worker thread of the prepare pool: JSON parsing + validation + analysis of JSONL lines.
import { parentPort, workerData } from 'node:worker_threads'
import { createAnalyzer } from '../fingerprint/analyzer.js'
import { parseJsonLine, type JsonlLine } from '../io/jsonl.js'
import { prepareItem } from './prepare.js'
import { fromPortable, type PortableAnalyzerOptions } from './prepare-pool.js'
import type { BlockScheme } from '../fingerprint/blocks.js'

const data = workerData as { analyzer: PortableAnalyzerOptions; blockScheme: BlockScheme; maxContentLength: number }
const analyzer = createAnalyzer(fromPortable(data.analyzer))
let options = { analyzer, blockScheme: data.blockScheme, maxContentLength: data.maxContentLength }
const port = parentPort!
port.postMessage({ version: analyzer.version })
// Load the segmenter's dictionary and the conversion tables now, while the caller is still
// opening its store and reading input, rather than in the first chunk (output is unaffected).
analyzer.analyze('<p>简体与繁體中文的 simdup 預熱文本，全角ＡＢＣ。</p>')
port.on('message', (m: { seq: number; lines?: JsonlLine[]; clear?: true }) => {
  try {
    // A fresh analyzer: empty term table and run memo (PreparePool.clearCaches).
    if (m.clear === true) options = { ...options, analyzer: createAnalyzer(fromPortable(data.analyzer)) }
    port.postMessage({ seq: m.seq, items: (m.lines ?? []).map((l) => prepareItem(parseJsonLine(l), options)) })
  } catch (err) {
    const e = err as { message?: unknown; stack?: unknown; code?: unknown } | null
    port.postMessage({ seq: m.seq, error: { message: String(e?.message ?? err), stack: e?.stack, code: e?.code } })
  }
})
