/**
 * Eval kind (c), second stream `terminal`: real programs' output as a terminal receives it, next
 * to the plain text a reader sees. Every copy is made by running the real program here:
 *
 * - `man-*`: zh_CN man pages (`manpages-zh`) rendered by groff for a tty (the first 60 lines, as
 *   `man … | head -60` shows them). Original: `grotty -cbou` (plain). Copies: `man-sgr`
 *   (`GROFF_SGR=1`: SGR bold/underline), `man-overstrike` (Debian's default grotty: `X\bX` bold,
 *   `_\bX` underline), `man-sgr-narrow` (SGR at a 64-column line length: other line breaks).
 * - `grep-*`: fortunes-zh quotes and poems (colours stripped: the plain text is the original),
 *   printed by `grep --color=always -E '<word>|$'` with the default GREP_COLORS (`\e[01;31m\e[K`
 *   … `\e[m\e[K`), a 256-colour and a truecolour match colour.
 * - `screen`: the same texts as a full-screen program leaves them: `tput clear` (xterm-256color:
 *   cursor home, erase display, erase scrollback), an OSC 0 window title, CR LF line ends.
 * - `progress`: the same texts after a real `curl -#` progress bar (captured through `script`,
 *   so curl writes to a tty: `\r`-separated frames).
 * - `ls-*`: listings of real folders of the corpus packages (man pages, LibreOffice help): `ls -C -w 80` (original) and
 *   `ls --color=always --hyperlink=always` (SGR per file type from `dircolors`, OSC 8 links).
 *
 * Labels by an oracle independent of simdup: {@link renderTerminal}, a simple stripper written
 * here (CSI, OSC, two-character escapes, overstrike, carriage-return overwrites, other C0), then
 * character bigram (short texts) or 5-gram (man pages, listings) Jaccard ≥ 0.5, connected groups.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, lstatSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { ensurePackageRoot } from '../corpus/packages.js'
import { CORPUS_CACHE_DIR } from '../corpus/paths.js'
import { similarityGroups } from './oracle.js'
import type { Rng } from './prng.js'

/**
 * What a terminal shows of `s`, as plain text: escape sequences (CSI, OSC to BEL/ST, two-character
 * ESC x) removed, overstrike resolved (`X\bX` → X, `_\bX` → X), a line overwritten after `\r`
 * replaced by what follows the last `\r`, other C0 controls but tab and newline removed.
 * @example renderTerminal('\x1b[1mA\x1b[0m _\bB x\ry') // → 'y'
 */
export function renderTerminal(s: string): string {
  let t = s
    // eslint-disable-next-line no-control-regex -- OSC … BEL or ST
    .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
    // eslint-disable-next-line no-control-regex -- CSI
    .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
    // eslint-disable-next-line no-control-regex -- ESC x
    .replace(/\x1b[ -~]?/g, '')
  // eslint-disable-next-line no-control-regex -- a character struck over by the next one
  while (/[^\n\x08]\x08/u.test(t)) t = t.replace(/[^\n\x08]\x08/gu, '')
  t = t.replace(/\r\n/g, '\n').split('\n').map((l) => l.slice(l.lastIndexOf('\r') + 1)).join('\n')
  // eslint-disable-next-line no-control-regex -- other C0 controls
  return t.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '')
}

/** A document of the terminal stream before ids: content, label, oracle text, family. */
export interface TerminalDraft {
  content: string
  label: string
  /** Index of the original this is a copy of (in the same family), or none for an original. */
  source?: number
  family: 'man' | 'text' | 'ls'
  note?: string
}

export function run(cmd: string, args: readonly string[], input: string | Buffer, env: Record<string, string> = {}): string | null {
  const r = spawnSync(cmd, args, { input, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...env }, maxBuffer: 64 << 20 })
  return r.status === 0 || (cmd === 'grep' && r.status === 1) ? r.stdout : null
}

/** Lines of `rendered` up to the one where its terminal text reaches `chars` non-space characters. */
function cutAtChars(rendered: string, chars: number): string {
  const lines = rendered.split('\n')
  let n = 0
  const out: string[] = []
  for (const l of lines) {
    if (n >= chars) break
    out.push(l)
    n += renderTerminal(l).replace(/\s/g, '').length
  }
  return out.join('\n')
}

