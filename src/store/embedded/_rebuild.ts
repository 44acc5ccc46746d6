import type { LayoutRegistry } from './_block-layout.js'
import { ByteWriter, encodeLayout } from './_codec.js'
import { FRAME_HEADER_BYTES, HEADER_BYTES } from './_log-format.js'
import type { Tables } from './_tables.js'

/** Entries per frame when compaction rewrites the log. */
const COMPACT_FRAME_BYTES = 1 << 20

/**
 * Fills `fresh` with the live rows of `old`, each passed through the same encode → apply path as a put,
 * yielding the frames (the new log's payloads) as it goes.
 */
export function* rebuildFrames(old: Tables, fresh: Tables, layouts: LayoutRegistry): Generator<Buffer> {
  const tops = old.keyTops()
  // Where the next frame's payload will sit in the new log (see LogFile.rewrite).
  let fileOffset = HEADER_BYTES + FRAME_HEADER_BYTES
  const w = new ByteWriter(COMPACT_FRAME_BYTES + 4096)
  layouts.layouts.forEach((l, id) => encodeLayout(w, id, l.widths, l.padded))
  for (let row = 0; row <= old.rows; row++) {
    if (row < old.rows) {
      if (!old.isLive(row)) continue
      old.encodeRow(row, w, tops)
      if (w.pos < COMPACT_FRAME_BYTES) continue
    }
    if (w.pos === 0) continue
    const frame = Buffer.from(w.view())
    w.pos = 0
    fresh.applyEntries(frame, 0, frame.length, fileOffset, true)
    fileOffset += frame.length + FRAME_HEADER_BYTES
    yield frame
  }
}
