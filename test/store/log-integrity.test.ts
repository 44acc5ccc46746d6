import { readFile, readdir, stat, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { checkMemoryStore, openMemoryStore, repairMemoryStore } from '../../src/store/embedded/store.js'
import { LOG_FILE } from '../../src/store/embedded/_log-format.js'
import { forgetLastCommit } from '../../src/store/embedded/_commit-point.js'
import { LOCK_FILE } from '../../src/store/lock.js'
import { flipByte, records, writeFrames } from './_damaged-log.js'
import { tempDirs } from '../helpers/temp-dir.js'

const tempDir = tempDirs('simdup-log-')

/** A store in a new directory written as `frames` puts of 10 records; returns the dir and each frame's end offset. */
async function storeOfFrames(frames: number): Promise<{ dir: string; log: string; ends: number[] }> {
  return writeFrames(await tempDir(), frames)
}

async function listing(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort()
}

describe('the store log: damage is reported, read-only opens write nothing, repair keeps the valid prefix', () => {
  test('a read-only open writes nothing (no lock, no truncation) and reports a damaged last frame: bytes and records not read', async () => {
    const { dir, log, ends } = await storeOfFrames(2)
    await forgetLastCommit(dir) // a torn write: its writer died before acknowledging it
    const damaged = await flipByte(log, ends[1]! - 5) // in the last frame's payload: its checksum fails
    const before = await listing(dir)
    const store = await openMemoryStore({ dir, readOnly: true })
    expect(await listing(dir)).toEqual(before) // no LOCK file while open
    expect(before).not.toContain(LOCK_FILE)
    expect(await store.count()).toBe(10)
    expect(store.stats().damage).toEqual({
      path: log, offset: ends[0], bytes: ends[1]! - ends[0]!, records: 10, reason: 'the last frame fails its checksum', tail: true, cut: false, savedTo: null, acknowledged: null,
    })
    await expect(store.put(records(50, 51))).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', message: expect.stringMatching(/read-only/) })
    await expect(store.delete(['doc-1'])).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' })
    await store.close()
    expect(await readFile(log)).toEqual(damaged)
    expect(await listing(dir)).toEqual(before)
  })

  test('a writable open cuts a torn tail, reports it and keeps the cut bytes in store.log.cut-<offset>', async () => {
    const { dir, log, ends } = await storeOfFrames(2)
    await forgetLastCommit(dir)
    const damaged = await flipByte(log, ends[1]! - 5)
    const store = await openMemoryStore({ dir })
    expect(await store.count()).toBe(10)
    const damage = store.stats().damage
    expect(damage).toMatchObject({ offset: ends[0], bytes: ends[1]! - ends[0]!, records: 10, tail: true, cut: true, savedTo: `${log}.cut-${ends[0]}` })
    expect(await readFile(damage!.savedTo!)).toEqual(damaged.subarray(ends[0]!))
    expect((await stat(log)).size).toBe(ends[0])
    await store.close()
  })

  test('a log damaged mid-file: STORE_CORRUPT on open pointing to repair; check writes nothing; repair keeps the prefix and a copy of the whole log', async () => {
    const { dir, log, ends } = await storeOfFrames(3)
    const damaged = await flipByte(log, ends[1]! - 5) // the second of three frames
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'STORE_CORRUPT', message: expect.stringMatching(new RegExp(`offset ${ends[0]}\\b.*simdup store repair`)) })
    await expect(openMemoryStore({ dir, readOnly: true })).rejects.toMatchObject({ code: 'STORE_CORRUPT' })

    const checked = await checkMemoryStore(dir)
    expect(checked).toEqual({
      dir, fileBytes: ends[2], validBytes: ends[0], records: 10,
      damage: { path: log, offset: ends[0], bytes: ends[2]! - ends[0]!, records: 10, reason: 'frame checksum mismatch', tail: false, cut: false, savedTo: null, acknowledged: { bytes: ends[2]! - ends[0]!, entries: 20 } },
    })
    expect(await readFile(log)).toEqual(damaged)
    expect(await listing(dir)).not.toContain(LOCK_FILE)

    const repaired = await repairMemoryStore(dir)
    expect(repaired.damage).toMatchObject({ offset: ends[0], bytes: ends[2]! - ends[0]!, cut: true, savedTo: expect.stringContaining(`${LOG_FILE}.before-repair-`) })
    expect(await readFile(repaired.damage!.savedTo!)).toEqual(damaged)
    expect((await stat(log)).size).toBe(ends[0])
    expect((await checkMemoryStore(dir)).damage).toBeNull()
    const store = await openMemoryStore({ dir })
    expect(await store.count()).toBe(10)
    expect([...(await store.get(['doc-0', 'doc-9', 'doc-10'])).keys()]).toEqual(['doc-0', 'doc-9'])
    await store.close()
  })

  test('a missing store.log is an error where the directory holds other files, and never creates anything when opened read-only', async () => {
    const { dir, log } = await storeOfFrames(1)
    await unlink(log)
    await expect(openMemoryStore({ dir })).rejects.toMatchObject({ code: 'STORE_CORRUPT', message: expect.stringMatching(/store\.log is missing/) })
    await expect(openMemoryStore({ dir, readOnly: true })).rejects.toMatchObject({ code: 'STORE_CORRUPT' })
    await expect(stat(log)).rejects.toMatchObject({ code: 'ENOENT' })

    const foreign = await tempDir()
    await writeFile(join(foreign, 'notes.txt'), 'not a store')
    await expect(openMemoryStore({ dir: foreign })).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/notes\.txt/) })
    await expect(openMemoryStore({ dir: foreign, readOnly: true })).rejects.toMatchObject({ code: 'NOT_FOUND' })
    expect(await listing(foreign)).toEqual(['notes.txt'])

    const absent = join(await tempDir(), 'typo')
    await expect(openMemoryStore({ dir: absent, readOnly: true })).rejects.toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/does not exist/) })
    await expect(checkMemoryStore(absent)).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(repairMemoryStore(absent)).rejects.toMatchObject({ code: 'NOT_FOUND' })
    await expect(stat(absent)).rejects.toMatchObject({ code: 'ENOENT' })

    // A new or empty directory still becomes a new store.
    const empty = await tempDir()
    const store = await openMemoryStore({ dir: empty })
    expect(await store.count()).toBe(0)
    await store.close()
  })
})
