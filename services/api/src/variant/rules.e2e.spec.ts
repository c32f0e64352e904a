/**
 * The rules only the variant contract (/v1) has, as an agent meets them over HTTP: the memo's 200
 * bytes (kept in the log, its SHA-256 on chain), the required UUID Idempotency-Key and its replay,
 * the history cursor while transfers arrive, the simulation's `checks` for each failing rule, the
 * variant's error envelope and code names, and its rate limit. Every answer is checked against the
 * variant schemas here (and by the service itself: checkResponses).
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  MEMO_PROGRAM_ADDRESS,
  generateSigner,
  responseViolations,
  streams,
  type VariantSchemaName,
} from '@tokenops/shared';
import { getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { openBooks } from '@tokenops/testing/conservation';
import { startWorld, type Reply, type World, enact } from '@tokenops/testing/harness';

let world: World;
let books: Awaited<ReturnType<typeof openBooks>>;
beforeAll(async () => {
  world = await startWorld();
  books = await openBooks(world);
});
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => world?.close());

type Agent = { id: string; key: string };
type Body = Record<string, unknown>;

/** A /v1 call; its answer must match the schema (the error body for any refusal). */
async function v1(
  method: string,
  path: string,
  agent: Agent | undefined,
  schema: VariantSchemaName,
  options: { body?: unknown; key?: string | null } = {},
): Promise<Reply<Body>> {
  const headers: Record<string, string> = {};
  if (options.key !== null && method === 'POST') headers['idempotency-key'] = options.key ?? randomUUID();
  const res = await world.client.call<Body>(method, `/v1${path}`, {
    ...(agent && { token: agent.key }),
    ...(options.body !== undefined && { body: options.body }),
    headers,
  });
  expect(responseViolations(res.status === 200 ? schema : 'VariantErrorBody', res.body)).toEqual([]);
  return res;
}

const transfer = (agent: Agent, body: Body, key?: string | null) =>
  v1('POST', '/transfer', agent, 'VariantTransferResponse', { body, ...(key !== undefined && { key }) });
const simulate = (agent: Agent, body: Body) =>
  v1('POST', '/intents/simulate', agent, 'VariantSimulateResponse', { body: { type: 'transfer', ...body } });
const history = (agent: Agent, query = '') => v1('GET', `/history${query}`, agent, 'VariantHistoryResponse');

describe('the memo', () => {
  it('is refused at 201 UTF-8 bytes with the variant envelope, and nothing is spent', async () => {
    const agent = await world.agent();
    const res = await transfer(agent, { recipient: world.vendor, amount: 1, memo: `${'é'.repeat(100)}x` });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: 'validation_error',
        message: expect.any(String),
        details: [{ path: '/memo', issue: 'must be at most 200 bytes in UTF-8' }],
      },
    });
    expect((await history(agent)).body.items).toEqual([]);
  });

  it('of 200 bytes is kept in the log and the history; the chain’s memo carries its SHA-256', async () => {
    const agent = await world.agent();
    const memo = 'é'.repeat(100);
    const res = await transfer(agent, { recipient: world.vendor, amount: 2, memo, task_id: 't-9' });
    expect(res.status).toBe(200);
    const [entry] = (await history(agent)).body.items as Body[];
    expect(entry).toEqual(expect.objectContaining({ memo, tx_signature: res.body.tx_signature }));
    // What the executor submitted (its record in the log): the transaction's memo instructions.
    const submitted = (await world.service.ctx.store.readStream(streams.agent(agent.id))).find(
      (e) => e.type === 'intent.submitting',
    )!.data as { wire: string };
    const tx = getTransactionDecoder().decode(Buffer.from(submitted.wire, 'base64'));
    const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes) as unknown as {
      staticAccounts: string[];
      instructions: { programAddressIndex: number; data?: Uint8Array }[];
    };
    const memos = message.instructions
      .filter((ix) => message.staticAccounts[ix.programAddressIndex] === MEMO_PROGRAM_ADDRESS)
      .map((ix) => Buffer.from(ix.data ?? []).toString('utf8'));
    expect(memos).toContain(createHash('sha256').update(memo, 'utf8').digest('hex'));
    expect(memos.join('')).not.toContain(memo);
  });
});

