export type { FingerprintStore } from './store.js'
export * from './embedded/index.js'
