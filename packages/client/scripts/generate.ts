/**
 * Writes the client's types from the service's OpenAPI documents (src/generate.ts); with `--stdout`,
 * prints them instead, as one JSON object by file name (the unit test that keeps the checked-in files
 * current).
 */
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { GENERATED_DIR, generatedTypes } from '../src/generate';

void generatedTypes().then((texts) => {
  if (process.argv.includes('--stdout')) return void process.stdout.write(JSON.stringify(texts));
  for (const [file, text] of Object.entries(texts)) {
    const path = join(GENERATED_DIR, file);
    writeFileSync(path, text);
    console.log(`wrote ${relative(process.cwd(), path)}`);
  }
});
