#!/usr/bin/env node
// The MCP server on stdio: runs the TypeScript source through tsx (esbuild, its output cached; no build step).
process.env.TSX_TSCONFIG_PATH ??= require('node:path').join(__dirname, '../../../tsconfig.json');
require('tsx/cjs/api').register();
require('../src/main')
  .main()
  .catch((err) => {
    console.error(`tokenops-mcp: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
