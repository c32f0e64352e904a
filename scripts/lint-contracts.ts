/**
 * `npm run lint:contracts`: the service's contracts as generic tools read them, no server needed.
 *
 * 1. Spectral with the OWASP API Security ruleset (.spectral.yaml says which rules do not apply, and
 *    why) over the three OpenAPI documents the service serves: the agent's (/api/v1/openapi.json), the
 *    variant's (/v1/openapi.json) and the operator's (/api/v1/orchestrator/openapi.json), written from
 *    the same functions that serve them. Any finding, warning or error, fails.
 * 2. The MCP Inspector's CLI lists the tools of the stdio MCP server (`tokenops-mcp`: the same tools as
 *    POST /mcp; listing them calls no API) with `--strict`: any schema portability finding, warning
 *    or error, fails.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument, operatorOpenApiDocument, variantOpenApiDocument } from '../shared/src/contract';

const ROOT = join(__dirname, '..');
const OUT = join(ROOT, 'node_modules', '.cache', 'lint-contracts');
const BIN = join(ROOT, 'node_modules', '.bin');

function run(command: string, args: string[]): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

function spectral(): boolean {
  mkdirSync(OUT, { recursive: true });
  const documents = {
    'agent.openapi.json': openApiDocument(),
    'variant.openapi.json': variantOpenApiDocument(),
    'operator.openapi.json': operatorOpenApiDocument(),
  };
  const files = Object.entries(documents).map(([name, doc]) => {
    const file = join(OUT, name);
    writeFileSync(file, JSON.stringify(doc, null, 2));
    return file;
  });
  const r = run(join(BIN, 'spectral'), [
    'lint',
    '--ruleset',
    join(ROOT, '.spectral.yaml'),
    '--fail-severity',
    'hint',
    '--display-only-failures',
    ...files,
  ]);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  console.log(
    `spectral (OWASP ruleset) on ${files.length} documents: ${r.status === 0 ? 'clean' : 'FAILED'}`,
  );
  return r.status === 0;
}

function inspector(): boolean {
  const r = run(process.execPath, [
    join(
      ROOT,
      'node_modules',
      '@modelcontextprotocol',
      'inspector',
      'clients',
      'launcher',
      'build',
      'index.js',
    ),
    '--cli',
    '--method',
    'tools/list',
    '--strict',
    '--format',
    'json',
    // Listing the tools calls no API: any key and URL will do.
    '-e',
    'TOKENOPS_URL=http://127.0.0.1:9',
    '-e',
    'TOKENOPS_API_KEY=lint-contracts',
    '--',
    process.execPath,
    join(ROOT, 'packages', 'mcp', 'bin', 'tokenops-mcp.js'),
  ]);
  let envelope: { result?: { tools?: unknown[] }; schemaFindings?: unknown[] } = {};
  try {
    envelope = JSON.parse(r.stdout) as typeof envelope;
  } catch {
    // reported below
  }
  const tools = envelope.result?.tools?.length ?? 0;
  const findings = envelope.schemaFindings ?? [];
  const clean = r.status === 0 && tools > 0 && findings.length === 0 && r.stderr.trim() === '';
  if (!clean) {
    process.stderr.write(r.stderr);
    if (findings.length > 0) console.error(JSON.stringify(findings, null, 2));
  }
  console.log(
    `MCP Inspector --strict tools/list: ${tools} tools, ${findings.length} findings: ${clean ? 'clean' : 'FAILED'}`,
  );
  return clean;
}

const results = [spectral(), inspector()];
process.exit(results.every(Boolean) ? 0 : 1);
