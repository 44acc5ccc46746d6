import { parseArgs, type ParseArgsConfig } from 'node:util'
import { OPTION_LIMITS } from '../index.js'
import { guaranteedDistance, type BlockScheme } from '../internal.js'
import { UsageError } from './io.js'

type Options = NonNullable<ParseArgsConfig['options']>

/**
 * parseArgs with usage errors in the user's words instead of the parser's TypeErrors. A negative
 * number after a string flag (`--k -1`) is taken as its value, so the flag's own range check
 * answers it rather than the parser's "argument is ambiguous".
 */
export function parse<T extends Options>(args: string[], options: T): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  const joined: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    const next = args[i + 1]
    const name = a.startsWith('--') ? a.slice(2) : null
    if (name !== null && options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${a}=${next}`)
      i++
    } else joined.push(a)
  }
  try {
    return parseArgs({ args: joined, options, allowPositionals: true, strict: true })
  } catch (err) {
    throw new UsageError(parserMessage(err as Error & { code?: string }, Object.keys(options)))
  }
}

/**
 * The name among `names` nearest to `name` (edit distance at most 2, and less than half its
 * length), for "did you mean": `--stor` → `store`, `indx` → `index`; null when none is that near.
 * @example closest('clustr', ['cluster', 'clusters']) // 'cluster'
 */
export function closest(name: string, names: readonly string[]): string | null {
  let best: string | null = null
  let bestDistance = Math.min(2, Math.floor((name.length - 1) / 2)) + 1
  for (const n of names) {
    const d = editDistance(name, n)
    if (d < bestDistance) [best, bestDistance] = [n, d]
  }
  return best
}

/** Levenshtein distance (insert, delete, substitute one character), one row at a time. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]!
}

function parserMessage(err: Error & { code?: string }, names: readonly string[]): string {
  const flag = /'(-[^' ]+)/.exec(err.message)?.[1] ?? ''
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const near = flag.startsWith('--') ? closest(flag.slice(2).split('=')[0]!, names) : null
      return `unknown option \`${flag}\`.${near === null ? '' : ` Did you mean \`--${near}\`?`}`
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      // "argument missing" (flag last) or "ambiguous" (next word starts with a dash)
      if (/argument missing|ambiguous/.test(err.message)) return `\`${flag}\` needs a value (write \`${flag}=VALUE\` for a value starting with -).`
      return `\`${flag}\` takes no value.`
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return 'unexpected argument.'
    default:
      return err.message
  }
}

/** Integer flag within a range, or a usage error naming the flag. */
export function intFlag(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  const n = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`Expected --${name} to be an integer from ${min} to ${max}, got \`${value}\`.`)
  return n
}

/** An integer flag whose range and default are the library's (`OPTION_LIMITS`, `REINDEX_LIMITS`). */
export function limitFlag(value: string | undefined, name: string, limit: { readonly min: number; readonly max: number; readonly default: number }): number {
  return intFlag(value, name, limit.default, limit.min, limit.max)
}

/** The default of `--k`. */
export const DEFAULT_K = OPTION_LIMITS.maxDistance.default

/** The library's default block scheme (4 blocks of which 1 must match). */
export const DEFAULT_SCHEME: BlockScheme = { blocks: OPTION_LIMITS.blocks.default, minMatch: OPTION_LIMITS.minMatch.default }

/** `--k`'s range for the default block scheme, for help texts: `0 to 3 (default 3)`. */
export const K_RANGE = `${OPTION_LIMITS.maxDistance.min} to ${guaranteedDistance(DEFAULT_SCHEME)} (default ${DEFAULT_K})`

/**
 * `--k`, checked once for every command in the user's terms: an integer from 0 to what the block
 * scheme can guarantee to find (3 for the default 4 blocks of which 1 must match).
 * @example kFlag('2') // 2
 */
export function kFlag(value: string | undefined, scheme: BlockScheme = DEFAULT_SCHEME): number {
  const max = guaranteedDistance(scheme)
  const n = value === undefined ? DEFAULT_K : /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN
  const min = OPTION_LIMITS.maxDistance.min
  if (Number.isInteger(n) && n >= min && n <= max) return n
  const custom = scheme.blocks !== DEFAULT_SCHEME.blocks || scheme.minMatch !== DEFAULT_SCHEME.minMatch
  const why = `k is how many of the 64 SimHash bits may differ; with ${scheme.blocks} blocks of which ${scheme.minMatch} must match${custom ? '' : ' (the default)'}, the index finds every pair up to ${max} bits apart, not beyond`
  const got = value === undefined ? `the default ${DEFAULT_K}` : `\`${value}\``
  throw new UsageError(`Expected --k to be an integer from ${min} to ${max}, got ${got}: ${why}.`)
}
