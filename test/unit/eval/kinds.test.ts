import { describe, expect, it } from 'vitest'
import { fortuneEntries, quoteBody, stripAnsi } from '../../../scripts/eval/kinds.js'

describe('eval kinds: the oracle side', () => {
  it('splits a fortune file on % lines', () => {
    expect(fortuneEntries('甲\n%\n乙\n丙\n%\n')).toEqual(['甲', '乙\n丙'])
  })
  it('strips ANSI CSI sequences with its own parser', () => {
    expect(stripAnsi('\x1b[33m    --\x1b[32m《谚语》\x1b[m\x1b[m')).toBe('    --《谚语》')
  })
  it('takes the quote without its attribution and header lines', () => {
    // A saying "-- Proverbs"; a poem with its title and author lines (tang300 layout).
    expect(quoteBody('不读一家书，不识一家字。\n\x1b[33m    --\x1b[32m《谚语》\x1b[m\x1b[m')).toBe('不读一家书，不识一家字。')
    expect(quoteBody('\x1b[32m《感遇‧其一》\x1b[m\n\x1b[33m作者：张九龄\x1b[m\n兰叶春葳蕤，桂华秋皎洁。')).toBe('兰叶春葳蕤，桂华秋皎洁。')
  })
})
