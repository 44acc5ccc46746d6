/**
 * The `next` cursor of a deduplicated search page. It carries what the next page needs so that no
 * cluster shows up twice, without any server-side state:
 * - how far each of the two searches was consumed (collapsed groups, documents without a cluster id),
 * - the fingerprints of the hits shown so far (the app-layer fold of later pages compares with them),
 * - 48-bit hashes of the cluster ids shown so far (a cluster re-ranked onto a later page by an index
 *   change in between is still recognised),
 * - a hash of the request, so a cursor is never applied to another query.
 * Format: `1.<request>.<groups>.<singles>.<fingerprints>.<clusters>`, URL-safe (base64url, no dots).
 */
import type { Fingerprint } from '../../types.js'
import { DedupError, describeValue } from '../../errors.js'
import { hash64Hex } from '../../fingerprint/hash.js'

const VERSION = '1'
const FP_BYTES = 8
const CLUSTER_BYTES = 6

/** Decoded contents of a cursor. */
export interface DedupCursor {
  /** 12 hex digits identifying the request the cursor belongs to. */
  readonly request: string
  /** Collapsed groups consumed so far (the `from` of the next collapsed search). */
  readonly groups: number
  /** Documents without a cluster id consumed so far. */
  readonly singles: number
  /** Fingerprints of shown hits, oldest first. */
  readonly fingerprints: readonly Fingerprint[]
  /** `clusterKeyHash` of the cluster ids shown, oldest first. */
  readonly clusters: readonly string[]
}

/** 12 hex digits (48 bits) naming a cluster id in a cursor: a collision needs ~16 M ids on one result list. */
export function clusterKeyHash(clusterId: string): string {
  return hash64Hex(clusterId).slice(0, CLUSTER_BYTES * 2)
}

/** 12 hex digits naming a request (whatever decides which hits come back and in what order). */
export function requestHash(parts: unknown): string {
  return hash64Hex(JSON.stringify(parts)).slice(0, 12)
}

function packFingerprints(fps: readonly Fingerprint[]): string {
  const buf = Buffer.alloc(fps.length * FP_BYTES)
  fps.forEach((fp, i) => {
    buf.writeUInt32BE(fp.hi >>> 0, i * FP_BYTES)
    buf.writeUInt32BE(fp.lo >>> 0, i * FP_BYTES + 4)
  })
  return buf.toString('base64url')
}

function unpackFingerprints(text: string): Fingerprint[] | null {
  const buf = Buffer.from(text, 'base64url')
  if (buf.length % FP_BYTES !== 0) return null
  const out: Fingerprint[] = []
  for (let at = 0; at < buf.length; at += FP_BYTES) out.push({ hi: buf.readUInt32BE(at), lo: buf.readUInt32BE(at + 4) })
  return out
}

/**
 * Serialises a cursor, keeping only the newest `memory` fingerprints and cluster hashes so the
 * cursor stays small enough for a URL (~3.8 kB at 200).
 * @example encodeCursor({ request: 'a1b2c3d4e5f6', groups: 10, singles: 2, fingerprints: [], clusters: [] }, 200) // '1.a1b2c3d4e5f6.10.2..'
 */
export function encodeCursor(cursor: DedupCursor, memory: number): string {
  const fps = memory === 0 ? [] : cursor.fingerprints.slice(-memory)
  const clusters = memory === 0 ? [] : cursor.clusters.slice(-memory)
  return [
    VERSION,
    cursor.request,
    String(cursor.groups),
    String(cursor.singles),
    packFingerprints(fps),
    Buffer.from(clusters.join(''), 'hex').toString('base64url'),
  ].join('.')
}

function invalid(value: unknown, why: string): DedupError {
  return new DedupError('INVALID_OPTION', `Expected \`cursor\` to be the \`next\` value of a previous page, got ${describeValue(value)}: ${why}.`)
}

/**
 * Parses a cursor made by `encodeCursor`; throws INVALID_OPTION on anything else, naming what is wrong.
 * @example decodeCursor('1.a1b2c3d4e5f6.10.2..').groups // 10
 */
export function decodeCursor(text: unknown): DedupCursor {
  if (typeof text !== 'string') throw invalid(text, 'not a string')
  const parts = text.split('.')
  if (parts.length !== 6 || parts[0] !== VERSION) throw invalid(text, `not a version ${VERSION} cursor`)
  const [, request, groups, singles, fps, clusters] = parts as [string, string, string, string, string, string]
  if (!/^[0-9a-f]{12}$/.test(request)) throw invalid(text, 'bad request hash')
  if (!/^\d{1,9}$/.test(groups) || !/^\d{1,9}$/.test(singles)) throw invalid(text, 'bad offsets')
  if (!/^[A-Za-z0-9_-]*$/.test(fps) || !/^[A-Za-z0-9_-]*$/.test(clusters)) throw invalid(text, 'bad encoding')
  const fingerprints = unpackFingerprints(fps)
  if (fingerprints === null) throw invalid(text, 'truncated fingerprints')
  const clusterBytes = Buffer.from(clusters, 'base64url')
  if (clusterBytes.length % CLUSTER_BYTES !== 0) throw invalid(text, 'truncated cluster hashes')
  const hex = clusterBytes.toString('hex')
  const clusterList: string[] = []
  for (let at = 0; at < hex.length; at += CLUSTER_BYTES * 2) clusterList.push(hex.slice(at, at + CLUSTER_BYTES * 2))
  return { request, groups: Number(groups), singles: Number(singles), fingerprints, clusters: clusterList }
}
