/**
 * Puts `value + 1` into the first free slot from `hash` on (linear probing; 0 marks a free slot).
 * The open-addressing tables of the term table and the run memo share it; their lookups stay
 * inline in their own hot loops.
 */
export function placeSlot(slots: Int32Array, hash: number, value: number): void {
  const mask = slots.length - 1
  let s = hash & mask
  while (slots[s] !== 0) s = (s + 1) & mask
  slots[s] = value + 1
}