describe('the Idempotency-Key header', () => {
  it('is required on every spend, and must be a UUID', async () => {
    const agent = await world.agent();
    const lending = { amount: 1, lending_program: world.vendor };
    for (const [path, body] of [
      ['/transfer', { recipient: world.vendor, amount: 1 }],
      ['/swap', { input_mint: world.vendor, output_mint: world.vendor, input_amount: 1 }],
      ['/deposit', lending],
      ['/withdraw', lending],
    ] as const) {
      for (const key of [null, 'not-a-uuid', '']) {
        const res = await v1('POST', path, agent, 'VariantErrorBody', { body, key });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          error: { code: 'validation_error', message: expect.any(String), details: [expect.any(Object)] },
        });
      }
    }
    expect((await history(agent)).body.items).toEqual([]);
  });

  it('replays the original answer within 24 hours, with no second operation', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 200, hourly_tx_cap: 5 });
    const key = randomUUID();
    const first = await transfer(agent, { recipient: world.vendor, amount: 10 }, key);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      status: 'confirmed',
      tx_signature: expect.any(String),
      amount_sent: 9.99,
      fee: 0.01,
      remaining_today: 190,
      recipient_remaining: expect.any(Number),
    });
    const again = await transfer(agent, { recipient: world.vendor, amount: 10 }, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await history(agent)).body.items).toHaveLength(1);
    const limits = await v1('GET', '/limits', agent, 'VariantLimitsResponse');
    expect(limits.body).toEqual(expect.objectContaining({ spent_today: 10, hourly_count: 1 }));
  });
});

describe('the history cursor', () => {
  it('pages newest first without repeating or skipping while transfers arrive', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 50 });
    const send = async (amount: number) =>
      expect((await transfer(agent, { recipient: world.vendor, amount })).status).toBe(200);
    for (const amount of [1, 2, 3, 4, 5]) await send(amount);
    const seen: number[] = [];
    let cursor: string | null = null;
    let arriving = 6;
    do {
      const page: Reply<Body> = await history(agent, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...(page.body.items as { amount: number }[]).map((i) => i.amount));
      cursor = page.body.next_cursor as string | null;
      if (arriving <= 8) await send(arriving++); // newer ones arrive between pages
    } while (cursor);
    expect(seen).toEqual([5, 4, 3, 2, 1]);
    const all = await history(agent, '?limit=200');
    expect((all.body.items as { amount: number }[]).map((i) => i.amount)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
    expect(all.body.next_cursor).toBeNull();
  });

  it('filters by type and since, and refuses a cursor it did not give', async () => {
    const agent = await world.agent();
    expect((await transfer(agent, { recipient: world.vendor, amount: 1 })).status).toBe(200);
    expect((await history(agent, '?type=swap')).body.items).toEqual([]);
    expect((await history(agent, '?type=transfer')).body.items).toHaveLength(1);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await history(agent, `?since=${future}`)).body.items).toEqual([]);
    for (const bad of ['?cursor=nope', '?limit=201', '?since=yesterday', '?type=mint']) {
      const res = await history(agent, bad);
      expect(res.status).toBe(400);
      expect((res.body.error as Body).code).toBe('validation_error');
    }
  });
});

