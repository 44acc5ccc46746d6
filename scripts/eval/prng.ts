/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) so that the evaluation stream is the same
 * for the same seed on every machine and Node version; `Math.random` cannot be seeded.
 */
export class Rng {
  private a: number
  private b: number
  private c: number
  private d: number
  /** The seed this generator started from. */
  readonly seed: number

  /** @example new Rng(1).next() // same value on every run */
  constructor(seed: number) {
    this.seed = seed >>> 0
    let s = this.seed
    const splitmix = (): number => {
      s = (s + 0x9e3779b9) >>> 0
      let z = s
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
      return (z ^ (z >>> 16)) >>> 0
    }
    this.a = splitmix()
    this.b = splitmix()
    this.c = splitmix()
    this.d = splitmix()
    for (let i = 0; i < 12; i++) this.next()
  }

  /**
   * A generator started from the sfc32 state (a, b, c, d) as given (then 12 draws dropped), not
   * through splitmix: bench-stream's streams were generated from (golden ratio, π, e, seed).
   * @example Rng.fromState(0x9e3779b9, 0x243f6a88, 0xb7e15162, 1).next()
   */
  static fromState(a: number, b: number, c: number, d: number): Rng {
    const r = new Rng(d)
    r.a = a >>> 0
    r.b = b >>> 0
    r.c = c >>> 0
    r.d = d >>> 0
    for (let i = 0; i < 12; i++) r.next()
    return r
  }

  /** Uniform float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0
    this.d = (this.d + 1) >>> 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) >>> 0
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0
    this.c = (this.c + t) >>> 0
    return t / 4294967296
  }

  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  /** Uniform float in [min, max). */
  float(min: number, max: number): number {
    return min + this.next() * (max - min)
  }

  /** One element, uniformly; throws on an empty list. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty list')
    return items[Math.floor(this.next() * items.length)] as T
  }

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items]
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1))
      const tmp = out[i] as T
      out[i] = out[j] as T
      out[j] = tmp
    }
    return out
  }

  /** `k` distinct elements in random order (all of them when k ≥ length). */
  sample<T>(items: readonly T[], k: number): T[] {
    return this.shuffle(items).slice(0, Math.max(0, k))
  }

  /**
   * An independent generator for one stage, derived from the seed and a label without drawing
   * from this one: changing how much one stage draws never shifts another stage's choices.
   */
  fork(label: string): Rng {
    let h = Math.imul(this.seed ^ 0x9e3779b9, 0x85ebca6b) >>> 0
    for (let i = 0; i < label.length; i++) h = Math.imul(h ^ label.charCodeAt(i), 0x01000193) >>> 0
    return new Rng(h)
  }
}

/**
 * xorshift32 (13, 17, 5): the cheapest deterministic 32-bit stream, for synthetic hashes in the
 * store benchmarks. Not for anything whose statistics matter (use `Rng`).
 * @example const next = xorshift32(0x9e3779b9); next() // an unsigned 32-bit integer
 */
export function xorshift32(seed: number): () => number {
  let s = seed | 0
  return () => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return s >>> 0
  }
}
