/**
 * A small roff → plain text converter for man(7) and mdoc(7) pages, good enough for a text corpus:
 * it keeps the words a reader sees and drops layout. It is not a formatter: no filling, no
 * justification, no hyphenation, so Chinese lines come out exactly as the translators wrote them
 * (groff 1.22 would re-wrap them at 80 columns and pad Latin words with justification spaces).
 */

/** The text of one man page, with the parts of it the corpus uses as a title. */
export interface ManText {
  /** `.TH`/`.Dt` name, e.g. `LS`. */
  name: string | null
  /** `.TH`/`.Dt` section, e.g. `1`. */
  section: string | null
  /** First line of the NAME section, e.g. `ls - 列出目录内容` (list directory contents). */
  nameLine: string | null
  text: string
}

const SPECIAL_CHARS: Readonly<Record<string, string>> = {
  em: '—', en: '–', hy: '-', mi: '-', bu: '•', co: '©', rg: '®', tm: '™', aq: "'", dq: '"',
  lq: '“', rq: '”', oq: '‘', cq: '’', ga: '`', ti: '~', ha: '^', pl: '+', mu: '×', di: '÷',
  '>=': '≥', '<=': '≤', '!=': '≠', '->': '→', '<-': '←', '<>': '↔', sq: '□', de: '°', '**': '*',
  ps: '¶', sc: '§', dg: '†', Fo: '«', Fc: '»', fo: '‹', fc: '›', ba: '|', br: '│', rs: '\\',
  sl: '/', ul: '_', lB: '[', rB: ']', lC: '{', rC: '}', la: '⟨', ra: '⟩', at: '@', sh: '#',
  Do: '$', Eu: '€', ct: '¢', '+-': '±', ua: '↑', da: '↓', '12': '½', '14': '¼', '34': '¾',
  'u2014': '—', bv: '|', eq: '=', ss: 'ß', 'a"': 'ä', 'o"': 'ö', 'u"': 'ü', "e'": 'é',
}

const STRINGS: Readonly<Record<string, string>> = {
  lq: '“', rq: '”', R: '®', Tm: '™', '(lq': '“', '(rq': '”', Lq: '“', Rq: '”',
}

/** Escapes whose argument is delimited by a quote-like character, e.g. `\h'1n'`. */
const DELIMITED_ESCAPES = new Set('hvwlLoxbZXDNRSAHBCOoY'.split(''))

/** Read a `\(xx`, `\[name]` or single-character name starting at `i`; returns [name, nextIndex]. */
function readName(s: string, i: number): [string, number] {
  const c = s[i]
  if (c === '(') return [s.slice(i + 1, i + 3), i + 3]
  if (c === '[') {
    const end = s.indexOf(']', i + 1)
    return end < 0 ? [s.slice(i + 1), s.length] : [s.slice(i + 1, end), end + 1]
  }
  return [c ?? '', i + 1]
}

function specialChar(name: string): string {
  const mapped = SPECIAL_CHARS[name]
  if (mapped !== undefined) return mapped
  const m = /^u([0-9A-Fa-f]{4,6})$/.exec(name)
  if (m?.[1] !== undefined) return String.fromCodePoint(parseInt(m[1], 16))
  return ''
}

/**
 * Replace roff escapes in one line of text by the characters they print (or nothing).
 * @example unescapeRoff('\\fBls\\fR \\- list') // → 'ls - list'
 */
export function unescapeRoff(s: string): string {
  let out = ''
  let i = 0
  while (i < s.length) {
    const ch = s[i]
    if (ch !== '\\') {
      out += ch
      i++
      continue
    }
    const e = s[i + 1]
    i += 2
    if (e === undefined) break
    switch (e) {
      case '"':
      case '#':
        return out // comment to end of line
      case 'f':
      case 'n':
      case 'g':
      case 'F':
      case 'm':
      case 'M':
      case 'V':
      case '$':
      case 'k':
        i = readName(s, i)[1]
        break
      case 's': {
        // \s+1, \s-2, \s0, \s(12, \s[12], \s'12'
        if (s[i] === '+' || s[i] === '-') i++
        if (s[i] === '(' || s[i] === '[') i = readName(s, i)[1]
        else if (s[i] === "'") i = s.indexOf("'", i + 1) + 1 || s.length
        else while (i < s.length && /[0-9]/.test(s[i] ?? '')) i++
        break
      }
      case '(':
      case '[': {
        const [name, next] = readName(s, i - 1)
        out += specialChar(name)
        i = next
        break
      }
      case '*': {
        const [name, next] = readName(s, i)
        out += STRINGS[name] ?? ''
        i = next
        break
      }
      case '-':
        out += '-'
        break
      case 'e':
      case '\\':
        out += '\\'
        break
      case ' ':
      case '~':
      case '0':
        out += ' '
        break
      case 't':
        out += '\t'
        break
      case "'":
        out += "'"
        break
      case '`':
        out += '`'
        break
      case '.':
        out += '.'
        break
      case '&': case '|': case '^': case '%': case ':': case '/': case ',': case ')': case 'c':
      case '{': case '}': case 'p': case 'r': case 'u': case 'd': case 'a': case 'z':
        break
      default:
        if (DELIMITED_ESCAPES.has(e)) {
          const delim = s[i]
          if (delim !== undefined) {
            const end = s.indexOf(delim, i + 1)
            i = end < 0 ? s.length : end + 1
          }
        } else {
          out += e
        }
    }
  }
  return out
}

