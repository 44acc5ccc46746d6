import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { fieldProblems, fieldUses, kqlFields, mappedFields, parseSavedObjects, type LargestSpec, type SavedObject } from './saved-object-fields.js'

const NDJSON = readFileSync(new URL('../../../mappings/kibana/simdup.ndjson', import.meta.url), 'utf8')
const MAPPING = JSON.parse(readFileSync(new URL('../../../mappings/dedup-fields.json', import.meta.url), 'utf8')) as {
  template: { mappings: { properties: Record<string, unknown> } }
}
const FIELDS = mappedFields(MAPPING.template.mappings.properties)
const OBJECTS = parseSavedObjects(NDJSON)

/**
 * Attributes each type's Kibana 8 saved-object schema accepts. Dashboards, visualizations and
 * saved searches are validated with `unknowns: 'forbid'` on import, so one stray key fails the
 * whole object. Sources: the dashboard model-version schemas v1–v3, the visualization `8.8.0`
 * schema, the saved-search base schema and its model versions 1–5, Lens' v0 item schema, and the
 * data view's attribute interface (that type has no schema).
 */
const ALLOWED_ATTRIBUTES: Record<string, readonly string[]> = {
  'index-pattern': ['title', 'name', 'timeFieldName', 'fields', 'fieldFormatMap', 'fieldAttrs', 'runtimeFieldMap', 'sourceFilters', 'allowHidden', 'allowNoIndex', 'typeMeta', 'type'],
  search: [
    'title', 'description', 'columns', 'sort', 'grid', 'rowHeight', 'rowsPerPage', 'headerRowHeight', 'sampleSize', 'density', 'hideChart', 'breakdownField',
    'visContext', 'kibanaSavedObjectMeta', 'isTextBasedQuery', 'usesAdHocDataView', 'timeRestore', 'timeRange', 'refreshInterval', 'viewMode', 'hideAggregatedPreview', 'hits', 'version',
  ],
  visualization: ['title', 'description', 'version', 'kibanaSavedObjectMeta', 'uiStateJSON', 'visState', 'savedSearchRefName'],
  lens: ['title', 'description', 'visualizationType', 'state'],
  dashboard: ['title', 'description', 'kibanaSavedObjectMeta', 'timeRestore', 'timeFrom', 'timeTo', 'refreshInterval', 'controlGroupInput', 'panelsJSON', 'optionsJSON', 'hits', 'version', 'sections'],
}

interface Panel {
  type: string
  panelIndex: string
  panelRefName?: string
  gridData: { x: number; y: number; w: number; h: number; i: string }
  embeddableConfig: Record<string, unknown>
}

const only = (type: string): SavedObject[] => OBJECTS.filter((o) => o.type === type)
const byId = (id: string): SavedObject => {
  const found = OBJECTS.find((o) => o.id === id)
  expect(found, id).toBeDefined()
  return found!
}
const one = (type: string): SavedObject => {
  const found = only(type)
  expect(found, `exactly one ${type}`).toHaveLength(1)
  return found[0]!
}
const panelsOf = (dashboard: SavedObject): Panel[] => JSON.parse(dashboard.attributes.panelsJSON as string) as Panel[]
const searchSource = (o: SavedObject) =>
  JSON.parse((o.attributes.kibanaSavedObjectMeta as { searchSourceJSON: string }).searchSourceJSON) as {
    query: { query: string; language: string }
    filter: unknown[]
    indexRefName?: string
  }
const vegaSpec = (o: SavedObject) => JSON.parse((JSON.parse(o.attributes.visState as string) as { params: { spec: string } }).params.spec) as Record<string, unknown>

/** A deep copy with one object changed, for the negative tests. */
function withChange(id: string, change: (o: SavedObject) => void): SavedObject[] {
  const copy = structuredClone(OBJECTS)
  const target = copy.find((o) => o.id === id)
  if (target === undefined) throw new Error(`no object ${id}`)
  change(target)
  return copy
}

