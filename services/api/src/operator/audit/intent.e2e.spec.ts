/**
 * One intent's whole story, as an auditor reads it: the decision (accepted with its valuation, or
 * blocked with the check that failed), the budget events naming it, the signature it was submitted
 * with, its outcome, and the webhook deliveries of the events derived from it, as a real HTTPS
 * receiver on loopback got them. Only for the owner and the auditors of the intent's group.
 */
import { generateSigner, streams } from '@tokenops/shared';
import { startReceiver, testCertificates, type Receiver } from '@tokenops/testing/tls';
import {
  RECEIVER_HOST,
  key,
  signIn,
  stackWebhookTls,
  startWorld,
  type Operator,
  type World,
  enact,
} from '@tokenops/testing/harness';

interface Story {
  intent_id: string;
  group_config_pda: string;
  agent_wallet_pda: string;
  action: string | null;
  decision: 'accepted' | 'blocked';
  signature: string | null;
  outcome: 'confirmed' | 'failed' | null;
  events: { type: string; stream: string; event_id: string; data: Record<string, unknown> }[];
  webhook_events: { kind: string; event_id: string; log_event_id: string }[];
  deliveries: {
    webhook_id: string;
    event_id: string;
    event: string;
    status: string;
    attempts: number;
    log: { outcome: string; status_code: number | null }[];
  }[];
}

let world: World;
let receiver: Receiver;
let auditor: Operator;
let agent: { id: string; key: string };
let webhookId: string;

