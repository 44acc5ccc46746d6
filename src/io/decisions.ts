import type { Decision } from '../types.js'

/**
 * The decision record as JSONL: snake_case keys, this exact order, one line. Fields are only ever
 * added at the end (`resemblance` came after `rule`), so readers keyed by name keep working.
 * @example formatDecision(decision) // '{"id":"a","line":1,"status":"unique",…}'
 */
export function formatDecision(d: Decision): string {
  return terminalSafeJson({
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
    resemblance: d.resemblance === null ? null : Math.round(d.resemblance * 1000) / 1000,
  })
}

/**
 * JSON.stringify, with the characters a terminal may act on that JSON leaves raw (DEL, the C1
 * controls such as U+009B CSI, bidi overrides, line separators) written as \u escapes: the
 * parsed value is the same, and an id read on a terminal cannot repaint it.
 * @example terminalSafeJson({ id: 'a\u009b2J' }) // '{"id":"a\\u009b2J"}'
 */
export function terminalSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
