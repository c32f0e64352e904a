import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

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

/** Whether an entry names a file: a pattern (`./src/*.ts`) names at least one. */
function names(dir: string, entry: string): boolean {
  const path = join(ROOT, dir, entry);
  if (!entry.includes('*')) return existsSync(path);
  const [before, after] = path.split('*') as [string, string];
  const folder = dirname(`${before}x`);
  const prefix = before.slice(folder.length + 1);
  return (
    existsSync(folder) &&
    readdirSync(folder).some(
      (file) => file.startsWith(prefix) && file.endsWith(after) && file.length > prefix.length + after.length,
    )
  );
}

describe('the workspaces', () => {
  it.each(workspaces)('%s names only entry files that exist', (dir) => {
    const manifest = read(dir);
    const named = [manifest.main, manifest.types, manifest.bin, manifest.exports].flatMap(entries);
    expect(named.filter((entry) => !names(dir, entry))).toEqual([]);
  });

  it.each(workspaces)('%s has an exports map (its entry points; nothing else is importable)', (dir) => {
    expect(typeof read(dir).exports).toBe('object');
  });

  it("the image's build copies every workspace's manifest (npm ci refuses a lock naming one it lacks)", () => {
    const dockerfile = readFileSync(join(ROOT, 'infra/Dockerfile'), 'utf8');
    expect(workspaces.filter((dir) => !dockerfile.includes(`COPY ${dir}/package.json ${dir}/`))).toEqual([]);
  });
});