/** Split a macro line's arguments, honouring "double quotes" ("" inside quotes is a quote). */
export function splitRoffArgs(s: string): string[] {
  const args: string[] = []
  let i = 0
  while (i < s.length) {
    while (s[i] === ' ' || s[i] === '\t') i++
    if (i >= s.length) break
    let arg = ''
    if (s[i] === '"') {
      i++
      while (i < s.length) {
        if (s[i] === '"') {
          if (s[i + 1] === '"') {
            arg += '"'
            i += 2
            continue
          }
          i++
          break
        }
        if (s[i] === '\\' && i + 1 < s.length) {
          arg += s.slice(i, i + 2)
          i += 2
          continue
        }
        arg += s[i]
        i++
      }
    } else {
      while (i < s.length && s[i] !== ' ' && s[i] !== '\t') {
        if (s[i] === '\\' && i + 1 < s.length) {
          arg += s.slice(i, i + 2)
          i += 2
          continue
        }
        arg += s[i]
        i++
      }
    }
    args.push(arg)
  }
  return args
}

const HAN_END = /[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]$/u
const HAN_START = /^[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]/u
const JOINED_FONT_MACROS = new Set(['BR', 'RB', 'BI', 'IB', 'IR', 'RI'])
const SPACED_FONT_MACROS = new Set(['B', 'I', 'SM', 'SB', 'UR', 'MT', 'OP'])
const PARAGRAPH_MACROS = new Set(['PP', 'P', 'LP', 'Pp', 'sp', 'HP', 'RS', 'RE', 'Bl', 'El', 'Bd', 'Ed', 'bp', 'Sp', 'ne'])
const HEADING_MACROS = new Set(['SH', 'SS', 'Sh', 'Ss'])
/** mdoc macros that only format their arguments: drop the macro name, keep the words. */
const MDOC_CALLABLE = /^(Ad|An|Ar|Cd|Cm|Dv|Er|Ev|Fa|Fd|Fn|Ft|Ic|Li|Nm|Ot|Pa|Va|Vt|Em|Sy|No|Ns|Tn|Ux|Bx|At|Nx|Fx|Ox|Bsx|Op|Oo|Oc|Dq|Do|Dc|Sq|So|Sc|Pq|Po|Pc|Qq|Qo|Qc|Ql|Bq|Bo|Bc|Brq|Bro|Brc|Aq|Ao|Ac|Eo|Ec|Xo|Xc|Fo|Fc|Lk|Mt|St|Lb|In|Ms|Sx|Pf|Ta|It|Fl|Xr)$/

/** Render the words of an mdoc macro line: `Fl a Ar file` → `-a file`, `Xr ls 1` → `ls(1)`. */
function mdocWords(args: readonly string[], pageName: string | null): string {
  const words: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? ''
    if (a === 'Fl') {
      const next = args[i + 1]
      if (next !== undefined && !MDOC_CALLABLE.test(next)) {
        words.push(`-${unescapeRoff(next)}`)
        i++
      } else {
        words.push('-')
      }
    } else if (a === 'Xr') {
      const page = args[i + 1]
      const sect = args[i + 2]
      if (page !== undefined) words.push(sect !== undefined && /^\d/.test(sect) ? `${page}(${sect})` : page)
      i += sect !== undefined && /^\d/.test(sect) ? 2 : 1
    } else if (a === 'Nm' && (args[i + 1] === undefined || MDOC_CALLABLE.test(args[i + 1] ?? ''))) {
      if (pageName !== null) words.push(pageName.toLowerCase())
    } else if (!MDOC_CALLABLE.test(a)) {
      words.push(unescapeRoff(a))
    }
  }
  return words.join(' ')
}

/**
 * Convert a man(7) or mdoc(7) page to plain text; null when the page is only a `.so` link to
 * another page (the corpus keeps the target instead).
 * @example roffToText('.TH LS 1\n.SH 名称\nls \\- 列出目录内容\n')?.text // → '名称\nls - 列出目录内容'
 */
