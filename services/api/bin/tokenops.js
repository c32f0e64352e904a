#!/usr/bin/env node
// The operator CLI: runs the TypeScript source through ts-node (no build step).
require('ts-node').register({
  transpileOnly: true,
  project: require('node:path').join(__dirname, '../../../tsconfig.json'),
});
require('../src/cli')
  .program()
  .parseAsync(process.argv)
  .catch((err) => {
    console.error(`tokenops: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
