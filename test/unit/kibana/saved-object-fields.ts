/**
 * Reads Kibana saved objects (NDJSON export format) and lists every Elasticsearch field they use,
 * so a test can check each one against simdup's mapping. Kibana itself only notices a missing field
 * when someone opens the chart; this finds it in CI.
 */

/** One saved object as Kibana's import API takes it. */
export interface SavedObject {
  type: string
  id: string
  attributes: Record<string, unknown>
  references: SavedObjectReference[]
  coreMigrationVersion?: string
  typeMigrationVersion?: string
}

/** The parts of the largest-clusters Vega spec the tests read. */
export interface LargestSpec {
  $schema: string
  signals: Array<{ name: string; value?: unknown; on: Array<{ events: string; update: string }> }>
  data: Array<{
    name: string
    url: { index: string; body: { aggs: { clusters: { terms: unknown; aggs: { first: { top_hits: { _source?: unknown } } } } } } }
    format: { property: string }
    transform: Array<{ type: string; as: string; expr: string }>
  }>
  scales: Array<{ name: string; domain: unknown }>
  axes: Array<{ encode: { labels: { update: { text: { signal: string } } } } }>
  marks: Array<{ name: string }>
}

/** A named pointer from one saved object to another. */
export interface SavedObjectReference {
  name: string
  type: string
  id: string
}

/** What a saved object does with a field; decides which mapping properties the field needs. */
export type FieldUseKind = 'filter' | 'display' | 'aggregate' | 'sort' | 'time'

/** One field that one saved object uses. */
export interface FieldUse {
  object: string
  field: string
  kind: FieldUseKind
  /** Where in the object, for the failure message. */
  where: string
}

/** The parts of a field mapping that decide what Kibana can do with it. */
export interface MappedField {
  type: string
  index?: boolean
  doc_values?: boolean
}

/**
 * Parses NDJSON saved objects; throws on a line that is not a JSON object, naming the line.
 * @example parseSavedObjects('{"type":"lens","id":"a","attributes":{},"references":[]}\n')[0]?.id // 'a'
 */
export function parseSavedObjects(text: string): SavedObject[] {
  const lines = text.split('\n')
  if (lines.at(-1) === '') lines.pop() // the file ends with a newline
  return lines.map((line, i) => {
    const value: unknown = JSON.parse(line)
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`line ${i + 1}: expected a JSON object, got ${line.slice(0, 40)}`)
    return value as SavedObject
  })
}

/**
 * Every leaf field of an Elasticsearch mapping by dotted path, objects walked into and multi-fields
 * (`fields`) included.
 * @example mappedFields({ dedup: { properties: { id: { type: 'keyword' } } } }).get('dedup.id')?.type // 'keyword'
 */
export function mappedFields(properties: Record<string, unknown>, prefix = ''): Map<string, MappedField> {
  const out = new Map<string, MappedField>()
  for (const [name, raw] of Object.entries(properties)) {
    const def = raw as { type?: string; properties?: Record<string, unknown>; fields?: Record<string, unknown>; index?: boolean; doc_values?: boolean }
    const path = `${prefix}${name}`
    if (def.properties !== undefined) {
      for (const [k, v] of mappedFields(def.properties, `${path}.`)) out.set(k, v)
      continue
    }
    const field: MappedField = { type: def.type ?? 'object' }
    if (def.index !== undefined) field.index = def.index
    if (def.doc_values !== undefined) field.doc_values = def.doc_values
    out.set(path, field)
    if (def.fields !== undefined) for (const [k, v] of mappedFields(def.fields, `${path}.`)) out.set(k, v)
  }
  return out
}

/**
 * Field names a KQL query tests, e.g. `dedup.layer:*` or `dedup.distance >= 2`. Quoted strings are
 * blanked first so a value like `"a:b"` is not taken for a field. Free-text terms name no field.
 * @example kqlFields('dedup.layer:simhash and not dedup.distance > 2') // ['dedup.layer', 'dedup.distance']
 */
export function kqlFields(query: string): string[] {
  const unquoted = query.replace(/"(?:[^"\\]|\\.)*"/g, '""')
  return [...unquoted.matchAll(/([A-Za-z_@][\w.@-]*)\s*(?::|<=|>=|<|>)/g)].map((m) => m[1]!)
}

function parseJson(text: unknown, where: string): unknown {
  if (typeof text !== 'string') throw new Error(`${where}: expected a JSON string, got ${typeof text}`)
  return JSON.parse(text) as unknown
}

interface SearchSource {
  query?: { query?: unknown; language?: unknown }
  filter?: Array<{ meta?: { key?: unknown } }>
}

