// The simdup inspector page: vanilla JS, no framework, no CDN. Every text from the server (ids,
// document texts, messages) goes into the page through textContent or text nodes, never HTML.
'use strict'

const $ = (id) => document.getElementById(id)

/** An element with attributes and children (strings become text nodes). */
function el(tag, attrs, ...children) {
  const node = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') node.className = v
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v)
    else node.setAttribute(k, v)
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(typeof c === 'string' || typeof c === 'number' ? String(c) : c)
  return node
}

function svgEl(tag, attrs) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag)
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v))
  return node
}

const hashFor = (...parts) => '#/' + parts.map(encodeURIComponent).join('/')

function showError(message) {
  const box = $('error')
  box.textContent = message
  box.hidden = message === ''
}

/** GET a JSON API path; a 401 shows the token form. */
async function api(path) {
  const headers = { accept: 'application/json' }
  const token = sessionStorage.getItem('simdup-token')
  if (token) headers.authorization = 'Bearer ' + token
  const res = await fetch(path, { headers })
  const body = await res.json().catch(() => ({ code: 'INTERNAL', message: res.statusText }))
  if (res.status === 401) $('token-form').hidden = false
  if (!res.ok) throw new Error(`${body.code}: ${body.message}`)
  return body
}

const fmt = (x, digits) => (x === null || x === undefined ? '–' : typeof x === 'number' && digits !== undefined ? x.toFixed(digits) : String(x))

async function loadClusters() {
  const { clusters, documents } = await api('/v1/clusters?top=50&min_size=2')
  $('store-size').textContent = `${documents} documents`
  const list = $('clusters')
  list.replaceChildren()
  for (const c of clusters) {
    list.append(el('li', {}, el('a', { href: hashFor('cluster', c.clusterId), 'data-cluster': c.clusterId }, c.clusterId), el('span', { class: 'size' }, `${c.size} members`)))
  }
  if (clusters.length === 0) list.append(el('li', { class: 'muted' }, 'No cluster with two or more members yet.'))
}

/** A bar chart of counts (SVG), labelled at its ends. */
function bars(title, counts, label) {
  const width = 300
  const height = 80
  const max = Math.max(1, ...counts)
  const w = width / counts.length
  const svg = svgEl('svg', { viewBox: `0 0 ${width} ${height + 14}`, width: '100%', role: 'img', 'aria-label': title })
  counts.forEach((n, i) => {
    const h = Math.round((n / max) * height)
    const rect = svgEl('rect', { x: i * w + 0.5, y: height - h, width: Math.max(1, w - 1), height: h })
    const tip = svgEl('title', {})
    tip.textContent = `${label(i)}: ${n}`
    rect.append(tip)
    svg.append(rect)
  })
  for (const [i, anchor] of [[0, 'start'], [counts.length - 1, 'end']]) {
    const t = svgEl('text', { x: anchor === 'start' ? 0 : width, y: height + 11, 'text-anchor': anchor })
    t.textContent = label(i)
    svg.append(t)
  }
  return el('figure', {}, el('figcaption', {}, title), svg)
}

async function loadHistogram() {
  const h = await api('/v1/histogram')
  const box = $('histogram')
  box.replaceChildren()
  const total = new Array(65).fill(0)
  for (const bins of Object.values(h.distance)) bins.forEach((n, i) => (total[i] += n))
  let last = total.length - 1
  while (last > 3 && total[last] === 0) last--
  box.append(el('p', { class: 'muted' }, `${h.duplicates} duplicates among ${h.documents} documents`))
  box.append(bars('Distance to what each duplicates (bits of 64)', total.slice(0, last + 1), (i) => String(i)))
  box.append(bars('MinHash resemblance to what each duplicates', h.resemblance, (i) => (i / 20).toFixed(2)))
}

