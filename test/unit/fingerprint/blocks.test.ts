import { describe, expect } from 'vitest'
import { test } from '@fast-check/vitest'
import { test as plainTest } from 'vitest'
import fc from 'fast-check'
import { blockWidths, fingerprintBlocks, guaranteedDistance, validateBlockScheme } from '../../../src/fingerprint/blocks.js'
import { flipBit } from '../../../src/fingerprint/hamming.js'
import { arbFingerprint, toBig } from '../../helpers/fingerprints.js'

const schemes = fc.integer({ min: 2, max: 16 }).chain((blocks) => fc.record({ blocks: fc.constant(blocks), minMatch: fc.integer({ min: 1, max: blocks - 1 }) }))

describe('fingerprintBlocks', () => {
  plainTest('cuts 4×16 bits high first, position-tagged, zero-padded', () => {
    expect(fingerprintBlocks({ hi: 0x3fa20b11, lo: 0x9c00ffe1 })).toEqual(['0_3fa2', '1_0b11', '2_9c00', '3_ffe1'])
    expect(fingerprintBlocks({ hi: 0, lo: 0 })).toEqual(['0_0000', '1_0000', '2_0000', '3_0000'])
  })
  plainTest('widths split 64 bits as evenly as possible', () => {
    expect(blockWidths(6)).toEqual([11, 11, 11, 11, 10, 10])
    expect(blockWidths(4)).toEqual([16, 16, 16, 16])
  })
  test.prop([arbFingerprint, schemes])('blocks reassemble into the fingerprint (BigInt oracle)', (fp, scheme) => {
    const widths = blockWidths(scheme.blocks)
    let value = 0n
    fingerprintBlocks(fp, scheme).forEach((term, i) => {
      const [pos, hex] = term.split('_')
      expect(Number(pos)).toBe(i)
      value = (value << BigInt(widths[i]!)) | BigInt('0x' + hex)
    })
    expect(value).toBe(toBig(fp))
  })
  test.prop([arbFingerprint, schemes, fc.array(fc.nat(63), { maxLength: 16 })])(
    'pigeonhole: within the guaranteed distance at least minMatch blocks are equal',
    (fp, scheme, flips) => {
      const bits = [...new Set(flips)].slice(0, guaranteedDistance(scheme))
      const other = bits.reduce(flipBit, fp)
      const a = fingerprintBlocks(fp, scheme)
      const b = fingerprintBlocks(other, scheme)
      expect(a.filter((t, i) => t === b[i]).length).toBeGreaterThanOrEqual(scheme.minMatch)
    },
  )
})

describe('validateBlockScheme', () => {
  plainTest('names the field and the range', () => {
    expect(() => validateBlockScheme({ blocks: 1, minMatch: 1 })).toThrow(/`blocks` to be an integer from 2 to 16, got `1`/)
    expect(() => validateBlockScheme({ blocks: 4, minMatch: 4 })).toThrow(/`minMatch` to be an integer from 1 to 3 .*got `4`/)
    expect(validateBlockScheme({ blocks: 6, minMatch: 3 })).toEqual({ blocks: 6, minMatch: 3 })
    expect(guaranteedDistance({ blocks: 6, minMatch: 3 })).toBe(3)
  })
})