function searchSourceUses(object: string, json: unknown, where: string): FieldUse[] {
  const source = parseJson(json, where) as SearchSource
  const uses = queryUses(object, source.query, `${where} query`)
  for (const [i, f] of (source.filter ?? []).entries()) {
    if (typeof f.meta?.key === 'string') uses.push({ object, field: f.meta.key, kind: 'filter', where: `${where} filter[${i}]` })
  }
  return uses
}

function queryUses(object: string, query: SearchSource['query'], where: string): FieldUse[] {
  if (query === undefined || typeof query.query !== 'string') return []
  if (query.language !== 'kuery') throw new Error(`${where}: only KQL is checked, got language ${String(query.language)}`)
  return kqlFields(query.query).map((field) => ({ object, field, kind: 'filter' as const, where }))
}

/**
 * `field` keys anywhere below `node`, as used by aggregation and query DSL bodies; inside a
 * `top_hits`, also the fields it sorts by and those it fetches from `_source` (which need no doc
 * values: a `text` title can be shown).
 */
function dslFields(node: unknown, path: string, out: Array<{ field: string; path: string; kind?: FieldUseKind }>): void {
  if (Array.isArray(node)) {
    node.forEach((v, i) => dslFields(v, `${path}[${i}]`, out))
  } else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'field' && typeof v === 'string') out.push({ field: v, path: `${path}.field` })
      else if (k === 'top_hits') topHitsFields(v as TopHits, `${path}.top_hits`, out)
      else dslFields(v, `${path}.${k}`, out)
    }
  }
}

interface TopHits {
  sort?: Array<string | Record<string, unknown>>
  _source?: boolean | string | string[] | { includes?: string[] }
}

function topHitsFields(top: TopHits, path: string, out: Array<{ field: string; path: string; kind?: FieldUseKind }>): void {
  for (const [i, s] of (top.sort ?? []).entries()) {
    for (const field of typeof s === 'string' ? [s] : Object.keys(s)) if (!field.startsWith('_')) out.push({ field, path: `${path}.sort[${i}]`, kind: 'sort' })
  }
  const source = top._source
  const includes = typeof source === 'string' ? [source] : Array.isArray(source) ? source : typeof source === 'object' ? (source.includes ?? []) : []
  for (const field of includes) out.push({ field, path: `${path}._source`, kind: 'display' })
}

interface VegaUrl {
  index?: unknown
  '%timefield%'?: unknown
  body?: { aggs?: unknown; aggregations?: unknown; query?: unknown }
}

function vegaUses(object: string, spec: unknown, where: string): FieldUse[] {
  const uses: FieldUse[] = []
  // Vega-Lite keeps one `data`; full Vega may list several.
  const data = (spec as { data?: unknown }).data
  for (const d of Array.isArray(data) ? data : [data]) {
    const url = (d as { url?: VegaUrl } | undefined)?.url
    if (url === undefined || typeof url !== 'object') continue
    if (typeof url['%timefield%'] === 'string') uses.push({ object, field: url['%timefield%'], kind: 'time', where: `${where} %timefield%` })
    const found: Array<{ field: string; path: string; kind?: FieldUseKind }> = []
    dslFields(url.body?.aggs ?? url.body?.aggregations, `${where} body.aggs`, found)
    uses.push(...found.map(({ field, path, kind }) => ({ object, field, kind: kind ?? ('aggregate' as const), where: path })))
    const filters: Array<{ field: string; path: string }> = []
    dslFields(url.body?.query, `${where} body.query`, filters)
    uses.push(...filters.map(({ field, path }) => ({ object, field, kind: 'filter' as const, where: path })))
  }
  return uses
}

interface LensColumn {
  operationType?: string
  sourceField?: string
}

/** Lens count columns name this pseudo-field instead of a real one. */
const LENS_RECORDS = '___records___'

function lensUses(o: SavedObject): FieldUse[] {
  const state = o.attributes.state as {
    query?: SearchSource['query']
    filters?: Array<{ meta?: { key?: unknown } }>
    datasourceStates?: Record<string, { layers?: Record<string, { columns?: Record<string, LensColumn> }> }>
  }
  const uses = queryUses(o.id, state.query, 'state.query')
  for (const [i, f] of (state.filters ?? []).entries()) {
    if (typeof f.meta?.key === 'string') uses.push({ object: o.id, field: f.meta.key, kind: 'filter', where: `state.filters[${i}]` })
  }
  for (const [datasource, ds] of Object.entries(state.datasourceStates ?? {})) {
    if (datasource !== 'formBased') throw new Error(`${o.id}: only the formBased Lens datasource is checked, got ${datasource}`)
    for (const [layerId, layer] of Object.entries(ds.layers ?? {})) {
      for (const [columnId, column] of Object.entries(layer.columns ?? {})) {
        if (column.sourceField === undefined || column.sourceField === LENS_RECORDS) continue
        uses.push({ object: o.id, field: column.sourceField, kind: 'aggregate', where: `layer ${layerId} column ${columnId} (${column.operationType ?? '?'})` })
      }
    }
  }
  return uses
}

