import { createRequire } from 'node:module'
import { DEFAULT_USER_WORD_FREQ, JIEBA_RS_NAME, type Segmenter, type UserWord } from './segmenter.js'

interface JiebaWasm {
  cut(text: string, hmm?: boolean | null): string[]
  add_word(word: string, freq?: number | null, tag?: string | null): number
}

let wasm: JiebaWasm | undefined

/**
 * jieba-wasm's Node build, loaded on first use: a thread that segments with @node-rs/jieba never
 * pays for compiling its WebAssembly module.
 */
function jiebaWasm(): JiebaWasm {
  wasm ??= createRequire(import.meta.url)('jieba-wasm') as JiebaWasm
  return wasm
}

/**
 * jieba-wasm (jieba-rs compiled to WebAssembly), HMM off: new-word discovery by HMM makes tokens
 * depend on neighbouring characters, so a typo can re-cut a whole phrase; with HMM off, cuts are
 * dictionary-only, more stable under small edits, and identical to @node-rs/jieba's (tested).
 *
 * jieba-wasm holds one global dictionary, so every instance shares added words.
 * @example createJiebaWasmSegmenter().cut('北京大学的学生') // ['北京大学', '的', '学生']
 */
export function createJiebaWasmSegmenter(): Segmenter {
  const jieba = jiebaWasm()
  return {
    name: JIEBA_RS_NAME,
    runLocal: true,
    get epoch() {
      return wasmEpoch
    },
    cut: (text) => jieba.cut(text, false),
    addWords(words: readonly UserWord[]) {
      if (words.length > 0) wasmEpoch++
      for (const w of words) jieba.add_word(w.word, w.freq ?? DEFAULT_USER_WORD_FREQ, null)
    },
  }
}

/** jieba-wasm's one dictionary changes for every instance at once. */
let wasmEpoch = 0
