#!/usr/bin/env node
// Starts one process of the service as this very node process: no npm, no shell, no child process in
// between, so a signal sent to the PID you got (`$!`) reaches the process itself (SIGTERM stops it
// gracefully, kill -9 kills it), and what it writes is its JSON log alone. The TypeScript source runs
// through ts-node with SWC (native, in this process: no child; no build step), as the operator CLI
// does: about 1 s of CPU to load the API where TypeScript's own transpiler took 5, and the test
// suites start processes by the hundred.
//
//   node bin/start.js <process> [arguments]     e.g. node bin/start.js api, node bin/start.js replay --verify
'use strict';
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const ENTRIES = {
  embedded: 'services/api/src/main.ts',
  api: 'services/api/src/server.ts',
  projector: 'projections/src/main.ts',
  executor: 'workers/executor/src/main.ts',
  delivery: 'workers/delivery/src/main.ts',
  chain: 'services/chain/src/main.ts',
  replay: 'projections/src/replay-main.ts',
};

const role = process.argv[2];
if (!Object.prototype.hasOwnProperty.call(ENTRIES, role)) {
  console.error(`usage: node bin/start.js <${Object.keys(ENTRIES).join('|')}> [arguments]`);
  process.exit(2);
}
process.argv.splice(2, 1); // the entry point sees its own arguments only (replay --verify)
require('ts-node').register({ transpileOnly: true, swc: true, project: join(ROOT, 'tsconfig.json') });
require(join(ROOT, ENTRIES[role]));
