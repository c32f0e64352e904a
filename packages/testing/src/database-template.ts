/**
 * The files of an empty PGlite cluster, made once per machine and PGlite version and kept in the OS
 * temp folder: every in-memory embedded service of the tests (one per suite or more) starts its log
 * from them instead of creating a cluster (initdb, about 2.5 s of CPU a start on a 2-core machine,
 * where loading the files takes under 1 s). The migrations still run at each start, as in production.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { emptyClusterFiles } from '@tokenops/shared/adapters';

/** PGlite's version, read from its package.json (not among its exports). */
function pgliteVersion(): string {
  for (let dir = dirname(require.resolve('@electric-sql/pglite')); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name?: string;
      version: string;
    };
    if (name === '@electric-sql/pglite') return version;
  }
  throw new Error('the PGlite package has no package.json');
}

let made: Promise<Blob> | undefined;

export function databaseTemplate(): Promise<Blob> {
  return (made ??= (async () => {
    const file = join(tmpdir(), `tokenops-pglite-${pgliteVersion()}-empty-cluster.tar`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const files = await emptyClusterFiles();
    // Written aside then renamed: a suite reading it meanwhile sees no file or a whole one.
    const partial = `${file}.${process.pid}.partial`;
    writeFileSync(partial, Buffer.from(await files.arrayBuffer()));
    renameSync(partial, file);
    return files;
  })());
}
