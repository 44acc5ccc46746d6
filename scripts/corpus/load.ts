import { readFileSync } from 'node:fs'
import { buildCorpus } from './build.js'
import { CORPUS_DOCS_PATH } from './paths.js'
import type { CorpusDoc } from './types.js'

/**
 * All corpus documents, building `.cache/corpus/docs.jsonl` first when it is missing.
 * @example const docs = await loadCorpus(); docs.filter((d) => d.lang === 'zh_CN').length
 */
export async function loadCorpus(options: { log?: (line: string) => void } = {}): Promise<CorpusDoc[]> {
  await buildCorpus(options.log !== undefined ? { log: options.log } : {})
  const text = readFileSync(CORPUS_DOCS_PATH, 'utf8')
  const docs: CorpusDoc[] = []
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return
    try {
      docs.push(JSON.parse(line) as CorpusDoc)
    } catch (error) {
      throw new Error(`${CORPUS_DOCS_PATH}:${i + 1}: not JSON; delete the file or run scripts/corpus/build.ts --force`, { cause: error })
    }
  })
  return docs
}
