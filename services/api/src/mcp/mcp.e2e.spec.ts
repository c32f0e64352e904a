/**
 * The MCP server (packages/mcp) as an agent framework meets it, through the SDK's own Client, on both
 * transports: Streamable HTTP at POST /mcp of the API, and stdio (the `tokenops-mcp` bin, spawned with
 * TOKENOPS_URL and TOKENOPS_API_KEY). Each lists the thirteen tools with the contract's schemas, each
 * parameter described and each tool annotated (reads a host may approve without asking), calls every
 * one against the running service (pay_for_resource: in intents/x402.e2e.spec.ts, which has a paid
 * resource), and gets a refused spend back as a tool error with its code.
 */
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TransferRequest } from '@tokenops/shared';
import { approvalIdIn, key, startWorld, type World } from '@tokenops/testing/harness';

const BIN = join(__dirname, '../../../../packages/mcp/bin/tokenops-mcp.js');
const TOOL_NAMES = [
  'balance',
  'deposit',
  'history',
  'limits',
  'pay_for_resource',
  'pools',
  'simulate',
  'swap',
  'tokens',
  'transfer',
  'venues',
  'webhooks',
  'withdraw',
];
const SPENDS = ['deposit', 'pay_for_resource', 'swap', 'transfer', 'withdraw'];

let world: World;
let program: string;
beforeAll(async () => {
  world = await startWorld();
  const venues = await world.client.call<{ venues: { lending_program: string }[] }>('GET', '/api/v1/venues');
  program = venues.body.venues[0]!.lending_program;
  await world.allow({ address: program, type: 2, label: 'local venue' });
});
afterAll(async () => world?.close());

const mint = (symbol: string): string =>
  world.service.ctx.chain.tokens.find((t) => t.symbol === symbol)!.mint;

interface Result {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

/** A tool's answer: its text, which is the API's JSON, and the same as structured content. */
async function call(client: McpClient, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as Result;
  const text = result.content.map((c) => c.text ?? '').join('');
  if (result.isError) return { error: text, body: undefined as never };
  expect(result.structuredContent).toEqual(JSON.parse(text));
  return { error: undefined, body: result.structuredContent! };
}

const transports: [string, (agentKey: string) => Transport][] = [
  [
    'Streamable HTTP at /mcp',
    (agentKey) =>
      new StreamableHTTPClientTransport(new URL(`${world.client.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agentKey}` } },
      }),
  ],
  [
    'stdio (tokenops-mcp)',
    (agentKey) =>
      new StdioClientTransport({
        command: process.execPath,
        args: [BIN],
        env: { PATH: process.env.PATH ?? '', TOKENOPS_URL: world.client.url, TOKENOPS_API_KEY: agentKey },
        stderr: 'pipe',
      }),
  ],
];

