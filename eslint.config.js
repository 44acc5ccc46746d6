import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', '.cache/', 'scripts/es/target/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['scripts/kibana-import'], languageOptions: { sourceType: 'module' } },
  // The inspector page's script runs in the browser (served by simdup serve).
  { files: ['assets/**/*.js'], languageOptions: { sourceType: 'script', globals: { document: 'readonly', window: 'readonly', location: 'readonly', sessionStorage: 'readonly', fetch: 'readonly', URLSearchParams: 'readonly', encodeURIComponent: 'readonly' } } },
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', performance: 'readonly', AbortController: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/ban-ts-comment': 'error',
    },
  },
  {
    // A leading `_` marks a file internal to its folder: no other folder imports it (a file shared
    // across folders is a public module of its folder, without the `_`).
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../**/_*', './*/**/_*'], message: "A `_` file is internal to its folder: import its folder's public modules instead (or make the shared file one)." }],
      }],
    },
  },
  {
    // The CLI is a shell over the library's entry points: src/index.ts (the public API), src/internal.ts
    // (what the CLI and server share beyond it) and src/elasticsearch/{index,internal}.ts (as types, or
    // from a lazily loaded command), never other modules.
    files: ['src/cli/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['../*', '!../index.js', '!../internal.js', '!../elasticsearch', '../elasticsearch/*', '!../elasticsearch/index.js', '!../elasticsearch/internal.js'], message: 'The CLI imports the library through ../index.js and ../internal.js only.' },
          { group: ['../elasticsearch/index.js', '../elasticsearch/internal.js'], allowTypeImports: true, message: 'Load simdup/elasticsearch lazily (await import) so that commands without --es never load the client.' },
        ],
      }],
    },
  },
  {
    files: ['src/cli/commands/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../../*', '!../../index.js', '!../../internal.js', '!../../elasticsearch', '../../elasticsearch/*', '!../../elasticsearch/index.js', '!../../elasticsearch/internal.js', '!../../server', '../../server/*', '!../../server/index.js'], message: 'The CLI imports the library through ../../index.js, ../../internal.js, ../../elasticsearch/{index,internal}.js and ../../server/index.js (the entry points) only.' }],
      }],
    },
  },
  {
    // Tests outside test/corpus run offline on any OS: they never load (or build) the Debian corpus.
    files: ['test/**/*.ts'],
    ignores: ['test/corpus/**', 'test/bench/**'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/scripts/corpus/load*', '**/scripts/corpus/build*', '**/scripts/corpus/packages*'], message: 'The corpus (apt-get, network) is for tests in test/corpus/ only.' }],
      }],
    },
  },
)