export function roffToText(src: string): ManText | null {
  const rawLines = src.replace(/\r\n?/g, '\n').split('\n')
  // Join escaped newlines ("\" at the end of a line continues it).
  const lines: string[] = []
  let pending = ''
  for (const l of rawLines) {
    if (/(^|[^\\])(\\\\)*\\$/.test(l)) {
      pending += l.slice(0, -1)
      continue
    }
    lines.push(pending + l)
    pending = ''
  }
  if (pending !== '') lines.push(pending)

  const out: string[] = []
  let cur = ''
  let fill = true
  let tagPending = false
  let name: string | null = null
  let section: string | null = null
  let nameLine: string | null = null
  let inNameSection = false
  let skipUntil: RegExp | null = null
  let table: 'format' | 'data' | null = null
  let textSeen = false

  const breakLine = (): void => {
    const t = cur.trim()
    cur = ''
    if (t === '') return
    out.push(t)
    if (inNameSection && nameLine === null) nameLine = t
  }
  const para = (): void => {
    breakLine()
    if (out.length > 0 && out[out.length - 1] !== '') out.push('')
  }
  // Fill mode joins input lines as a formatter would, but without a space between two Han
  // characters: Chinese has no word spaces, and translators break source lines anywhere.
  const emit = (s: string): void => {
    const t = s.replace(/[ \t]+$/, '')
    if (t.trim() === '') return
    if (!fill) {
      cur = t
      breakLine()
      return
    }
    if (cur === '') cur = t.trimStart()
    else if (HAN_END.test(cur) && HAN_START.test(t.trimStart())) cur += t.trimStart()
    else cur += ` ${t.trimStart()}`
    if (tagPending) {
      tagPending = false
      breakLine()
    }
  }

  for (const line of lines) {
    if (skipUntil !== null) {
      if (skipUntil.test(line)) skipUntil = null
      continue
    }
    if (table !== null) {
      if (/^[.']\s*TE\b/.test(line)) {
        table = null
        fill = true
        para()
      } else if (/^[.']\s*T&/.test(line)) {
        table = 'format'
      } else if (table === 'format') {
        if (/\.\s*$/.test(line)) table = 'data'
      } else if (/^[.']/.test(line)) {
        // a request inside a table: ignore
      } else if (!/^\s*[_=]\s*$/.test(line)) {
        emit(unescapeRoff(line.replace(/T[{}]/g, '')).replace(/\t+/g, ' '))
      }
      continue
    }

    const control = /^[.']\s*(\S*)\s*(.*)$/.exec(line)
    if (control === null) {
      emit(unescapeRoff(line))
      textSeen = true
      continue
    }
    const macro = control[1] ?? ''
    const rest = control[2] ?? ''
    if (macro === '' || macro.startsWith('\\"') || macro.startsWith('\\#')) continue
    if (macro === 'so') {
      if (!textSeen) return null
      continue
    }
    if (macro === 'de' || macro === 'am' || macro === 'ig') {
      skipUntil = /^[.']\s*\.\s*$/
      continue
    }
    if (macro === 'if' || macro === 'ie' || macro === 'el') {
      if (rest.includes('\\{') && !rest.includes('\\}')) skipUntil = /\\}/
      continue
    }
    if (macro === 'TS') {
      table = 'format'
      para()
      fill = false
      continue
    }
    const args = splitRoffArgs(rest)
    if (macro === 'TH' || macro === 'Dt') {
      name = args[0] !== undefined ? unescapeRoff(args[0]) : null
      section = args[1] !== undefined ? unescapeRoff(args[1]) : null
      continue
    }
    if (HEADING_MACROS.has(macro)) {
      para()
      const heading = unescapeRoff(args.join(' ')).trim()
      inNameSection = false
      if (heading !== '') out.push(heading)
      out.push('')
      inNameSection = /^(NAME|名称|名字|名\s*称|名稱)/i.test(heading)
      textSeen = true
      continue
    }
    if (macro === 'nf' || macro === 'EX' || macro === 'Vb') {
      para()
      fill = false
      continue
    }
    if (macro === 'fi' || macro === 'EE' || macro === 'Ve') {
      para()
      fill = true
      continue
    }
    if (macro === 'TP' || macro === 'TQ') {
      para()
      tagPending = true
      continue
    }
    if (PARAGRAPH_MACROS.has(macro)) {
      para()
      continue
    }
    if (macro === 'br') {
      breakLine()
      continue
    }
    if (macro === 'IP') {
      para()
      if (args[0] !== undefined && !/^\\\(bu$|^\\\[bu\]$/.test(args[0])) {
        emit(unescapeRoff(args[0]))
        breakLine()
      }
      continue
    }
    if (macro === 'It') {
      para()
      emit(mdocWords(args, name))
      breakLine()
      continue
    }
    if (JOINED_FONT_MACROS.has(macro)) {
      emit(args.map(unescapeRoff).join(''))
      textSeen = true
      continue
    }
    if (SPACED_FONT_MACROS.has(macro)) {
      emit(args.map(unescapeRoff).join(' '))
      textSeen = true
      continue
    }
    if (macro === 'Nd') {
      emit(`- ${unescapeRoff(args.join(' '))}`)
      continue
    }
    if (/^[A-Z][a-z]{1,2}$/.test(macro) && !/^(Dd|Os|Bl|El|Bd|Ed)$/.test(macro)) {
      emit(mdocWords([macro, ...args], name))
      textSeen = true
      continue
    }
    // Any other request (.in, .ti, .ad, .PD, .nh, .ds, .nr, .ft, …) prints nothing.
  }

  breakLine()
  const text = out.join('\n').replace(/\n{3,}/g, '\n\n').trim()
  return { name, section, nameLine, text }
}