async function showCluster(id) {
  const view = await api(`/v1/clusters/${encodeURIComponent(id)}`)
  const detail = $('detail')
  const rows = view.members.map((m) => {
    const pair = m.duplicateOf === null ? null : el('a', { href: hashFor('pair', m.duplicateOf, m.id), class: 'pair-link' }, 'side by side')
    return el('tr', { class: m.representative ? 'rep' : '', 'data-id': m.id },
      el('td', {}, el('a', { href: hashFor('doc', m.id) }, m.id)),
      el('td', {}, m.duplicateOf === null ? 'first' : m.duplicateOf),
      el('td', {}, fmt(m.layer)),
      el('td', {}, fmt(m.rule)),
      el('td', { class: 'num' }, fmt(m.distance)),
      el('td', { class: 'num' }, fmt(m.resemblance, 2)),
      el('td', { class: 'preview' }, m.preview === null ? '' : m.preview),
      el('td', { class: 'nowrap' }, pair))
  })
  detail.replaceChildren(...[
    el('h2', {}, `Cluster ${view.clusterId}`, el('span', { class: 'size' }, `${view.size} members`)),
    view.asked === view.clusterId ? null : el('p', { class: 'muted' }, `${view.asked} is a member of this cluster.`),
    el('table', { id: 'members' },
      el('thead', {}, el('tr', {}, ...['id', 'duplicate of', 'layer', 'rule', 'distance', 'resemblance', 'text', ''].map((h) => el('th', {}, h)))),
      el('tbody', {}, ...rows)),
    view.texts ? null : el('p', { class: 'muted' }, 'Texts are not kept: the store holds fingerprints only. Start simdup serve with --keep-texts (embedded store) to see members side by side.'),
  ].filter((c) => c !== null))
}

/** A text with its shared passages (sorted, non-overlapping spans) in <mark>. */
function marked(text, spans) {
  const box = el('div', { class: 'text' })
  let at = 0
  for (const [start, end] of spans) {
    if (start > at) box.append(text.slice(at, start))
    box.append(el('mark', {}, text.slice(start, end)))
    at = end
  }
  if (at < text.length) box.append(text.slice(at))
  return box
}

async function showPair(a, b) {
  const r = await api(`/v1/explain?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}&texts=true`)
  const verdict = r.duplicate ? `duplicates: ${r.layer} layer${r.rule ? `, ${r.rule} rule` : ''}` : 'not duplicates'
  const side = (id, text, spans) => el('div', {},
    el('h3', {}, el('a', { href: hashFor('doc', id) }, id)),
    text === null ? el('p', { class: 'muted' }, 'Text not kept.') : marked(text, spans))
  $('detail').replaceChildren(
    el('h2', { id: 'verdict' }, verdict),
    el('dl', {},
      el('dt', {}, 'distance'), el('dd', {}, `${r.distance} (k = ${r.k})`),
      el('dt', {}, 'resemblance'), el('dd', {}, fmt(r.resemblance, 2)),
      el('dt', {}, 'term jaccard'), el('dd', {}, fmt(r.termJaccard, 2)),
      el('dt', {}, 'same cluster'), el('dd', {}, String(r.sameCluster))),
    el('pre', {}, r.lines.join('\n')),
    el('div', { class: 'pair' },
      side(r.a, r.texts ? r.texts.a : null, r.passages ? r.passages.a : []),
      side(r.b, r.texts ? r.texts.b : null, r.passages ? r.passages.b : [])),
  )
}

async function showDocument(id) {
  const d = await api(`/v1/documents/${encodeURIComponent(id)}`)
  const dl = el('dl', {})
  for (const [k, v] of Object.entries(d)) dl.append(el('dt', {}, k), el('dd', {}, fmt(v)))
  $('detail').replaceChildren(el('h2', {}, `Document ${d.id}`), dl, el('p', {}, el('a', { href: hashFor('cluster', d.cluster_id) }, 'its cluster')))
}

async function route() {
  showError('')
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter((p) => p !== '').map(decodeURIComponent)
  try {
    if (parts[0] === 'cluster' && parts[1] !== undefined) await showCluster(parts[1])
    else if (parts[0] === 'pair' && parts.length === 3) await showPair(parts[1], parts[2])
    else if (parts[0] === 'doc' && parts[1] !== undefined) await showDocument(parts[1])
  } catch (err) {
    showError(err.message)
  }
}

async function start() {
  try {
    await loadClusters()
    await loadHistogram()
  } catch (err) {
    showError(err.message)
  }
  await route()
}

$('lookup').addEventListener('submit', (e) => {
  e.preventDefault()
  const id = $('lookup-id').value.trim()
  if (id !== '') location.hash = hashFor('cluster', id)
})
$('token-form').addEventListener('submit', (e) => {
  e.preventDefault()
  sessionStorage.setItem('simdup-token', $('token').value.trim())
  $('token-form').hidden = true
  start()
})
window.addEventListener('hashchange', route)
start()
