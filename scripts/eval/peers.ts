/**
 * Peer systems for the short-text kinds (issue 24): datasketch MinHashLSH on jieba word 3-grams
 * at threshold 0.5 (the best peer on short text in the held-out measure) and on character
 * 5-grams at 0.7 (`minhash_peer.py`, run in the eval's venv: `py-setup.sh`).
 */
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { EvalDecision, EvalDoc } from './systems.js'

/** The peers: name, shingles, LSH threshold. */
export const PEERS = [
  { name: 'minhash-word3@0.5', shingles: 'word3', threshold: 0.5 },
  { name: 'minhash-char5@0.7', shingles: 'char5', threshold: 0.7 },
] as const

const script = join(dirname(fileURLToPath(import.meta.url)), 'minhash_peer.py')

/**
 * What a newcomer feeds a peer: the text, and for an HTML page its text nodes (scripts and styles
 * dropped, each tag a line break, the five common entities decoded); the peers have no extractor.
 * @example textView('<p>甲</p><p>乙</p>') // → '甲\n乙'
 */
export function textView(content: string): string {
  if (!/<(?:html|body|p|div)[\s>]/i.test(content)) return content
  return content
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/gi, '')
    .replace(/<[^>]+>/g, '\n')
    .replace(/&(lt|gt|quot|#39|amp);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[e] ?? '')
    .split('\n').map((l) => l.trim()).filter((l) => l !== '').join('\n')
}

/** `word3:0.5`: how minhash_peer.py names a peer. */
const key = (peer: (typeof PEERS)[number]): string => `${peer.shingles}:${peer.threshold}`

/**
 * Runs every peer on `docs` in one Python process (Python, datasketch and jieba start once) and
 * returns each peer's decisions, by peer name.
 * @example (await runPeers(python, docs)).get('minhash-word3@0.5') // one decision per doc
 */
export function runPeers(python: string, docs: readonly EvalDoc[]): Promise<Map<string, EvalDecision[]>> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [script, ...PEERS.flatMap((p) => ['--peer', key(p)])], { stdio: ['pipe', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (s: string) => (out += s))
    child.on('error', reject)
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`minhash_peer.py exited with ${code}`))
      const rows = out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, string | null>)
      resolve(new Map(PEERS.map((p) => {
        const cluster = new Map<string, string>()
        return [p.name, rows.map((r) => {
          const id = r.id!
          const of = r[key(p)] ?? null
          const c = of === null ? id : (cluster.get(of) ?? of)
          cluster.set(id, c)
          return { id, duplicateOf: of, clusterId: c }
        })]
      })))
    })
    child.stdin.end(docs.map((d) => JSON.stringify({ id: d.id, content: textView(d.content) })).join('\n') + '\n')
  })
}
