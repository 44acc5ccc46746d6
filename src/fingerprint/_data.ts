import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { parseIdf, type IdfTable } from './tfidf.js'
import { parseStopWords } from '../segment/stopwords.js'
import { hash64Hex } from './hash.js'

// The shipped data files. Both src/fingerprint and dist/fingerprint sit two levels below the root.
const DATA = new URL('../../data/', import.meta.url)

let idf: (IdfTable & { id: string }) | undefined
let stop: { words: Set<string>; id: string } | undefined

/** jieba's IDF table (data/idf.txt.gz), loaded once (~0.3 s, ~35 MB). */
export function defaultIdf(): IdfTable & { id: string } {
  if (idf === undefined) {
    const text = gunzipSync(readFileSync(new URL('idf.txt.gz', DATA))).toString('utf8')
    idf = Object.assign(parseIdf(text), { id: `jieba-${hash64Hex(text).slice(0, 8)}` })
  }
  return idf
}

/** The shipped stop-word list (data/stopwords.txt). */
export function defaultStopWords(): { words: Set<string>; id: string } {
  if (stop === undefined) {
    const text = readFileSync(new URL('stopwords.txt', DATA), 'utf8')
    stop = { words: parseStopWords(text), id: `default-${hash64Hex(text).slice(0, 8)}` }
  }
  return stop
}
