/**
 * A person in the loop, as an operator and an agent live it over HTTP: a spend above the group's
 * threshold is held (409 approval_required, the same on a retry), counted against the limits while
 * held, executed once when m of n approvers have signed its message (the retry then answers the
 * original 200), released by a rejection or its expiry (403 approval_rejected / approval_expired);
 * the variant answers the same in its envelope; the events reach a real HTTPS receiver; the audit
 * trail shows each approver's signature.
 */
import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { EVENT_CATALOGUE, derivedSigner, type EventKind, type Signer } from '@tokenops/shared';
import { openBooks } from '@tokenops/testing/conservation';
import { startReceiver, testCertificates, type Receiver } from '@tokenops/testing/tls';
import {
  RECEIVER_HOST,
  approvalIdIn,
  enact,
  key,
  signIn,
  stackWebhookTls,
  startWorld,
  until,
  type Operator,
  type World,
} from '@tokenops/testing/harness';

interface Approval {
  approval_id: string;
  agent_wallet_pda: string;
  status: string;
  quorum: number;
  approved_by: string[];
  message: string;
  amount: string;
  value_in_base: string;
  counterparty: string;
  idempotency_key: string | null;
  expires_at: string;
}

let world: World;
let receiver: Receiver;
let books: Awaited<ReturnType<typeof openBooks>>;
let bob: Operator;
let carol: Operator;
const mallory = derivedSigner(randomUUID(), 'mallory');

