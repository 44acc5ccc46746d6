// Run by `npm run build` (and `prepare`) after tsc: writes data/idf.bin, the binary form of
// data/idf.txt.gz that every analysing thread loads in milliseconds instead of parsing the text.
import { writeFileSync } from 'node:fs'
import { DEFAULT_IDF_FILES, packIdfFile } from '../dist/fingerprint/_data.js'

const pack = packIdfFile(DEFAULT_IDF_FILES)
writeFileSync(DEFAULT_IDF_FILES.pack, pack)
console.error(`data/idf.bin: ${(pack.length / 1e6).toFixed(1)} MB`)
