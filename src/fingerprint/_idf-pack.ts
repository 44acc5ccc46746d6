import type { IdfTable } from './tfidf.js'

/**
 * A binary form of an IDF table that loads in milliseconds: parsing jieba's 270 k-line text
 * table into a `Map` costs ~0.6 s, and every thread that analyses (the CLI's main thread and
 * each pool worker) pays it at start. `npm run build` writes data/idf.bin from data/idf.txt.gz;
 * `defaultIdf()` uses it when it was made from the same bytes, else parses the text.
 *
 * Layout (little-endian): a 64-byte header (magic, format, entry count, slot bits, key units,
 * source length and checksum, id length, mean, id), then the values (f64), the key start
 * offsets (u32, one more than entries), the open-addressing slots (i32, entry + 1, 0 = empty,
 * load ≤ 2/3) and the keys' UTF-16 units. Lookups hash the term's units and compare them, so
 * `get` answers exactly what the parsed table answers.
 */
const MAGIC = 0x46444953 // 'SIDF'
const FORMAT = 1
const HEADER = 64
const ID_MAX = HEADER - 40

/** What a pack was made from: the source file's length and FNV-1a checksum. */
export interface IdfSource {
  bytes: number
  checksum: number
}

/** FNV-1a (32-bit) over bytes: cheap enough to check a 2 MB source file at every load. */
export function checksumBytes(bytes: Uint8Array): number {
  let h = 0x811c9dc5
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193)
  return h >>> 0
}

/** Slot hash of a key's UTF-16 units (FNV-1a, then a murmur3 finaliser). */
function hashUnits(term: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < term.length; i++) h = Math.imul(h ^ term.charCodeAt(i), 0x01000193)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

const align8 = (n: number) => (n + 7) & ~7

/** Packs a table's entries (in the map's order) with its mean, id and source. */
export function packIdf(map: ReadonlyMap<string, number>, mean: number, id: string, source: IdfSource): Uint8Array {
  const count = map.size
  if (id.length > ID_MAX || !/^[\x20-\x7e]*$/.test(id)) throw new Error(`IDF pack id must be at most ${ID_MAX} printable ASCII characters: ${id}`)
  let slotBits = 1
  while ((1 << slotBits) * 2 < count * 3) slotBits++ // load ≤ 2/3
  let units = 0
  for (const k of map.keys()) units += k.length
  const valuesAt = HEADER
  const startsAt = valuesAt + count * 8
  const slotsAt = startsAt + (count + 1) * 4
  const keysAt = slotsAt + (1 << slotBits) * 4
  const out = new Uint8Array(align8(keysAt + units * 2))
  const view = new DataView(out.buffer)
  view.setUint32(0, MAGIC, true)
  view.setUint32(4, FORMAT, true)
  view.setUint32(8, count, true)
  view.setUint32(12, slotBits, true)
  view.setUint32(16, units, true)
  view.setUint32(20, source.bytes, true)
  view.setUint32(24, source.checksum, true)
  view.setUint32(28, id.length, true)
  view.setFloat64(32, mean, true)
  for (let i = 0; i < id.length; i++) out[40 + i] = id.charCodeAt(i)
  const values = new Float64Array(out.buffer, valuesAt, count)
  const starts = new Uint32Array(out.buffer, startsAt, count + 1)
  const slots = new Int32Array(out.buffer, slotsAt, 1 << slotBits)
  const keys = new Uint16Array(out.buffer, keysAt, units)
  const mask = (1 << slotBits) - 1
  let e = 0
  let u = 0
  for (const [k, v] of map) {
    values[e] = v
    starts[e] = u
    for (let i = 0; i < k.length; i++) keys[u++] = k.charCodeAt(i)
    let s = hashUnits(k) & mask
    while (slots[s] !== 0) s = (s + 1) & mask
    slots[s] = ++e
  }
  starts[count] = u
  return out
}

/** The table in a pack, or null if `bytes` is not one (or was made from another source). */
export function unpackIdf(bytes: Uint8Array, expect?: IdfSource): (IdfTable & { id: string }) | null {
  if (bytes.length < HEADER) return null
  // Typed array views need aligned offsets; a Buffer from a small file may sit anywhere in a pool.
  const b = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice()
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  if (view.getUint32(0, true) !== MAGIC || view.getUint32(4, true) !== FORMAT) return null
  if (expect !== undefined && (view.getUint32(20, true) !== expect.bytes || view.getUint32(24, true) !== expect.checksum)) return null
  const count = view.getUint32(8, true)
  const slotBits = view.getUint32(12, true)
  const units = view.getUint32(16, true)
  const idLength = view.getUint32(28, true)
  const startsAt = HEADER + count * 8
  const slotsAt = startsAt + (count + 1) * 4
  const keysAt = slotsAt + (1 << slotBits) * 4
  if (slotBits > 30 || idLength > ID_MAX || keysAt + units * 2 > b.byteLength) return null
  const values = new Float64Array(b.buffer, b.byteOffset + HEADER, count)
  const starts = new Uint32Array(b.buffer, b.byteOffset + startsAt, count + 1)
  const slots = new Int32Array(b.buffer, b.byteOffset + slotsAt, 1 << slotBits)
  const keys = new Uint16Array(b.buffer, b.byteOffset + keysAt, units)
  const mask = (1 << slotBits) - 1
  let id = ''
  for (let i = 0; i < idLength; i++) id += String.fromCharCode(b[40 + i]!)
  return {
    id,
    mean: view.getFloat64(32, true),
    size: count,
    get(term: string): number | undefined {
      for (let s = hashUnits(term) & mask; ; s = (s + 1) & mask) {
        const e = slots[s]! - 1
        if (e < 0) return undefined
        const from = starts[e]!
        if (starts[e + 1]! - from !== term.length) continue
        let i = 0
        while (i < term.length && keys[from + i] === term.charCodeAt(i)) i++
        if (i === term.length) return values[e]
      }
    },
  }
}
