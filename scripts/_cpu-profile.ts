/**
 * Self time of V8 CPU profiles (`node --cpu-prof`: one `.cpuprofile` per thread) by stage of the
 * simdup pipeline, from each sample's function and file:
 *
 *   npx tsx scripts/_cpu-profile.ts DIR
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

interface ProfileNode { id: number; callFrame: { functionName: string; url: string }; children?: number[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/** The stage a function belongs to, by its file (this package's src/ or dist/ folder, or a dependency). */
export function stageOf(functionName: string, url: string): string {
  if (functionName === '(garbage collector)') return 'GC'
  if (functionName === '(idle)') return 'idle'
  if (functionName === '(program)') return 'program (V8/native, unattributed)'
  const own = /\/(?:src|dist)\/([\w-]+)\//.exec(url)
  if (own !== null && !url.includes('node_modules')) {
    const part = own[1]!
    if (part === 'elasticsearch') return 'simdup: elasticsearch store (request building, response parsing)'
    if (part === 'segment') return 'simdup: segment'
    return `simdup: ${part}`
  }
  if (url.includes('@node-rs/jieba') || url.includes('jieba')) return 'simdup: segment'
  if (url.includes('@elastic/transport') || url.includes('@elastic/elasticsearch')) return 'client: @elastic transport (serialize, deserialize)'
  if (url.includes('undici')) return 'client: undici (HTTP)'
  if (url.includes('secure-json-parse')) return 'client: JSON parse (secure-json-parse)'
  if (url.includes('node_modules')) return `dependency: ${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1] ?? url}`
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`
  if (url === '') {
    if (/^(parse|stringify)$/.test(functionName)) return `JSON.${functionName}`
    return 'builtin (no file)'
  }
  return 'other'
}

/** Milliseconds of self time by stage, per profile file, as a markdown table. */
export function summarizeProfiles(dir: string): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort()
  const rows: string[] = []
  const all = new Map<string, number>()
  let total = 0
  for (const f of files) {
    const p = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Profile
    const byId = new Map(p.nodes.map((n) => [n.id, n]))
    const ms = new Map<string, number>()
    p.samples.forEach((id, i) => {
      const node = byId.get(id)!
      const stage = stageOf(node.callFrame.functionName, node.callFrame.url)
      ms.set(stage, (ms.get(stage) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000)
    })
    const busy = [...ms].filter(([s]) => s !== 'idle').reduce((a, [, v]) => a + v, 0)
    rows.push(`${f}: ${(busy / 1000).toFixed(1)} s busy of ${((p.endTime - p.startTime) / 1e6).toFixed(1)} s`)
    for (const [s, v] of ms) if (s !== 'idle') all.set(s, (all.get(s) ?? 0) + v)
    total += busy
  }
  const table = ['| stage (all threads) | CPU s | share |', '|---|---|---|']
  for (const [s, v] of [...all].sort((a, b) => b[1] - a[1])) {
    if (v / total < 0.005) continue
    table.push(`| ${s} | ${(v / 1000).toFixed(2)} | ${((100 * v) / total).toFixed(1)} % |`)
  }
  return `${rows.join('\n')}\n\n${table.join('\n')}`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(summarizeProfiles(process.argv[2] ?? '.'))
