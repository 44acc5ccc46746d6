import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { createAnalyzer, DEFAULT_DEDUPLICATOR_OPTIONS, fingerprintToHex, type Analysis } from '../../index.js'
import {
  compareAnalyses, decideTexts, ruleEvidence, fingerprintBlocks, type Comparison, type Match, type MatchOptions, type RuleEvidence,
} from '../../internal.js'
import type { CliIO } from '../io.js'
import { InputError, UsageError, fsReason } from '../io.js'
import { parse, kFlag, DEFAULT_K, K_RANGE } from '../args.js'
import { analyzerOptionsFromFlags, ANALYZER_FLAGS, ANALYZER_HELP } from '../analyzer-flags.js'

export const FINGERPRINT_HELP = `simdup fingerprint <text | @file | -> [--json]

Prints the 64-bit SimHash of a text (16 hex digits).

  --json             also the index blocks, the short-text flag, the 20 heaviest terms with
                     their weights, and the fingerprint version
${ANALYZER_HELP}`

export const COMPARE_HELP = `simdup compare <a> <b> [--json] [--k ${DEFAULT_K}] [--no-minhash]

Compares two texts (each a literal text, @file, or - for stdin once) with the same decision
\`simdup index\` and \`simdup explain\` make (b as the later document): exact content, then the
simhash, short-text and minhash rules. Prints the verdict with its rule and evidence (distance,
resemblance), term overlap, and the heaviest shared / differing terms of the full term sets.
URLs and titles are not compared (\`simdup explain\` does, for stored documents).

  --k N              SimHash bits (of 64) that may differ: ${K_RANGE}; limits the simhash
                     and short-text rules, not the exact and minhash routes
  --no-minhash       leave out the MinHash route, as \`simdup index --no-minhash\`
  --json             one JSON object instead of text
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
      throw new InputError(`cannot read ${arg.slice(1)}: ${fsReason(err)}`)
    }
  }
  return arg
}

/** `simdup fingerprint`. */
export async function fingerprintCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, ...ANALYZER_FLAGS })
  if (values.help) return void io.stdout.write(FINGERPRINT_HELP + '\n'), 0
  if (positionals.length !== 1) throw new UsageError('Expected one text argument.')
  const analyzer = createAnalyzer(analyzerOptionsFromFlags(values, io))
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

/** `simdup compare`: the engine's decision for two texts, with its evidence. */
export async function compareCommand(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' }, k: { type: 'string' }, 'no-minhash': { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, ...ANALYZER_FLAGS })
  if (values.help) return void io.stdout.write(COMPARE_HELP + '\n'), 0
  if (positionals.length !== 2) throw new UsageError('Expected two texts.')
  if (positionals[0] === '-' && positionals[1] === '-') throw new UsageError('Only one of the two texts can come from stdin (-).')
  const k = kFlag(values.k)
  const analyzer = createAnalyzer(analyzerOptionsFromFlags(values, io))
  const a = analyzer.analyze(await readArg(positionals[0]!, io))
  const b = analyzer.analyze(await readArg(positionals[1]!, io))
  const c = compareAnalyses(a, b)
  const options: MatchOptions = {
    layers: { ...DEFAULT_DEDUPLICATOR_OPTIONS.layers, url: false, title: false },
    maxDistance: k,
    minhash: values['no-minhash'] !== true,
    minResemblance: DEFAULT_DEDUPLICATOR_OPTIONS.minResemblance,
    analyzer,
  }
  const match = decideTexts(a, b, analyzer, { maxDistance: k, minhash: options.minhash })
  const verdict = { nearDuplicate: match !== null, layer: match?.layer ?? null, rule: match?.rule ?? null, resemblance: match?.resemblance ?? null }
  // The rule the pair goes to, its resemblance and the effective threshold (margin included), matched or not.
  const evidence = ruleEvidence(b.sketch, a.sketch, options)
  if (values.json) {
    io.stdout.write(JSON.stringify({ ...c, k, ...verdict, evidence }) + '\n')
    return 0
  }
  const list = (terms: string[], n: number) => (terms.length === 0 ? '(none)' : terms.join(' ') + (n > terms.length ? ` (+${n - terms.length} more)` : ''))
  io.stdout.write(
    [
      `verdict      ${verdictText(match, k, c, a, b, evidence)}`,
      `distance     ${c.distance} (k = ${k})`,
      `a            ${c.a.simhash}  ${c.a.length} chars, ${c.a.terms} terms${c.a.short ? ', short' : ''}`,
      `b            ${c.b.simhash}  ${c.b.length} chars, ${c.b.terms} terms${c.b.short ? ', short' : ''}`,
      `term jaccard ${c.termJaccard.toFixed(3)}`,
      `shared       ${list(c.shared, c.counts.shared)}`,
      `only in a    ${list(c.onlyA, c.counts.onlyA)}`,
      `only in b    ${list(c.onlyB, c.counts.onlyB)}`,
    ].join('\n') + '\n',
  )
  return 0
}

function verdictText(match: Match | null, k: number, c: Comparison, a: Analysis, b: Analysis, e: RuleEvidence | null): string {
  const f = (x: number) => x.toFixed(2)
  if (match === null) {
    if (e === null) return a.short !== b.short || a.sketch?.slice(0, 2) !== b.sketch?.slice(0, 2) ? 'not duplicates (the two texts take different routes, short and long: only the same content would match)' : 'not duplicates'
    if (e.measure === 'bigram-jaccard') {
      if (e.veto === true) return `not duplicates (short texts that differ in a number, a negation or a word replaced; bigram Jaccard ${f(e.resemblance)}, containment ${f(e.containment!)})`
      return `not duplicates (short texts: bigram Jaccard ${f(e.resemblance)} < ${f(e.threshold)} and containment ${f(e.containment!)} < ${f(e.containmentThreshold!)}, or sizes too far apart)`
    }
    if (e.measure === 'term-jaccard') return `not duplicates (both short: needs distance ≤ ${k} and term Jaccard ≥ ${f(e.threshold)}; here ${c.distance} and ${f(e.resemblance)})`
    return `not duplicates (distance ${c.distance} > k = ${k}; estimated 5-gram resemblance ${f(e.resemblance)} < ${f(e.threshold)}, the threshold ${DEFAULT_DEDUPLICATOR_OPTIONS.minResemblance} with its margin for sparse sketches)`
  }
  if (match.layer === 'exact') return 'duplicates by the exact layer (same normalised content)'
  const evidence = match.rule === 'minhash'
    ? `estimated 5-gram resemblance ${f(match.resemblance!)} ≥ ${f(e?.threshold ?? DEFAULT_DEDUPLICATOR_OPTIONS.minResemblance)}, at any distance`
    : match.rule === 'containment'
      ? `short texts, bigram containment ${f(match.resemblance!)} ≥ ${f(e?.containmentThreshold ?? 0)}`
      : match.rule === 'short-text' && e?.measure === 'bigram-jaccard'
        ? `short texts, bigram Jaccard ${f(match.resemblance!)} ≥ ${f(e.threshold)}`
        : match.rule === 'short-text'
          ? `both short, distance ${match.distance} ≤ ${k}, term Jaccard ${f(match.resemblance!)} ≥ ${f(e?.threshold ?? 0.8)}`
          : `distance ${match.distance} ≤ k = ${k}`
  return `duplicates by the ${match.layer} layer, ${match.rule} rule (${evidence})`
}