beforeAll(async () => {
  const tls = stackWebhookTls() ?? (await testCertificates({ addresses: [RECEIVER_HOST] }));
  receiver = await startReceiver({ tls, host: RECEIVER_HOST });
  world = await startWorld({
    webhooks: { allowedPrivateHosts: [`${RECEIVER_HOST}:${receiver.port}`], ca: tls.ca, retryBaseMs: 100 },
  });
  books = await openBooks(world);
  [bob, carol] = await Promise.all([signIn(world.client), signIn(world.client)]);
  // An approval policy names members who approve: Bob and Carol join as approvers (proposals).
  for (const who of [bob, carol]) await approverOf(world.groupId, world.operator, who);
  await policy({});
  await world.subscribe({ url: receiver.url, event_types: ['approval.requested', 'approval.decided'] });
}, 60_000);
afterEach(async () => {
  await books.expectBalanced();
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

/** `who` joins the group as an approver: a proposal its admin signs. */
async function approverOf(group: string, admin: Operator, who: Operator) {
  const joined = await enact(world.client, [admin], 'POST', `/api/v1/orchestrator/groups/${group}/members`, {
    wallet: who.wallet.address,
    role: 'approver',
  });
  if (joined.body.status !== 'executed') throw new Error(`not an approver: ${JSON.stringify(joined.body)}`);
}

/** Owner, Bob and Carol approve, two of them at least; 50 of the base token and under pass. */
const policy = (over: Record<string, unknown>) =>
  world.client.call('PUT', `/api/v1/orchestrator/groups/${world.groupId}/approval-policy`, {
    token: world.operator.token,
    body: {
      threshold: '50',
      approvers: [world.operator.wallet.address, bob.wallet.address, carol.wallet.address],
      quorum: 2,
      ...over,
    },
  });

type Agent = { id: string; key: string };
const transfer = (agent: Agent, amount: number, idempotency_key = key()) =>
  world.client.call<Record<string, unknown>>('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: world.vendor, amount, idempotency_key },
  });
const approval = (id: string, token = world.operator.token) =>
  world.client.call<Approval>('GET', `/api/v1/orchestrator/approvals/${id}`, { token });
const sign = (wallet: Signer, message: string) => bs58.encode(wallet.sign(Buffer.from(message, 'utf8')));
const approve = (id: string, who: Operator, message: string, signer: Signer = who.wallet) =>
  world.client.call<Approval>('POST', `/api/v1/orchestrator/approvals/${id}/approve`, {
    token: who.token,
    body: { signature: sign(signer, message) },
  });
const reject = (id: string, who: Operator, reason?: string) =>
  world.client.call<Approval>('POST', `/api/v1/orchestrator/approvals/${id}/reject`, {
    token: who.token,
    body: reason ? { reason } : {},
  });
/** What spends not settled yet hold of the vendor's budget. */
const vendorReserved = async () => {
  const group = await world.client.call<{ whitelist: { address: string; budget_reserved: string | null }[] }>(
    'GET',
    `/api/v1/orchestrator/groups/${world.groupId}`,
    { token: world.operator.token },
  );
  return group.body.whitelist.find((e) => e.address === world.vendor)!.budget_reserved;
};
const limits = async (agent: Agent) =>
  (await world.client.call<{ daily_remaining: number }>('GET', '/api/v1/limits', { token: agent.key })).body;

describe('spends held for approval', () => {
  it('held, counted while held, approved by two of three (racing), executed once; the retry answers the original 200', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 100, hourly_tx_cap: 10 });
    const k = key();
    const held = await transfer(agent, 60, k);
    expect(held.status).toBe(409);
    expect(held.body.error).toBe('approval_required');
    const id = approvalIdIn(held.body.message);
    // The same key answers the same while pending; the held 60 counts against the daily 100.
    expect((await transfer(agent, 60, k)).body).toEqual(held.body);
    expect((await transfer(agent, 50)).body.error).toBe('daily_limit_exceeded');
    expect((await limits(agent)).daily_remaining).toBe(40);

    const listed = await world.client.call<{ approvals: Approval[] }>(
      'GET',
      `/api/v1/orchestrator/groups/${world.groupId}/approvals?status=pending`,
      { token: bob.token },
    );
    const pending = listed.body.approvals.find((a) => a.approval_id === id)!;
    expect(pending).toMatchObject({
      agent_wallet_pda: agent.id,
      amount: '60',
      value_in_base: '60',
      counterparty: world.vendor,
      idempotency_key: k,
      status: 'pending',
      quorum: 2,
      approved_by: [],
    });
    for (const term of [world.groupId, agent.id, world.vendor, k, pending.expires_at])
      expect(pending.message).toContain(term);

    // Refused: a wallet that is not an approver; a signature by another wallet than the caller's.
    const stranger = await signIn(world.client, mallory);
    expect((await approve(id, stranger, pending.message)).body).toMatchObject({ error: 'forbidden' });
    expect((await approve(id, bob, pending.message, mallory)).status).toBe(400);

    const first = await approve(id, world.operator, pending.message);
    expect(first.body).toMatchObject({ status: 'pending', approved_by: [world.operator.wallet.address] });
    // The same approver again counts once.
    expect((await approve(id, world.operator, pending.message)).body.approved_by).toHaveLength(1);
    // Bob and Carol race for the second signature: one makes the quorum, the other finds it decided.
    const race = await Promise.all([approve(id, bob, pending.message), approve(id, carol, pending.message)]);
    expect(race.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(race.find((r) => r.status === 200)!.body.status).toBe('approved');

    const done = await until(async () => {
      const r = await transfer(agent, 60, k);
      return r.status !== 409 && r;
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ status: 'confirmed', net_amount: 59.94, daily_remaining: 40 });
    expect((await transfer(agent, 60, k)).body).toEqual(done.body);

    // Executed once, and the audit trail holds each approver's signature of the message.
    const intentId = id.slice(id.lastIndexOf('_') + 1);
    const story = await world.client.call<{ events: { type: string; data: Record<string, unknown> }[] }>(
      'GET',
      `/api/v1/audit/intents/${intentId}`,
      { token: world.operator.token },
    );
    const types = story.body.events.map((e) => e.type);
    expect(types.filter((t) => t === 'intent.confirmed')).toHaveLength(1);
    expect(types.filter((t) => t === 'intent.submitting')).toHaveLength(1);
    const signed = story.body.events.filter((e) => e.type === 'approval.signed');
    expect(signed.map((e) => e.data.approver)).toEqual([
      world.operator.wallet.address,
      race.find((r) => r.status === 200)!.body.approved_by[1],
    ]);
    for (const e of signed) expect(typeof e.data.signature).toBe('string');
    expect(story.body.events.find((e) => e.type === 'approval.decided')!.data).toMatchObject({
      decision: 'approved',
    });
  }, 30_000);

  it('a rejection releases the reservation (daily and budget); the retry answers 403 approval_rejected', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 100, hourly_tx_cap: 10 });
    const k = key();
    const held = await transfer(agent, 70, k);
    const id = approvalIdIn(held.body.message);
    expect((await transfer(agent, 40)).body.error).toBe('daily_limit_exceeded');
    expect(await vendorReserved()).toBe('70');
    expect((await approval(id)).body).toMatchObject({ decided_at: null, rejected_by: null, reason: null });
    const rejected = await reject(id, carol, 'not this week');
    // Who rejected it and why, and when: in the answer and in every read after.
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      rejected_by: carol.wallet.address,
      reason: 'not this week',
      decided_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect((await approval(id)).body).toEqual(rejected.body);
    expect(await vendorReserved()).toBe('0');
    expect((await reject(id, bob)).status).toBe(409);
    const again = await transfer(agent, 70, k);
    expect(again.status).toBe(403);
    expect(again.body.error).toBe('approval_rejected');
    expect((await limits(agent)).daily_remaining).toBe(100);
    expect((await transfer(agent, 40)).status).toBe(200);
  }, 30_000);

  it('holds keep the limits exact under parallel requests: what is held counts, what does not fit is blocked', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 200, hourly_tx_cap: 10 });
    const answers = await Promise.all(Array.from({ length: 6 }, () => transfer(agent, 60)));
    const codes = answers.map((a) => a.body.error).sort();
    // 3 × 60 fit the daily 200 and are held; the other 3 find the day full.
    expect(codes).toEqual([...Array(3).fill('approval_required'), ...Array(3).fill('daily_limit_exceeded')]);
    expect((await limits(agent)).daily_remaining).toBe(20);
    for (const a of answers.filter((x) => x.status === 409)) await reject(approvalIdIn(a.body.message), bob);
    expect((await limits(agent)).daily_remaining).toBe(200);
  }, 30_000);

  it('a held spend expires at its ttl: released, and the retry answers 403 approval_expired', async () => {
    await policy({ ttl_seconds: 1 });
    try {
      const agent = await world.agent({ per_tx_limit: 100, daily_limit: 100, hourly_tx_cap: 10 });
      const k = key();
      const id = approvalIdIn((await transfer(agent, 80, k)).body.message);
      // The scheduler records the expiry by itself: nobody asks in between.
      const expired = await until(async () => {
        const r = await approval(id);
        return r.body.status === 'expired' && r.body;
      });
      expect(expired.approved_by).toEqual([]);
      await until(async () => (await limits(agent)).daily_remaining === 100);
      const again = await transfer(agent, 80, k);
      expect(again.status).toBe(403);
      expect(again.body.error).toBe('approval_expired');
      const late = await approve(id, world.operator, expired.message);
      expect(late.status).toBe(409);
    } finally {
      await policy({});
    }
  }, 30_000);

  it('simulate says approval_required; the variant answers the hold in its own envelope', async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 10 });
    const sim = await world.client.call<Record<string, unknown>>('POST', '/api/v1/intents/simulate', {
      token: agent.key,
      body: { to: world.vendor, amount: 60 },
    });
    expect(sim.body).toMatchObject({ would_succeed: false, reason: 'approval_required' });
    const v1 = (body: Record<string, unknown>, idem = randomUUID()) =>
      world.client.call<{ error: { code: string; message: string } }>('POST', '/v1/transfer', {
        token: agent.key,
        headers: { 'idempotency-key': idem },
        body,
      });
    const idem = randomUUID();
    const held = await v1({ recipient: world.vendor, amount: 60 }, idem);
    expect(held.status).toBe(409);
    expect(held.body.error.code).toBe('approval_required');
    const id = approvalIdIn(held.body.error.message);
    await reject(id, world.operator);
    const refused = await v1({ recipient: world.vendor, amount: 60 }, idem);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'approval_rejected']);
  }, 30_000);

  it("a revocation rejects the agent's held spends; the events reach the fleet's HTTPS receiver", async () => {
    const agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 10 });
    const id = approvalIdIn((await transfer(agent, 90)).body.message);
    await world.client.call('POST', `/api/v1/orchestrator/agents/${agent.id}/revoke`, {
      token: world.operator.token,
      body: {},
    });
    // A rejection no person made: nobody rejected it, the revocation did.
    expect((await approval(id)).body).toMatchObject({
      status: 'rejected',
      rejected_by: null,
      reason: 'agent revoked',
      approved_by: [],
    });
    const events = await until(() => {
      const mine = receiver.requests
        .map((r) => JSON.parse(r.body) as Record<string, unknown>)
        .filter((e) => e.approval_id === id);
      return mine.length >= 2 && mine;
    });
    for (const e of events)
      expect(Object.keys(e).sort()).toEqual(
        ['event', 'event_id', ...EVENT_CATALOGUE[e.event as EventKind].fields].sort(),
      );
    expect(events.find((e) => e.event === 'approval.requested')).toMatchObject({
      agent_wallet_pda: agent.id,
      amount: 90,
      value_in_base: 90,
      counterparty: world.vendor,
      reason: 'threshold',
      quorum: 2,
    });
    expect(events.find((e) => e.event === 'approval.decided')).toMatchObject({
      decision: 'rejected',
      by: [],
      reason: 'agent revoked',
    });
  }, 30_000);

  it('the policy preview replays the spends of the window under a proposal, and writes nothing', async () => {
    // The group's events, as the audit query reads them (other suites write to the shared log).
    const groupLog = async () =>
      (
        await world.client.call<{ events: unknown[] }>(
          'GET',
          `/api/v1/audit/groups/${world.groupId}/events?limit=1000`,
          { token: world.operator.token },
        )
      ).body.events.length;
    const before = await groupLog();
    const preview = await world.client.call<{
      intents: number;
      would_hold: number;
      would_block: Record<string, number>;
      examples: { was: string; would: string }[];
    }>('POST', `/api/v1/orchestrator/groups/${world.groupId}/policy-preview`, {
      token: world.operator.token,
      body: { approval_threshold: '1000', per_tx_limit: '60' },
    });
    expect(preview.status).toBe(200);
    // Every spend of this suite: none held under a threshold of 1000; the 70, 80 and 90 over 60 blocked.
    expect(preview.body.would_hold).toBe(0);
    expect(preview.body.would_block.per_tx_limit_exceeded).toBeGreaterThanOrEqual(3);
    expect(preview.body.examples).toContainEqual(expect.objectContaining({ was: 'held', would: 'accepted' }));
    expect(await groupLog()).toBe(before);
    // Any member previews (Bob approves); a wallet that is no member may not.
    const previewBy = (token: string) =>
      world.client.call('POST', `/api/v1/orchestrator/groups/${world.groupId}/policy-preview`, {
        token,
        body: {},
      });
    expect((await previewBy(bob.token)).status).toBe(200);
    expect((await previewBy((await signIn(world.client)).token)).status).toBe(403);
  });

  it('the policy preview under guard rules and group limits: who would be frozen and by which rule, what the fleet’s limit refuses', async () => {
    type Preview = {
      intents: number;
      would_hold: number;
      would_block: Record<string, number>;
      would_freeze: { agent: string; at: string; rule: string }[];
      examples: {
        agent_wallet_pda: string;
        amount: string;
        was: string;
        would: string;
        held_by?: string[];
      }[];
    };
    const preview = (body: Record<string, unknown>) =>
      world.client.call<Preview>('POST', `/api/v1/orchestrator/groups/${world.groupId}/policy-preview`, {
        token: world.operator.token,
        body,
      });
    // What the group's agents spent before (this suite's spends, all of the last 24 hours): the
    // baseline of a group limit.
    const log = await world.log();
    const ofGroup = (e: (typeof log)[number]) => (e.data as { group_id?: string }).group_id === world.groupId;
    const failed = new Set(
      log.filter((e) => e.type === 'intent.failed').map((e) => (e.data as { intent_id: string }).intent_id),
    );
    const before = log
      .filter((e) => e.type === 'intent.accepted' && ofGroup(e))
      .map((e) => e.data as { intent_id: string; value: string; spends: boolean })
      .filter((d) => d.spends && !failed.has(d.intent_id))
      .reduce((sum, d) => sum + Number(d.value), 0);
    const since = new Date().toISOString();
    const x = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 20 });
    const y = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 20 });
    for (const [agent, amount] of [
      [x, 10],
      [x, 10],
      [x, 10],
      [x, 10],
      [y, 20],
      [y, 20],
    ] as const)
      expect((await transfer(agent, amount)).status).toBe(200);

    const guarded = await preview({
      since,
      guard: {
        rules: [
          { kind: 'velocity', factor: 1, min_count: 3, action: 'freeze_agent' },
          { kind: 'new_counterparty', action: 'hold' },
        ],
      },
    });
    expect(guarded.status).toBe(200);
    // Each agent's first spend to the vendor is held; X's third spend in the hour freezes it (more
    // than its usual, and 3), its fourth is refused after it.
    expect(guarded.body).toMatchObject({ intents: 6, would_hold: 2, would_block: { agent_frozen: 2 } });
    expect(guarded.body.would_freeze).toEqual([{ agent: x.id, at: expect.any(String), rule: 'velocity' }]);
    expect(guarded.body.examples.map((e) => [e.agent_wallet_pda, e.would, e.held_by])).toEqual([
      [x.id, 'held', ['new_counterparty']],
      [x.id, 'agent_frozen', ['velocity']],
      [x.id, 'agent_frozen', undefined],
      [y.id, 'held', ['new_counterparty']],
    ]);

    // A group daily limit of what was spent before and 50 more: X's 40 fit, Y's spends no longer do.
    const limited = await preview({ since, group_limits: { daily_limit: String(before + 50) } });
    expect(limited.body).toMatchObject({ intents: 6, would_block: { group_daily_limit_exceeded: 2 } });
    expect(limited.body.examples.map((e) => [e.agent_wallet_pda, e.would])).toEqual([
      [y.id, 'group_daily_limit_exceeded'],
      [y.id, 'group_daily_limit_exceeded'],
    ]);
    expect((await preview({ since, group_limits: { daily_limit: null } })).body.would_block).toEqual({});

    // A bad rule is named by its field under `guard`; a bad limit under `group_limits`.
    const bad = await preview({
      guard: { rules: [{ kind: 'velocity', factor: 0.5, min_count: 3, action: 'hold' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({
      error: 'validation_error',
      details: [expect.objectContaining({ path: '/guard/rules/0/factor' })],
    });
    const cap = await preview({ group_limits: { hourly_tx_cap: -1 } });
    expect(cap.status).toBe(400);
    expect(JSON.stringify(cap.body)).toContain('/group_limits/hourly_tx_cap');
  });

  it('the policy in force reads back: none set holds nothing; once set, what was set; only its readers see it', async () => {
    const read = (group: string, token: string) =>
      world.client.call('GET', `/api/v1/orchestrator/groups/${group}/approval-policy`, { token });
    const fresh = await world.client.call<{ group_config_pda: string }>(
      'POST',
      '/api/v1/orchestrator/groups',
      {
        token: bob.token,
        body: {},
      },
    );
    const group = fresh.body.group_config_pda;
    expect(await read(group, bob.token)).toMatchObject({
      status: 200,
      body: {
        group_config_pda: group,
        threshold: null,
        approvers: [bob.wallet.address],
        quorum: 1,
        ttl_seconds: 86_400,
        new_recipients: false,
      },
    });
    await approverOf(group, bob, carol);
    const set = await world.client.call('PUT', `/api/v1/orchestrator/groups/${group}/approval-policy`, {
      token: bob.token,
      body: { threshold: '12.5', approvers: [carol.wallet.address], ttl_seconds: 600, new_recipients: true },
    });
    expect(set.status).toBe(200);
    // The owner, an approver the policy names: the same answer as the change's.
    expect(await read(group, bob.token)).toEqual(expect.objectContaining({ status: 200, body: set.body }));
    expect(await read(group, carol.token)).toEqual(expect.objectContaining({ status: 200, body: set.body }));
    expect((set.body as { threshold: string }).threshold).toBe('12.5');
    // Neither owner, approver nor auditor; a group that does not exist; an id that cannot be one.
    expect((await read(group, world.operator.token)).body).toMatchObject({ error: 'forbidden' });
    const unknown = await read(derivedSigner(randomUUID(), 'none').address, bob.token);
    expect(unknown).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect((await read('not-a-group', bob.token)).status).toBe(400);
    expect(
      (await world.client.call('GET', `/api/v1/orchestrator/groups/${group}/approval-policy`)).status,
    ).toBe(401);
  });

  it('bad input is the error envelope, never a 500', async () => {
    const owner = world.operator.token;
    const put = (body: unknown, token = owner) =>
      world.client.call('PUT', `/api/v1/orchestrator/groups/${world.groupId}/approval-policy`, {
        token,
        body,
      });
    expect((await put({ threshold: '5', quorum: 4 })).body).toMatchObject({ error: 'validation_error' });
    expect((await put({ threshold: 'lots' })).status).toBe(400);
    expect((await put({ threshold: '5' }, bob.token)).body).toMatchObject({ error: 'forbidden' });
    expect((await approval('nope')).status).toBe(400);
    expect((await approval(`${world.groupId}_${randomUUID()}`)).status).toBe(404);
    const list = await world.client.call(
      'GET',
      `/api/v1/orchestrator/groups/${world.groupId}/approvals?status=x`,
      {
        token: owner,
      },
    );
    expect(list.status).toBe(400);
  });
});
