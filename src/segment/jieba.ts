import { cut as wasmCut, add_word as wasmAddWord } from 'jieba-wasm'
import { DEFAULT_USER_WORD_FREQ, type Segmenter, type UserWord } from './segmenter.js'

/**
 * jieba-wasm (jieba-rs compiled to WebAssembly), HMM off: new-word discovery by HMM makes tokens
 * depend on neighbouring characters, so a typo can re-cut a whole phrase; with HMM off, cuts are
 * dictionary-only, more stable under small edits, and identical to @node-rs/jieba's (tested).
 *
 * jieba-wasm holds one global dictionary, so every instance shares added words.
 * @example createJiebaWasmSegmenter().cut('北京大学的学生') // ['北京大学', '的', '学生']
 */
export function createJiebaWasmSegmenter(): Segmenter {
  return {
    name: 'jieba-rs',
    runLocal: true,
    get epoch() {
      return wasmEpoch
    },
    cut: (text) => wasmCut(text, false),
    addWords(words: readonly UserWord[]) {
      if (words.length > 0) wasmEpoch++
      for (const w of words) wasmAddWord(w.word, w.freq ?? DEFAULT_USER_WORD_FREQ, null)
    },
  }
}

/** jieba-wasm's one dictionary changes for every instance at once. */
let wasmEpoch = 0
