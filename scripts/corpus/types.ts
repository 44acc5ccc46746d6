/** Which Debian package family a corpus document came from. */
export type CorpusSource = 'manpages-zh' | 'libreoffice-help' | 'debian-reference'

/** Script of a corpus document, from the package's locale (zh-CN → simplified, zh-TW → traditional). */
export type CorpusLang = 'zh_CN' | 'zh_TW'

/**
 * One plain-text document of the evaluation corpus (a line of `.cache/corpus/docs.jsonl`).
 * @example { id: 'man/zh_CN/man1/ls.1', source: 'manpages-zh', lang: 'zh_CN', title: 'ls(1) - 列出目录内容', content: '名称\nls - 列出目录内容\n…' }
 */
export interface CorpusDoc {
  /** Stable id derived from the file path (and section anchor for split documents). */
  id: string
  source: CorpusSource
  lang: CorpusLang
  title: string
  content: string
}