beforeAll(async () => {
  const tls = stackWebhookTls() ?? (await testCertificates({ addresses: [RECEIVER_HOST] }));
  receiver = await startReceiver({ tls, host: RECEIVER_HOST });
  world = await startWorld({
    webhooks: { allowedPrivateHosts: [`${RECEIVER_HOST}:${receiver.port}`], ca: tls.ca },
  });
  auditor = await signIn(world.client);
  await enact(
    world.client,
    [world.operator],
    'POST',
    `/api/v1/orchestrator/groups/${world.groupId}/auditors`,
    { wallet: auditor.wallet.address },
  );
  agent = await world.agent();
  const hook = await world.subscribe({
    url: receiver.url,
    event_types: ['transfer.confirmed', 'policy.transfer_blocked'],
  });
  webhookId = hook.webhook_id;
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

const story = (intentId: string, token = auditor.token) =>
  world.client.call<Story>('GET', `/api/v1/audit/intents/${intentId}`, { token });

/** The id of the agent's latest intent of this type, from its stream. */
const latestIntent = async (type: 'intent.accepted' | 'intent.blocked') =>
  (
    (await world.service.ctx.store.readStream(streams.agent(agent.id))).filter((e) => e.type === type).pop()!
      .data as { intent_id: string }
  ).intent_id;

/** Asks again until `done` holds (deliveries and settlement happen after the answer). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const giveUpAt = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > giveUpAt) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const receivedEvent = (kind: string) =>
  receiver.requests
    .map((r) => JSON.parse(r.body) as { event: string; event_id: string })
    .find((p) => p.event === kind);

describe("an intent's story", () => {
  it('accepted: its reservation, its decision with the valuation, the signature, the outcome, the budget consumed, the delivery', async () => {
    const sent = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: world.vendor, amount: 12.5, idempotency_key: key() },
    });
    expect(sent.status).toBe(200);
    const intentId = await latestIntent('intent.accepted');
    const told = await until(
      () => story(intentId),
      (r) =>
        r.body.deliveries?.[0]?.status === 'delivered' &&
        r.body.events.some((e) => e.type === 'budget.consumed'),
    );
    expect(told.status).toBe(200);
    const s = told.body;
    expect(s).toEqual(
      expect.objectContaining({
        intent_id: intentId,
        group_config_pda: world.groupId,
        agent_wallet_pda: agent.id,
        action: 'transfer',
        decision: 'accepted',
        signature: sent.body.tx_sig,
        outcome: 'confirmed',
      }),
    );
    // In log order: reserved before the decision, submitted before the outcome (which lands beside the budget's settlement).
    const types = s.events.map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(['budget.reserved', 'intent.accepted', 'intent.submitting']);
    expect(types.slice(3).sort()).toEqual(['budget.consumed', 'intent.confirmed']);
    const accepted = s.events[1]!.data;
    expect(accepted).toEqual(
      expect.objectContaining({
        amount: '12.5',
        value: '12.5',
        counterparty: world.vendor,
        protocol_fee: '0.0125',
      }),
    );
    expect(s.events.filter((e) => e.stream.startsWith('budget-')).map((e) => e.type)).toEqual([
      'budget.reserved',
      'budget.consumed',
    ]);
    const delivered = receivedEvent('transfer.confirmed')!;
    expect(s.webhook_events).toEqual([
      {
        kind: 'transfer.confirmed',
        event_id: delivered.event_id,
        log_event_id: s.events.find((e) => e.type === 'intent.confirmed')!.event_id,
      },
    ]);
    expect(s.deliveries).toEqual([
      expect.objectContaining({
        webhook_id: webhookId,
        event_id: delivered.event_id,
        event: 'transfer.confirmed',
        status: 'delivered',
        attempts: 1,
        log: [expect.objectContaining({ outcome: 'delivered', status_code: 200 })],
      }),
    ]);
  });

  it('blocked: the check that failed, nothing submitted, and the policy.transfer_blocked delivery', async () => {
    const recipient = generateSigner().address;
    const sent = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: recipient, amount: 3, idempotency_key: key() },
    });
    expect(sent.status).toBe(403);
    const intentId = await latestIntent('intent.blocked');
    const told = await until(
      () => story(intentId),
      (r) => r.body.deliveries?.[0]?.status === 'delivered',
    );
    const s = told.body;
    expect(s).toEqual(
      expect.objectContaining({ decision: 'blocked', signature: null, outcome: null, action: 'transfer' }),
    );
    expect(s.events).toEqual([
      expect.objectContaining({
        type: 'intent.blocked',
        data: expect.objectContaining({
          code: 'whitelist_violation',
          attempted_amount: '3',
          counterparty: recipient,
        }),
      }),
    ]);
    // Two kinds derive from a refusal; the subscription asked for one of them.
    expect(s.webhook_events.map((w) => w.kind).sort()).toEqual([
      'policy.transfer_blocked',
      'policy.whitelist_violation',
    ]);
    const delivered = receivedEvent('policy.transfer_blocked')!;
    expect(s.deliveries.map((d) => [d.event, d.event_id, d.status])).toEqual([
      ['policy.transfer_blocked', delivered.event_id, 'delivered'],
    ]);
  });

  it('is read by the owner and the auditors of its group only', async () => {
    const intentId = await latestIntent('intent.blocked');
    expect((await story(intentId, world.operator.token)).status).toBe(200);
    const stranger = await signIn(world.client);
    const refused = await story(intentId, stranger.token);
    expect({ status: refused.status, error: (refused.body as unknown as { error: string }).error }).toEqual({
      status: 403,
      error: 'forbidden',
    });
    const anonymous = await world.client.call('GET', `/api/v1/audit/intents/${intentId}`);
    expect(anonymous.status).toBe(401);
  });

  it('of an intent that does not exist is 404; an id that is no intent id is 400', async () => {
    const missing = await story('01900000-0000-7000-8000-000000000000');
    expect({ status: missing.status, error: (missing.body as unknown as { error: string }).error }).toEqual({
      status: 404,
      error: 'not_found',
    });
    for (const bad of ['nope', '01900000-0000-7000-8000-00000000000%00', 'x'.repeat(200)]) {
      const r = await world.client.call('GET', `/api/v1/audit/intents/${bad}`, { token: auditor.token });
      expect({ bad, status: r.status, error: r.body.error }).toEqual({
        bad,
        status: 400,
        error: 'validation_error',
      });
    }
  });
});
