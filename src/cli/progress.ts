/** Where progress goes: a bar redrawn in place on a TTY, a line every few seconds otherwise. */
export interface ProgressOptions {
  write: (text: string) => void
  isTTY: boolean
  /**
   * Total work units when known: documents, or bytes of input, of which `update` is told how many
   * are DECIDED (not merely read: input is read ahead of the decisions).
   */
  total?: number
  /** Seconds between log lines when not a TTY. @default 5 */
  intervalSeconds?: number
  label?: string
  /**
   * Milliseconds the work had already run when the display was made (created at the first
   * report, once the total is known): the rate and ETA count from the real start. @default 0
   */
  elapsedMs?: number
  /**
   * Seconds of recent work the ETA is estimated from: the rate of a long run drifts (a store that
   * grows, a slower part of the input), and the average since the start then under-estimates
   * what is left. @default 30
   */
  etaWindowSeconds?: number
  /** Clock in milliseconds, for tests. @default performance.now */
  now?: () => number
}

/** Smallest gap between two rate samples kept for the ETA, in milliseconds. */
const SAMPLE_MS = 1000
/** An ETA is marked unsure before this much of the run has passed (milliseconds)… */
const MIN_SURE_MS = 10_000
/** …or before this share of the work is done. */
const MIN_SURE_FRACTION = 0.02
/** …or when the recent rate and the whole run's differ by more than this factor (a rate that drifts). */
const UNSURE_RATIO = 1.5

/**
 * Progress display for long runs.
 * @example const p = createProgress({ write: s => process.stderr.write(s), isTTY: true, total: size })
 */
export function createProgress(options: ProgressOptions) {
  const clock = options.now ?? (() => performance.now())
  const started = clock() - (options.elapsedMs ?? 0)
  const interval = (options.intervalSeconds ?? 5) * 1000
  const windowMs = (options.etaWindowSeconds ?? 30) * 1000
  let lastDraw = 0
  let done = 0
  let docs = 0
  /**
   * (time, units done) about a second apart; the first is the newest one at least a window old
   * (the start until the run is that long), so the ETA's rate is that of the last window.
   */
  const samples: { t: number; units: number }[] = [{ t: started, units: 0 }]
  const label = options.label ?? 'indexed'
  /**
   * Seconds left at the rate of the last window (the whole run while it is shorter than that), and
   * why that is not to be trusted yet: too little of the run seen, or a rate that changed (the
   * last window's against the whole run's by more than `UNSURE_RATIO`), or no progress at all.
   */
  const eta = (now: number, total: number): { seconds: number; unsure: string | null } => {
    const base = samples[0]!
    const rate = (done - base.units) / ((now - base.t) / 1000)
    if (!(rate > 0)) return { seconds: Infinity, unsure: done > 0 ? 'no progress lately' : 'estimating' }
    const seconds = Math.max(0, total - done) / rate
    const overall = done / ((now - started) / 1000)
    if (now - started < MIN_SURE_MS || done / total < MIN_SURE_FRACTION) return { seconds, unsure: 'early' }
    if (rate > overall * UNSURE_RATIO || rate * UNSURE_RATIO < overall) return { seconds, unsure: 'rate changing' }
    return { seconds, unsure: null }
  }
  const etaText = (now: number, total: number): string => {
    const { seconds, unsure } = eta(now, total)
    if (!Number.isFinite(seconds)) return `, ETA unknown (${unsure})`
    return `, ETA ${formatSeconds(seconds)}${unsure === null ? '' : ` (unsure: ${unsure})`}`
  }
  const render = (final: boolean): string => {
    const now = clock()
    const secs = (now - started) / 1000
    const rate = secs > 0 ? docs / secs : 0
    const total = options.total
    let line = `${label} ${docs.toLocaleString('en-US')} docs, ${Math.round(rate).toLocaleString('en-US')} docs/s`
    if (total !== undefined && total > 0) {
      const frac = Math.min(1, done / total)
      const tail = final ? '' : etaText(now, total)
      if (options.isTTY) {
        const width = 24
        const filled = Math.round(frac * width)
        line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(frac * 100).toFixed(1)}% ${line}${tail}`
      } else {
        line = `${(frac * 100).toFixed(1)}% ${line}${tail}`
      }
    }
    return line
  }
  return {
    /** Records progress: `units` of the total done so far, `docCount` documents so far. */
    update(units: number, docCount: number) {
      done = units
      docs = docCount
      const now = clock()
      if (now - samples[samples.length - 1]!.t >= SAMPLE_MS) samples.push({ t: now, units })
      while (samples.length > 1 && now - samples[1]!.t >= windowMs) samples.shift()
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
    elapsedSeconds: () => (clock() - started) / 1000,
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
