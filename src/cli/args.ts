import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError } from './io.js'

type Options = NonNullable<ParseArgsConfig['options']>

/** parseArgs with usage errors instead of TypeErrors. */
export function parse<T extends Options>(args: string[], options: T): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true })
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

/** Integer flag within a range, or a usage error naming the flag. */
export function intFlag(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`Expected --${name} to be an integer from ${min} to ${max}, got \`${value}\`.`)
  return n
}
