/**
 * Policy, not validation: what an operator must hear of is a policy refusal, recorded and sent to the
 * fleet's webhooks, not a schema error nobody sees. A lending program that is not allow-listed is a
 * whitelist_violation (403); a spend with a key the agent held (revoked, rotated out) is 401 and a
 * policy.transfer_blocked with error.code unauthorized; a transfer to oneself says so; a transfer too
 * small to carry its fee is refused. The webhooks arrive at a real HTTPS receiver. Both contracts.
 */
import bs58 from 'bs58';
import { randomBytes, randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { generateSigner, streams } from '@tokenops/shared';
import { startReceiver, testCertificates, type Receiver } from '@tokenops/testing/tls';
import { openBooks } from '@tokenops/testing/conservation';
import {
  RECEIVER_HOST,
  key,
  stackWebhookTls,
  startWorld,
  type Reply,
  type World,
} from '@tokenops/testing/harness';

const topologyTls = stackWebhookTls();

let world: World;
let receiver: Receiver;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  const tls = topologyTls ?? (await testCertificates({ addresses: [RECEIVER_HOST] }));
  receiver = await startReceiver({ tls, host: RECEIVER_HOST });
  world = await startWorld({
    webhooks: { allowedPrivateHosts: [`${RECEIVER_HOST}:${receiver.port}`], ca: tls.ca, retryBaseMs: 100 },
  });
  books = await openBooks(world);
  await world.subscribe({
    url: receiver.url,
    event_types: ['policy.transfer_blocked', 'policy.whitelist_violation'],
  });
});
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

type Agent = { id: string; key: string };
const LIMITS = { per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 20 };

/** A spend on either contract: the primary's key in the body, the variant's in its header (a UUID). */
const spendOf = (path: string, agent: Agent, body: Record<string, unknown>, token = agent.key) =>
  path.startsWith('/v1/')
    ? world.client.call('POST', path, { token, body, headers: { 'idempotency-key': randomUUID() } })
    : world.client.call('POST', path, { token, body: { idempotency_key: key(), ...body } });

/** The fleet webhook's deliveries of `event` about `agent`. */
const delivered = (event: string, agent: Agent) =>
  receiver.requests
    .map((r) => JSON.parse(r.body) as Record<string, unknown>)
    .filter((p) => p.event === event && p.agent_wallet_pda === agent.id);

async function until<T>(what: () => T | undefined | false, ms = 15_000): Promise<T> {
  const giveUpAt = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() > giveUpAt) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The blocked intents the agent's stream holds, in order. */
async function blockedOf(
  agent: Agent,
): Promise<{ code: string; action: string; attempted_amount: string }[]> {
  const events = await world.service.ctx.store.readStream(streams.agent(agent.id));
  return events
    .filter((e) => e.type === 'intent.blocked')
    .map((e) => e.data as { code: string; action: string; attempted_amount: string });
}

function expectError(r: Reply, status: number, code: string, message: unknown = expect.any(String)): void {
  expect({ status: r.status, body: r.body }).toEqual({ status, body: { error: code, message } });
}
function expectVariantError(
  r: Reply,
  status: number,
  code: string,
  message: unknown = expect.any(String),
): void {
  expect({ status: r.status, body: r.body }).toEqual({ status, body: { error: { code, message } } });
}

const operator = (path: string) =>
  world.client.call('POST', `/api/v1/orchestrator/agents/${path}`, { token: world.operator.token, body: {} });

