#!/usr/bin/env node
// The MCP server on stdio: runs the TypeScript source through ts-node with SWC (no build step).
require('ts-node').register({
  transpileOnly: true,
  swc: true,
  project: require('node:path').join(__dirname, '../../../tsconfig.json'),
});
require('../src/main')
  .main()
  .catch((err) => {
    console.error(`tokenops-mcp: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
