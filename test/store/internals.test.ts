import { describe, expect, test } from 'vitest'
import { fc, test as propTest } from '@fast-check/vitest'
import { fingerprintBlocks } from '../../src/fingerprint/blocks.js'
import { ByteArena } from '../../src/store/embedded/_arena.js'
import { LayoutRegistry, termString } from '../../src/store/embedded/_block-layout.js'
import { isHex16, toHex16, hexHi, hexLo } from '../../src/store/embedded/_bytes.js'
import { BitColumn, DictColumn, OffsetColumn, SparseI32Column } from '../../src/store/embedded/_columns.js'
import { KEY_OUT, KeyIndex, mix32, unmix32 } from '../../src/store/embedded/_key-index.js'
import { LinkColumn } from '../../src/store/embedded/_links.js'
import { openMemoryStore } from '../../src/store/embedded/store.js'
import { makeRecord } from './_records.js'

const u32 = fc.integer({ min: 0, max: 0xffffffff })

describe('store internals', () => {
  test('LinkColumn keeps near links in 3 bytes and far ones (≥ 2^24 rows back) exactly', () => {
    const links = new LinkColumn()
    const far = 20_000_000
    links.set(5, -1)
    links.set(9, 5)
    links.set(far, 9)
    links.set(far + 1, far)
    expect([links.get(5), links.get(9), links.get(far), links.get(far + 1), links.get(123)]).toEqual([-1, 5, 9, far, -1])
    // Relinking a far link to a near one must drop the far entry.
    links.set(far, far - 10)
    expect(links.get(far)).toBe(far - 10)
    expect(() => links.set(7, 7)).toThrow(/older rows/)
  })

  test('KeyIndex keeps links and chain ends that do not fit in 3 bytes (rows ≥ 2^24) exactly', () => {
    const index = new KeyIndex(true, 8)
    const alive = new BitColumn()
    const far = 20_000_000
    const rows = [0, 5, far, far + 1, far + 2]
    // Rows 0, 5 and far + 2 share a key: far + 2 links 20 M rows back; far + 1 ends its own chain.
    const keys: [number, number][] = [[7, 9], [7, 9], [0xffffffff, 0xfffffffe], [1, 0], [7, 9]]
    rows.forEach((row, i) => {
      alive.set(row, true)
      index.link(row, keys[i]![0], keys[i]![1], alive)
    })
    rows.forEach((row, i) => {
      index.keyOf(row)
      expect([KEY_OUT[0], KEY_OUT[1]]).toEqual(keys[i])
    })
    const found: number[] = []
    for (let row = index.seek(7, 9); row >= 0; row = index.next(row)) if (index.matches(row)) found.push(row)
    expect(found).toEqual([far + 2, 5, 0])
  })

  test('OffsetColumn returns every offset it was given: small steps, gaps past 64 KiB and past 4 GiB, across chunks', () => {
    const column = new OffsetColumn()
    const offsets: number[] = []
    let at = 16
    let seed = 7
    const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)
    for (let row = 0; row < 300_000; row++) {
      const r = rand() % 1000
      // Mostly record-sized steps; now and then a big entry (> 64 KiB) or gigabytes of other entries.
      at += r === 0 ? 5 * 2 ** 32 + rand() : r < 5 ? 70_000 + (rand() % 100_000) : 80 + (rand() % 200)
      offsets.push(at)
      column.set(row, at)
    }
    for (let row = 0; row < offsets.length; row++) if (column.get(row) !== offsets[row]) expect([row, column.get(row)]).toEqual([row, offsets[row]])
  })

  test('a tag-only KeyIndex finds every row of a key, and otherwise only rows whose mixed key agrees in its top 24 bits, across growth', () => {
    const index = new KeyIndex(false, 1, true)
    const alive = new BitColumn()
    const n = 200_000
    let seed = 999
    const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)
    const keys: number[] = []
    for (let row = 0; row < n; row++) {
      // Copies of earlier keys, and neighbours that differ from an earlier key in the low mixed bits only.
      const key = row % 10 === 9 ? keys[rand() % row]! : row % 10 === 8 ? unmix32(mix32(keys[rand() % row]!) ^ (rand() & 0xff)) : rand()
      keys.push(key)
      alive.set(row, row % 7 !== 3)
      index.link(row, 0, key, alive)
    }
    expect(index.bits).toBe(18)
    const rowsOf = new Map<number, number[]>()
    for (let row = n - 1; row >= 0; row--) if (alive.has(row)) rowsOf.set(keys[row]!, [...(rowsOf.get(keys[row]!) ?? []), row])
    let extra = 0
    for (let q = 0; q < 3000; q++) {
      const key = keys[(q * 97) % n]!
      const found: number[] = []
      for (let row = index.seek(0, key); row >= 0; row = index.next(row)) if (alive.has(row) && index.matches(row)) found.push(row)
      const exact = found.filter((row) => keys[row] === key)
      expect(exact).toEqual(rowsOf.get(key) ?? [])
      for (const row of found) expect(mix32(keys[row]!) >>> 8).toBe(mix32(key) >>> 8)
      extra += found.length - exact.length
    }
    // The planted low-bit neighbours are the only near keys: some lookups must meet them.
    expect(extra).toBeGreaterThan(0)
    expect(() => index.keyOf(0)).toThrow(/tag-only/)
  })

  test.each([true, false])('KeyIndex (64-bit keys: %s) finds exactly the rows of a key and rebuilds every key, across growth', (wide) => {
    // maxLoad 1: the 2^16 first buckets double twice, dropping the dead rows as they split.
    const index = new KeyIndex(wide, 1)
    const alive = new BitColumn()
    const n = 200_000
    let seed = 12345
    const rand = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0)
    const keys: [number, number][] = []
    for (let row = 0; row < n; row++) {
      // Every 10th row repeats an earlier key (copies); a few keys are small numbers (not uniform).
      const key: [number, number] = row % 10 === 9 ? keys[rand() % row]! : row % 97 === 0 ? [0, row] : [rand(), rand()]
      keys.push(wide ? key : [0, key[1]])
      alive.set(row, row % 7 !== 3)
      index.link(row, keys[row]![0], keys[row]![1], alive)
    }
    expect(index.bits).toBe(18)
    for (let row = 0; row < n; row += 37) {
      if (!alive.has(row)) continue
      index.keyOf(row)
      expect([KEY_OUT[0], KEY_OUT[1]]).toEqual(keys[row])
    }
    const rowsOf = new Map<string, number[]>()
    for (let row = n - 1; row >= 0; row--) if (alive.has(row)) rowsOf.set(String(keys[row]), [...(rowsOf.get(String(keys[row])) ?? []), row])
    for (let q = 0; q < 3000; q++) {
      const key = q === 0 ? [1, 2] : keys[(q * 97) % n]!
      const found: number[] = []
      for (let row = index.seek(key[0]!, key[1]!); row >= 0; row = index.next(row)) if (alive.has(row) && index.matches(row)) found.push(row)
      expect(found).toEqual(rowsOf.get(String(key)) ?? [])
    }
  })

  test('DictColumn keeps every value, including past 255 and 65,535 distinct values and -0', () => {
    const times = new DictColumn('float64')
    const n = 70_000
    for (let row = 0; row < n; row++) times.set(row, row === 3 ? -0 : 1.7e12 + row * 0.5)
    for (const row of [0, 1, 255, 256, 65_534, 65_535, 65_536, n - 1]) expect(times.get(row)).toBe(1.7e12 + row * 0.5)
    expect(Object.is(times.get(3), -0)).toBe(true)
    const meta = new DictColumn('uint32')
    for (let row = 0; row < 1000; row++) meta.set(row, (row % 300) * 0x01000193 >>> 0)
    for (let row = 0; row < 1000; row++) expect(meta.get(row)).toBe((row % 300) * 0x01000193 >>> 0)
    meta.set(70_000, 1)
    expect(() => meta.set(10, 1)).toThrow(/after a later chunk/)
  })

  test('SparseI32Column appends in row order, overwrites existing rows, reads missing rows as 0', () => {
    const col = new SparseI32Column()
    col.set(3, 30)
    col.set(10, 100)
    col.set(3, 31)
    expect([col.get(3), col.get(10), col.get(4)]).toEqual([31, 100, 0])
    expect(() => col.set(4, 1)).toThrow(/out of order/)
    const bits = new BitColumn()
    bits.set(70_000, true)
    bits.set(31, true)
    bits.set(31, false)
    expect([bits.has(70_000), bits.has(31), bits.has(0)]).toEqual([true, false, false])
  })

  test('ByteArena moves a group that does not fit to a new buffer and keeps huge regions whole', () => {
    const arena = new ByteArena()
    const region = Buffer.alloc(1_000_000, 7)
    region[0] = 1
    const groups: number[] = []
    // Five 1 MB regions in one group: the fifth does not fit in the first 4 MiB buffer.
    for (let i = 0; i < 5; i++) groups.push(arena.append(region, 0, region.length, i === 0))
    expect(groups[4]).not.toBe(groups[0])
    const pos = groups[4]!
    const buf = arena.buffer(pos)
    for (let i = 0; i < 5; i++) expect(buf[arena.offset(pos) + i * 1_000_000]).toBe(1)
    const huge = Buffer.alloc(9_000_000, 3)
    const at = arena.append(huge, 0, huge.length, true)
    const next = arena.append(Buffer.from('after'), 0, 5, false)
    expect(next).toBe(at)
    expect(arena.buffer(at).subarray(arena.offset(at) + 9_000_000, arena.offset(at) + 9_000_005).toString()).toBe('after')
    const small = arena.append(Buffer.from('x'), 0, 1, true)
    expect(arena.buffer(small).toString('latin1', arena.offset(small), arena.offset(small) + 1)).toBe('x')
  })

  propTest.prop([u32, u32, fc.integer({ min: 2, max: 16 })])('a layout is recognised for every block scheme fingerprintBlocks makes, and rebuilds its terms', (hi, lo, blocks) => {
    const registry = new LayoutRegistry()
    const terms = fingerprintBlocks({ hi, lo }, { blocks, minMatch: 1 })
    const id = registry.match(hi, lo, terms)
    expect(id).toBeGreaterThanOrEqual(0)
    expect(registry.terms(id, hi, lo)).toEqual(terms)
    // Terms out of position never fit a layout: they are stored explicitly.
    expect(registry.match(hi, lo, terms.slice().reverse())).toBe(-1)
  })

  test('unpadded and hand-made terms', () => {
    const registry = new LayoutRegistry()
    const fp = { hi: 0x000a0b11, lo: 0x9c00ffe1 }
    const unpadded = ['0_a', '1_b11', '2_9c00', '3_ffe1']
    const id = registry.match(fp.hi, fp.lo, unpadded)
    expect(registry.terms(id, fp.hi, fp.lo)).toEqual(unpadded)
    expect(registry.match(fp.hi, fp.lo, ['0_A', '1_b11', '2_9c00', '3_ffe1'])).toBe(-1)
    expect(registry.match(fp.hi, fp.lo, ['00_a', '1_b11', '2_9c00', '3_ffe1'])).toBe(-1)
    expect(registry.match(fp.hi, fp.lo, ['0_000a', '1_0b11', '2_9c00'])).toBe(-1)
    expect(termString(12, 0xab, 4)).toBe('12_00ab')
    expect(registry.define(1, [32, 32], true)).toBe(true)
    expect(registry.define(1, [32, 32], false)).toBe(false)
    expect(registry.define(5, [32, 32], true)).toBe(false)
  })

  propTest.prop([u32, u32])('hex helpers round-trip', (hi, lo) => {
    const hex = toHex16(hi, lo)
    expect(hex).toBe(hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0'))
    expect(isHex16(hex)).toBe(true)
    expect([hexHi(hex), hexLo(hex)]).toEqual([hi, lo])
    expect(isHex16(hex.toUpperCase().replace(/[0-9]/g, 'A'))).toBe(false)
  })

  test('records with multi-megabyte and non-hex sketches round-trip through the store', async () => {
    const store = await openMemoryStore()
    const records = [
      makeRecord('doc-big-1', { hi: 1, lo: 2 }, { sketch: 'ab'.repeat(1_500_000) }),
      makeRecord('doc-big-2', { hi: 3, lo: 4 }, { sketch: '不是十六进制'.repeat(300_000) }), // "not hexadecimal"
      makeRecord('doc-huge', { hi: 5, lo: 6 }, { sketch: 'cd'.repeat(5_000_000) }),
      ...Array.from({ length: 20 }, (_, i) => makeRecord(`doc-${i}`, { hi: i, lo: i }, { sketch: i % 2 === 0 ? 'odd length hex? abc' : '0123abcd' })),
    ]
    await store.put(records)
    const got = await store.get(records.map((r) => r.id))
    for (const r of records) expect(got.get(r.id)).toEqual(r)
    await store.close()
  })
})