describe.each(transports)('MCP over %s', (_name, transport) => {
  let client: McpClient;
  let agent: { id: string; key: string };
  beforeAll(async () => {
    // Its own approval threshold: a spend over 90 waits for the operator.
    agent = await world.agent(
      { per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 20, approval_threshold: 90 },
      1000,
    );
    client = new McpClient({ name: 'e2e', version: '1.0.0' });
    await client.connect(transport(agent.key));
  });
  afterAll(async () => client?.close());

  it('lists the thirteen tools with the contract schemas; idempotency_key optional on the spends', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    const transfer = tools.find((t) => t.name === 'transfer')!;
    expect(transfer.inputSchema).toEqual({ ...TransferRequest, required: ['to', 'amount'] });
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
    expect(tools.find((t) => t.name === 'simulate')!.description).toMatch(/spends nothing/i);
    expect(tools.find((t) => t.name === 'transfer')!.description).toMatch(/per-transaction limit/);
  });

  it('describes every parameter, and says which tools only read (a host may approve them) and which spend', async () => {
    const { tools } = await client.listTools();
    for (const t of tools) {
      for (const [name, schema] of Object.entries(t.inputSchema.properties ?? {}))
        expect([t.name, name, typeof (schema as { description?: unknown }).description]).toEqual([
          t.name,
          name,
          'string',
        ]);
      const spend = SPENDS.includes(t.name);
      expect([t.name, t.annotations?.readOnlyHint]).toEqual([t.name, !spend]);
      if (spend) expect(t.annotations).toMatchObject({ destructiveHint: true, idempotentHint: false });
      expect(t.title).toEqual(expect.any(String));
    }
    // Portable schemas: no `type` array and no bare `true` schema (what the inspector's --strict flags).
    const schemas = JSON.stringify(tools.map((t) => [t.inputSchema, t.outputSchema]));
    expect(schemas).not.toMatch(/"type":\[/);
    const trues = schemas.match(/"\w+":true/g) ?? [];
    expect(trues.filter((t) => !['"uniqueItems":true', '"additionalProperties":true'].includes(t))).toEqual(
      [],
    );
  });

  it('lists what a spend needs: tokens, venues, pools, and the agent webhooks', async () => {
    const tokens = await call(client, 'tokens');
    expect(tokens.body.tokens).toEqual(
      expect.arrayContaining([expect.objectContaining({ symbol: 'USDC', mint: mint('USDC') })]),
    );
    const venues = await call(client, 'venues');
    expect(venues.body.venues).toEqual(
      expect.arrayContaining([expect.objectContaining({ lending_program: program })]),
    );
    const pools = await call(client, 'pools');
    expect(pools.body.pools).toEqual(
      expect.arrayContaining([expect.objectContaining({ pair: expect.any(String) })]),
    );
    expect((await call(client, 'webhooks')).body).toEqual({ webhooks: [] });
  });

  it('calls every tool: the spends confirm, the reads show them', async () => {
    const sim = await call(client, 'simulate', { amount: 10, to: world.vendor });
    expect(sim.body).toEqual(expect.objectContaining({ would_succeed: true, estimated_fee: 0.01 }));

    const transferArgs = { to: world.vendor, amount: '10', idempotency_key: key() };
    const transfer = await call(client, 'transfer', transferArgs);
    expect(transfer.body).toEqual(
      expect.objectContaining({
        status: 'confirmed',
        net_amount: 9.99,
        protocol_fee: 0.01,
        daily_remaining: 990,
      }),
    );
    // The same key again: the same operation, not a second one.
    const again = await call(client, 'transfer', transferArgs);
    expect(again.error).toBeUndefined();
    expect(again.body.tx_sig).toBe(transfer.body.tx_sig);

    const swap = await call(client, 'swap', {
      from_token: 'USDC',
      to_token: 'SOL',
      from_mint: mint('USDC'),
      to_mint: mint('SOL'),
      amount: 5,
    });
    expect(swap.body).toEqual(expect.objectContaining({ status: 'confirmed', daily_remaining: 985 }));

    const deposit = await call(client, 'deposit', { lending_program: program, amount: 20 });
    expect(deposit.body).toEqual(expect.objectContaining({ status: 'confirmed', deposited_amount: 20 }));
    const withdraw = await call(client, 'withdraw', { lending_program: program, amount: 1 });
    expect(withdraw.body).toEqual(expect.objectContaining({ status: 'confirmed' }));

    const balance = await call(client, 'balance');
    expect(balance.body).toEqual(
      expect.objectContaining({
        balances: expect.objectContaining({ USDC: expect.any(Number), SOL: expect.any(Number) }),
        daily_remaining: 965,
        hourly_tx_remaining: 16,
      }),
    );
    const limits = await call(client, 'limits');
    expect(limits.body).toEqual(
      expect.objectContaining({ group_id: world.groupId, per_tx_limit: 100, hourly_tx_remaining: 16 }),
    );
    const history = await call(client, 'history', { limit: 1 });
    expect(history.body.transactions).toEqual([expect.objectContaining({ action: 'swap', amount: 5 })]);
  });

  it('a spend over the per-transaction limit is a tool error with the code; nothing is spent', async () => {
    const before = await call(client, 'limits');
    const refused = await call(client, 'transfer', { to: world.vendor, amount: 150 });
    expect(refused.error).toMatch(/^per_tx_limit_exceeded: /);
    // A generated key is named, so the agent can retry the same operation.
    expect(refused.error).toMatch(/idempotency_key mcp-[0-9a-f-]{36}/);
    const invalid = await call(client, 'transfer', { to: 'not an address', amount: 1 });
    expect(invalid.error).toMatch(/^validation_error: .*\/to/);
    expect((await call(client, 'limits')).body).toEqual(before.body);
  });

  it('a spend held for approval tells the model it awaits a person and how to learn the outcome', async () => {
    const args = { to: world.vendor, amount: 95, idempotency_key: key() };
    const held = await call(client, 'transfer', args);
    expect(held.error).toMatch(/^approval_required: this transfer awaits a person/);
    expect(held.error).toContain(`idempotency_key ${args.idempotency_key}`);
    const id = approvalIdIn(held.error);
    const rejected = await world.client.call('POST', `/api/v1/orchestrator/approvals/${id}/reject`, {
      token: world.operator.token,
      body: {},
    });
    expect(rejected.status).toBe(200);
    expect((await call(client, 'transfer', args)).error).toMatch(/^approval_rejected: /);
  });
});

describe('POST /mcp authentication', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'e2e', version: '1' } },
  };
  const post = (authorization?: string) =>
    world.client.call('POST', '/mcp', {
      body: initialize,
      headers: {
        accept: 'application/json, text/event-stream',
        ...(authorization && { authorization }),
      },
    });

  it('a missing or wrong key is the contract 401', async () => {
    for (const reply of [await post(), await post('Bearer tok_wrong'), await post('Basic abc')]) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
    }
  });

  it('GET and DELETE are 405 (stateless: no stream, no session)', async () => {
    const agent = await world.agent({}, 0);
    for (const method of ['GET', 'DELETE']) {
      const reply = await world.client.call(method, '/mcp', { token: agent.key });
      expect(reply.status).toBe(405);
    }
  });
});

describe('the rate limit at /mcp (60 requests a minute per agent)', () => {
  it('counts a tool call once, as the API call it makes; past the limit a tool call is rate_limited', async () => {
    const agent = await world.agent({}, 0);
    const client = new McpClient({ name: 'e2e', version: '1.0.0' });
    await client.connect(transports[0]![1](agent.key)); // initialize and its notification: 2 requests
    const remaining = async () => {
      const r = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
      return Number(r.headers.get('ratelimit-remaining'));
    };
    try {
      expect(await remaining()).toBe(57);
      await call(client, 'limits');
      expect(await remaining()).toBe(55);
      // A reference read makes an API call the API does not count: it counts here, once.
      await call(client, 'tokens');
      expect(await remaining()).toBe(53);
      while ((await remaining()) > 0);
      const refused = await call(client, 'balance');
      expect(refused.error).toMatch(/^rate_limited: /);
    } finally {
      await client.close();
    }
  });
});

describe('tokenops-mcp without TOKENOPS_API_KEY', () => {
  it('says so on stderr and exits 2', async () => {
    const child = spawn(process.execPath, [BIN], {
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/TOKENOPS_API_KEY is not set/);
  });
});