describe('a lending program that is not on the allow-list', () => {
  it('is whitelist_violation 403 on deposit and withdraw, recorded, and both policy webhooks arrive', async () => {
    const agent = await world.agent(LIMITS, 100);
    const unknown = generateSigner().address;
    for (const action of ['deposit', 'withdraw'])
      expectError(
        await spendOf(`/api/v1/${action}`, agent, { lending_program: unknown, amount: 10 }),
        403,
        'whitelist_violation',
      );
    // The variant answers the same, in its envelope.
    expectVariantError(
      await spendOf('/v1/deposit', agent, { lending_program: unknown, amount: 3 }),
      403,
      'whitelist_violation',
    );
    expect(await blockedOf(agent)).toEqual([
      expect.objectContaining({ code: 'whitelist_violation', action: 'deposit', attempted_amount: '10' }),
      expect.objectContaining({ code: 'whitelist_violation', action: 'withdraw', attempted_amount: '10' }),
      expect.objectContaining({ code: 'whitelist_violation', action: 'deposit', attempted_amount: '3' }),
    ]);
    for (const event of ['policy.transfer_blocked', 'policy.whitelist_violation']) {
      const got = await until(() => delivered(event, agent).length === 3 && delivered(event, agent));
      expect(got.map((p) => [p.error, p.attempted_amount])).toEqual(
        expect.arrayContaining([
          [{ code: 'whitelist_violation', details: expect.any(String) }, 10],
          [{ code: 'whitelist_violation', details: expect.any(String) }, 3],
        ]),
      );
    }
    // Nothing moved, nothing counted.
    const limits = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(limits.body).toEqual(expect.objectContaining({ daily_remaining: 1000, hourly_tx_remaining: 20 }));
  });

  it('a malformed identifier stays validation_error 400, and records nothing', async () => {
    const agent = await world.agent(LIMITS, 0);
    const r = await spendOf('/api/v1/deposit', agent, { lending_program: 'not-a-program', amount: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
    expect(await blockedOf(agent)).toEqual([]);
  });
});

/** A key in our format for `agentId`, checksum right, with a secret that was never issued. */
function strangerKey(agentId: string): string {
  const body = `aw_${bs58.encode(Buffer.concat([bs58.decode(agentId), randomBytes(32)]))}`;
  return `${body}_${crc32(body).toString(16).padStart(8, '0')}`;
}

describe('a spend with a key the agent may no longer use', () => {
  it('of a revoked agent: 401 as before, and the fleet hears policy.transfer_blocked (unauthorized), once a minute', async () => {
    const agent = await world.agent(LIMITS, 0);
    expect((await operator(`${agent.id}/revoke`)).status).toBe(200);
    const first = await spendOf('/api/v1/transfer', agent, { to: world.vendor, amount: 12.5 });
    expectError(first, 401, 'unauthorized');
    const got = await until(() => delivered('policy.transfer_blocked', agent)[0]);
    expect(got).toEqual(
      expect.objectContaining({
        error: { code: 'unauthorized', details: 'The agent is revoked; its key no longer moves anything.' },
        attempted_amount: 12.5,
      }),
    );
    expect(delivered('policy.whitelist_violation', agent)).toEqual([]);
    // Retried at once, again and again: each is 401, and the log holds the first only.
    for (let i = 0; i < 3; i++)
      expectError(await spendOf('/api/v1/swap', agent, { amount: 1 }), 401, 'unauthorized');
    expect(await blockedOf(agent)).toEqual([
      expect.objectContaining({ code: 'unauthorized', action: 'transfer', attempted_amount: '12.5' }),
    ]);
  });

  it('rotated out: 401 and recorded, on the variant too; a key the agent never held stays anonymous', async () => {
    const agent = await world.agent(LIMITS, 0);
    const never = strangerKey(agent.id);
    expectError(
      await spendOf('/api/v1/transfer', agent, { to: world.vendor, amount: 1 }, never),
      401,
      'unauthorized',
    );
    expect(await blockedOf(agent)).toEqual([]);

    const rotated = await operator(`${agent.id}/rotate-key`);
    expect(rotated.status).toBe(202); // the old key dies at once; the new one is a proposal
    expectVariantError(
      await spendOf('/v1/transfer', agent, { recipient: world.vendor, amount: 2 }),
      401,
      'unauthorized',
    );
    expect(await blockedOf(agent)).toEqual([
      expect.objectContaining({ code: 'unauthorized', action: 'transfer', attempted_amount: '2' }),
    ]);
    const got = await until(() => delivered('policy.transfer_blocked', agent)[0]);
    expect(got.error).toEqual({
      code: 'unauthorized',
      details: 'The key was rotated out; use the agent’s current key.',
    });
  });
  it('a spend tool called over MCP with a revoked key: 401, and recorded as on its route', async () => {
    const agent = await world.agent(LIMITS, 0);
    expect((await operator(`${agent.id}/revoke`)).status).toBe(200);
    const call = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'transfer', arguments: { to: world.vendor, amount: 7 } },
    };
    const reply = await world.client.call('POST', '/mcp', {
      token: agent.key,
      body: call,
      headers: { accept: 'application/json, text/event-stream' },
    });
    expectError(reply, 401, 'unauthorized');
    expect(await blockedOf(agent)).toEqual([
      expect.objectContaining({ code: 'unauthorized', action: 'transfer', attempted_amount: '7' }),
    ]);
    const got = await until(() => delivered('policy.transfer_blocked', agent)[0]);
    expect(got).toEqual(
      expect.objectContaining({ error: expect.objectContaining({ code: 'unauthorized' }) }),
    );
  });
});

describe('a transfer to the agent’s own wallet', () => {
  it('is recipient_invalid 400 with a message that says so', async () => {
    const agent = await world.agent(LIMITS, 10);
    const message =
      'The recipient is the agent’s own wallet; a transfer must go to another allow-listed address.';
    expectError(
      await spendOf('/api/v1/transfer', agent, { to: agent.id, amount: 1 }),
      400,
      'recipient_invalid',
      message,
    );
    expectVariantError(
      await spendOf('/v1/transfer', agent, { recipient: agent.id, amount: 1 }),
      400,
      'recipient_invalid',
      message,
    );
    const sim = await world.client.call('POST', '/v1/intents/simulate', {
      token: agent.key,
      body: { type: 'transfer', recipient: agent.id, amount: 1 },
    });
    expect(sim.body).toEqual(
      expect.objectContaining({ would_succeed: false, reason: { code: 'recipient_invalid', message } }),
    );
  });
});

describe('a transfer too small to carry its fee', () => {
  it('is invalid_amount 400 below 0.0005 (a fee of one base unit), and simulate says so too', async () => {
    const agent = await world.agent(LIMITS, 10);
    const message = 'A transfer must be large enough to carry its 0.10 % fee: at least 0.0005 of this token.';
    for (const amount of [0.000001, 0.000499])
      expectError(
        await spendOf('/api/v1/transfer', agent, { to: world.vendor, amount }),
        400,
        'invalid_amount',
        message,
      );
    expectVariantError(
      await spendOf('/v1/transfer', agent, { recipient: world.vendor, amount: 0.000001 }),
      400,
      'invalid_amount',
      message,
    );
    const sim = await world.client.call('POST', '/api/v1/intents/simulate', {
      token: agent.key,
      body: { to: world.vendor, amount: 0.000001 },
    });
    expect(sim.body).toEqual(expect.objectContaining({ would_succeed: false, reason: 'invalid_amount' }));

    const smallest = await spendOf('/api/v1/transfer', agent, { to: world.vendor, amount: 0.0005 });
    expect(smallest.status).toBe(200);
    expect(smallest.body).toEqual(expect.objectContaining({ net_amount: 0.000499, protocol_fee: 0.000001 }));
  });
});
