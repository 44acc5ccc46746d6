/**
 * The plain "seed-style" algorithm, as the articles that inspired simdup describe it, for
 * comparison: keep only Han characters, segment with jieba (jieba-wasm `cut`, HMM on, as Python
 * jieba's default), weight each distinct token by its term frequency (no IDF), hash it with
 * FNV-1a 64-bit, 64-bit SimHash, and call a document a duplicate of the first-seen representative
 * within Hamming distance k = 3 (nearest one; ties go to the earliest). No short-text rule, no
 * normalisation beyond dropping non-Han characters: Latin-only documents all get the empty
 * fingerprint 0 and so all match each other.
 */
import { cut } from 'jieba-wasm'
import type { EvalDecision, EvalDoc, EvalSystem } from './systems.js'

/** Maximum Hamming distance of a duplicate. */
export const BASELINE_MAX_DISTANCE = 3

const encoder = new TextEncoder()

/**
 * FNV-1a 64-bit of the UTF-8 bytes of `s`, as two unsigned 32-bit halves.
 * @example fnv1a64('a') // → { hi: 0xaf63dc4c, lo: 0x8601ec8c }
 */
export function fnv1a64(s: string): { hi: number; lo: number } {
  let hi = 0xcbf29ce4
  let lo = 0x84222325
  for (const byte of encoder.encode(s)) {
    lo = (lo ^ byte) >>> 0
    // × 0x100000001b3 = × 0x1b3 + (<< 40), in 32-bit halves.
    const loProduct = lo * 0x1b3
    const carry = Math.floor(loProduct / 4294967296)
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0
    lo = loProduct >>> 0
  }
  return { hi, lo }
}

/**
 * 64-bit SimHash of weighted tokens: each bit is the sign of the weight sum of the tokens whose
 * hash has that bit set minus those that have it clear (0 when the sum is not positive).
 * @example simhash(new Map([['北京', 2], ['大学', 1]])) // → { hi: …, lo: … }
 */
export function simhash(weights: ReadonlyMap<string, number>): { hi: number; lo: number } {
  const v = new Float64Array(64)
  for (const [token, w] of weights) {
    const { hi, lo } = fnv1a64(token)
    for (let b = 0; b < 32; b++) {
      v[b] = (v[b] as number) + ((lo >>> b) & 1 ? w : -w)
      v[b + 32] = (v[b + 32] as number) + ((hi >>> b) & 1 ? w : -w)
    }
  }
  let hi = 0
  let lo = 0
  for (let b = 0; b < 32; b++) {
    if ((v[b] as number) > 0) lo |= 1 << b
    if ((v[b + 32] as number) > 0) hi |= 1 << b
  }
  return { hi: hi >>> 0, lo: lo >>> 0 }
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  x = (x + (x >>> 4)) & 0x0f0f0f0f
  return Math.imul(x, 0x01010101) >>> 24
}

/**
 * The seed-style fingerprint of one text: Han characters only, jieba tokens, TF weights.
 * @example baselineFingerprint('北京大学 Peking University') // same as for '北京大学'
 */
export function baselineFingerprint(text: string): { hi: number; lo: number } {
  const han = text.replace(/[^\p{Script=Han}]/gu, '')
  const tf = new Map<string, number>()
  if (han !== '') for (const t of cut(han, true)) tf.set(t, (tf.get(t) ?? 0) + 1)
  return simhash(tf)
}

/**
 * The baseline as an evaluated system.
 * @example const decisions = await createBaselineSystem().run(docs)
 */
export function createBaselineSystem(): EvalSystem {
  return {
    name: 'baseline (seed-style: Han only, jieba TF, FNV-1a, SimHash k=3)',
    async run(docs: EvalDoc[]): Promise<EvalDecision[]> {
      const repHi = new Uint32Array(docs.length)
      const repLo = new Uint32Array(docs.length)
      const repIds: string[] = []
      const decisions: EvalDecision[] = []
      for (const doc of docs) {
        const { hi, lo } = baselineFingerprint(doc.content)
        let best = -1
        let bestDistance = BASELINE_MAX_DISTANCE + 1
        for (let r = 0; r < repIds.length; r++) {
          const d = popcount32(((repHi[r] as number) ^ hi) >>> 0) + popcount32(((repLo[r] as number) ^ lo) >>> 0)
          if (d < bestDistance) {
            bestDistance = d
            best = r
            if (d === 0) break
          }
        }
        if (best >= 0) {
          const rep = repIds[best] as string
          decisions.push({ id: doc.id, duplicateOf: rep, clusterId: rep })
        } else {
          repHi[repIds.length] = hi
          repLo[repIds.length] = lo
          repIds.push(doc.id)
          decisions.push({ id: doc.id, duplicateOf: null, clusterId: doc.id })
        }
      }
      return decisions
    },
  }
}
