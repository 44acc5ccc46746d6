/**
 * Peer systems for the short-text kinds (issue 24): datasketch MinHashLSH on jieba word 3-grams
 * at threshold 0.5 (the best peer on short text in the held-out measure) and on character
 * 5-grams at 0.7 (`minhash_peer.py`, run in the eval's venv: `py-setup.sh`).
 */
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { EvalDecision, EvalSystem } from './systems.js'

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

/**
 * One peer as an EvalSystem (one Python process per run).
 * @example await createPeerSystem(python, PEERS[0]).run(docs)
 */
export function createPeerSystem(python: string, peer: (typeof PEERS)[number]): EvalSystem {
  return {
    name: peer.name,
    run(docs) {
      return new Promise<EvalDecision[]>((resolve, reject) => {
        const child = spawn(python, [script, '--shingles', peer.shingles, '--threshold', String(peer.threshold)], { stdio: ['pipe', 'pipe', 'inherit'] })
        let out = ''
        child.stdout.setEncoding('utf8')
        child.stdout.on('data', (s: string) => (out += s))
        child.on('error', reject)
        child.on('close', (code) => {
          if (code !== 0) return reject(new Error(`minhash_peer.py (${peer.name}) exited with ${code}`))
          const rows = out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { id: string; duplicateOf: string | null })
          const cluster = new Map<string, string>()
          resolve(rows.map((r) => {
            const c = r.duplicateOf === null ? r.id : (cluster.get(r.duplicateOf) ?? r.duplicateOf)
            cluster.set(r.id, c)
            return { id: r.id, duplicateOf: r.duplicateOf, clusterId: c }
          }))
        })
        child.stdin.end(docs.map((d) => JSON.stringify({ id: d.id, content: textView(d.content) })).join('\n') + '\n')
      })
    },
  }
}
