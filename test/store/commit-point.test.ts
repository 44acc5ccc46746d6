/**
 * The commit point (store.log.commit, issue 26): damage to what a writer acknowledged (a flipped
 * byte in the last frame of a closed store, a cut at a frame boundary) is an error naming what is
 * lost, never cut as a torn write; header damage names no repair. (Torn writes that were never
 * acknowledged: log-integrity.test.ts.)
 */
import { mkdtemp, readFile, rm, truncate } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { checkMemoryStore, openMemoryStore, repairMemoryStore } from '../../src/store/embedded/store.js'
import { flipByte, writeFrames } from './_damaged-log.js'

const dirs: string[] = []
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true })
})

/** A closed store in a new directory written as `frames` puts of 10 records; each frame's end offset. */
async function storeOfFrames(frames: number): Promise<{ dir: string; log: string; ends: number[] }> {
  const dir = await mkdtemp(join(tmpdir(), 'simdup-commit-'))
  dirs.push(dir)
  return writeFrames(dir, frames)
}

describe('commit point: acknowledged data damaged or cut is an error, not a torn write', () => {
  test('a flipped byte in the last frame of a store whose writer closed: STORE_CORRUPT naming the acknowledged entries lost; nothing cut until repair', async () => {
    const { dir, log, ends } = await storeOfFrames(2)
    const damaged = await flipByte(log, ends[1]! - 5)
    const lost = new RegExp(`lost acknowledged data: the last frame fails its checksum at byte offset ${ends[0]}\\b.*${ends[1]! - ends[0]!} acknowledged byte\\(s\\) holding 10 acknowledged entries.*simdup store repair`)
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'STORE_CORRUPT', message: expect.stringMatching(lost) })
    await expect(openMemoryStore({ dir, readOnly: true })).rejects.toMatchObject({ code: 'STORE_CORRUPT', message: expect.stringMatching(lost) })
    expect(await readFile(log)).toEqual(damaged)
    expect((await checkMemoryStore(dir)).damage).toMatchObject({ offset: ends[0], tail: true, acknowledged: { bytes: ends[1]! - ends[0]!, entries: 10 } })
    const repaired = await repairMemoryStore(dir)
    expect(repaired.damage).toMatchObject({ cut: true, acknowledged: { entries: 10 } })
    const store = await openMemoryStore({ dir })
    expect(await store.count()).toBe(10)
    await store.close()
  })

  test('a log cut at a frame boundary is not "damage none": the acknowledged bytes and entries missing are named; repair accepts the cut', async () => {
    const { dir, log, ends } = await storeOfFrames(3)
    await truncate(log, ends[1]!)
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'STORE_CORRUPT', message: expect.stringMatching(new RegExp(`log ends at byte ${ends[1]}, but its commit point says ${ends[2]} bytes were acknowledged.*holding 10 acknowledged entries`)) })
    expect(await checkMemoryStore(dir)).toMatchObject({ fileBytes: ends[1], validBytes: ends[1], records: 20, damage: { offset: ends[1], bytes: 0, acknowledged: { bytes: ends[2]! - ends[1]!, entries: 10 } } })
    await repairMemoryStore(dir)
    expect((await checkMemoryStore(dir)).damage).toBeNull()
    const store = await openMemoryStore({ dir })
    expect(await store.count()).toBe(20)
    await store.close()
  })

  test('damage to the file header names no repair (a repair could not read the log either)', async () => {
    const { dir, log } = await storeOfFrames(1)
    await flipByte(log, 2)
    const err = await openMemoryStore({ dir }).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'STORE_CORRUPT', message: expect.stringMatching(/header is damaged.*cannot fix that: restore a backup/) })
    expect((err as Error).message).not.toMatch(/store repair` keeps/)
    await expect(repairMemoryStore(dir)).rejects.toMatchObject({ code: 'STORE_CORRUPT' })
  })
})
