import { describe, expect, test } from 'vitest'
import { test as fcTest } from '@fast-check/vitest'
import fc from 'fast-check'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync, gunzipSync } from 'node:zlib'
import { parseIdf, parseIdfEntries } from '../../../src/fingerprint/tfidf.js'
import { checksumBytes, packIdf, unpackIdf } from '../../../src/fingerprint/_idf-pack.js'
import { DEFAULT_IDF_FILES, defaultIdf, loadIdf, packIdfFile } from '../../../src/fingerprint/_data.js'

const source = { bytes: 10, checksum: 42 }
const packText = (text: string, src = source) => {
  const { map, mean } = parseIdfEntries(text)
  return packIdf(map, mean, 'test-id', src)
}

describe('IDF pack', () => {
  test('answers what the parsed table answers: last value of a repeated word, mean, size, id', () => {
    const text = '北京 8\n大学 6\n北京 7.5\nbad line\n𠀋字 3\nnan NaN\n'
    const parsed = parseIdf(text)
    const t = unpackIdf(packText(text))!
    expect(t.id).toBe('test-id')
    expect(t.size).toBe(parsed.size)
    expect(t.mean).toBe(parsed.mean)
    for (const w of ['北京', '大学', '𠀋字', 'bad', 'nan', '北', '北京大学', '']) expect(t.get(w)).toBe(parsed.get(w))
    expect(t.get('北京')).toBe(7.5)
  })

  fcTest.prop([fc.array(fc.tuple(fc.string({ minLength: 1, maxLength: 6, unit: 'binary' }), fc.double({ noNaN: true, noDefaultInfinity: true })), { maxLength: 300 }), fc.array(fc.string({ maxLength: 6, unit: 'binary' }), { maxLength: 50 })])(
    'every key and every other string: the same value as a Map',
    (entries, others) => {
      const map = new Map(entries)
      const t = unpackIdf(packIdf(map, 1.5, 'p', source))!
      expect(t.size).toBe(map.size)
      for (const k of [...map.keys(), ...others]) expect(Object.is(t.get(k), map.get(k))).toBe(true)
    },
  )

  test('refuses bytes that are not a pack of the expected source; reads a pack at any byte offset', () => {
    const pack = packText('北京 8\n大学 6\n')
    expect(unpackIdf(pack, source)).not.toBeNull()
    expect(unpackIdf(pack, { ...source, checksum: 43 })).toBeNull()
    expect(unpackIdf(pack, { ...source, bytes: 11 })).toBeNull()
    expect(unpackIdf(pack.subarray(0, pack.length - 8))).toBeNull() // truncated
    expect(unpackIdf(new TextEncoder().encode('北京 8\n'.repeat(20)))).toBeNull()
    const shifted = new Uint8Array(pack.length + 3)
    shifted.set(pack, 3)
    expect(unpackIdf(shifted.subarray(3))!.get('大学')).toBe(6)
  })
})

describe('loadIdf', () => {
  const dir = mkdtempSync(join(tmpdir(), 'simdup-idf-'))
  const files = { text: pathToFileURL(join(dir, 'idf.txt.gz')), pack: pathToFileURL(join(dir, 'idf.bin')) }

  test('uses the pack made from the same text, parses the text when the pack is missing or stale', () => {
    writeFileSync(files.text, gzipSync('北京 8\n大学 6\n'))
    const parsed = loadIdf(files) // no pack yet
    expect(parsed.get('北京')).toBe(8)
    writeFileSync(files.pack, packIdfFile(files))
    const packed = loadIdf(files)
    expect(packed.get('北京')).toBe(8)
    expect([packed.id, packed.mean, packed.size]).toEqual([parsed.id, parsed.mean, parsed.size])
    // The text changes and the pack is not rebuilt: its checksum no longer matches.
    writeFileSync(files.text, gzipSync('北京 9\n学生 4\n'))
    const stale = loadIdf(files)
    expect(stale.get('北京')).toBe(9)
    expect(stale.get('大学')).toBeUndefined()
  })

  test('the shipped table loads to exactly what parsing its text gives', () => {
    const gz = readFileSync(DEFAULT_IDF_FILES.text)
    // `npm run build` (run by `npm ci`) writes the pack; without it defaultIdf parses the text.
    expect(unpackIdf(readFileSync(DEFAULT_IDF_FILES.pack), { bytes: gz.length, checksum: checksumBytes(gz) }), 'data/idf.bin is missing or stale: npm run build').not.toBeNull()
    const text = gunzipSync(gz).toString('utf8')
    const parsed = parseIdf(text)
    const t = defaultIdf()
    expect([t.size, t.mean]).toEqual([parsed.size, parsed.mean])
    expect(t.id).toBe(loadIdf({ text: DEFAULT_IDF_FILES.text, pack: new URL('file:///nonexistent/idf.bin') }).id)
    let differ = 0
    for (const line of text.split('\n')) {
      const w = line.slice(0, line.lastIndexOf(' '))
      if (t.get(w) !== parsed.get(w)) differ++
    }
    expect(differ).toBe(0)
  })
})
