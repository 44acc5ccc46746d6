import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { parseIdfEntries, type IdfTable } from './tfidf.js'
import { parseStopWords } from '../segment/stopwords.js'
import { hash64Hex } from './hash.js'
import { checksumBytes, packIdf, unpackIdf } from './_idf-pack.js'

// The shipped data files. Both src/fingerprint and dist/fingerprint sit two levels below the root.
const DATA = new URL('../../data/', import.meta.url)

let idf: (IdfTable & { id: string }) | undefined
let stop: { words: Set<string>; id: string } | undefined

/** Where the default IDF table's text and its binary form live (tests point elsewhere). */
export interface IdfFiles {
  text: URL
  pack: URL
}

export const DEFAULT_IDF_FILES: IdfFiles = { text: new URL('idf.txt.gz', DATA), pack: new URL('idf.bin', DATA) }

/**
 * jieba's IDF table (data/idf.txt.gz), loaded once per thread: from its binary form
 * (data/idf.bin, written by `npm run build`, a few ms) when that was made from the same bytes,
 * else by parsing the text (~0.6 s, ~35 MB; scripts/bench-startup.ts). Both give the same table, id included.
 */
export function defaultIdf(): IdfTable & { id: string } {
  idf ??= loadIdf(DEFAULT_IDF_FILES)
  return idf
}

/** Loads an IDF table from gzipped text, through its pack when that matches the text's bytes. */
export function loadIdf(files: IdfFiles): IdfTable & { id: string } {
  const gz = readFileSync(files.text)
  let pack: Uint8Array | null = null
  try {
    pack = readFileSync(files.pack)
  } catch {
    // no pack (not built): parse the text
  }
  const packed = pack === null ? null : unpackIdf(pack, sourceOf(gz))
  if (packed !== null) return packed
  const { map, mean, id } = parseGzIdf(gz)
  return { get: (t) => map.get(t), mean, size: map.size, id }
}

/** The pack of the IDF table in `files.text` (`npm run build` writes it to `files.pack`). */
export function packIdfFile(files: IdfFiles): Uint8Array {
  const gz = readFileSync(files.text)
  const { map, mean, id } = parseGzIdf(gz)
  return packIdf(map, mean, id, sourceOf(gz))
}

/** The entries, mean and id of a gzipped `word idf` text (the id names the text's content). */
function parseGzIdf(gz: Uint8Array): { map: Map<string, number>; mean: number; id: string } {
  const text = gunzipSync(gz).toString('utf8')
  return { ...parseIdfEntries(text), id: `jieba-${hash64Hex(text).slice(0, 8)}` }
}

const sourceOf = (gz: Uint8Array) => ({ bytes: gz.length, checksum: checksumBytes(gz) })

/** The shipped stop-word list (data/stopwords.txt). */
export function defaultStopWords(): { words: Set<string>; id: string } {
  if (stop === undefined) {
    const text = readFileSync(new URL('stopwords.txt', DATA), 'utf8')
    stop = { words: parseStopWords(text), id: `default-${hash64Hex(text).slice(0, 8)}` }
  }
  return stop
}
