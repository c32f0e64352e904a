#!/usr/bin/env node
// The MCP server on stdio. Installed from the registry or a tarball, the package has no src/ and runs
// its build (dist/main.js). In this repository it runs the TypeScript source through ts-node with SWC,
// as the operator CLI does, so that what runs is what was just edited (dist/ is written by npm pack).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const source = join(__dirname, '../src/main.ts');
const inRepository = existsSync(source);
if (inRepository)
  require('ts-node').register({
    transpileOnly: true,
    swc: true,
    project: join(__dirname, '../../../tsconfig.json'),
  });
require(inRepository ? source : '../dist/main.js')
  .main()
  .catch((err) => {
    console.error(`tokenops-mcp: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
