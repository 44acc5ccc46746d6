import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'

// Read as text on purpose: the project has no YAML parser among its dependencies, and these
// checks are about single lines. (The file was also parsed with PyYAML when written.)
const COMPOSE = readFileSync(new URL('../../../docker-compose.yml', import.meta.url), 'utf8')
// The client's supported range: an optional peer dependency (an embedded-only install has none).
const CLIENT = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { peerDependencies: Record<string, string> }).peerDependencies['@elastic/elasticsearch']!
const POM = readFileSync(new URL('../../../scripts/es/pom.xml', import.meta.url), 'utf8')

const lines = COMPOSE.split('\n').filter((l) => !l.trimStart().startsWith('#'))

describe('docker-compose.yml', () => {
  test('Elasticsearch and Kibana default to the same version: the launcher\'s, on the client\'s major.minor', () => {
    const images = lines.flatMap((l) => [...l.matchAll(/image: docker\.elastic\.co\/(elasticsearch\/elasticsearch|kibana\/kibana):\$\{STACK_VERSION:-([\d.]+)\}/g)])
    // The single node, Kibana, and the first node of the three-node `cluster` profile (the other two reuse its definition).
    expect(images.map((m) => m[1])).toEqual(['elasticsearch/elasticsearch', 'kibana/kibana', 'elasticsearch/elasticsearch'])
    const versions = new Set(images.map((m) => m[2]))
    expect(versions.size).toBe(1)
    const [version] = [...versions] as [string]
    expect(POM).toContain(`<es.version>${version}</es.version>`)
    // "^8.19.2" → "8.19": the server must speak what the client speaks.
    expect(version.split('.').slice(0, 2).join('.')).toBe(CLIENT.replace(/^[^\d]*/, '').split('.').slice(0, 2).join('.'))
  })

  test('every published port is bound to 127.0.0.1', () => {
    const ports = lines.filter((l) => /^\s+- "[^"]*:\d+"$/.test(l))
    expect(ports).toHaveLength(5) // elasticsearch, kibana, the cluster profile's three nodes
    for (const p of ports) expect(p).toMatch(/- "127\.0\.0\.1:\$\{[A-Z0-9_]+:-\d+\}:\d+"$/)
  })

  test('security is off only with the warning, and both services have healthchecks and volumes', () => {
    const security = lines.filter((l) => l.includes('xpack.security.enabled='))
    expect(security).toHaveLength(4) // the single node and the cluster profile's three
    for (const l of security) expect(l).toBe('      - xpack.security.enabled=false')
    expect(COMPOSE).toContain('SECURITY IS OFF')
    expect(lines.filter((l) => /^\s+healthcheck:$/.test(l))).toHaveLength(3) // es-c2 and es-c3 inherit es-c1's
    expect(COMPOSE).toMatch(/- esdata:\/usr\/share\/elasticsearch\/data/)
    expect(COMPOSE).toMatch(/- kibanadata:\/usr\/share\/kibana\/data/)
    expect(COMPOSE).toMatch(/ES_JAVA_OPTS=-Xms\$\{ES_HEAP:-1g\} -Xmx\$\{ES_HEAP:-1g\}/)
  })
})
