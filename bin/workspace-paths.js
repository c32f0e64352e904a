// Loaded by ts-node before anything else in every process of this repository that runs through it
// (tsconfig.json's "ts-node".require: bin/start.js, the CLIs, the scripts, Jest's own process):
// the packages that are published (@tokenops/client, mcp, webhook-signing) resolve to their TypeScript
// source, as tsconfig.base.json's `paths` says, where their package.json's `exports` name the build a
// project that installs them runs. Jest's workers map the same paths (jest.config.ts).
'use strict';
require('tsconfig-paths').register({ cwd: require('node:path').join(__dirname, '..') });
