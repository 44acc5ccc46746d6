/** JSON schemas of the API: they validate query strings and bodies and make /openapi.json. */

const ERROR_BODY = {
  type: 'object',
  description: 'Every API error: the DedupError code (INTERNAL only for a bug) and a message.',
  properties: { code: { type: 'string' }, message: { type: 'string' } },
  required: ['code', 'message'],
} as const

/** The error answers every route may give. */
export const ERROR_RESPONSES = {
  '4xx': ERROR_BODY,
  '5xx': ERROR_BODY,
} as const

export const DOCUMENT = {
  type: 'object',
  description: 'A document, as one line of `simdup index` input.',
  properties: {
    id: { type: ['string', 'integer'] },
    content: { type: 'string' },
    url: { type: ['string', 'null'] },
    title: { type: ['string', 'null'] },
  },
  required: ['id', 'content'],
} as const

export const DOCUMENTS_BODY = {
  description: 'One document, a JSON array of documents, or JSONL (Content-Type: application/x-ndjson).',
  anyOf: [DOCUMENT, { type: 'array', items: DOCUMENT }],
} as const

const DECISION = {
  type: 'object',
  description: 'A decision line of `simdup index` (docs/CLI.md); `line` is the document\'s 1-based place in the request.',
  properties: {
    id: { type: ['string', 'null'] },
    line: { type: ['integer', 'null'] },
    status: { type: 'string', enum: ['unique', 'duplicate', 'rejected'] },
    duplicate_of: { type: ['string', 'null'] },
    distance: { type: ['integer', 'null'] },
    layer: { type: ['string', 'null'] },
    cluster_id: { type: ['string', 'null'] },
    simhash: { type: ['string', 'null'] },
    reason: { type: ['string', 'null'] },
    rule: { type: ['string', 'null'] },
    resemblance: { type: ['number', 'null'] },
    supersedes: { type: 'string' },
  },
} as const

export const DECISIONS_RESPONSE = {
  type: 'object',
  properties: { decisions: { type: 'array', items: DECISION } },
} as const

export const ID_PARAMS = { type: 'object', properties: { id: { type: 'string', minLength: 1 } }, required: ['id'] } as const

export const COMPARE_BODY = {
  type: 'object',
  properties: {
    a: { type: 'string', description: 'The earlier text' },
    b: { type: 'string', description: 'The later text (decided against a)' },
    k: { type: 'integer', minimum: 0, description: 'SimHash bits that may differ (default: the server\'s)' },
    minhash: { type: 'boolean', default: true },
  },
  required: ['a', 'b'],
  additionalProperties: false,
} as const

export const EXPLAIN_QUERY = {
  type: 'object',
  properties: {
    a: { type: 'string', minLength: 1 },
    b: { type: 'string', minLength: 1 },
    k: { type: 'integer', minimum: 0 },
    texts: { type: 'boolean', default: false, description: 'Also both texts (when known) and the passages they share' },
  },
  required: ['a', 'b'],
} as const

export const CLUSTERS_QUERY = {
  type: 'object',
  properties: {
    top: { type: 'integer', minimum: 1, maximum: 10_000, default: 20 },
    min_size: { type: 'integer', minimum: 1, default: 2 },
  },
  additionalProperties: false,
} as const

export const CLUSTER_QUERY = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 1000 } },
  additionalProperties: false,
} as const
