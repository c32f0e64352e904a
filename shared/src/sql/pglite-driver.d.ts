import type { Sql } from './port';

/** PGlite in `dataDir`, or in memory (from `template`, a cluster's files), as the `Sql` port (pglite-driver.js). */
export function openPGlite(dataDir?: string, template?: Blob): Promise<Sql>;
