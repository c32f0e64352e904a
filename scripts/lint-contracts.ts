/**
 * `npm run lint:contracts`: the service's contracts as generic tools read them.
 *
 * 1. Spectral with the OWASP API Security ruleset (.spectral.yaml says which rules do not apply, and
 *    why) over the three OpenAPI documents the service serves: the agent's (/api/v1/openapi.json), the
 *    variant's (/v1/openapi.json) and the operator's (/api/v1/orchestrator/openapi.json), written from
 *    the same functions that serve them. Any finding, warning or error, fails.
 * 2. Redocly's recommended ruleset (redocly.yaml: every rule as written, and each operation's
 *    description and the contact asked too) over the same three files. Any problem fails.
 * 3. The MCP Inspector's CLI lists the tools with `--strict`, as hosts reach them: any schema
 *    portability finding, warning or error, fails.
 *    - over stdio, from `tokenops-mcp` (listing the tools calls no API);
 *    - over Streamable HTTP, from `POST /mcp` of a real embedded service (`node bin/start.js embedded`,
 *      a fresh temporary DATA_DIR, a free port on 127.0.0.1), with the Bearer key of the demo agent,
 *      registered as a user would: the invitation code the first start keeps in DATA_DIR/demo.json,
 *      sent to POST /api/v1/register. The same tools as over stdio.
 *    - with a wrong key: the Inspector stops at the 401 (exit 3, `auth_required`, the service's
 *      message) and the service sees no OAuth discovery request.
 *    The service starts while Spectral and Redocly run, and is stopped (SIGTERM) and its folder
 *    removed whatever happens.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiDocument, operatorOpenApiDocument, variantOpenApiDocument } from '@tokenops/shared';

const ROOT = join(__dirname, '..');
const OUT = join(ROOT, 'node_modules', '.cache', 'lint-contracts');
const BIN = join(ROOT, 'node_modules', '.bin');
const INSPECTOR = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'inspector',
  'clients',
  'launcher',
  'build',
  'index.js',
);
/** The Inspector CLI's exit code for "the server wants authentication" (EXIT_CODES.AUTH_REQUIRED). */
const INSPECTOR_AUTH_REQUIRED = 3;
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;

/** This run's folder: the service's DATA_DIR and log, the Inspector's home; removed at the end. */
const SCRATCH = mkdtempSync(join(tmpdir(), 'tokenops-lint-contracts-'));

/** The Inspector's CLI, with a home of its own: no OAuth state or catalog of yours is read or written. */
function inspector(args: string[]): { status: number; stdout: string; stderr: string } {
  return run(process.execPath, [INSPECTOR, '--cli', ...args], {
    ...process.env,
    HOME: join(SCRATCH, 'home'),
  });
}

