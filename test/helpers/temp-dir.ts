import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

/**
 * A maker of fresh temporary directories named `<prefix>…` under the OS temp dir, all removed
 * after the test file (registers its own `afterAll`; call it at the top level of the file).
 * @example const tempDir = tempDirs('simdup-store-'); const dir = await tempDir()
 */
export function tempDirs(prefix: string): () => Promise<string> {
  const dirs: string[] = []
  afterAll(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
  })
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix))
    dirs.push(dir)
    return dir
  }
}