export function manPages(rng: Rng, count: number, log: (s: string) => void): TerminalDraft[] {
  const root = ensurePackageRoot('manpages-zh', log)
  if (root === null) return []
  const base = join(root, 'usr/share/man/zh_CN')
  const files: string[] = []
  for (const sec of readdirSync(base).sort()) {
    if (!sec.startsWith('man')) continue
    for (const f of readdirSync(join(base, sec)).sort()) {
      const p = join(base, sec, f)
      if (lstatSync(p).isFile() && f.endsWith('.gz')) files.push(p)
    }
  }
  const out: TerminalDraft[] = []
  const groff = (src: Buffer, args: string[], env: Record<string, string> = {}): string | null => run('groff', ['-K', 'utf8', '-Tutf8', '-man', ...args], src, env)
  for (const file of rng.shuffle(files)) {
    if (out.filter((d) => d.source === undefined).length >= count) break
    const src = gunzipSync(readFileSync(file))
    if (/^\.so /m.test(src.toString('utf8').slice(0, 200))) continue
    const plainAll = groff(src, ['-P-cbou'])
    if (plainAll === null) return [] // no groff: the part is skipped
    const plain = plainAll.split('\n').slice(0, 60).join('\n').trim()
    const chars = plain.replace(/\s/g, '').length
    if (chars < 200) continue
    const i = out.length
    const name = file.slice(base.length + 1)
    out.push({ content: plain, label: 'man-plain', family: 'man', note: name })
    const sgr = groff(src, [], { GROFF_SGR: '1' })
    const over = groff(src, [])
    const narrow = groff(src, ['-rLL=64n'], { GROFF_SGR: '1' })
    if (sgr !== null) out.push({ content: cutAtChars(sgr, chars).trim(), label: 'man-sgr', source: i, family: 'man', note: name })
    if (over !== null) out.push({ content: cutAtChars(over, chars).trim(), label: 'man-overstrike', source: i, family: 'man', note: name })
    if (narrow !== null) out.push({ content: cutAtChars(narrow, chars).trim(), label: 'man-sgr-narrow', source: i, family: 'man', note: name })
  }
  return out
}

const GREP_SCHEMES: readonly [string, string][] = [
  ['grep-colour', ''],
  ['grep-256', 'mt=38;5;208'],
  ['grep-truecolour', 'mt=38;2;255;135;0:fn=38;2;120;120;255'],
]

/**
 * A real `curl -#` progress bar as a tty receives it (`\r`-separated frames): curl downloads one
 * of the cached `.deb`s from a local `python3 -m http.server` at a limited rate, through `script`
 * so that it writes to a terminal. Captured once into `.cache/corpus/curl-progress.txt`; null
 * when python3, curl or script are missing.
 */
