import { describe, expect, it } from 'vitest'
import { formatDecision } from '../../../src/io/decisions.js'
import type { Decision } from '../../../src/types.js'

const base: Decision = {
  id: 'v2', line: 2, status: 'unique', duplicateOf: null, distance: null, layer: null, clusterId: 'v2',
  simhash: '3fa20b119c00ffe1', reason: null, rule: null, resemblance: null,
}

describe('formatDecision', () => {
  it('keeps the existing keys and order; `supersedes` is additive, only on a new version', () => {
    expect(formatDecision(base)).toBe('{"id":"v2","line":2,"status":"unique","duplicate_of":null,"distance":null,"layer":null,"cluster_id":"v2","simhash":"3fa20b119c00ffe1","reason":null,"rule":null,"resemblance":null}')
    expect(JSON.parse(formatDecision({ ...base, supersedes: 'v1' }))).toEqual({ ...JSON.parse(formatDecision(base)), supersedes: 'v1' })
    expect(formatDecision({ ...base, supersedes: 'v1' }).endsWith(',"supersedes":"v1"}')).toBe(true)
  })
})
