import type { InputDocument } from '../../src/types.js'
import { copyStream } from './copy-stream.js'
import { mulberry32 } from './random.js'

/**
 * `copyStream(seed, n)` with hot keys and more updates: about 40 % of the documents on two URLs
 * (version chains far past a store's `maxPerKey` at a few hundred documents) and about one more
 * in twelve re-using an earlier id (so about one in six in all).
 */
export function hotKeyStream(seed: number, n: number): InputDocument[] {
  const rnd = mulberry32(seed ^ 0x5bd1e995)
  const docs = copyStream(seed, n)
  return docs.map((d, i) => {
    const out: InputDocument = { ...d }
    if (rnd() < 0.4) out.url = `https://hot.example/${Math.floor(rnd() * 2)}`
    if (i > 0 && rnd() < 0.08) out.id = docs[Math.floor(rnd() * i)]!.id
    return out
  })
}
