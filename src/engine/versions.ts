import type { FingerprintRecord } from '../types.js'
import { DedupError, describeValue } from '../errors.js'
import type { Deduplicator } from './deduplicator.js'
import { urlKey } from './prepare.js'

/** A page named by a stored document's id or by its URL (any form that canonicalises alike). */
export type VersionOf = { id: string } | { url: string }

/** Most versions `versionHistory` returns by default. */
const DEFAULT_HISTORY_LIMIT = 1000

/**
 * The versions of a page, newest first: the stored records with the URL key of `of.url`, or of the
 * record `of.id` (fragment kept, as the url layer keys them), first indexed last first. Each newer
 * version whose content differs names the one before it in `supersedes`. A record without a URL
 * is its own only version; an unknown id or a URL nothing was indexed under gives `[]`.
 * @example (await versionHistory(dedup, { url: 'https://site/ch06.html#s5' })).map((r) => r.id) // ['s5-v3', 's5-v2', 's5-v1']
 */
export async function versionHistory(dedup: Deduplicator, of: VersionOf, limit = DEFAULT_HISTORY_LIMIT): Promise<FingerprintRecord[]> {
  const store = dedup.options.store
  let hash: string | null
  if (of !== null && typeof of === 'object' && 'id' in of && typeof of.id === 'string') {
    const record = (await store.get([of.id])).get(of.id)
    if (record === undefined) return []
    if (record.urlHash === null) return [record]
    hash = record.urlHash
  } else if (of !== null && typeof of === 'object' && 'url' in of && typeof of.url === 'string') {
    hash = urlKey(of.url)
    if (hash === null) throw new DedupError('INVALID_OPTION', `Expected \`url\` to be an http(s) URL (the url layer keys only those), got ${describeValue(of.url)}.`)
  } else {
    throw new DedupError('INVALID_OPTION', `Expected \`{ id: string }\` or \`{ url: string }\`, got ${describeValue(of)}.`)
  }
  await store.refresh()
  const [versions] = await store.byUrl([hash], limit)
  return versions ?? []
}

/**
 * The newest version of a page (see `versionHistory`): the stored record with its URL key first
 * indexed last; null when there is none.
 * @example (await newestVersion(dedup, { id: 's5-v1' }))?.id // 's5-v3'
 */
export async function newestVersion(dedup: Deduplicator, of: VersionOf): Promise<FingerprintRecord | null> {
  return (await versionHistory(dedup, of, 1))[0] ?? null
}
