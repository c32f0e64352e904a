// Bundles the console (web/) into dist/: one script and one stylesheet, everything they use inlined,
// so the pages load nothing from another host. Run by `npm ci` (the root's prepare) and
// `npm run console:build`; the API serves dist/ at /console/assets.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function buildConsole() {
  await build({
    entryPoints: { console: join(root, 'web/main.tsx') },
    outdir: join(root, 'dist'),
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'linked',
    logLevel: 'warning',
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildConsole();