function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  return { status: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

/** The three documents, written from the functions that serve them; their files. */
function writeDocuments(): string[] {
  mkdirSync(OUT, { recursive: true });
  const documents = {
    'agent.openapi.json': openApiDocument(),
    'variant.openapi.json': variantOpenApiDocument(),
    'operator.openapi.json': operatorOpenApiDocument(),
  };
  return Object.entries(documents).map(([name, doc]) => {
    const file = join(OUT, name);
    writeFileSync(file, JSON.stringify(doc, null, 2));
    return file;
  });
}

function spectral(files: string[]): boolean {
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

interface RedoclyReport {
  totals?: { errors: number; warnings: number };
  problems?: { ruleId: string; severity: string; message: string; location?: { pointer?: string }[] }[];
}

/**
 * Redocly's recommended ruleset (redocly.yaml) over each document: any problem, warning or error,
 * fails. Its telemetry and its update and Node-support notices are off (they are about the tool, not
 * the documents).
 */
function redocly(files: string[]): boolean {
  const env = {
    ...process.env,
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
  };
  const config = ['--config', join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '1000'];
  const found = files.map((file) => {
    const r = run(join(BIN, 'redocly'), ['lint', ...config, file], env);
    let report: RedoclyReport = {};
    try {
      report = JSON.parse(r.stdout) as RedoclyReport;
    } catch {
      // reported below
    }
    const problems = report.problems ?? [];
    const clean = r.status === 0 && report.totals?.errors === 0 && report.totals.warnings === 0;
    if (!clean) {
      if (!report.totals) process.stderr.write(`${r.stdout}${r.stderr}`);
      for (const p of problems)
        console.error(`${file}: ${p.severity} ${p.ruleId} ${p.location?.[0]?.pointer ?? ''}: ${p.message}`);
    }
    return clean;
  });
  const clean = found.every(Boolean);
  console.log(`redocly (recommended ruleset) on ${files.length} documents: ${clean ? 'clean' : 'FAILED'}`);
  return clean;
}

/** `tools/list --strict` through the Inspector's CLI; clean when it lists tools with no finding and no word on stderr. */
function inspectorToolsList(what: string, target: string[]): { clean: boolean; tools: string[] } {
  const r = inspector(['--method', 'tools/list', '--strict', '--format', 'json', ...target]);
  let envelope: { result?: { tools?: { name: string }[] }; schemaFindings?: unknown[] } = {};
  try {
    envelope = JSON.parse(r.stdout) as typeof envelope;
  } catch {
    // reported below
  }
  const tools = (envelope.result?.tools ?? []).map((t) => t.name);
  const findings = envelope.schemaFindings ?? [];
  const clean = r.status === 0 && tools.length > 0 && findings.length === 0 && r.stderr.trim() === '';
  if (!clean) {
    process.stderr.write(r.stderr);
    if (findings.length > 0) console.error(JSON.stringify(findings, null, 2));
  }
  console.log(
    `MCP Inspector --strict tools/list ${what}: ${tools.length} tools, ${findings.length} findings, exit ${r.status}: ${clean ? 'clean' : 'FAILED'}`,
  );
  return { clean, tools };
}

function overStdio(): { clean: boolean; tools: string[] } {
  return inspectorToolsList('over stdio (tokenops-mcp)', [
    // Listing the tools calls no API: any key and URL will do.
    '-e',
    'TOKENOPS_URL=http://127.0.0.1:9',
    '-e',
    'TOKENOPS_API_KEY=lint-contracts',
    '--',
    process.execPath,
    join(ROOT, 'packages', 'mcp', 'bin', 'tokenops-mcp.js'),
  ]);
}

interface Service {
  startedAt: number;
  dataDir: string;
  log: string;
  url: string;
  child: ChildProcess;
  exited: Promise<string>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** `node bin/start.js embedded` on a fresh DATA_DIR and a free port; its JSON log goes to a file. */
async function startService(): Promise<Service> {
  const dataDir = join(SCRATCH, 'data');
  const log = join(SCRATCH, 'service.log');
  const port = await freePort();
  const startedAt = Date.now();
  const fd = openSync(log, 'w');
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'start.js'), 'embedded'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      DEMO: 'true',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<string>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? `exit ${code}`));
    child.once('error', (err) => resolve(`not started: ${err.message}`));
  });
  return { startedAt, dataDir, log, url: `http://127.0.0.1:${port}`, child, exited };
}

/** SIGTERM, wait for the exit (SIGKILL after 15 s); true when it stopped gracefully. */
async function stopService(service: Service, failed: boolean): Promise<boolean> {
  const running = service.child.exitCode === null && service.child.signalCode === null;
  if (running) service.child.kill('SIGTERM');
  const timeout = new Promise<undefined>((resolve) =>
    setTimeout(() => resolve(undefined), STOP_TIMEOUT_MS).unref(),
  );
  let how = await Promise.race([service.exited, timeout]);
  if (how === undefined) {
    service.child.kill('SIGKILL');
    how = `${await service.exited} (no exit ${STOP_TIMEOUT_MS / 1000} s after SIGTERM)`;
  }
  const graceful = running && how === 'exit 0';
  if (failed || !graceful) {
    const lines = readText(service.log).trimEnd().split('\n');
    console.error(`the service's last log lines:\n${lines.slice(-40).join('\n')}`);
  }
  console.log(
    `service ${running ? `stopped with SIGTERM: ${how}` : `had already stopped: ${how}`}: ${graceful ? 'ok' : 'FAILED'}`,
  );
  return graceful;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(service: Service, what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (service.child.exitCode !== null || service.child.signalCode !== null)
      throw new Error(`the service stopped (${await service.exited}) before ${what}`);
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no ${what} after ${READY_TIMEOUT_MS / 1000} s`);
    await sleep(200);
  }
}

/** The demo agent's key, as a user gets it: the kept invitation code, redeemed at POST /api/v1/register. */
async function demoAgentKey(service: Service): Promise<string> {
  await waitFor(service, 'GET /readyz answered 200', async () =>
    (await fetch(`${service.url}/readyz`)).ok ? true : undefined,
  );
  const code = await waitFor(service, 'demo.json in DATA_DIR', () => {
    const demo = JSON.parse(readText(join(service.dataDir, 'demo.json')) || '{}') as {
      invitation_code?: string;
    };
    return Promise.resolve(demo.invitation_code);
  });
  const reply = await fetch(`${service.url}/api/v1/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ invitation_code: code }),
  });
  const body = (await reply.json()) as { api_key?: unknown };
  if (!reply.ok || typeof body.api_key !== 'string')
    throw new Error(`POST /api/v1/register answered ${reply.status} ${JSON.stringify(body)}`);
  return body.api_key;
}

