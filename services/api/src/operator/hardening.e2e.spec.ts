/**
 * The operator surface refuses what it cannot keep, before anything is written: text the log cannot
 * store (in bodies and path parameters), numbers out of range, loose bodies, changes to a revoked
 * agent; a wallet challenge signs in once; the airdrop is an operator's, with its amount in range.
 * After each refusal, the state a user reads (the group, a simulation, the log) has not moved.
 */
import bs58 from 'bs58';
import { generateSigner, operatorOpenApiDocument } from '@tokenops/shared';
import { key, startWorld, type World } from '@tokenops/testing/harness';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.close());

const asOperator = (method: string, path: string, body?: unknown, raw?: string) =>
  world.client.call(method, `/api/v1/orchestrator${path}`, {
    token: world.operator.token,
    ...(body !== undefined && { body }),
    ...(raw !== undefined && { raw, headers: { 'content-type': 'application/json' } }),
  });

const group = async () => {
  const r = await asOperator('GET', `/groups/${world.groupId}`);
  expect(r.status).toBe(200);
  return r.body;
};

/** The events of one stream (the write model), as types. */
const streamTypes = async (stream: string) =>
  (await world.service.ctx.store.readStream(stream)).map((e) => e.type);

const expectValidation = (r: { status: number; body: Record<string, unknown> }, path: string) => {
  expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: 'validation_error' });
  expect(r.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
};

describe('text the log cannot store', () => {
  it.each([
    ['a NUL in a label', { label: 'ven\u0000dor' }],
    ['a lone surrogate in a label', { label: 'ven\ud800dor' }],
    ['a NUL in a property name', { 'x\u0000': 1 }],
  ])('is refused in an allow-list entry (%s), and the group does not move', async (_what, extra) => {
    const before = await group();
    const r = await asOperator('POST', `/groups/${world.groupId}/whitelist`, {
      address: generateSigner().address,
      type: 1,
      approved_amount: 5,
      ttl_seconds: 3600,
      ...extra,
    });
    expectValidation(r, Object.keys(extra)[0] === 'label' ? '/label' : '/x\u0000');
    expect(await group()).toEqual(before);
  });

  it('is refused in an invitation label, and nobody is invited', async () => {
    const before = await group();
    expectValidation(
      await asOperator('POST', `/groups/${world.groupId}/invitations`, { label: '\u0000' }),
      '/label',
    );
    expectValidation(
      await asOperator('POST', `/groups/${world.groupId}/invitations`, { label: '\udfff' }),
      '/label',
    );
    expect(await group()).toEqual(before);
  });

  it.each([
    ['POST', '/agents/a%00b/revoke', '/agent'],
    ['PATCH', '/agents/a%00b/limits', '/agent'],
    ['POST', '/agents/%ED%A0%80/rotate-key', ''], // a lone surrogate does not even decode
    ['GET', '/groups/g%00g', '/group'],
    ['DELETE', `/groups/g%00g/whitelist/e`, '/group'],
    ['GET', '/groups/%E0%A4%A', ''], // a broken escape
    ['GET', '/groups/not-an-id', '/group'],
  ])('is refused in a path parameter: %s %s', async (method, path, pointer) => {
    const r = await world.client.call(method, `/api/v1/orchestrator${path}`, {
      token: world.operator.token,
      ...(method !== 'GET' && method !== 'DELETE' && { body: { per_tx_limit: 1 } }),
    });
    expectValidation(r, pointer);
  });
});

describe('numbers out of range', () => {
  it('ttl_seconds 1e13 is refused and stores nothing: the group still reads, simulate still says no', async () => {
    const agent = await world.agent({}, 0);
    const address = generateSigner().address;
    const before = await group();
    const r = await asOperator('POST', `/groups/${world.groupId}/whitelist`, {
      address,
      type: 1,
      approved_amount: 5,
      ttl_seconds: 1e13,
    });
    expectValidation(r, '/ttl_seconds');
    expect(await group()).toEqual(before);
    const simulated = await world.client.call('POST', '/api/v1/intents/simulate', {
      token: agent.key,
      body: { amount: 1, to: address },
    });
    expect(simulated.body).toEqual(
      expect.objectContaining({ would_succeed: false, reason: 'whitelist_violation' }),
    );
  });

  it.each([
    [{ hourly_tx_cap: 1e7 }, '/hourly_tx_cap'],
    [{ hourly_tx_cap: 2.5 }, '/hourly_tx_cap'],
    [{ hourly_tx_cap: '9' }, '/hourly_tx_cap'],
  ])('an invitation with %j is refused', async (body, path) => {
    expectValidation(await asOperator('POST', `/groups/${world.groupId}/invitations`, body), path);
  });

  it('an amount past the u64 range is invalid_amount', async () => {
    const r = await asOperator('POST', `/groups/${world.groupId}/invitations`, {
      daily_limit: '18446744073709.551616',
    });
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: 'invalid_amount' });
  });
});

