import { DedupError } from '../errors.js'

/**
 * The @elastic/elasticsearch module: the only runtime import of the client in simdup (the other
 * files import its types alone). It is an optional peer dependency, so an install without it is
 * refused here with what to install, instead of Node's bare "Cannot find package".
 * @example const client = new elastic.Client({ node })
 */
export const elastic: typeof import('@elastic/elasticsearch') = await import('@elastic/elasticsearch').catch((err: unknown) => {
  const code = (err as { code?: unknown } | null)?.code
  if (code !== 'ERR_MODULE_NOT_FOUND' || !String((err as Error).message).includes("'@elastic/elasticsearch'")) throw err
  throw new DedupError(
    'INVALID_OPTION',
    'simdup/elasticsearch needs the package @elastic/elasticsearch, an optional peer dependency of simdup that is not installed: ' +
      'npm install @elastic/elasticsearch@8',
    { cause: err },
  )
})
