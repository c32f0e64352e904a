/**
 * Writes the client's types from the agent contract's OpenAPI document (src/generate.ts); with
 * `--stdout`, prints them instead (the unit test that keeps the checked-in file current).
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { GENERATED_FILE, generatedTypes } from '../src/generate';

void generatedTypes().then((text) => {
  if (process.argv.includes('--stdout')) return void process.stdout.write(text);
  writeFileSync(GENERATED_FILE, text);
  console.log(`wrote ${relative(process.cwd(), GENERATED_FILE)}`);
});