describe('mappings/kibana/simdup.ndjson', () => {
  test('each line is one saved object of a known type, with a unique id and Kibana 8 migration versions', () => {
    expect(NDJSON.endsWith('\n')).toBe(true)
    expect(NDJSON).not.toMatch(/\n\n/)
    expect(OBJECTS.map((o) => o.type).sort()).toEqual(['dashboard', 'index-pattern', 'lens', 'search', 'visualization', 'visualization'])
    for (const o of OBJECTS) {
      expect(Object.keys(ALLOWED_ATTRIBUTES)).toContain(o.type)
      expect(o.id).toMatch(/^[a-z0-9][a-z0-9-]*$/)
      expect(Object.keys(o).sort()).toEqual(['attributes', 'coreMigrationVersion', 'id', 'references', 'type', 'typeMigrationVersion'])
      // 8.8.0 is the last core migration version; Kibana 8.8 and later (9.x included) stamp it on exports.
      expect(o.coreMigrationVersion).toBe('8.8.0')
      // A version at or below the target Kibana's is migrated forward on import; a later one is refused.
      expect(o.typeMigrationVersion).toMatch(/^8\.\d+\.\d+$/)
      expect(typeof o.attributes.title).toBe('string')
      expect(o.attributes.title).toMatch(/^simdup/)
    }
    expect(new Set(OBJECTS.map((o) => o.id)).size).toBe(OBJECTS.length)
  })

  test('attributes are only those the Kibana schemas accept', () => {
    for (const o of OBJECTS) {
      const unknown = Object.keys(o.attributes).filter((k) => !ALLOWED_ATTRIBUTES[o.type]!.includes(k))
      expect(unknown, `${o.type} ${o.id}`).toEqual([])
    }
  })

  test('every reference resolves to an object in the file, under a name unique within its object', () => {
    const byKey = new Set(OBJECTS.map((o) => `${o.type}/${o.id}`))
    for (const o of OBJECTS) {
      for (const r of o.references) {
        expect(Object.keys(r).sort(), `${o.id} reference`).toEqual(['id', 'name', 'type'])
        expect(byKey.has(`${r.type}/${r.id}`), `${o.id} → ${r.type}/${r.id}`).toBe(true)
      }
      expect(new Set(o.references.map((r) => r.name)).size).toBe(o.references.length)
    }
  })

  test('each object names the references it uses the way Kibana looks them up', () => {
    const dataView = one('index-pattern')
    // Saved search: searchSourceJSON.indexRefName names the data view reference.
    const search = one('search')
    expect(search.references).toEqual([{ name: searchSource(search).indexRefName, type: 'index-pattern', id: dataView.id }])
    // Lens: one `indexpattern-datasource-layer-<layerId>` reference per layer, and nothing else.
    for (const lens of only('lens')) {
      const state = lens.attributes.state as { datasourceStates: { formBased: { layers: Record<string, unknown> } }; visualization: { layers: Array<{ layerId: string }> } }
      const layerIds = Object.keys(state.datasourceStates.formBased.layers)
      expect(state.visualization.layers.map((l) => l.layerId)).toEqual(layerIds)
      expect(lens.references).toEqual(layerIds.map((id) => ({ type: 'index-pattern', id: dataView.id, name: `indexpattern-datasource-layer-${id}` })))
    }
    // Dashboard: panel `panelRefName` is looked up as `<panelIndex>:<panelRefName>`.
    const dashboard = one('dashboard')
    const panels = panelsOf(dashboard)
    expect(dashboard.references.map((r) => r.name).sort()).toEqual(panels.map((p) => `${p.panelIndex}:${p.panelRefName}`).sort())
    for (const p of panels) {
      const ref = dashboard.references.find((r) => r.name === `${p.panelIndex}:${p.panelRefName}`)
      expect(ref?.type, p.panelIndex).toBe(p.type)
    }
  })

  test('the dashboard shows the saved search and every visualisation, on the 48-column grid without overlaps', () => {
    const dashboard = one('dashboard')
    const shown = dashboard.references.map((r) => `${r.type}/${r.id}`).sort()
    const expected = OBJECTS.filter((o) => ['search', 'visualization', 'lens'].includes(o.type)).map((o) => `${o.type}/${o.id}`).sort()
    expect(shown).toEqual(expected)
    const taken = new Set<string>()
    for (const p of panelsOf(dashboard)) {
      const { x, y, w, h, i } = p.gridData
      expect(i).toBe(p.panelIndex)
      expect(x >= 0 && w > 0 && x + w <= 48 && y >= 0 && h > 0, `${i} inside the grid`).toBe(true)
      for (let cx = x; cx < x + w; cx++) {
        for (let cy = y; cy < y + h; cy++) {
          expect(taken.has(`${cx},${cy}`), `${i} overlaps at ${cx},${cy}`).toBe(false)
          taken.add(`${cx},${cy}`)
        }
      }
    }
    expect(dashboard.attributes.timeRestore).toBe(true)
  })

  test('the saved search lists duplicates only, sorted by cluster then indexing time', () => {
    const search = one('search')
    expect(searchSource(search).query).toEqual({ query: 'dedup.duplicate_of:*', language: 'kuery' })
    expect(search.attributes.columns).toEqual(['dedup.id', 'dedup.cluster_id', 'dedup.duplicate_of', 'dedup.distance', 'dedup.layer'])
    expect(search.attributes.sort).toEqual([['dedup.cluster_id', 'asc'], ['dedup.indexed_at', 'asc']])
  })

  test('the Vega chart queries the data view\'s indices and counts clusters per bucket size', () => {
    const vis = byId('simdup-cluster-sizes')
    const visState = JSON.parse(vis.attributes.visState as string) as { title: string; type: string; aggs: unknown[] }
    expect(visState).toMatchObject({ title: vis.attributes.title, type: 'vega', aggs: [] })
    const spec = vegaSpec(vis) as {
      $schema: string
      data: { url: { index: string; body: { aggs: Record<string, { terms: { field: string; min_doc_count: number } }> } }; format: { property: string } }
      transform: Array<{ groupby?: string[] }>
      encoding: { x: { field: string } }
    }
    expect(spec.$schema).toMatch(/vega-lite\/v5/)
    expect(spec.data.url.index).toBe(one('index-pattern').attributes.title)
    const [aggName, agg] = Object.entries(spec.data.url.body.aggs)[0]!
    expect(agg.terms).toMatchObject({ field: 'dedup.cluster_id', min_doc_count: 2 })
    expect(spec.data.format.property).toBe(`aggregations.${aggName}.buckets`)
    // The chart's x axis is the bucket's doc_count: a cluster's size.
    expect(spec.transform[0]?.groupby).toEqual(['doc_count'])
    expect(spec.encoding.x.field).toBe('doc_count')
  })

  test('the largest-clusters chart (Vega) shows the 20 largest clusters, each labelled from its first-indexed document; a click filters to the cluster (29.10)', () => {
    const vis = byId('simdup-largest-clusters')
    expect(vis.type).toBe('visualization')
    const spec = vegaSpec(vis) as unknown as LargestSpec
    expect(spec.$schema).toMatch(/vega\/v5/)
    const [data] = spec.data
    expect(data!.url.index).toBe(one('index-pattern').attributes.title)
    const clusters = data!.url.body.aggs.clusters
    expect(clusters.terms).toEqual({ field: 'dedup.cluster_id', size: 20, min_doc_count: 2, order: { _count: 'desc' } })
    // The representative is the earliest-inserted member still there: lowest dedup.seq.
    expect(clusters.aggs.first.top_hits).toMatchObject({ size: 1, sort: [{ 'dedup.seq': { order: 'asc' } }] })
    expect(data!.format.property).toBe('aggregations.clusters.buckets')
    // Without a title field (dedup records only) the label is the cluster id.
    expect(data!.transform).toEqual([{ type: 'formula', as: 'label', expr: 'datum.key' }])
    // The bars are keyed by cluster id (unique), the axis shows each bar's label.
    expect(spec.scales.find((s) => s.name === 'y')?.domain).toMatchObject({ data: data!.name, field: 'key' })
    expect(spec.axes[0]?.encode.labels.update.text.signal).toContain('.label')
    const click = spec.signals.find((s) => s.name === 'pick')?.on[0]
    expect(click?.events).toBe('@bars:click')
    expect(click?.update).toMatch(/^kibanaAddFilter\(\{match_phrase: \{'dedup\.cluster_id': datum\.key\}\}, dataView\)$/)
    expect(spec.signals.find((s) => s.name === 'dataView')?.value).toBe(one('index-pattern').attributes.title)
    expect(spec.marks.map((m) => m.name)).toContain('bars')
  })

  test('every field the objects use is a dedup field of the mapping that supports the use', () => {
    const uses = fieldUses(OBJECTS)
    // The walker must actually see the fields, or an empty list would pass.
    expect(new Set(uses.map((u) => u.field))).toEqual(
      new Set(['dedup.indexed_at', 'dedup.id', 'dedup.cluster_id', 'dedup.duplicate_of', 'dedup.distance', 'dedup.layer', 'dedup.sketch', 'dedup.blocks', 'dedup.seq']),
    )
    expect(new Set(uses.map((u) => u.kind))).toEqual(new Set(['time', 'display', 'sort', 'filter', 'aggregate']))
    expect(fieldProblems(uses, FIELDS)).toEqual([])
  })

  test('the data view\'s time field exists and is a date', () => {
    const timeField = one('index-pattern').attributes.timeFieldName as string
    expect(timeField).toBe('dedup.indexed_at')
    expect(FIELDS.get(timeField)?.type).toBe('date')
  })
})

