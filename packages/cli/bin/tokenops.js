#!/usr/bin/env node
// The operator CLI: runs the TypeScript source through tsx (esbuild, its output cached; no build step).
process.env.TSX_TSCONFIG_PATH ??= require('node:path').join(__dirname, '../../../tsconfig.json');
require('tsx/cjs/api').register();
require('../src/program')
  .run(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
