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

/** The source files of a workspace (its own, not another workspace's folder inside it). */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'dist', 'generated-docs'].includes(entry.name) ||
        existsSync(join(path, 'package.json'))
        ? []
        : sources(path);
    return /\.(ts|mts|cts|js|mjs|cjs|tsx)$/.test(entry.name) ? [path] : [];
  });
}

/** The workspace packages a file imports (`@tokenops/<name>`, by import, export, require or import()). */
const importedWorkspaces = (code: string): string[] => [
  ...new Set(
    [...code.matchAll(/(?:from\s+|require\(\s*|import\(\s*)['"](@tokenops\/[^/'"]+)/g)].map((m) => m[1]!),
  ),
];

describe('the workspaces', () => {
  it.each(workspaces)('%s names only entry files that exist', (dir) => {
    const manifest = read(dir);
    const named = [manifest.main, manifest.types, manifest.bin, manifest.exports].flatMap(entries);
    // A published package names its build (dist/, made by its prepack, not by npm ci): the source each
    // built file is made from must exist (packages/packing.int.spec.ts builds and uses them).
    const built = (entry: string) =>
      manifest.scripts?.prepack && /^\.\/dist\//.test(entry)
        ? entry.replace(/^\.\/dist\//, './src/').replace(/(\.d)?\.[cm]?js$|\.d\.ts$/, '.ts')
        : entry;
    expect(named.filter((entry) => !names(dir, built(entry)))).toEqual([]);
  });

  it.each(workspaces)('%s has an exports map (its entry points; nothing else is importable)', (dir) => {
    expect(typeof read(dir).exports).toBe('object');
  });

  it.each(workspaces)(
    '%s declares every workspace it imports (dependencies; for tests only, devDependencies)',
    (dir) => {
      const manifest = read(dir);
      const declared = new Set(Object.keys(manifest.dependencies ?? {}));
      const forTests = new Set([...declared, ...Object.keys(manifest.devDependencies ?? {})]);
      const undeclared = sources(join(ROOT, dir)).flatMap((file) => {
        // A published package's build inlines the unpublished workspaces it imports (docs/architecture.md,
        // "The published packages"): it declares them for its build, as devDependencies.
        const spec = !manifest.private || /\.spec\.ts$|(^|\/)(bench|scripts)\//.test(file);
        return importedWorkspaces(readFileSync(file, 'utf8'))
          .filter((name) => name !== manifest.name && !(spec ? forTests : declared).has(name))
          .map((name) => `${file.slice(ROOT.length + 1)}: ${name}`);
      });
      expect(undeclared).toEqual([]);
    },
  );

  it("the image's build copies every workspace's manifest (npm ci refuses a lock naming one it lacks)", () => {
    const dockerfile = readFileSync(join(ROOT, 'infra/Dockerfile'), 'utf8');
    expect(workspaces.filter((dir) => !dockerfile.includes(`COPY ${dir}/package.json ${dir}/`))).toEqual([]);
  });
});
