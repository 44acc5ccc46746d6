/**
 * Eval kind (c), third stream `terminal-more`: more real programs' output, first run as a held-out
 * test of the terminal handling (issue 15; docs/EVAL.md, "Held-out terminal shapes"), then kept as
 * its own stream so the `terminal` figure stays comparable. Every copy is made here by running
 * the real program, on the same texts as `terminal` (terminal.ts):
 *
 * - `less-pager`: a text shown by `less -R -F -X` in a pseudo-terminal (`script`): keypad mode
 *   (`\e[?1h\e=` … `\e[?1l\e>`), `\e[m\r\n` line ends, a final `\r\e[K`.
 * - `shell-session`: an interactive `bash -i` session captured by `script` that runs `cat` on the
 *   text: a coloured prompt with an OSC 0 title, bracketed-paste mode (`\e[?2004h`,
 *   `\e[?2004l\r`), the command echoed, CR LF line ends, then `exit`.
 * - `git-progress`: `git clone --progress` of a local repository in a pseudo-terminal (progress
 *   lines redrawn with `\r` and `\e[K`), then the text, as a CI log shows a checkout and a step.
 * - `git-log-colour`: the text as a commit message, shown by `git log --color=always --decorate`
 *   (hash in yellow, decorations, author and date lines, the message indented).
 * - `git-diff-added`: a man page's plain rendering (terminal.ts's `man-plain`) as a file added
 *   in a coloured patch (`git diff --color=always --no-index /dev/null <file>`: bold header lines,
 *   cyan hunk header, each line `+` in green).
 *
 * Labels: the eval's own stripper (renderTerminal), then bigram (texts) or 5-gram (man pages)
 * Jaccard ≥ 0.5. Unlike `terminal`, groups are not connected through copies: originals are grouped
 * among themselves, and a copy is a duplicate of its source only when the two are alike; a copy
 * unlike its source (a short text under a long prompt or log header) is distinct, even from copies
 * of other texts that share its program's lines.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CORPUS_CACHE_DIR } from '../corpus/paths.js'
import { jaccard, shingleSet, similarityGroups } from './oracle.js'
import type { Rng } from './prng.js'
import { manPages, renderTerminal, run, type TerminalDraft } from './terminal.js'

const TTY_ENV = { TERM: 'xterm-256color', COLUMNS: '80', LINES: '24' }
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Wang Bo', GIT_AUTHOR_EMAIL: 'wangbo@example.org', GIT_COMMITTER_NAME: 'Wang Bo',
  GIT_COMMITTER_EMAIL: 'wangbo@example.org', GIT_AUTHOR_DATE: '2024-03-01T12:00:00Z', GIT_COMMITTER_DATE: '2024-03-01T12:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1', HOME: '/nonexistent',
}

/**
 * `script -qec <command>` in `cwd`: what a terminal receives, or null. `input` is typed a moment
 * after the start (once the program waits for it), so the capture does not depend on timing.
 */
