import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', '.cache/', 'scripts/es/target/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ['scripts/kibana-import'], languageOptions: { sourceType: 'module' } },
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', performance: 'readonly', AbortController: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/ban-ts-comment': 'error',
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