describe('the field check fails on broken objects', () => {
  const problemsOf = (objects: SavedObject[]) => fieldProblems(fieldUses(objects), FIELDS)

  test('a Lens column on a field that is not mapped', () => {
    const broken = withChange('simdup-duplicates-by-layer', (o) => {
      const state = o.attributes.state as { datasourceStates: { formBased: { layers: Record<string, { columns: Record<string, { sourceField: string }> }> } } }
      state.datasourceStates.formBased.layers['layer-by-time']!.columns['col-layer']!.sourceField = 'dedup.lyer'
    })
    expect(problemsOf(broken)).toEqual(['simdup-duplicates-by-layer layer layer-by-time column col-layer (terms): `dedup.lyer` is not a field of mappings/dedup-fields.json'])
  })

  test('a KQL query, a column and a sort on fields outside `dedup`', () => {
    const broken = withChange('simdup-duplicates', (o) => {
      const meta = o.attributes.kibanaSavedObjectMeta as { searchSourceJSON: string }
      meta.searchSourceJSON = meta.searchSourceJSON.replace('dedup.duplicate_of:*', 'duplicate_of:*')
      o.attributes.columns = ['title', 'dedup.cluster_id']
      o.attributes.sort = [['dedup.cluster', 'asc']]
    })
    expect(problemsOf(broken)).toEqual([
      'simdup-duplicates columns: `title` is not a field of mappings/dedup-fields.json',
      'simdup-duplicates sort: `dedup.cluster` is not a field of mappings/dedup-fields.json',
      'simdup-duplicates searchSourceJSON query: `duplicate_of` is not a field of mappings/dedup-fields.json',
    ])
  })

  test('a Vega aggregation on a missing field, and one on a field without doc values', () => {
    const rename = (field: string) =>
      withChange('simdup-cluster-sizes', (o) => {
        const visState = JSON.parse(o.attributes.visState as string) as { params: { spec: string } }
        visState.params.spec = visState.params.spec.replace('"dedup.cluster_id"', JSON.stringify(field))
        o.attributes.visState = JSON.stringify(visState)
      })
    expect(problemsOf(rename('dedup.clusterid'))).toEqual([
      'simdup-cluster-sizes Vega spec body.aggs.clusters.terms.field: `dedup.clusterid` is not a field of mappings/dedup-fields.json',
    ])
    // dedup.simhash is mapped with doc_values: false, so Elasticsearch refuses to aggregate on it.
    expect(problemsOf(rename('dedup.simhash'))).toEqual([
      'simdup-cluster-sizes Vega spec body.aggs.clusters.terms.field: `dedup.simhash` has no doc values, so Kibana cannot aggregate on it',
    ])
  })

  test('a time field that is not a date', () => {
    const broken = withChange('simdup-data-view', (o) => {
      o.attributes.timeFieldName = 'dedup.version'
    })
    expect(problemsOf(broken)).toEqual(['simdup-data-view timeFieldName: `dedup.version` is a keyword, not a date'])
  })

  test('an object kind the walker cannot read is an error, not a silent pass', () => {
    const broken = withChange('simdup-cluster-sizes', (o) => {
      o.attributes.visState = JSON.stringify({ title: 't', type: 'histogram', aggs: [{ params: { field: 'nope' } }], params: {} })
    })
    expect(() => fieldUses(broken)).toThrow(/only Vega visualizations are checked, got histogram/)
    expect(() => fieldUses([{ type: 'map', id: 'm', attributes: {}, references: [] }])).toThrow(/no field walker for saved-object type map/)
  })
})

describe('kqlFields', () => {
  test.each([
    ['', []],
    ['dedup.layer:*', ['dedup.layer']],
    ['not dedup.duplicate_of:* or dedup.distance >= 2', ['dedup.duplicate_of', 'dedup.distance']],
    ['dedup.distance<3 and dedup.layer : simhash', ['dedup.distance', 'dedup.layer']],
    // A colon inside a quoted value is not a field separator.
    ['dedup.id:"url:https://example.com/a"', ['dedup.id']],
    // Free text names no field.
    ['北京大学 招生', []], // "Peking University admissions"
  ])('%j → %j', (query, fields) => {
    expect(kqlFields(query)).toEqual(fields)
  })
})

describe('mappedFields', () => {
  test('walks objects and multi-fields to dotted paths', () => {
    const fields = mappedFields({
      title: { type: 'text', fields: { raw: { type: 'keyword' } } },
      dedup: { type: 'object', properties: { id: { type: 'keyword' }, sketch: { type: 'keyword', index: false, doc_values: false } } },
    })
    expect([...fields.keys()]).toEqual(['title', 'title.raw', 'dedup.id', 'dedup.sketch'])
    expect(fields.get('dedup.sketch')).toEqual({ type: 'keyword', index: false, doc_values: false })
  })
})
