import { defineConfig } from 'vitest/config'

// One project per test folder, by what it needs (docs/DEVELOPING.md): `vitest run --project unit`.
export default defineConfig({
  test: {
    // Every run: rebuild dist/ and data/idf.bin when older than their sources (test/setup/build.ts).
    globalSetup: ['test/setup/build.ts'],
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // Benchmarks belong to the bench project only (each project would collect them again).
    benchmark: { include: [] },
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary'],
      thresholds: { lines: 80, functions: 80, branches: 70, statements: 80 },
    },
    projects: [
      // Offline, any OS: the library in-process, hand-written and generated inputs.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      // The Debian corpus in .cache/corpus, built on first use (apt-get, network).
      { extends: true, test: { name: 'corpus', include: ['test/corpus/**/*.test.ts'] } },
      // The embedded store: contract, crash and rerun tests with child processes (tsx, bin/).
      { extends: true, test: { name: 'store', include: ['test/store/**/*.test.ts'] } },
      // A real Elasticsearch node: ES_URL, or one started once for the run and stopped after it.
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], globalSetup: ['test/setup/elasticsearch.ts'] } },
      // Micro-benchmarks, `npx vitest bench test/bench/…`; not part of `npm test`.
      { extends: true, test: { name: 'bench', include: [], benchmark: { include: ['test/bench/**/*.bench.ts'] } } },
    ],
  },
})
