import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CORPUS_CACHE_DIR } from './paths.js'

/** Debian packages the corpus is read from, and whether the build fails without them. */
export const CORPUS_PACKAGES = [
  { name: 'manpages-zh', required: true },
  { name: 'libreoffice-help-zh-cn', required: false },
  { name: 'libreoffice-help-zh-tw', required: false },
  { name: 'debian-reference-zh-cn', required: false },
  { name: 'debian-reference-zh-tw', required: false },
] as const

let aptUpdated = false

function run(cmd: string, args: readonly string[], cwd?: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 })
}

function installedVersion(pkg: string): string | null {
  try {
    const out = run('dpkg-query', ['-W', '-f=${db:Status-Status} ${Version}', pkg]).trim()
    return out.startsWith('installed ') ? out.slice('installed '.length) : null
  } catch {
    return null
  }
}

function candidateVersion(pkg: string): string | null {
  const policy = run('apt-cache', ['policy', pkg])
  const m = /Candidate:\s*(\S+)/.exec(policy)
  return m?.[1] && m[1] !== '(none)' ? m[1] : null
}

/**
 * Where a package's files can be read: `/` when it is installed, else a folder under the cache
 * where its `.deb` (fetched with `apt-get download`) was unpacked with `dpkg-deb -x`.
 * Unpacking instead of `apt-get install` needs no root and skips dependencies such as
 * libreoffice-common, which only the office suite needs; the files are the same.
 * Returns null when apt does not know the package (after one `apt-get update`).
 * @example ensurePackageRoot('manpages-zh') // → '/' or '/work/main/.cache/corpus/pkgs/manpages-zh'
 */
export function ensurePackageRoot(pkg: string, log: (line: string) => void = () => {}): string | null {
  if (installedVersion(pkg) !== null) return '/'
  const root = join(CORPUS_CACHE_DIR, 'pkgs', pkg)
  const marker = join(root, '.unpacked')
  if (existsSync(marker)) return root

  let version = candidateVersion(pkg)
  if (version === null && !aptUpdated) {
    log('apt-get update (package lists are missing or stale)')
    run('apt-get', ['update'])
    aptUpdated = true
    version = candidateVersion(pkg)
  }
  if (version === null) return null

  const debDir = join(CORPUS_CACHE_DIR, 'debs')
  mkdirSync(debDir, { recursive: true })
  log(`apt-get download ${pkg} (${version})`)
  // As root apt warns that its sandbox user cannot write here; running the download as root is fine.
  run('apt-get', ['download', '-o', 'APT::Sandbox::User=root', pkg], debDir)
  const deb = readdirSync(debDir).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'))
  if (deb === undefined) throw new Error(`apt-get download ${pkg} left no ${pkg}_*.deb in ${debDir}`)
  rmSync(root, { recursive: true, force: true })
  mkdirSync(root, { recursive: true })
  run('dpkg-deb', ['-x', join(debDir, deb), root])
  writeFileSync(marker, `${deb}\n`)
  return root
}
