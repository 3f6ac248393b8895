// Writes dist/src/core/o200k_base.bin: gpt-tokenizer's o200k_base ranks (from its own rank file) as the typed-array
// tables src/core/o200k.ts reads in a millisecond. Run by `npm run build`; test/o200k.test.ts checks the
// table against the package's ranks.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePackageData, serializeTables } from '../src/core/o200k.ts';

const path = fileURLToPath(new URL('../dist/src/core/o200k_base.bin', import.meta.url));
mkdirSync(dirname(path), { recursive: true });
writeFileSync(path, serializeTables(parsePackageData()));
