import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Repository root (two levels above this file). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * Gitignored cache folder of the corpus: downloaded `.deb`s, extracted trees and `docs.jsonl`.
 * `SIMDUP_CORPUS_DIR` puts it elsewhere (e.g. an empty folder, to check that a suite never reads it).
 * @default .cache/corpus
 */
export const CORPUS_CACHE_DIR = process.env.SIMDUP_CORPUS_DIR || join(REPO_ROOT, '.cache', 'corpus')

/** The built corpus, one JSON `CorpusDoc` per line. */
export const CORPUS_DOCS_PATH = join(CORPUS_CACHE_DIR, 'docs.jsonl')