describe('simulate: the checks object', () => {
  it('passes every check for a transfer that would succeed, with the fee and the budget', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 100, hourly_tx_cap: 3 });
    const res = await simulate(agent, { recipient: world.vendor, amount: 10 });
    expect(res.body).toEqual({
      would_succeed: true,
      checks: {
        whitelisted: true,
        ttl_remaining_days: expect.any(Number),
        amount_remaining: expect.any(Number),
        per_tx_ok: true,
        daily_ok: true,
        hourly_ok: true,
      },
      fee_preview: 0.01,
    });
    const days = (res.body.checks as { ttl_remaining_days: number }).ttl_remaining_days;
    expect(days).toBeGreaterThan(0.99);
    expect(days).toBeLessThanOrEqual(1);
  });

  it('shows why for each failing rule', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 60, hourly_tx_cap: 2 });
    const entry = (address: string, approved_amount: number, ttl_seconds: number) =>
      enact(
        world.client,
        [world.operator],
        'POST',
        `/api/v1/orchestrator/groups/${world.groupId}/whitelist`,
        {
          address,
          type: 1,
          label: 'x',
          approved_amount,
          ttl_seconds,
        },
      );
    const expiring = generateSigner().address;
    const small = generateSigner().address;
    await entry(expiring, 100, 1);
    await entry(small, 5, 3_600);
    const checksOf = async (body: Body) => {
      const r = await simulate(agent, body);
      expect(r.body.would_succeed).toBe(false);
      return { checks: r.body.checks as Body, code: (r.body.reason as Body).code };
    };
    expect(await checksOf({ recipient: generateSigner().address, amount: 1 })).toEqual({
      checks: expect.objectContaining({ whitelisted: false }),
      code: 'whitelist_violation',
    });
    expect(await checksOf({ recipient: small, amount: 6 })).toEqual({
      checks: expect.objectContaining({ whitelisted: true, amount_remaining: 5 }),
      code: 'whitelist_amount_exhausted',
    });
    expect(await checksOf({ recipient: world.vendor, amount: 51 })).toEqual({
      checks: expect.objectContaining({ per_tx_ok: false, daily_ok: true }),
      code: 'per_tx_limit_exceeded',
    });
    expect((await transfer(agent, { recipient: world.vendor, amount: 40 })).status).toBe(200);
    expect(await checksOf({ recipient: world.vendor, amount: 30 })).toEqual({
      checks: expect.objectContaining({ per_tx_ok: true, daily_ok: false }),
      code: 'daily_limit_exceeded',
    });
    expect((await transfer(agent, { recipient: world.vendor, amount: 1 })).status).toBe(200);
    expect(await checksOf({ recipient: world.vendor, amount: 1 })).toEqual({
      checks: expect.objectContaining({ daily_ok: true, hourly_ok: false }),
      code: 'hourly_freq_exceeded',
    });
    // The one-second entry has expired by now (an entry expires at its exact TTL second).
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await checksOf({ recipient: expiring, amount: 1 })).toEqual({
      checks: expect.objectContaining({ whitelisted: true, ttl_remaining_days: 0 }),
      code: 'whitelist_expired',
    });
  });
});

describe('errors in the variant envelope', () => {
  it('names the hourly cap hourly_freq_exceeded (403)', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 100, hourly_tx_cap: 1 });
    expect((await transfer(agent, { recipient: world.vendor, amount: 1 })).status).toBe(200);
    const res = await transfer(agent, { recipient: world.vendor, amount: 1 });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: { code: 'hourly_freq_exceeded', message: expect.any(String) } });
  });

  it('names a balance too low insufficient_funds', async () => {
    const agent = await world.agent({ per_tx_limit: 50, daily_limit: 100, hourly_tx_cap: 5 }, 1);
    const res = await transfer(agent, { recipient: world.vendor, amount: 5 });
    expect(res.body).toEqual({ error: { code: 'insufficient_funds', message: expect.any(String) } });
  });

  it('answers an unknown /v1 route and a missing key in the envelope', async () => {
    const missing = await world.client.call('GET', '/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
    const anonymous = await world.client.call('GET', '/v1/limits');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
  });
});

describe('the rate limit', () => {
  it('is 60 requests a minute per agent across both prefixes, then 429 with Retry-After', async () => {
    const agent = await world.agent();
    for (let i = 0; i < 30; i++) {
      expect((await v1('GET', '/limits', agent, 'VariantLimitsResponse')).status).toBe(200);
      expect((await world.client.call('GET', '/api/v1/limits', { token: agent.key })).status).toBe(200);
    }
    const res = await v1('GET', '/limits', agent, 'VariantLimitsResponse');
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
  });
});