function inTty(command: string, cwd: string, input = ''): string | null {
  const feed = input === '' ? '' : `(sleep 0.3; printf '%s' "$1") | `
  const r = spawnSync('bash', ['-c', `${feed}script -qec "$0" /dev/null`, command, input], { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', ...TTY_ENV }, timeout: 20000 })
  return r.status === 0 ? r.stdout : null
}

/** A real `git clone --progress` in a pseudo-terminal, captured once into the cache (null without git). */
function gitCloneProgress(): string | null {
  const cached = join(CORPUS_CACHE_DIR, 'git-clone-progress.txt')
  if (existsSync(cached)) return readFileSync(cached, 'utf8')
  const dir = mkdtempSync(join(tmpdir(), 'simdup-git-'))
  try {
    const src = join(dir, 'src')
    mkdirSync(src)
    // 400 files of text: enough objects for several progress frames.
    for (let i = 0; i < 400; i++) writeFileSync(join(src, `f${i}.txt`), `${'line of file '.repeat(40)}${i}\n`.repeat(20 + (i % 7)))
    const git = (args: string[], cwd: string): boolean => spawnSync('git', args, { cwd, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...GIT_ENV } }).status === 0
    if (!git(['init', '-q'], src) || !git(['add', '.'], src) || !git(['commit', '-qm', 'files'], src)) return null
    const out = inTty('git clone --progress --no-local src dst', dir)
    if (out === null || (out.match(/\r/g) ?? []).length < 3) return null
    writeFileSync(cached, out)
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

function textShapes(texts: readonly string[], rng: Rng, perPart: number): TerminalDraft[] {
  const out: TerminalDraft[] = texts.map((t) => ({ content: t, label: 'text-plain', family: 'text' }))
  const pick = (r: Rng): number[] => r.sample(texts.map((_, k) => k), perPart)
  const dir = mkdtempSync(join(tmpdir(), 'simdup-tty-'))
  try {
    const file = join(dir, 't.txt')
    for (const i of pick(rng.fork('less'))) {
      writeFileSync(file, `${texts[i]!}\n`)
      const got = inTty('less -R -F -X t.txt', dir)
      if (got !== null && got.includes('\x1b')) out.push({ content: got, label: 'less-pager', source: i, family: 'text' })
    }
    const ps1 = String.raw`\[\e]0;user@debian: ~\a\]\[\e[01;32m\]user@debian\[\e[00m\]:\[\e[01;34m\]~\[\e[00m\]\$ `
    for (const i of pick(rng.fork('shell'))) {
      writeFileSync(file, `${texts[i]!}\n`)
      const got = inTty(`env -i TERM=xterm-256color LANG=C.UTF-8 PS1='${ps1}' bash --norc --noprofile -i`, dir, 'cat t.txt\nexit\n')
      if (got !== null && got.includes('\x1b]0;')) out.push({ content: got, label: 'shell-session', source: i, family: 'text' })
    }
    const progress = gitCloneProgress()
    if (progress !== null) {
      for (const i of pick(rng.fork('progress'))) out.push({ content: `${progress}${texts[i]!.replace(/\n/g, '\r\n')}\r\n`, label: 'git-progress', source: i, family: 'text' })
    }
    const repo = join(dir, 'repo')
    mkdirSync(repo)
    const env = { ...GIT_ENV }
    if (run('git', ['init', '-q', repo], '', env) !== null) {
      for (const i of pick(rng.fork('log'))) {
        writeFileSync(join(dir, 'msg'), `${texts[i]!}\n`)
        if (run('git', ['-C', repo, 'commit', '-q', '--allow-empty', '--cleanup=verbatim', '-F', join(dir, 'msg')], '', env) === null) continue
        const got = run('git', ['-C', repo, 'log', '--color=always', '--decorate=short', '-1'], '', env)
        if (got !== null && got.includes('\x1b[')) out.push({ content: got.trimEnd(), label: 'git-log-colour', source: i, family: 'text' })
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return out
}

function manShapes(rng: Rng, log: (s: string) => void): TerminalDraft[] {
  const pages = manPages(rng.fork('man'), 60, log).filter((d) => d.label === 'man-plain')
  const out: TerminalDraft[] = pages.map((d) => ({ content: d.content, label: 'man-plain', family: 'man', ...(d.note === undefined ? {} : { note: d.note }) }))
  const dir = mkdtempSync(join(tmpdir(), 'simdup-diff-'))
  try {
    pages.forEach((d, i) => {
      const name = (d.note ?? `page${i}`).replace(/\//g, '-').replace(/\.gz$/, '')
      const file = join(dir, name)
      writeFileSync(file, `${d.content}\n`)
      // `git diff --no-index` exits 1 when the files differ.
      const r = spawnSync('git', ['diff', '--color=always', '--no-index', '/dev/null', name], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...GIT_ENV } })
      if (r.status === 1 && r.stdout.includes('\x1b[32m+')) out.push({ content: r.stdout.trimEnd(), label: 'git-diff-added', source: i, family: 'man', note: name })
    })
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return out
}

/**
 * The drafts of the terminal-more stream (originals and copies) and the oracle's group of each.
 * `texts` are the plain short texts of the terminal stream.
 */
export function moreTerminalDrafts(texts: readonly string[], rng: Rng, log: (s: string) => void): { drafts: TerminalDraft[]; groups: number[] } {
  const man = manShapes(rng.fork('man'), log)
  const text = textShapes(texts, rng.fork('text'), 120)
  const drafts: TerminalDraft[] = []
  const groups: number[] = []
  for (const [family, k] of [[man, 5], [text, 2]] as const) {
    const offset = drafts.length
    const g = copyGroups(family, k)
    family.forEach((d, i) => {
      drafts.push({ ...d, ...(d.source === undefined ? {} : { source: d.source + offset }) })
      groups.push(offset + g[i]!)
    })
  }
  return { drafts, groups }
}

/**
 * The oracle's group of each draft (index of its group's first draft): originals grouped among
 * themselves (character `k`-gram Jaccard ≥ 0.5 of what a terminal shows, connected); a copy joins
 * its source's group when the two are alike, else it stands alone. Copies are never grouped
 * through each other: copies of different texts share their program's lines, not a text.
 * @example copyGroups([{ content: '甲乙丙丁', label: 'a', family: 'text' }, { content: '$ cat\n甲乙丙丁', label: 'b', source: 0, family: 'text' }], 2) // → [0, 0]
 */
export function copyGroups(family: readonly Pick<TerminalDraft, 'content' | 'source'>[], k: number): number[] {
  const originals = family.flatMap((d, i) => (d.source === undefined ? [i] : []))
  const g = similarityGroups(originals.map((i) => renderTerminal(family[i]!.content)), k, 0.5)
  const groupOf = new Map(originals.map((i, n) => [i, originals[g[n]!]!]))
  return family.map((d, i) => {
    if (d.source === undefined) return groupOf.get(i)!
    const alike = jaccard(shingleSet(renderTerminal(d.content), k), shingleSet(renderTerminal(family[d.source]!.content), k)) >= 0.5
    return alike ? groupOf.get(d.source)! : i
  })
}
