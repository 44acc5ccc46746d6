import { describe, expect, it } from 'vitest'
import { test } from '@fast-check/vitest'
import fc from 'fast-check'
import { validateDocument } from '../../../src/engine/validate.js'
import { normalizeText, stripTerminalEscapes } from '../../../src/normalize/index.js'

// Quotes as Debian's fortunes-zh ships them: the attribution line in ANSI SGR colours.
// "Don't read one family's books, don't know one family's characters. -- Proverbs"
const PROVERB = '不读一家书，不识一家字。\n\x1b[33m    --\x1b[32m《谚语》\x1b[m\x1b[m'
// "Anyone who fears the mountains should not climb them" (a 2-line quote, attribution coloured)
const BLUE = '\x1b[32m《感遇‧其一》\x1b[m\n\x1b[33m作者：张九龄\x1b[m\n兰叶春葳蕤，桂华秋皎洁。'

describe('validateDocument: terminal colours are markup, not binary (issue 15, failure mode 3)', () => {
  it('accepts short quotes coloured with ANSI SGR sequences', () => {
    for (const content of [PROVERB, BLUE]) {
      const v = validateDocument({ id: 'q', content }, 2_000_000)
      expect(v).toMatchObject({ ok: true })
    }
  })

  it('still rejects binary junk, NUL and escape-only content', () => {
    const junk = String.fromCharCode(...Array.from({ length: 200 }, (_, i) => 1 + ((i * 7) % 26)))
    expect(validateDocument({ id: 'b', content: `ab${junk}` }, 2_000_000)).toMatchObject({ ok: false, reason: expect.stringMatching(/control characters/) })
    expect(validateDocument({ id: 'b', content: 'a\0b' }, 2_000_000)).toMatchObject({ ok: false, reason: expect.stringMatching(/NUL character at offset 1/) })
    expect(validateDocument({ id: 'b', content: '\x1b[33m\x1b[m' }, 2_000_000)).toMatchObject({ ok: false, reason: expect.stringMatching(/only terminal escape/) })
  })

  // Colouring a text never changes whether it is binary.
  const sgr = fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 3 }).map((ps) => `\x1b[${ps.join(';')}m`)
  test.prop([fc.array(fc.tuple(fc.string({ unit: 'binary', maxLength: 8 }), sgr), { minLength: 1, maxLength: 30 })])(
    'the verdict on a coloured text is the verdict on its text', (parts) => {
      const plain = parts.map(([t]) => t.replaceAll('\x1b', '')).join('')
      const coloured = parts.map(([t, c]) => c + t.replaceAll('\x1b', '')).join('')
      expect(stripTerminalEscapes(coloured)).toBe(plain)
      expect(validateDocument({ id: 'x', content: coloured }, 2_000_000).ok).toBe(validateDocument({ id: 'x', content: plain }, 2_000_000).ok)
    })
})

// `man ls` as groff renders it for a terminal (Debian's grotty default: overstrike, no SGR): bold
// is "X\bX", underline "_\bX". "NAME / ls - list directory contents / SYNOPSIS ls [OPTION]... [FILE]..."
const bold = (s: string): string => [...s].map((c) => `${c}\b${c}`).join('')
const under = (s: string): string => [...s].map((c) => `_\b${c}`).join('')
const MAN_LS = `${bold('名称')}\n       ls - 列出目录内容\n\n${bold('概述')}\n       ${bold('ls')} [${under('选项')}]... [${under('文件列表')}]...`

describe('validateDocument: overstrike is markup, not binary', () => {
  it('accepts a man page rendered with backspace overstrike', () => {
    expect(validateDocument({ id: 'm', content: MAN_LS }, 2_000_000)).toMatchObject({ ok: true })
    expect(normalizeText(MAN_LS)).toBe(normalizeText('名称\nls - 列出目录内容\n概述\nls [选项]... [文件列表]...'))
  })

  it('still rejects backspaces that strike nothing', () => {
    expect(validateDocument({ id: 'b', content: `ab${'\b'.repeat(20)}cd` }, 2_000_000)).toMatchObject({ ok: false, reason: expect.stringMatching(/control characters/) })
  })

  // Overstriking printable characters (as grotty does) never changes whether a text is binary.
  test.prop([fc.array(fc.tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.constantFrom('plain', 'bold', 'under')), { minLength: 1, maxLength: 60 })])(
    'the verdict on an overstruck text is the verdict on its text', (parts) => {
      const chars = parts.map(([c, style]) => [c.replaceAll('\x1b', '').replaceAll('\b', ''), style] as const)
      const plain = chars.map(([c]) => c).join('')
      const printable = (c: string): boolean => c !== '' && c.codePointAt(0)! >= 0x20 && c !== '\x7f'
      const struck = chars.map(([c, style]) => (!printable(c) || style === 'plain' ? c : style === 'bold' ? `${c}\b${c}` : `_\b${c}`)).join('')
      expect(validateDocument({ id: 'x', content: struck }, 2_000_000).ok).toBe(validateDocument({ id: 'x', content: plain }, 2_000_000).ok)
    })
})

describe('stripTerminalEscapes', () => {
  it('parses escapes as normalisation does', () => {
    expect(stripTerminalEscapes(PROVERB)).toBe('不读一家书，不识一家字。\n    --《谚语》')
    expect(normalizeText(stripTerminalEscapes(PROVERB))).toBe(normalizeText(PROVERB))
    expect(stripTerminalEscapes('a\x1b]0;title\x07b\x1b(Bc')).toBe('abc') // OSC window title, nF charset designation
  })
})
