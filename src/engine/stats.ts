import type { Layer, Rule } from '../types.js'

/** Counters of a run; `snapshot()` is what the CLI prints as its summary. */
export interface DedupStatsSnapshot {
  docs: number
  unique: number
  duplicates: number
  byLayer: Record<Layer, number>
  /** The simhash layer's duplicates by the rule that decided them (they add up to `byLayer.simhash`). */
  byRule: Record<Rule, number>
  rejected: number
  /** New clusters (= unique documents). */
  clusters: number
  /** Documents (counted above too) whose decision was rebuilt from the store (`resume`), not made again. */
  resumed: number
}

/** Mutable counters, updated per decision. */
export class DedupStats {
  private docs = 0
  private unique = 0
  private rejected = 0
  resumed = 0
  /** Documents decided again on an exhaustive lookup (`exactUnderCuts`); not in the snapshot. */
  exhaustive = 0
  private readonly byLayer: Record<Layer, number> = { url: 0, exact: 0, simhash: 0, title: 0 }
  private readonly byRule: Record<Rule, number> = { simhash: 0, 'short-text': 0, containment: 0, minhash: 0 }

  decide(layer: Layer | null, rule: Rule | null = null): void {
    this.docs++
    if (layer === null) this.unique++
    else {
      this.byLayer[layer]++
      if (layer === 'simhash' && rule !== null) this.byRule[rule]++
    }
  }

  reject(): void {
    this.docs++
    this.rejected++
  }

  snapshot(): DedupStatsSnapshot {
    const duplicates = this.byLayer.url + this.byLayer.exact + this.byLayer.simhash + this.byLayer.title
    return { docs: this.docs, unique: this.unique, duplicates, byLayer: { ...this.byLayer }, byRule: { ...this.byRule }, rejected: this.rejected, clusters: this.unique, resumed: this.resumed }
  }
}