describe('agents', () => {
  it('PATCH limits refuses a null body and an empty one, and the limits stay', async () => {
    const agent = await world.agent({ per_tx_limit: 7 }, 0);
    expectValidation(await asOperator('PATCH', `/agents/${agent.id}/limits`, undefined, 'null'), '');
    expectValidation(await asOperator('PATCH', `/agents/${agent.id}/limits`, {}), '');
    expectValidation(
      await asOperator('PATCH', `/agents/${agent.id}/limits`, { per_tx_limit: 1, x: 1 }),
      '/x',
    );
    const limits = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(limits.body.per_tx_limit).toBe(7);
    expect(await streamTypes(`agent-${agent.id}`)).not.toContain('agent.limits_changed');
  });

  it('a revoked agent’s limits cannot change: revocation is final (409 conflict)', async () => {
    const agent = await world.agent({}, 0);
    expect((await asOperator('POST', `/agents/${agent.id}/revoke`)).status).toBe(200);
    const r = await asOperator('PATCH', `/agents/${agent.id}/limits`, { per_tx_limit: 1 });
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 409, error: 'conflict' });
    expect(r.body.message).toMatch(/revoked/);
    expect(await streamTypes(`agent-${agent.id}`)).not.toContain('agent.limits_changed');
  });

  it('revoke and rotate-key take no body fields', async () => {
    const agent = await world.agent({}, 0);
    expectValidation(await asOperator('POST', `/agents/${agent.id}/revoke`, { reason: 'x' }), '/reason');
    expect((await world.client.call('GET', '/api/v1/limits', { token: agent.key })).status).toBe(200);
  });
});

describe('wallet sign-in', () => {
  it('a signed challenge gives one token, once: sent again (to any instance), it is refused', async () => {
    const wallet = generateSigner();
    const challenge = await world.client.call<{ message: string }>(
      'POST',
      '/api/v1/orchestrator/auth/challenge',
      {
        body: { wallet: wallet.address },
      },
    );
    const signature = bs58.encode(wallet.sign(Buffer.from(challenge.body.message, 'utf8')));
    const body = { wallet: wallet.address, message: challenge.body.message, signature };
    const first = await world.client.call('POST', '/api/v1/orchestrator/auth/token', { body });
    expect(first.status).toBe(200);
    const again = await world.client.call('POST', '/api/v1/orchestrator/auth/token', { body });
    expect({ status: again.status, error: again.body.error }).toEqual({ status: 401, error: 'unauthorized' });
    expect(again.body.message).toMatch(/used already/);
  });

  it('of the same challenge sent five times at once, exactly one signs in', async () => {
    const wallet = generateSigner();
    const challenge = await world.client.call<{ message: string }>(
      'POST',
      '/api/v1/orchestrator/auth/challenge',
      {
        body: { wallet: wallet.address },
      },
    );
    const signature = bs58.encode(wallet.sign(Buffer.from(challenge.body.message, 'utf8')));
    const body = { wallet: wallet.address, message: challenge.body.message, signature };
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => world.client.call('POST', '/api/v1/orchestrator/auth/token', { body })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 401, 401, 401, 401]);
  });

  it('refuses a challenge body with text the log cannot store, or unknown fields', async () => {
    const wallet = generateSigner();
    expectValidation(
      await world.client.call('POST', '/api/v1/orchestrator/auth/token', {
        body: { wallet: wallet.address, message: 'a\u0000', signature: 'abc' },
      }),
      '/message',
    );
    expectValidation(
      await world.client.call('POST', '/api/v1/orchestrator/auth/challenge', {
        body: { wallet: wallet.address, admin: true },
      }),
      '/admin',
    );
  });
});

describe('the airdrop (local chain)', () => {
  const usdc = () => world.service.ctx.chain.tokens[0]!.mint;

  it('needs an operator token', async () => {
    const to = generateSigner().address;
    const r = await world.client.call('POST', '/api/v1/dev/airdrop', { body: { to, amount: 5 } });
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 401, error: 'unauthorized' });
    expect((await world.service.ctx.chain.balances(to)).get(usdc()) ?? 0n).toBe(0n);
    const ok = await world.client.call('POST', '/api/v1/dev/airdrop', {
      token: world.operator.token,
      body: { to, amount: 5 },
    });
    expect(ok.status).toBe(200);
    expect((await world.service.ctx.chain.balances(to)).get(usdc())).toBe(5_000_000n);
  });

  it.each([
    ['past the token’s supply', '18446744073709.551615'],
    ['past u64', '18446744073709.551616'],
    ['past u64 in base units of the 9-decimal token', '18446744074', 1],
  ])('an amount %s is 400 invalid_amount and mints nothing', async (_what, amount, token = 0) => {
    const to = generateSigner().address;
    const mint = world.service.ctx.chain.tokens[token as number]!.mint;
    const r = await world.client.call('POST', '/api/v1/dev/airdrop', {
      token: world.operator.token,
      body: { to, amount, mint },
    });
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 400, error: 'invalid_amount' });
    expect((await world.service.ctx.chain.balances(to)).get(mint) ?? 0n).toBe(0n);
  });

  it('refuses unknown fields and a recipient that is not an address', async () => {
    expectValidation(
      await world.client.call('POST', '/api/v1/dev/airdrop', {
        token: world.operator.token,
        body: { to: generateSigner().address, amount: 1, note: key() },
      }),
      '/note',
    );
    expectValidation(
      await world.client.call('POST', '/api/v1/dev/airdrop', {
        token: world.operator.token,
        body: { to: 'a\u0000', amount: 1 },
      }),
      '/to',
    );
  });
});

describe('the operator OpenAPI document', () => {
  it('is served at /api/v1/orchestrator/openapi.json, without a token', async () => {
    const r = await world.client.call('GET', '/api/v1/orchestrator/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body).toEqual(JSON.parse(JSON.stringify(operatorOpenApiDocument())));
  });
});
