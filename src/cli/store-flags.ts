import { resolve } from 'node:path'
import { openMemoryStore, type FingerprintStore, type BlockScheme } from '../index.js'
import type { CliIO } from './io.js'

export const STORE_FLAGS = {
  store: { type: 'string' },
} as const

export const STORE_HELP = `  --store DIR        embedded store directory (default ./.simdup)`

/** Opens the store the flags name: the embedded store in --store (default ./.simdup). */
export async function openStoreFromFlags(values: { store?: string | undefined }, io: CliIO): Promise<{ store: FingerprintStore; blockScheme?: BlockScheme }> {
  const dir = resolve(io.cwd, values.store ?? '.simdup')
  return { store: await openMemoryStore({ dir }) }
}
