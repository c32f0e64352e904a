// Rewrites the generated tables of docs/errors.md and docs/events.md from the catalogues in code.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withErrorTable } from '@tokenops/shared/errors/table';
import { withEventTable } from '@tokenops/shared/events/table';

for (const [name, rewrite] of [
  ['errors.md', withErrorTable],
  ['events.md', withEventTable],
] as const) {
  const file = join(__dirname, '..', 'docs', name);
  writeFileSync(file, rewrite(readFileSync(file, 'utf8')));
  console.log(`wrote ${file}`);
}