interface RequestLine {
  message?: string;
  method?: string;
  path?: string;
  status?: number;
}

/** The requests the service logged after `from` bytes of its log, once at least one is there. */
/** The log's length once it has stopped growing for half a second. */
async function quietLength(file: string): Promise<number> {
  let length = readText(file).length;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = readText(file).length;
    if (now === length) return length;
    length = now;
  }
}

async function requestsSince(service: Service, from: number): Promise<RequestLine[]> {
  for (let i = 0; ; i++) {
    const lines = readText(service.log)
      .slice(from)
      .split('\n')
      .flatMap((line) => {
        try {
          return [JSON.parse(line) as RequestLine];
        } catch {
          return []; // the demo's text, or a line still being written
        }
      })
      .filter((line) => line.message === 'request');
    if (lines.length > 0 || i >= 20) return lines;
    await sleep(100);
  }
}

/**
 * A wrong key through the Inspector: it must stop at the 401 with the service's message, and ask the
 * service for nothing else (no OAuth metadata, no client registration). `--stored-auth-only` is the
 * Inspector's setting for unattended runs: in a terminal it would try OAuth after any 401
 * (docs/contracts.md); the `WWW-Authenticate: Bearer` header itself is checked by
 * services/api/src/http/documents.e2e.spec.ts.
 */
async function wrongKey(service: Service): Promise<boolean> {
  // The earlier checks' requests may still be on their way into the log: start once it is quiet.
  const from = await quietLength(service.log);
  const r = inspector([
    `${service.url}/mcp`,
    '--transport',
    'http',
    '--stored-auth-only',
    '--quiet',
    '--header',
    'Authorization: Bearer aw_not-a-key',
    '--method',
    'tools/list',
    '--format',
    'json',
  ]);
  let error: { code?: string; message?: string } = {};
  try {
    error = (JSON.parse(r.stderr) as { error?: typeof error }).error ?? {};
  } catch {
    // reported below
  }
  const requests = (await requestsSince(service, from)).map((q) => `${q.method} ${q.path} ${q.status}`);
  const expected =
    r.status === INSPECTOR_AUTH_REQUIRED &&
    error.code === 'auth_required' &&
    (error.message ?? '').includes('Missing, invalid or revoked API key') &&
    r.stdout.trim() === '' &&
    requests.length > 0 &&
    requests.every((q) => q === 'POST /mcp 401');
  if (!expected) process.stderr.write(`${r.stdout}${r.stderr}`);
  console.log(
    `MCP Inspector with a wrong key over HTTP: exit ${r.status} ${error.code ?? '(no error envelope)'}, ` +
      `the service saw ${requests.join(', ') || 'nothing'}: ${expected ? 'a plain 401, no OAuth discovery' : 'FAILED'}`,
  );
  return expected;
}

async function overHttp(service: Service, stdioTools: string[]): Promise<boolean> {
  const key = await demoAgentKey(service);
  console.log(
    `embedded service at ${service.url}: ready and the demo agent registered (the invitation code in DATA_DIR/demo.json) ${((Date.now() - service.startedAt) / 1000).toFixed(1)} s after its start`,
  );
  const http = inspectorToolsList('over Streamable HTTP (POST /mcp, Bearer key)', [
    `${service.url}/mcp`,
    '--transport',
    'http',
    '--header',
    `Authorization: Bearer ${key}`,
  ]);
  const same = JSON.stringify([...http.tools].sort()) === JSON.stringify([...stdioTools].sort());
  console.log(`the same tools over HTTP as over stdio: ${same ? 'yes' : 'FAILED'}`);
  const refused = await wrongKey(service);
  return http.clean && same && refused;
}

async function main(): Promise<void> {
  const started = Date.now();
  let service: Service | undefined;
  let ok = false;
  try {
    service = await startService(); // it starts while Spectral and Redocly run
    const started = service;
    const interrupted = (signal: string) => {
      console.error(`lint:contracts: ${signal}`);
      void stopService(started, false).finally(() => {
        rmSync(SCRATCH, { recursive: true, force: true });
        process.exit(1);
      });
    };
    process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
    const documents = writeDocuments();
    const spectralClean = spectral(documents);
    const redoclyClean = redocly(documents);
    const stdio = overStdio();
    const httpClean = await overHttp(service, stdio.tools);
    ok = spectralClean && redoclyClean && stdio.clean && httpClean;
  } catch (err) {
    console.error(`lint:contracts: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    if (service) ok = (await stopService(service, !ok)) && ok;
    rmSync(SCRATCH, { recursive: true, force: true });
  }
  console.log(
    `lint:contracts: ${ok ? 'clean' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  process.exit(ok ? 0 : 1);
}

void main();
