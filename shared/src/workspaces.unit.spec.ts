import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every file a workspace's manifest names as its entry: `main`, `types`, `bin` and `exports`. */
const ROOT = join(__dirname, '../..');
const read = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
const entries = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : value && typeof value === 'object'
      ? Object.values(value).flatMap(entries)
      : [];
const workspaces: string[] = read('.').workspaces;

describe('the workspaces', () => {
  it.each(workspaces)('%s names only entry files that exist', (dir) => {
    const manifest = read(dir);
    const named = [manifest.main, manifest.types, manifest.bin, manifest.exports].flatMap(entries);
    expect(named.filter((file) => !existsSync(join(ROOT, dir, file)))).toEqual([]);
  });
});
