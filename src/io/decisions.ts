import type { Decision } from '../types.js'

/**
 * The decision record as JSONL: snake_case keys, this exact order, one line.
 * @example formatDecision(decision) // '{"id":"a","line":1,"status":"unique",…}'
 */
export function formatDecision(d: Decision): string {
  return JSON.stringify({
    id: d.id,
    line: d.line,
    status: d.status,
    duplicate_of: d.duplicateOf,
    distance: d.distance,
    layer: d.layer,
    cluster_id: d.clusterId,
    simhash: d.simhash,
    reason: d.reason,
    rule: d.rule,
    // Additive: only on a new version of an earlier document's URL, so other lines are unchanged.
    ...(d.supersedes === undefined ? {} : { supersedes: d.supersedes }),
  })
}
