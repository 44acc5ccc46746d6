/** Where progress goes: a bar redrawn in place on a TTY, a line every few seconds otherwise. */
export interface ProgressOptions {
  write: (text: string) => void
  isTTY: boolean
  /** Total work units (bytes or docs) when known. */
  total?: number
  /** Seconds between log lines when not a TTY. @default 5 */
  intervalSeconds?: number
  label?: string
  /**
   * Milliseconds the work had already run when the display was made (created at the first
   * report, once the total is known): the rate and ETA count from the real start. @default 0
   */
  elapsedMs?: number
}

/**
 * Progress display for long runs.
 * @example const p = createProgress({ write: s => process.stderr.write(s), isTTY: true, total: size })
 */
export function createProgress(options: ProgressOptions) {
  const started = performance.now() - (options.elapsedMs ?? 0)
  const interval = (options.intervalSeconds ?? 5) * 1000
  let lastDraw = 0
  let done = 0
  let docs = 0
  const label = options.label ?? 'indexed'
  const render = (final: boolean): string => {
    const secs = (performance.now() - started) / 1000
    const rate = secs > 0 ? docs / secs : 0
    const total = options.total
    let line = `${label} ${docs.toLocaleString('en-US')} docs, ${Math.round(rate).toLocaleString('en-US')} docs/s`
    if (total !== undefined && total > 0) {
      const frac = Math.min(1, done / total)
      const eta = frac > 0 && !final ? (secs / frac) * (1 - frac) : 0
      if (options.isTTY) {
        const width = 24
        const filled = Math.round(frac * width)
        line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(frac * 100).toFixed(1)}% ${line}` + (final ? '' : `, ETA ${formatSeconds(eta)}`)
      } else {
        line = `${(frac * 100).toFixed(1)}% ${line}` + (final ? '' : `, ETA ${formatSeconds(eta)}`)
      }
    }
    return line
  }
  return {
    /** Records progress: `units` of the total done so far, `docCount` documents so far. */
    update(units: number, docCount: number) {
      done = units
      docs = docCount
      const now = performance.now()
      if (options.isTTY) {
        if (now - lastDraw > 100) {
          lastDraw = now
          options.write(`\r\x1b[2K${render(false)}`)
        }
      } else if (now - lastDraw > interval) {
        if (lastDraw !== 0 || now - started > interval) options.write(`${render(false)}\n`)
        lastDraw = now
      }
    },
    /** Clears the bar (TTY) so the summary starts on a clean line. */
    finish() {
      if (options.isTTY) options.write('\r\x1b[2K')
    },
    elapsedSeconds: () => (performance.now() - started) / 1000,
  }
}

/** `75` → `1m15s`. */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?'
  if (s < 60) return `${Math.round(s)}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m${String(Math.round(s % 60)).padStart(2, '0')}s`
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`
}
