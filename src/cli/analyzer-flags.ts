import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { AnalyzerOptions } from '../index.js'
import { parseStopWords, parseUserDict } from '../internal.js'
import type { CliIO } from './io.js'
import { InputError, fsReason } from './io.js'

export const ANALYZER_FLAGS = {
  'user-dict': { type: 'string' },
  'stop-words': { type: 'string' },
} as const

export const ANALYZER_HELP = `  --user-dict FILE   extra jieba words, one "word [freq]" a line
  --stop-words FILE  replace the shipped stop-word list (one word a line)`

function readText(path: string, flag: string, io: CliIO): string {
  try {
    return readFileSync(resolve(io.cwd, path), 'utf8')
  } catch (err) {
    throw new InputError(`cannot read --${flag} ${path}: ${fsReason(err)}`)
  }
}

/** Analyzer options from --user-dict / --stop-words (plain data: worker threads can rebuild them). */
export function analyzerOptionsFromFlags(values: { 'user-dict'?: string | undefined; 'stop-words'?: string | undefined }, io: CliIO): AnalyzerOptions {
  const opts: AnalyzerOptions = {}
  if (values['user-dict'] !== undefined) opts.userWords = parseUserDict(readText(values['user-dict'], 'user-dict', io))
  if (values['stop-words'] !== undefined) opts.stopWords = parseStopWords(readText(values['stop-words'], 'stop-words', io))
  return opts
}