/**
 * Every field `objects` use, by saved-object type. Throws on a type or visualisation kind it
 * cannot read, so a new kind of object cannot slip past the field check unread.
 * @example fieldUses([search]).map((u) => u.field) // ['dedup.id', …]
 */
export function fieldUses(objects: readonly SavedObject[]): FieldUse[] {
  const uses: FieldUse[] = []
  for (const o of objects) {
    const a = o.attributes
    const meta = (a.kibanaSavedObjectMeta as { searchSourceJSON?: unknown } | undefined)?.searchSourceJSON
    switch (o.type) {
      case 'index-pattern': {
        if (typeof a.timeFieldName === 'string') uses.push({ object: o.id, field: a.timeFieldName, kind: 'time', where: 'timeFieldName' })
        for (const key of ['fieldAttrs', 'fieldFormatMap'] as const) {
          if (a[key] === undefined) continue
          for (const field of Object.keys(parseJson(a[key], key) as object)) uses.push({ object: o.id, field, kind: 'display', where: key })
        }
        if (a.sourceFilters !== undefined) {
          for (const f of parseJson(a.sourceFilters, 'sourceFilters') as Array<{ value: string }>) uses.push({ object: o.id, field: f.value, kind: 'display', where: 'sourceFilters' })
        }
        break
      }
      case 'search': {
        for (const field of a.columns as string[]) uses.push({ object: o.id, field, kind: 'display', where: 'columns' })
        for (const [field] of a.sort as Array<[string, string]>) uses.push({ object: o.id, field, kind: 'sort', where: 'sort' })
        uses.push(...searchSourceUses(o.id, meta, 'searchSourceJSON'))
        break
      }
      case 'visualization': {
        if (meta !== undefined) uses.push(...searchSourceUses(o.id, meta, 'searchSourceJSON'))
        const visState = parseJson(a.visState, 'visState') as { type?: string; params?: { spec?: unknown } }
        if (visState.type !== 'vega') throw new Error(`${o.id}: only Vega visualizations are checked, got ${String(visState.type)}`)
        uses.push(...vegaUses(o.id, parseJson(visState.params?.spec, 'visState.params.spec'), 'Vega spec'))
        break
      }
      case 'lens':
        uses.push(...lensUses(o))
        break
      case 'dashboard':
        if (meta !== undefined) uses.push(...searchSourceUses(o.id, meta, 'searchSourceJSON'))
        break
      default:
        throw new Error(`${o.id}: no field walker for saved-object type ${o.type}`)
    }
  }
  return uses
}

/**
 * Why each use would fail in Kibana: the field is not a `dedup.` field of the mapping, or the
 * mapping does not allow the use (aggregations and sorting need doc values, filters need an
 * indexed field, a time field must be a date); `content`: the mapped fields of the index the objects
 * were exported for, outside `dedup`. Empty when all is well.
 * @example fieldProblems([{ object: 'x', field: 'dedup.nope', kind: 'filter', where: 'q' }], fields)
 *   // ['x q: `dedup.nope` is not a field of mappings/dedup-fields.json']
 */
export function fieldProblems(uses: readonly FieldUse[], fields: ReadonlyMap<string, MappedField>, content: ReadonlyMap<string, MappedField> = new Map()): string[] {
  const problems: string[] = []
  for (const u of uses) {
    const at = `${u.object} ${u.where}`
    // `content`: the fields of the user's own index the objects were exported for (its time and title fields).
    const f = content.get(u.field) ?? (u.field.startsWith('dedup.') ? fields.get(u.field) : undefined)
    if (f === undefined) {
      problems.push(`${at}: \`${u.field}\` is not a field of mappings/dedup-fields.json`)
      continue
    }
    if ((u.kind === 'aggregate' || u.kind === 'sort' || u.kind === 'time') && (f.doc_values === false || f.type === 'text')) {
      problems.push(`${at}: \`${u.field}\` has no doc values, so Kibana cannot ${u.kind === 'time' ? 'use it as a time field' : u.kind} on it`)
    }
    if ((u.kind === 'filter' || u.kind === 'time') && f.index === false) problems.push(`${at}: \`${u.field}\` is not indexed, so queries cannot match it`)
    if (u.kind === 'time' && f.type !== 'date' && f.type !== 'date_nanos') problems.push(`${at}: \`${u.field}\` is a ${f.type}, not a date`)
  }
  return problems
}
