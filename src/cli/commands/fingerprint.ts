import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { compareTexts } from '../../fingerprint/compare.js'
import { createAnalyzer } from '../../fingerprint/analyzer.js'
import { fingerprintToHex } from '../../fingerprint/hamming.js'
import { fingerprintBlocks } from '../../fingerprint/blocks.js'
import { fromPortable } from '../../engine/prepare-pool.js'
import type { CliIO } from '../io.js'
import { UsageError } from '../io.js'
import { parse } from '../args.js'
import { analyzerOptionsFromFlags, ANALYZER_FLAGS, ANALYZER_HELP } from '../analyzer-flags.js'

export const FINGERPRINT_HELP = `simdup fingerprint <text | @file | -> [--json]

Prints the 64-bit SimHash of a text (16 hex digits); --json adds blocks, short-text flag,
top-weighted terms and the fingerprint version.
${ANALYZER_HELP}`

export const COMPARE_HELP = `simdup compare <a> <b> [--json] [--k 3]

Compares two texts (each a literal text, @file, or - for stdin once): distance, whether they are
near-duplicates at --k, term overlap, and shared / differing top-weighted terms.
${ANALYZER_HELP}`

async function readArg(arg: string, io: CliIO): Promise<string> {
  if (arg === '-') {
    const parts: Buffer[] = []
    for await (const c of io.stdin) parts.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c))
    return Buffer.concat(parts).toString('utf8')
  }
  if (arg.startsWith('@')) {
    try {
      return readFileSync(resolve(io.cwd, arg.slice(1)), 'utf8')
    } catch (err) {
      throw new UsageError(`Cannot read ${arg.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
    }
  }
  return arg
}

/** `simdup fingerprint`. */
export async function fingerprintCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, ...ANALYZER_FLAGS })
  if (values.help) return void io.stdout.write(FINGERPRINT_HELP + '\n'), 0
  if (positionals.length !== 1) throw new UsageError(`Expected one text argument.\n\n${FINGERPRINT_HELP}`)
  const analyzer = createAnalyzer(fromPortable(analyzerOptionsFromFlags(values, io)))
  const a = analyzer.analyze(await readArg(positionals[0]!, io))
  const hex = fingerprintToHex(a.fingerprint)
  if (!values.json) {
    io.stdout.write(hex + '\n')
    return 0
  }
  const terms = [...a.terms].sort((x, y) => y.weight - x.weight).slice(0, 20).map((t) => ({ term: t.term, weight: Number(t.weight.toFixed(3)) }))
  io.stdout.write(JSON.stringify({ simhash: hex, blocks: fingerprintBlocks(a.fingerprint), short: a.short, length: a.normalized.length, terms, version: analyzer.version }) + '\n')
  return 0
}

/** `simdup compare`. */
export async function compareCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' }, k: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...ANALYZER_FLAGS })
  if (values.help) return void io.stdout.write(COMPARE_HELP + '\n'), 0
  if (positionals.length !== 2) throw new UsageError(`Expected two texts.\n\n${COMPARE_HELP}`)
  if (positionals[0] === '-' && positionals[1] === '-') throw new UsageError('Only one of the two texts can come from stdin (-).')
  const k = values.k === undefined ? 3 : Number(values.k)
  if (!Number.isInteger(k) || k < 0 || k > 64) throw new UsageError(`Expected --k to be an integer from 0 to 64, got \`${values.k}\`.`)
  const analyzer = createAnalyzer(fromPortable(analyzerOptionsFromFlags(values, io)))
  const c = compareTexts(analyzer, await readArg(positionals[0]!, io), await readArg(positionals[1]!, io))
  const nearDuplicate = c.sameContent || (c.distance <= k && (!(c.a.short || c.b.short) || (c.a.short && c.b.short && c.termJaccard >= analyzer.shortText.minJaccard)))
  if (values.json) {
    io.stdout.write(JSON.stringify({ ...c, k, nearDuplicate }) + '\n')
    return 0
  }
  const rule = c.a.short || c.b.short ? `short-text rule (both short, term Jaccard ≥ ${analyzer.shortText.minJaccard})` : 'simhash rule'
  io.stdout.write(
    [
      `distance     ${c.distance} (k = ${k}) → ${c.sameContent ? 'exact duplicate (same normalised content)' : nearDuplicate ? 'near-duplicate' : 'not duplicates'}, ${rule}`,
      `a            ${c.a.simhash}  ${c.a.length} chars, ${c.a.terms} terms${c.a.short ? ', short' : ''}`,
      `b            ${c.b.simhash}  ${c.b.length} chars, ${c.b.terms} terms${c.b.short ? ', short' : ''}`,
      `term jaccard ${c.termJaccard.toFixed(3)}`,
      `shared       ${c.shared.join(' ')}`,
      `only in a    ${c.onlyA.join(' ')}`,
      `only in b    ${c.onlyB.join(' ')}`,
    ].join('\n') + '\n',
  )
  return 0
}
