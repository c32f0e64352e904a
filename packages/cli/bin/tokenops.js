#!/usr/bin/env node
// The operator CLI: runs the TypeScript source through ts-node with SWC (no build step).
require('ts-node').register({
  transpileOnly: true,
  swc: true,
  project: require('node:path').join(__dirname, '../../../tsconfig.json'),
});
require('../src/program')
  .run(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
