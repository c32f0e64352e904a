// Rewrites the generated tables of the docs from the catalogues in code: the errors (docs/errors.md),
// the event kinds (docs/events.md) and the settings (README.md, docs/operations.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withErrorTable } from '@tokenops/shared/errors/table';
import { withEventTable } from '@tokenops/shared/events/table';
import { withEmbeddedSettingsTable, withServerSettingsTable } from '@tokenops/shared/settings/table';

for (const [name, rewrite] of [
  ['docs/errors.md', withErrorTable],
  ['docs/events.md', withEventTable],
  ['README.md', withEmbeddedSettingsTable],
  ['docs/operations.md', withServerSettingsTable],
] as const) {
  const file = join(__dirname, '..', name);
  writeFileSync(file, rewrite(readFileSync(file, 'utf8')));
  console.log(`wrote ${file}`);
}
