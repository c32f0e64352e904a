// Rewrites the error table of docs/errors.md from the catalogue in code.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withErrorTable } from '../shared/src/errors/table';

const file = join(__dirname, '..', 'docs', 'errors.md');
writeFileSync(file, withErrorTable(readFileSync(file, 'utf8')));
console.log(`wrote ${file}`);
