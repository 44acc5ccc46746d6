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
    // The CLI is a shell over the public API: it imports the library only through src/index.ts and
    // src/elasticsearch/index.ts (that one as types, or from a lazily loaded command), never internals.
    files: ['src/cli/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [
          { group: ['../*', '!../index.js', '!../elasticsearch', '../elasticsearch/*', '!../elasticsearch/index.js'], message: 'The CLI imports the library through ../index.js (the public API) only.' },
          { group: ['../elasticsearch/index.js'], allowTypeImports: true, message: 'Load simdup/elasticsearch lazily (await import) so that commands without --es never load the client.' },
        ],
      }],
    },
  },
  {
    files: ['src/cli/commands/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['../../*', '!../../index.js', '!../../elasticsearch', '../../elasticsearch/*', '!../../elasticsearch/index.js', '!../../server', '../../server/*', '!../../server/index.js'], message: 'The CLI imports the library through ../../index.js, ../../elasticsearch/index.js and ../../server/index.js (the public entry points) only.' }],
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
