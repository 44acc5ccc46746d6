// A stand-in for a test runner (test/store/serve-children.test.ts): starts `simdup serve` through
// the test helper, prints its pid, then waits to be killed (argv[3] `kill`) or exits without
// stopping it (argv[3] `exit`).
import { startServe } from '../helpers/serve.js'

const s = await startServe(['--store', 'store'], { cwd: process.argv[2]! })
process.stdout.write(`${s.proc.pid}\n`)
if (process.argv[3] === 'exit') process.exit(0)
setInterval(() => {}, 60_000)
