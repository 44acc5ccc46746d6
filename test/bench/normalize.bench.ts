/**
 * Normaliser throughput. Run: npx vitest bench --run test/bench/normalize.bench.ts
 * Each operation normalises a batch of ~900-character documents (the corpus median in
 * MEASURED.md); chars/s = ops/s × the batch size printed at start-up.
 */
import { bench, describe } from 'vitest'
import * as OpenCCcn2t from 'opencc-js/cn2t'
import * as OpenCCt2cn from 'opencc-js/t2cn'
import STPhrases from 'opencc-js/dict/STPhrases'
import { htmlToText, normalizeContent, normalizeText } from '../../src/normalize/index.js'

// opencc-js's full.d.ts imports './core' without an extension, which NodeNext cannot resolve,
// so its converters come out as `any`: name their type here.
type Convert = (text: string) => string

// Simplified text from OpenCC's phrase list (deterministic), with the Latin words, numbers and
// punctuation of technical documentation.
const words = STPhrases.split('|').map((e) => e.split(' ')[0]!).filter((w) => w.length > 0)
let seed = 42
const next = (n: number) => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff
  return seed % n
}
function simplifiedDoc(chars: number): string {
  let s = ''
  while (s.length < chars) {
    s += words[next(words.length)]!
    const r = next(20)
    if (r === 0) s += '，'
    else if (r === 1) s += '。\n'
    else if (r === 2) s += ` Linux ${next(100)}.${next(10)} `
    else if (r === 3) s += '（参见 man 1 ls）'
  }
  return s
}

const DOCS = 200
const plain = Array.from({ length: DOCS }, () => simplifiedDoc(900))
const toTaiwan: Convert = OpenCCcn2t.Converter({ from: 'cn', to: 'twp' })
const traditional = plain.map(toTaiwan)
const html = plain.map((doc, i) => `<!DOCTYPE html><html><head><title>文档 ${i}</title><script>var a = "<p>x</p>";</script>
<style>body { margin: 0 }</style></head><body><header class="site-header"><nav><a href="/">首页</a><a href="/docs">文档</a></nav></header>
<main><article><h1>标题 ${i}</h1>${doc.split('\n').map((p) => `<p>${p.replace(/&/g, '&amp;')}</p>`).join('\n')}</article></main>
<aside class="sidebar">相关文章</aside><footer>&copy; 2024 版权所有</footer></body></html>`)

const total = (docs: string[]) => docs.reduce((n, d) => n + d.length, 0)
console.log(`batch sizes (chars per op): plain ${total(plain)}, traditional ${total(traditional)}, html ${total(html)}`)

const twp: Convert = OpenCCt2cn.Converter({ from: 'twp', to: 'cn' })
// Warm the lazy tables and converters so start-up cost is not measured.
for (const d of [...plain.slice(0, 5), ...traditional.slice(0, 5)]) normalizeText(d)

describe('normalize', () => {
  bench('normalizeText: plain Simplified', () => {
    for (const d of plain) normalizeText(d)
  })
  bench('normalizeText: Traditional (Taiwan)', () => {
    for (const d of traditional) normalizeText(d)
  })
  bench('normalizeContent: HTML page', () => {
    for (const d of html) normalizeContent(d)
  })
  bench('htmlToText only: HTML page', () => {
    for (const d of html) htmlToText(d)
  })
  // Reference: what converting every document costs without the skip test.
  bench('reference: opencc twp on plain Simplified', () => {
    for (const d of plain) twp(d)
  })
  bench('reference: opencc twp on Traditional', () => {
    for (const d of traditional) twp(d)
  })
})
