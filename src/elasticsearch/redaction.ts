// Keeping credentials out of messages: the store's secrets in every form, and node URLs without them.

/** Credentials the store was given, in every form they could show up in text. */
export class Redactor {
  private readonly secrets: string[]

  /** @param secrets passwords, API keys, `user:pass` pairs; their base64 forms are added. */
  constructor(secrets: readonly (string | undefined | null)[]) {
    const all = new Set<string>()
    for (const s of secrets) {
      // Very short "secrets" would redact ordinary words; such credentials are not worth hiding.
      if (typeof s !== 'string' || s.length < 3) continue
      all.add(s)
      all.add(encodeURIComponent(s))
      all.add(Buffer.from(s).toString('base64'))
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...all].sort((a, b) => b.length - a.length)
  }

  /** `text` with every known secret and any `user:password@` in a URL replaced. */
  text(text: string): string {
    let out = text.replace(/(\/\/)[^/@\s]*:[^/@\s]*@/g, '$1[redacted]@')
    for (const s of this.secrets) out = out.split(s).join('[redacted]')
    return out
  }

  /**
   * Redacts `err` and its causes in place (message and stack), so logging the error, inspecting
   * it or printing its cause chain never shows a credential. The client already masks its own
   * `authorization` headers; this also covers messages that quote a URL or a key.
   */
  error<T>(err: T): T {
    const seen = new Set<unknown>()
    let e: unknown = err
    while (e instanceof Error && !seen.has(e)) {
      seen.add(e)
      const message = this.text(e.message)
      if (message !== e.message) e.message = message
      if (typeof e.stack === 'string') {
        const stack = this.text(e.stack)
        if (stack !== e.stack) e.stack = stack
      }
      e = e.cause
    }
    return err
  }
}

/** The node URL without credentials, for messages. @example displayUrl('http://u:p@h:9200/') // 'http://h:9200' */
export function displayUrl(node: string): string {
  try {
    const u = new URL(node)
    u.username = ''
    u.password = ''
    return u.origin + (u.pathname === '/' ? '' : u.pathname)
  } catch {
    return new Redactor([]).text(node)
  }
}
