import { describeValue } from '../../errors.js'
import type { IncomingItem } from '../../engine/prepare.js'
import type { InputDocument } from '../../types.js'
import type { ReindexFieldMap } from './options.js'

/**
 * The value at a dotted path of a `_source`. Elasticsearch accepts both `{"a":{"b":1}}` and
 * `{"a.b":1}` for the field `a.b`, so every split of the path into keys is tried; arrays of
 * objects are walked element by element (values collected into one array).
 * @example getPath({ meta: { title: 'x' } }, 'meta.title') // 'x'
 */
export function getPath(source: unknown, path: string): unknown {
  if (Array.isArray(source)) {
    const found = source.map((el) => getPath(el, path)).filter((v) => v !== undefined)
    return found.length === 0 ? undefined : found.flat()
  }
  if (source === null || typeof source !== 'object') return undefined
  const obj = source as Record<string, unknown>
  if (Object.hasOwn(obj, path)) return obj[path]
  for (let dot = path.indexOf('.'); dot > 0; dot = path.indexOf('.', dot + 1)) {
    const head = path.slice(0, dot)
    if (Object.hasOwn(obj, head)) {
      const v = getPath(obj[head], path.slice(dot + 1))
      if (v !== undefined) return v
    }
  }
  return undefined
}

/** Text of a field: a string, or the strings of an array joined (content) / the first one (title, URL). */
function textOf(value: unknown, join: string | null): string | null | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value === 'string') return value
  if (Array.isArray(value)) {
    const strings = value.filter((v): v is string => typeof v === 'string')
    if (strings.length === 0) return null
    return join === null ? strings[0]! : strings.join(join)
  }
  return null
}

/** A document id from a source field: a non-empty string, or an integer kept as its decimal string. */
export function idOf(value: unknown): string | null {
  const v = Array.isArray(value) && value.length === 1 ? value[0] : value
  if (typeof v === 'string' && v.length > 0) return v
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v)
  return null
}

/** What one source hit becomes: the engine's input (or a rejection) and the id it is written under. */
export interface MappedHit {
  item: IncomingItem
  /** Id of the document written (dest `_id` / record id); null when the id field is unusable. */
  id: string | null
}

/**
 * Maps a hit's `_source` onto `{id, content, title?, url?}` by the field map. A missing or
 * non-text content field becomes a rejection naming the source field; a title or URL that is
 * not text is left out rather than failing the document.
 * @example mapHit('42', { body: '正文' }, { title: null, content: 'body', url: null }, '_id')
 */
export function mapHit(hitId: string, source: unknown, fields: Readonly<ReindexFieldMap>, idField: string): MappedHit {
  if (source === undefined || source === null || typeof source !== 'object') {
    return { id: idField === '_id' ? hitId : null, item: { rejected: 'document has no `_source` to read', id: hitId } }
  }
  const id = idField === '_id' ? hitId : idOf(getPath(source, idField))
  if (id === null) {
    const raw = getPath(source, idField)
    return { id: null, item: { rejected: `source field \`${idField}\` (the id) must be a non-empty string or an integer, got ${describeValue(raw)}`, id: hitId } }
  }
  const content = textOf(getPath(source, fields.content), '\n')
  if (content === undefined) return { id, item: { rejected: `source field \`${fields.content}\` (the content) is missing or null`, id } }
  if (content === null) {
    return { id, item: { rejected: `source field \`${fields.content}\` (the content) is not text: ${describeValue(getPath(source, fields.content))}`, id } }
  }
  const doc: InputDocument = { id, content }
  if (fields.title !== null) {
    const title = textOf(getPath(source, fields.title), null)
    if (typeof title === 'string') doc.title = title
  }
  if (fields.url !== null) {
    const url = textOf(getPath(source, fields.url), null)
    if (typeof url === 'string') doc.url = url
  }
  return { id, item: { value: doc } }
}

/**
 * A rejection reason from validation speaks of `content`; name the source field too when the
 * field map renames it, so the rejects file points at the user's own field.
 */
export function explainReason(reason: string, fields: Readonly<ReindexFieldMap>): string {
  if (fields.content === 'content') return reason
  return reason.replace('field `content`', `field \`content\` (source field \`${fields.content}\`)`)
}
