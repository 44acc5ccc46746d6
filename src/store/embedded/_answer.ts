import type { CandidateQuery, FingerprintRecord } from '../../types.js'
import { RowCheck } from './_band-check.js'
import type { CandidateLimits, Tables } from './_tables.js'

/**
 * The answers of `candidates` for checked `queries`: each query's rows (keys, blocks and bands,
 * within `limits`) as records, a band-route row that fails the query's `bandCheck` as its stand-in.
 * The rows of the whole batch are read in log order, each once.
 */
export function answerQueries(tables: Tables, limits: CandidateLimits, queries: readonly CandidateQuery[]): FingerprintRecord[][] {
  const answers: number[][] = []
  // The band-route rows of queries with a `bandCheck`, each with its query's check: they are
  // tested in log order (one forward pass through the file), the other rows read whole.
  const tested: number[] = []
  const testedBy: RowCheck[] = []
  const whole: number[] = []
  const checks: (RowCheck | null)[] = []
  for (const q of queries) {
    const rows: number[] = []
    const banded = tables.collect(q, limits, rows)
    answers.push(rows)
    const check = q.bandCheck !== undefined && banded < rows.length ? new RowCheck().reset(q, q.bandCheck) : null
    checks.push(check)
    for (let i = 0; i < rows.length; i++) {
      if (check === null || i < banded) whole.push(rows[i]!)
      else {
        tested.push(rows[i]!)
        testedBy.push(check)
      }
    }
  }
  // Stand-ins per check (a row may be a stand-in for one query and whole for another).
  const standIns = new Map<RowCheck, Map<number, FingerprintRecord>>()
  for (const i of tables.logOrder(tested)) {
    const row = tested[i]!
    const check = testedBy[i]!
    const standIn = tables.standIn(row, check)
    if (standIn === null) whole.push(row)
    else {
      let stood = standIns.get(check)
      if (stood === undefined) standIns.set(check, (stood = new Map()))
      stood.set(row, standIn)
    }
  }
  // One pass over the rows of the whole batch, in log order (each row read once); a row in
  // several answers of one call is one shared record object.
  const records = tables.records(whole)
  if (standIns.size === 0) return answers.map((rows) => rows.map((row) => records.get(row)!))
  return answers.map((rows, k) => {
    const check = checks[k]!
    const stood = check === null ? undefined : standIns.get(check)
    return rows.map((row) => stood?.get(row) ?? records.get(row)!)
  })
}
