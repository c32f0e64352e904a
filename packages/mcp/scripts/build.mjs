// The published build (npm run build, run by npm pack): dist/index.js (the library) and dist/main.js
// (the bin's server), CommonJS, with their declarations. The tools hand out the contract's JSON
// Schemas, which live in @tokenops/shared, a workspace that is not published: esbuild inlines the part
// of it the tools reach (the schemas and the catalogues they name), and leaves every package from the
// registry a require() of a dependency this package.json declares (the build fails on one it does not).
// Declarations come from TypeScript's per-file transpileDeclaration: the exported API is annotated
// (isolatedDeclarations), so no program of shared's 1,200 files is built to write them.
import { build } from 'esbuild';
import { readFileSync, readdirSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const INLINED = '@tokenops/shared';

/**
 * @tokenops/shared inlined, every other bare import external. Its modules, and the packages they
 * import, are taken as free of side effects (they define schemas, catalogues and functions): only what
 * the tools use is kept, not the whole core its entry point re-exports (chain, application, ports).
 */
const inlineShared = {
  name: 'inline-shared',
  setup(bundle) {
    bundle.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData === 'resolving') return undefined;
      const bare = !args.path.startsWith('.') && !args.path.startsWith('/');
      const inShared = (path) => path.includes(`${join('shared', 'src')}/`);
      if (bare && args.path !== INLINED && !args.path.startsWith(`${INLINED}/`))
        return { external: true, sideEffects: !inShared(args.importer) };
      if (!bare && !inShared(args.importer)) return undefined;
      const resolved = await bundle.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'resolving',
      });
      return resolved.errors.length ? resolved : { ...resolved, sideEffects: !inShared(resolved.path) };
    });
  },
};

rmSync(dist, { recursive: true, force: true });
const { metafile } = await build({
  entryPoints: { index: join(src, 'index.ts'), main: join(src, 'main.ts') },
  outdir: dist,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  plugins: [inlineShared],
  metafile: true,
  logLevel: 'warning',
});

const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const builtins = new Set(builtinModules);
const required = new Set(
  Object.values(metafile.outputs)
    .flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path))
    .filter((path) => !path.startsWith('node:') && !builtins.has(path))
    .map(packageOf),
);
const undeclared = [...required].filter((name) => !(name in (manifest.dependencies ?? {})));
if (undeclared.length > 0)
  throw new Error(`dist/ requires ${undeclared.join(', ')}: add to the dependencies of ${manifest.name}`);

const options = { module: ts.ModuleKind.Node16, target: ts.ScriptTarget.ES2022, strict: true };
const sources = readdirSync(src, { recursive: true }).filter(
  (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts'),
);
const failures = [];
for (const file of sources) {
  const { outputText, diagnostics = [] } = ts.transpileDeclaration(readFileSync(join(src, file), 'utf8'), {
    fileName: join(src, file),
    compilerOptions: options,
    reportDiagnostics: true,
  });
  for (const d of diagnostics)
    failures.push(`${file}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  mkdirSync(dirname(join(dist, file)), { recursive: true });
  writeFileSync(join(dist, file.replace(/\.ts$/, '.d.ts')), outputText);
}
if (failures.length > 0) throw new Error(`declarations:\n${failures.join('\n')}`);
