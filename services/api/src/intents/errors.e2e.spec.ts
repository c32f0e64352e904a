/**
 * Every error code an agent can meet, reached through the API, with its status, in the envelope
 * (the harness has the service check each answer against the contract).
 */
import { generateSigner } from '@tokenops/shared';
import { key, signIn, startWorld, type World } from '@tokenops/testing/harness';

let world: World;
let agent: { id: string; key: string };
let peer: { id: string; key: string };
beforeAll(async () => {
  world = await startWorld({ vendorBudget: 50 });
  agent = await world.agent({ per_tx_limit: 100, daily_limit: 150, hourly_tx_cap: 5 }, 1000);
  peer = await world.agent({}, 0);
});
afterAll(async () => world.close());

const transfer = (body: Record<string, unknown>, token = agent.key) =>
  world.client.call('POST', '/api/v1/transfer', { token, body: { idempotency_key: key(), ...body } });

async function expectError(
  reply: Promise<{ status: number; body: Record<string, unknown> }>,
  status: number,
  code: string,
) {
  const r = await reply;
  expect({ status: r.status, error: r.body.error }).toEqual({ status, error: code });
  expect(typeof r.body.message).toBe('string');
}

describe('error codes through the API', () => {
  it('validation_error 400, with a JSON Pointer to each failing field', async () => {
    const r = await world.client.call('POST', '/api/v1/transfer', { token: agent.key, body: { amount: 1 } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: 'validation_error',
      message: expect.any(String),
      details: [
        { path: '/to', issue: expect.any(String) },
        { path: '/idempotency_key', issue: expect.any(String) },
      ],
    });
  });
  it('invalid_amount 400: 7 decimals, negative, not a number', async () => {
    await expectError(transfer({ to: peer.id, amount: 1.0000001 }), 400, 'invalid_amount');
    await expectError(transfer({ to: peer.id, amount: -1 }), 400, 'invalid_amount');
    await expectError(transfer({ to: peer.id, amount: 'ten' }), 400, 'invalid_amount');
    await expectError(transfer({ to: peer.id, amount: 0 }), 400, 'invalid_amount');
  });
  it('invalid_mint 400 and token_not_in_registry 400', async () => {
    await expectError(transfer({ to: peer.id, amount: 1, mint: '1'.repeat(33) }), 400, 'invalid_mint');
    await expectError(
      transfer({ to: peer.id, amount: 1, mint: generateSigner().address }),
      400,
      'token_not_in_registry',
    );
  });
  it('recipient_invalid 400: not an address, or the agent itself', async () => {
    await expectError(transfer({ to: 'z'.repeat(44), amount: 1 }), 400, 'recipient_invalid');
    await expectError(transfer({ to: agent.id, amount: 1 }), 400, 'recipient_invalid');
  });
  it('unauthorized 401: no key, a malformed key, a forged key', async () => {
    await expectError(world.client.call('GET', '/api/v1/limits'), 401, 'unauthorized');
    await expectError(
      world.client.call('GET', '/api/v1/limits', { token: 'aw_nope_123' }),
      401,
      'unauthorized',
    );
    const forged = `${agent.key.slice(0, -9)}_00000000`;
    await expectError(world.client.call('GET', '/api/v1/limits', { token: forged }), 401, 'unauthorized');
  });
  it('invalid_invitation_code 400', async () => {
    await expectError(
      world.client.call('POST', '/api/v1/register', { body: { invitation_code: 'inv_nope_00000000' } }),
      400,
      'invalid_invitation_code',
    );
  });
  it('whitelist_violation, per_tx_limit_exceeded 403', async () => {
    await expectError(transfer({ to: generateSigner().address, amount: 1 }), 403, 'whitelist_violation');
    await expectError(transfer({ to: peer.id, amount: 100.01 }), 403, 'per_tx_limit_exceeded');
  });
  it('whitelist_amount_exhausted 403 (budget 50), then daily_limit_exceeded 403 (150), then hourly_cap_exceeded 403 (5)', async () => {
    await expectError(transfer({ to: world.vendor, amount: 50.5 }), 403, 'whitelist_amount_exhausted');
    expect((await transfer({ to: peer.id, amount: 100 })).status).toBe(200);
    await expectError(transfer({ to: peer.id, amount: 50.000001 }), 403, 'daily_limit_exceeded');
    for (let i = 0; i < 4; i++) expect((await transfer({ to: peer.id, amount: 1 })).status).toBe(200);
    await expectError(transfer({ to: peer.id, amount: 1 }), 403, 'hourly_cap_exceeded');
  });
  it('whitelist_expired 403', async () => {
    const entry = generateSigner().address;
    await world.allow({ address: entry, type: 1, approved_amount: 10, ttl_seconds: 1 });
    const other = await world.agent({}, 100);
    await new Promise((r) => setTimeout(r, 1100));
    await expectError(transfer({ to: entry, amount: 1 }, other.key), 403, 'whitelist_expired');
  });
  it('insufficient_balance 400 and account_not_initialized 400, from the chain', async () => {
    const poor = await world.agent({}, 1);
    await expectError(transfer({ to: peer.id, amount: 5 }, poor.key), 400, 'insufficient_balance');
    const empty = await world.agent({}, 0);
    await expectError(transfer({ to: peer.id, amount: 1 }, empty.key), 400, 'account_not_initialized');
  });
  it('idempotency_key_reused 409: the same key with another body', async () => {
    const other = await world.agent({}, 100);
    const k = key();
    expect((await transfer({ to: peer.id, amount: 1, idempotency_key: k }, other.key)).status).toBe(200);
    await expectError(
      transfer({ to: peer.id, amount: 2, idempotency_key: k }, other.key),
      409,
      'idempotency_key_reused',
    );
  });
  it('validation_error 400 when the idempotency-key header differs from the body', async () => {
    const r = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      headers: { 'idempotency-key': 'a' },
      body: { to: peer.id, amount: 1, idempotency_key: 'b' },
    });
    expect(r.body.error).toBe('validation_error');
  });
  it('not_found 404 for an unknown route; forbidden 403 for another operator’s group', async () => {
    await expectError(world.client.call('GET', '/api/v1/nope'), 404, 'not_found');
    const stranger = await signIn(world.client);
    await expectError(
      world.client.call('GET', `/api/v1/orchestrator/groups/${world.groupId}`, { token: stranger.token }),
      403,
      'forbidden',
    );
  });
});

