import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startEmbedded } from '../embedded';
import { createLogger } from '@tokenops/shared/process';
import {
  Client,
  key,
  signIn,
  startWorld,
  type World,
  invitation,
  signProposal,
  type ProposalReply,
} from '@tokenops/testing/harness';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world.close());

describe('keys', () => {
  it('a revoked agent is refused at once, for reads and for spends', async () => {
    const agent = await world.agent();
    const peer = await world.agent({}, 0);
    expect((await world.client.call('GET', '/api/v1/limits', { token: agent.key })).status).toBe(200);
    expect(
      (
        await world.client.call('POST', `/api/v1/orchestrator/agents/${agent.id}/revoke`, {
          token: world.operator.token,
        })
      ).body,
    ).toEqual({ agent_wallet_pda: agent.id, is_active: 'revoked' });
    const spend = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: peer.id, amount: 1, idempotency_key: key() },
    });
    expect(spend.status).toBe(401);
    expect(spend.body.error).toBe('unauthorized');
  });

  it('a rotated key is dead at once; the new one works', async () => {
    const agent = await world.agent();
    const peer = await world.agent({}, 0);
    // The old key dies with the answer; the new one is a proposal, its key in the executing signature's answer.
    const proposed = await world.client.call<ProposalReply>(
      'POST',
      `/api/v1/orchestrator/agents/${agent.id}/rotate-key`,
      { token: world.operator.token },
    );
    expect(proposed).toMatchObject({ status: 202, body: { action: 'agent.issue_key', status: 'pending' } });
    const old = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: peer.id, amount: 1, idempotency_key: key() },
    });
    expect(old.status).toBe(401);
    const signed = await signProposal(world.client, world.operator, proposed.body);
    const { api_key } = signed.body.result as { api_key: string };
    expect(api_key).toMatch(/^aw_/);
    const fresh = await world.client.call('POST', '/api/v1/transfer', {
      token: api_key,
      body: { to: peer.id, amount: 1, idempotency_key: key() },
    });
    expect(fresh.status).toBe(200);
  });

  it('the key is shown once, has a recognisable prefix and checksum, and is not stored in the clear', async () => {
    const agent = await world.agent();
    expect(agent.key).toMatch(/^aw_[1-9A-HJ-NP-Za-km-z]+_[0-9a-f]{8}$/);
    const all = await world.log();
    expect(JSON.stringify(all.map((e) => e.data))).not.toContain(agent.key);
  });
});

describe('limits changed by the operator', () => {
  it('apply to the next spend and show in /limits', async () => {
    const agent = await world.agent({ per_tx_limit: 10 });
    const peer = await world.agent({}, 0);
    const changed = await world.client.call('PATCH', `/api/v1/orchestrator/agents/${agent.id}/limits`, {
      token: world.operator.token,
      body: { per_tx_limit: 2, hourly_tx_cap: 3 },
    });
    expect(changed.status).toBe(200);
    const r = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: peer.id, amount: 3, idempotency_key: key() },
    });
    expect({ status: r.status, body: r.body }).toEqual({
      status: 403,
      body: { error: 'per_tx_limit_exceeded', message: expect.any(String) },
    });
    const limits = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
    expect(limits.body).toEqual(
      expect.objectContaining({ per_tx_limit: 2, hourly_tx_cap: 3, hourly_tx_remaining: 3 }),
    );
  });
});

