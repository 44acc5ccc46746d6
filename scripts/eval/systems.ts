/**
 * The interface every evaluated system implements: it sees the documents in stream order, as a
 * deduplicating indexer would, and says for each whether it duplicates an earlier one.
 */

/** A document as a system sees it: no labels. */
export interface EvalDoc {
  id: string
  content: string
  title?: string
  url?: string
}

/**
 * A system's decision on one document: `duplicateOf` is the id of an earlier document it
 * duplicates (null: new content), `clusterId` the id of its cluster's representative
 * (its own id when it is new).
 */
export interface EvalDecision {
  id: string
  duplicateOf: string | null
  clusterId: string
  /** A new version of this earlier document's URL (systems that tell versions apart). */
  supersedes?: string
  /** The system refused the document (e.g. judged it binary): it is in no cluster. */
  rejected?: boolean
}

/**
 * A system under evaluation.
 * @example const decisions = await system.run(docs) // one decision per doc, same order
 */
export interface EvalSystem {
  name: string
  run(docs: EvalDoc[]): Promise<EvalDecision[]>
  /** Release resources (stores, workers); optional. */
  close?(): Promise<void>
}