function curlProgress(): string | null {
  const cached = join(CORPUS_CACHE_DIR, 'curl-progress.txt')
  if (existsSync(cached)) return readFileSync(cached, 'utf8')
  const debs = join(CORPUS_CACHE_DIR, 'debs')
  const file = readdirSync(debs).filter((f) => statSync(join(debs, f)).size > 1e7).sort()[0]
  if (file === undefined) return null
  const size = statSync(join(debs, file)).size
  const port = 20000 + (process.pid % 20000)
  const url = `http://127.0.0.1:${port}/${encodeURIComponent(file)}`
  const rate = `${Math.ceil(size / 3e6)}M` // about 3 s: several frames
  const shell = `python3 -m http.server ${port} --bind 127.0.0.1 -d "$1" >/dev/null 2>&1 & server=$!; sleep 1; script -qec "curl -# --limit-rate ${rate} -o /dev/null '${url}'" /dev/null; status=$?; kill "$server"; exit $status`
  const r = spawnSync('bash', ['-c', shell, 'capture', debs], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', COLUMNS: '80', LINES: '24' }, timeout: 30000 })
  if (r.status !== 0 || (r.stdout.match(/\r/g) ?? []).length < 3) return null
  writeFileSync(cached, r.stdout)
  return r.stdout
}

function textCopies(texts: readonly string[], rng: Rng, perPart: number): TerminalDraft[] {
  const out: TerminalDraft[] = texts.map((t) => ({ content: t, label: 'text-plain', family: 'text' }))
  const han = (t: string): string[] => [...t.matchAll(/\p{Script=Han}{2}/gu)].map((m) => m[0])
  for (const [label, colours] of GREP_SCHEMES) {
    for (const i of rng.sample(texts.map((_, k) => k), perPart)) {
      const words = han(texts[i]!)
      if (words.length === 0) continue
      const word = rng.pick(words)
      const got = run('grep', ['--color=always', '-E', `${word}|$`], `${texts[i]!}\n`, colours === '' ? {} : { GREP_COLORS: colours })
      if (got !== null && got.includes('\x1b[')) out.push({ content: got.trimEnd(), label, source: i, family: 'text', note: word })
    }
  }
  const clear = run('tput', ['clear'], '', { TERM: 'xterm-256color' })
  if (clear !== null) {
    for (const i of rng.sample(texts.map((_, k) => k), perPart)) {
      out.push({ content: `${clear}\x1b]0;user@debian: ~\x07${texts[i]!.replace(/\n/g, '\r\n')}\r\n`, label: 'screen', source: i, family: 'text' })
    }
  }
  const progress = curlProgress()
  if (progress !== null) {
    for (const i of rng.sample(texts.map((_, k) => k), perPart)) {
      out.push({ content: `${progress}${texts[i]!.replace(/\n/g, '\r\n')}\r\n`, label: 'progress', source: i, family: 'text' })
    }
  }
  return out
}

/** Folders listed by the `ls` part: the corpus packages' own trees (the same wherever the eval runs). */
const LS_TREES: readonly [string, string][] = [
  ['manpages-zh', 'usr/share/man'],
  ['libreoffice-help-zh-cn', 'usr/share/libreoffice/help/zh-CN'],
  ['debian-reference-zh-cn', 'usr/share'],
]

function lsListings(rng: Rng, count: number, log: (s: string) => void): TerminalDraft[] {
  const dircolors = run('dircolors', ['-b'], '')
  const lsColors = /LS_COLORS='([^']*)'/.exec(dircolors ?? '')?.[1]
  if (lsColors === undefined) return []
  const dirs: string[] = []
  const visit = (d: string, depth: number): void => {
    if (depth > 6) return
    const entries = readdirSync(d).sort()
    if (entries.length >= 6 && entries.length <= 120) dirs.push(d)
    for (const e of entries) if (lstatSync(join(d, e)).isDirectory()) visit(join(d, e), depth + 1)
  }
  for (const [pkg, sub] of LS_TREES) {
    const root = ensurePackageRoot(pkg, log)
    if (root !== null && root !== '/' && existsSync(join(root, sub))) visit(join(root, sub), 0)
  }
  const out: TerminalDraft[] = []
  for (const d of rng.sample(dirs, Math.min(count, dirs.length))) {
    const plain = run('ls', ['-C', '-w', '80', '--color=never', d], '')
    const colour = run('ls', ['-C', '-w', '80', '--color=always', '--hyperlink=always', d], '', { LS_COLORS: lsColors })
    if (plain === null || colour === null || plain.trim().length < 30) continue
    const i = out.length
    out.push({ content: plain.trimEnd(), label: 'ls-plain', family: 'ls' })
    out.push({ content: colour.trimEnd(), label: 'ls-colour-hyperlink', source: i, family: 'ls' })
  }
  return out
}

/**
 * The drafts of the terminal stream (originals and copies) and the oracle's group of each (index
 * of the first draft of its group). `texts` are the plain short texts to colour.
 */
export function terminalDrafts(texts: readonly string[], rng: Rng, log: (s: string) => void): { drafts: TerminalDraft[]; groups: number[] } {
  const man = manPages(rng.fork('man'), 80, log)
  const text = textCopies(texts, rng.fork('text'), 150)
  const ls = lsListings(rng.fork('ls'), 40, log)
  const drafts: TerminalDraft[] = []
  const groups: number[] = []
  for (const [family, k] of [[man, 5], [text, 2], [ls, 5]] as const) {
    const offset = drafts.length
    const g = similarityGroups(family.map((d) => renderTerminal(d.content)), k, 0.5)
    family.forEach((d, i) => {
      drafts.push({ ...d, ...(d.source === undefined ? {} : { source: d.source + offset }) })
      groups.push(offset + g[i]!)
    })
  }
  return { drafts, groups }
}