describe('simulate, balance and history', () => {
  it('simulate answers from the same decision, commits nothing, and estimates the fee', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 60 });
    const peer = await world.agent({}, 0);
    expect(
      (
        await world.client.call('POST', '/api/v1/intents/simulate', {
          token: agent.key,
          body: { amount: 40, to: peer.id },
        })
      ).body,
    ).toEqual({ would_succeed: true, daily_remaining: 60, hourly_tx_remaining: 60, estimated_fee: 0.04 });
    expect(
      (
        await world.client.call('POST', '/api/v1/intents/simulate', {
          token: agent.key,
          body: { amount: 70 },
        })
      ).body,
    ).toEqual(expect.objectContaining({ would_succeed: false, reason: 'per_tx_limit_exceeded' }));
    await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: peer.id, amount: 40, idempotency_key: key() },
    });
    const after = await world.client.call('POST', '/api/v1/intents/simulate', {
      token: agent.key,
      body: { amount: 30, to: peer.id },
    });
    expect(after.body).toEqual({
      would_succeed: false,
      reason: 'daily_limit_exceeded',
      daily_remaining: 20,
      hourly_tx_remaining: 59,
      estimated_fee: 0.03,
    });
  });

  it('a lending venue receipt token is listed, and cannot be airdropped: only a deposit mints it', async () => {
    const tokens = await world.client.call<{ tokens: { symbol: string; mint: string }[] }>(
      'GET',
      '/api/v1/tokens',
    );
    const kusdc = tokens.body.tokens.find((t) => t.symbol === 'kUSDC')!;
    const agent = await world.agent({}, 0);
    const refused = await world.client.call('POST', '/api/v1/dev/airdrop', {
      token: world.operator.token,
      body: { to: agent.id, mint: kusdc.mint, amount: 5 },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(
      expect.objectContaining({
        error: 'validation_error',
        details: [expect.objectContaining({ path: '/mint' })],
      }),
    );
    expect((await world.service.ctx.chain.balances(agent.id)).get(kusdc.mint)).toBe(0n);
  });

  it('balances follow payments in and transfers out, between agents too; history is newest first and bounded by limit', async () => {
    const agent = await world.agent({}, 100);
    const peer = await world.agent({}, 0);
    for (const amount of [1, 2, 3])
      await world.client.call('POST', '/api/v1/transfer', {
        token: agent.key,
        body: { to: peer.id, amount, idempotency_key: key(), memo: `m${amount}` },
      });
    const mine = await world.client.call<{ balances: Record<string, number> }>('GET', '/api/v1/balance', {
      token: agent.key,
    });
    expect(mine.body.balances).toEqual({ USDC: 94, SOL: 0, kUSDC: 0, kSOL: 0 });
    const theirs = await world.client.call<{ balances: Record<string, number> }>('GET', '/api/v1/balance', {
      token: peer.key,
    });
    expect(theirs.body.balances.USDC).toBe(5.994);
    const history = await world.client.call<{ transactions: { amount: number; memo: string; to: string }[] }>(
      'GET',
      '/api/v1/history?limit=2',
      { token: agent.key },
    );
    expect(history.body.transactions.map((t) => [t.amount, t.memo, t.to])).toEqual([
      [3, 'm3', peer.id],
      [2, 'm2', peer.id],
    ]);
    expect((await world.client.call('GET', '/api/v1/history?limit=0', { token: agent.key })).body.error).toBe(
      'validation_error',
    );
  });
});

