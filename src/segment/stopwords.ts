/** Parses a stop-word list: one word a line, `#` comments, blank lines ignored. @example parseStopWords('的\n# x\nthe') // Set {'的','the'} */
export function parseStopWords(text: string): Set<string> {
  const out = new Set<string>()
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line !== '' && !line.startsWith('#')) out.add(line.toLowerCase())
  }
  return out
}
