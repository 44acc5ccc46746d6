#!/usr/bin/env node
// The compiled CLI (npm ci runs `prepare`, which builds dist/). From a checkout without a build,
// run `npx tsx src/cli/main.ts` instead.
import { main } from '../dist/cli/main.js'

await main()