describe('webhooks', () => {
  it('registers an https subscription to a public address and shows the secret once', async () => {
    const agent = await world.agent();
    const r = await world.client.call('POST', '/api/v1/webhooks', {
      token: agent.key,
      body: { url: 'https://93.184.216.34/hooks', event_types: ['transfer.confirmed'] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      webhook_id: expect.stringMatching(/^wh_/),
      signing_secret: expect.stringMatching(/^whsec_/),
    });
    const all = await world.log();
    expect(JSON.stringify(all.map((e) => e.data))).not.toContain(r.body.signing_secret as string);
  });

  it.each([
    'https://127.0.0.1/x',
    'https://10.0.0.8/x',
    'https://[::1]/x',
    'https://[::ffff:127.0.0.1]/x',
    'https://169.254.169.254/x',
    'https://192.168.1.1/x',
    'https://user:pw@93.184.216.34/x',
    'http://93.184.216.34/x',
  ])('refuses %s', async (url) => {
    const agent = await world.agent();
    const r = await world.client.call('POST', '/api/v1/webhooks', {
      token: agent.key,
      body: { url, event_types: ['transfer.confirmed'] },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('validation_error');
  });
});

describe('a wait that runs out', () => {
  it('answers idempotency_in_progress, leaves the transfer running, and a retry gets the original answer', async () => {
    const slow = await startWorld({ outcomeTimeoutMs: 1 });
    try {
      const agent = await slow.agent({}, 100);
      const peer = await slow.agent({}, 0);
      const body = { to: peer.id, amount: 2, idempotency_key: key() };
      // On the embedded default the executor shares this process and its chain: hold its submission
      // until the first answer is in, or a fast machine confirms within the 1 ms wait. (On the
      // topology the executor is another process and the API's wait is at least 100 ms.)
      const chain = slow.service.ctx.chain;
      const submit = chain.submit.bind(chain);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      chain.submit = async (tx) => {
        await held;
        return submit(tx);
      };
      const first = await slow.client.call('POST', '/api/v1/transfer', { token: agent.key, body });
      release();
      expect(first.status).toBe(409);
      expect(first.body.error).toBe('idempotency_in_progress');
      let retry = first;
      for (let i = 0; i < 100 && retry.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 20));
        retry = await slow.client.call('POST', '/api/v1/transfer', { token: agent.key, body });
      }
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(
        expect.objectContaining({ status: 'confirmed', net_amount: 1.998, protocol_fee: 0.002 }),
      );
      expect(
        (await slow.service.ctx.chain.balances(peer.id)).get(slow.service.ctx.chain.tokens[0]!.mint),
      ).toBe(1_998_000n);
    } finally {
      await slow.close();
    }
  });
});

describe('a restart of the embedded service', () => {
  it('keeps agents, keys, limits, history and balances', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tokenops-'));
    const secrets = { keyEncryptionKey: randomBytes(32), jwtSecret: randomBytes(32) };
    const start = () =>
      startEmbedded({ dataDir, port: 0, ...secrets, logger: createLogger('silent'), checkResponses: true });
    let service = await start();
    let client = new Client(service.url);
    const operator = await signIn(client);
    const group = await client.call<{ group_config_pda: string }>('POST', '/api/v1/orchestrator/groups', {
      token: operator.token,
      body: {},
    });
    const invite = async () =>
      (await invitation(client, operator, group.body.group_config_pda, { daily_limit: 500 })).body;
    const a = await invite();
    const b = await invite();
    await client.call('POST', '/api/v1/dev/airdrop', {
      token: operator.token,
      body: { to: a.agent_wallet_pda, amount: 100 },
    });
    const keyA = (
      await client.call<{ api_key: string }>('POST', '/api/v1/register', {
        body: { invitation_code: a.invitation_code },
      })
    ).body.api_key;
    await client.call('POST', '/api/v1/register', { body: { invitation_code: b.invitation_code } });
    const sent = await client.call('POST', '/api/v1/transfer', {
      token: keyA,
      body: { to: b.agent_wallet_pda, amount: 10, idempotency_key: 'restart-1' },
    });
    expect(sent.status).toBe(200);
    await service.close();

    service = await start();
    client = new Client(service.url);
    try {
      expect((await client.call('GET', '/api/v1/limits', { token: keyA })).body).toEqual(
        expect.objectContaining({ daily_limit: 500, daily_remaining: 490, hourly_tx_remaining: 59 }),
      );
      expect(
        (await client.call<{ balances: Record<string, number> }>('GET', '/api/v1/balance', { token: keyA }))
          .body.balances.USDC,
      ).toBe(90);
      expect(
        (await client.call<{ transactions: unknown[] }>('GET', '/api/v1/history', { token: keyA })).body
          .transactions,
      ).toHaveLength(1);
      const replay = await client.call('POST', '/api/v1/transfer', {
        token: keyA,
        body: { to: b.agent_wallet_pda, amount: 10, idempotency_key: 'restart-1' },
      });
      expect(replay.body).toEqual(sent.body);
      expect(
        (await service.ctx.chain.balances(b.agent_wallet_pda)).get(service.ctx.chain.tokens[0]!.mint),
      ).toBe(9_990_000n);
      expect(
        (await client.call('POST', '/api/v1/register', { body: { invitation_code: a.invitation_code } })).body
          .error,
      ).toBe('invalid_invitation_code');
    } finally {
      await service.close();
    }
  });
});