describe('the HTTP edge', () => {
  it('answers malformed JSON, a wrong content type and an unknown field on register with the envelope', async () => {
    const bad = await world.client.call('POST', '/api/v1/register', {
      raw: '{"invitation_code":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('validation_error');
    const text = await world.client.call('POST', '/api/v1/register', {
      raw: 'invitation_code=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(text.body).toEqual({
      error: 'validation_error',
      message: expect.any(String),
      details: [{ path: '', issue: expect.stringContaining('application/json') }],
    });
    const extra = await world.client.call('POST', '/api/v1/register', {
      body: { invitation_code: 'x', admin: true },
    });
    expect(extra.body).toEqual({
      error: 'validation_error',
      message: expect.any(String),
      details: [{ path: '/admin', issue: 'unknown property "admin"' }],
    });
  });
  it('answers an oversized body with validation_error (a listed code) in the envelope', async () => {
    const big = await world.client.call('POST', '/api/v1/register', {
      body: { invitation_code: 'x'.repeat(70_000) },
    });
    expect(big.status).toBe(400);
    expect(big.body).toEqual({
      error: 'validation_error',
      message: expect.any(String),
      details: [{ path: '', issue: 'the body is over 65536 bytes' }],
    });
  });
  it('never answers a stack trace: a number too big for a float stays exact and is refused cleanly', async () => {
    const r = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      raw: `{"to":"${peer.id}","amount":1000000000000.0000001,"idempotency_key":"x"}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_amount');
    expect(JSON.stringify(r.body)).not.toMatch(/at .*\.ts|Error:/);
  });
  it('serves health and readiness', async () => {
    expect((await world.client.call('GET', '/healthz')).status).toBe(200);
    // Over JSON-RPC (the topology) readiness names the chain's node, healthy (docs/chain-node.md).
    expect((await world.client.call('GET', '/readyz')).body).toEqual(
      world.service.rpcUrl === undefined
        ? { status: 'ready' }
        : {
            status: 'ready',
            nodes: {
              chain: [expect.objectContaining({ node: new URL(world.service.rpcUrl).host, healthy: true })],
            },
          },
    );
  });
});

describe('text the log cannot store, and bytes that are not text', () => {
  /** The agent's stream as it stands (the write model): a refused request must not move it. */
  const agentStream = async () => (await world.service.ctx.store.readStream(`agent-${agent.id}`)).length;

  it.each([
    ['memo', { memo: 'pay\u0000ment' }],
    ['task_id', { task_id: '\ud800' }],
    ['idempotency_key', { idempotency_key: 'k\u0000' }],
    ['an unknown field', { note: 'x\udfff' }],
  ])(
    'a transfer with U+0000 or a lone surrogate in %s is validation_error there, and nothing moves',
    async (_field, extra) => {
      const before = await agentStream();
      const r = await transfer({ to: peer.id, amount: 1, ...extra });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: 'validation_error',
        message: expect.any(String),
        details: [{ path: `/${Object.keys(extra)[0]}`, issue: expect.any(String) }],
      });
      expect(await agentStream()).toBe(before);
    },
  );

  it('refuses it in register, simulate and a query too', async () => {
    const reg = await world.client.call('POST', '/api/v1/register', {
      body: { invitation_code: 'inv_\u0000' },
    });
    expect(reg.body.details).toEqual([{ path: '/invitation_code', issue: expect.any(String) }]);
    const sim = await world.client.call('POST', '/api/v1/intents/simulate', {
      token: agent.key,
      body: { amount: 1, to: `${peer.id.slice(0, -1)}\u0000` },
    });
    expect(sim.body.details).toEqual([{ path: '/to', issue: expect.stringContaining('U+0000') }]);
    const history = await world.client.call('GET', '/api/v1/history?limit=%00', { token: agent.key });
    expect(history.status).toBe(400);
    expect(history.body.error).toBe('validation_error');
  });

  it('refuses a body that is not valid UTF-8, rather than reading U+FFFD into it', async () => {
    const before = await agentStream();
    const body = Buffer.concat([
      Buffer.from(`{"to":"${peer.id}","amount":1,"idempotency_key":"${key()}","memo":"caf`),
      Buffer.from([0xe9]), // Latin-1 é: not UTF-8
      Buffer.from('"}'),
    ]);
    const res = await fetch(`${world.client.url}/api/v1/transfer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agent.key}`, 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: 'validation_error',
      message: expect.any(String),
      details: [{ path: '', issue: 'the body is not valid UTF-8' }],
    });
    expect(await agentStream()).toBe(before);
  });

  it('counts the memo in UTF-8 bytes: 200 pass, 201 (in 51 characters) do not', async () => {
    const sender = await world.agent({}, 100);
    const over = await transfer({ to: peer.id, amount: 1, memo: `${'🚀'.repeat(50)}x` }, sender.key);
    expect(over.status).toBe(400);
    expect(over.body.details).toEqual([{ path: '/memo', issue: 'must be at most 200 bytes in UTF-8' }]);
    const memo = '🚀'.repeat(50);
    expect((await transfer({ to: peer.id, amount: 1, memo }, sender.key)).status).toBe(200);
    const history = await world.client.call<{ transactions: { memo?: string }[] }>('GET', '/api/v1/history', {
      token: sender.key,
    });
    expect(history.body.transactions.map((t) => t.memo)).toEqual([memo]);
  });
});
