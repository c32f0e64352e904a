/**
 * Auditors' access as the people involved live it: the owner grants a wallet read-only access; the
 * auditor signs in with the same wallet challenge as an operator and reads the group's log and an
 * intent's story, of this group only; every operator action it tries is refused (403) and changes
 * nothing; once the owner removes it, the same token reads nothing. Granting and removing are in the
 * group's stream. Bad input is the error envelope, never a 500.
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
  signProposal,
  type ProposalReply,
} from '@tokenops/testing/harness';

let world: World;
let receiver: Receiver;
let auditor: Operator;
let agent: { id: string; key: string };
let webhookId: string;
let intentId: string;

beforeAll(async () => {
  const tls = stackWebhookTls() ?? (await testCertificates({ addresses: [RECEIVER_HOST] }));
  receiver = await startReceiver({ tls, host: RECEIVER_HOST });
  world = await startWorld({
    webhooks: { allowedPrivateHosts: [`${RECEIVER_HOST}:${receiver.port}`], ca: tls.ca },
  });
  auditor = await signIn(world.client);
  agent = await world.agent();
  webhookId = (await world.subscribe({ url: receiver.url, event_types: ['transfer.confirmed'] })).webhook_id;
  const blocked = await world.client.call('POST', '/api/v1/transfer', {
    token: agent.key,
    body: { to: generateSigner().address, amount: 1, idempotency_key: key() },
  });
  expect(blocked.status).toBe(403);
  intentId = (
    (await world.service.ctx.store.readStream(streams.agent(agent.id))).find(
      (e) => e.type === 'intent.blocked',
    )!.data as { intent_id: string }
  ).intent_id;
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

const call = (token: string, method: string, path: string, body?: unknown) =>
  world.client.call(method, `/api/v1${path}`, { token, ...(body !== undefined && { body }) });
const asOwner = (method: string, path: string, body?: unknown) =>
  call(world.operator.token, method, path, body);
const auditors = (
  method: 'POST' | 'DELETE',
  wallet: string,
  token = world.operator.token,
  group = world.groupId,
) => call(token, method, `/orchestrator/groups/${group}/auditors`, { wallet });
const events = (token: string, group = world.groupId) => call(token, 'GET', `/audit/groups/${group}/events`);
const story = (token: string) => call(token, 'GET', `/audit/intents/${intentId}`);
/** What requests wrote: the expiry scheduler's announcements come when their time does, not from a request. */
const byRequests = <E extends { type: string }>(events: E[]) =>
  events.filter((e) => e.type !== 'policy.whitelist_expiring');
const groupStreamTypes = async () =>
  byRequests(await world.service.ctx.store.readStream(streams.group(world.groupId))).map((e) => e.type);
const answer = (r: { status: number; body: Record<string, unknown> }) => ({
  status: r.status,
  error: r.body.error,
});

describe('an auditor', () => {
  it('is granted by a proposal the owner signs: auditor.granted in the group stream; granting again records nothing', async () => {
    const proposed = await auditors('POST', auditor.wallet.address);
    expect(proposed.status).toBe(202);
    expect(proposed.body).toMatchObject({ action: 'auditor.grant', status: 'pending' });
    expect(answer(await events(auditor.token))).toEqual({ status: 403, error: 'forbidden' });
    const granted = await signProposal(
      world.client,
      world.operator,
      proposed.body as unknown as ProposalReply,
    );
    expect(granted.body).toMatchObject({
      status: 'executed',
      result: {
        group_config_pda: world.groupId,
        wallet: auditor.wallet.address,
        auditors: [auditor.wallet.address],
      },
    });
    // Granted already: answered at once, nothing proposed nor recorded.
    const again = await auditors('POST', auditor.wallet.address);
    expect(again).toMatchObject({ status: 201, body: { auditors: [auditor.wallet.address] } });
    expect((await asOwner('GET', `/orchestrator/groups/${world.groupId}/auditors`)).body).toEqual({
      group_config_pda: world.groupId,
      auditors: [auditor.wallet.address],
    });
    const stream = await world.service.ctx.store.readStream(streams.group(world.groupId));
    expect(stream.filter((e) => e.type === 'auditor.granted').map((e) => e.data)).toEqual([
      {
        group_id: world.groupId,
        wallet: auditor.wallet.address,
        proposal_id: proposed.body.proposal_id,
        at: expect.any(Number),
      },
    ]);
  });

  it("signs in with the wallet challenge and reads the group's log and an intent's story", async () => {
    const log = await events(auditor.token);
    expect(log.status).toBe(200);
    const types = (log.body.events as { type: string }[]).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['group.created', 'agent.registered', 'intent.blocked']));
    const told = await story(auditor.token);
    expect(told.status).toBe(200);
    expect(told.body).toEqual(
      expect.objectContaining({ intent_id: intentId, agent_wallet_pda: agent.id, decision: 'blocked' }),
    );
  });

  it('can do nothing an operator does: every write is 403, and nothing moves', async () => {
    const token = auditor.token;
    const g = world.groupId;
    const entry = (await groupStream()).find((e) => e.type === 'whitelist.entry_added')!.data as {
      entry_id: string;
    };
    const before = (await asOwner('GET', `/orchestrator/groups/${g}`)).body;
    const written = async () =>
      Promise.all(
        [streams.group(g), streams.agent(agent.id), streams.webhooks({ groupId: g })].map(
          async (stream) => byRequests(await world.service.ctx.store.readStream(stream)).length,
        ),
      );
    const writtenBefore = await written();
    const attempts: [string, string, unknown?][] = [
      ['GET', `/orchestrator/groups/${g}`],
      ['POST', `/orchestrator/groups/${g}/whitelist`, { address: generateSigner().address, type: 2 }],
      ['DELETE', `/orchestrator/groups/${g}/whitelist/${entry.entry_id}`],
      ['POST', `/orchestrator/groups/${g}/invitations`, {}],
      ['PATCH', `/orchestrator/agents/${agent.id}/limits`, { per_tx_limit: 1 }],
      ['POST', `/orchestrator/agents/${agent.id}/revoke`, {}],
      ['POST', `/orchestrator/agents/${agent.id}/rotate-key`, {}],
      ['POST', `/orchestrator/agents/${agent.id}/emergency-withdraw`, {}],
      ['POST', `/orchestrator/groups/${g}/auditors`, { wallet: generateSigner().address }],
      ['DELETE', `/orchestrator/groups/${g}/auditors`, { wallet: auditor.wallet.address }],
      ['GET', `/orchestrator/groups/${g}/auditors`],
      ['POST', `/orchestrator/groups/${g}/webhooks`, { url: receiver.url, event_types: ['agent.revoked'] }],
      ['GET', `/orchestrator/groups/${g}/webhooks`],
      ['DELETE', `/orchestrator/webhooks/${webhookId}`],
      ['GET', `/orchestrator/webhooks/${webhookId}/deliveries`],
      ['POST', `/orchestrator/webhooks/${webhookId}/redeliver`, { since: new Date(0).toISOString() }],
      ['POST', `/orchestrator/webhooks/${webhookId}/rotate-secret`, {}],
    ];
    for (const [method, path, body] of attempts) {
      const r = await call(token, method, path, body);
      expect({ method, path, ...answer(r) }).toEqual({ method, path, status: 403, error: 'forbidden' });
    }
    expect((await asOwner('GET', `/orchestrator/groups/${g}`)).body).toEqual(before);
    expect((await world.client.call('GET', '/api/v1/limits', { token: agent.key })).status).toBe(200);
    expect(await written()).toEqual(writtenBefore);
    const hooks = await asOwner('GET', `/orchestrator/groups/${g}/webhooks`);
    expect((hooks.body.webhooks as { webhook_id: string; status: string }[]).map((h) => h.status)).toEqual([
      'active',
    ]);
  });

  it('reads its group only: another group is 403, and so is a stranger to this one', async () => {
    const other = await signIn(world.client);
    const created = await call(other.token, 'POST', '/orchestrator/groups', {});
    const otherGroup = created.body.group_config_pda as string;
    expect(answer(await events(auditor.token, otherGroup))).toEqual({ status: 403, error: 'forbidden' });
    const stranger = await signIn(world.client);
    expect(answer(await events(stranger.token))).toEqual({ status: 403, error: 'forbidden' });
    expect(answer(await story(stranger.token))).toEqual({ status: 403, error: 'forbidden' });
    expect(answer(await world.client.call('GET', `/api/v1/audit/groups/${world.groupId}/events`))).toEqual({
      status: 401,
      error: 'unauthorized',
    });
    // Nor can an agent's key read it.
    expect(answer(await events(agent.key))).toEqual({ status: 401, error: 'unauthorized' });
  });

  it('is not granted by anyone but the owner', async () => {
    const stranger = await signIn(world.client);
    expect(answer(await auditors('POST', stranger.wallet.address, stranger.token))).toEqual({
      status: 403,
      error: 'forbidden',
    });
    expect(answer(await events(stranger.token))).toEqual({ status: 403, error: 'forbidden' });
  });

  it('loses access once removed: the same token reads nothing, and auditor.removed is in the stream', async () => {
    const removed = await auditors('DELETE', auditor.wallet.address);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({
      group_config_pda: world.groupId,
      wallet: auditor.wallet.address,
      auditors: [],
    });
    expect(answer(await events(auditor.token))).toEqual({ status: 403, error: 'forbidden' });
    expect(answer(await story(auditor.token))).toEqual({ status: 403, error: 'forbidden' });
    expect((await asOwner('GET', `/orchestrator/groups/${world.groupId}/auditors`)).body).toEqual({
      group_config_pda: world.groupId,
      auditors: [],
    });
    expect((await groupStreamTypes()).filter((t) => t.startsWith('auditor.'))).toEqual([
      'auditor.granted',
      'auditor.removed',
    ]);
    expect(answer(await auditors('DELETE', auditor.wallet.address))).toEqual({
      status: 404,
      error: 'not_found',
    });
    // Granted again (a proposal, signed), the same token reads again.
    const regranted = await enact(
      world.client,
      [world.operator],
      'POST',
      `/api/v1/orchestrator/groups/${world.groupId}/auditors`,
      {
        wallet: auditor.wallet.address,
      },
    );
    expect(regranted.body.status).toBe('executed');
    expect((await events(auditor.token)).status).toBe(200);
  });

  it('the owner (a member) reads its own group, and is not made an auditor of it', async () => {
    expect((await events(world.operator.token)).status).toBe(200);
    expect((await story(world.operator.token)).status).toBe(200);
    expect(answer(await auditors('POST', world.operator.wallet.address))).toEqual({
      status: 409,
      error: 'conflict',
    });
  });
});

describe('bad input to the auditors routes', () => {
  it.each([
    ['no wallet', {}, '/wallet'],
    ['a wallet that is no address', { wallet: 'not-a-wallet' }, '/wallet'],
    ['base58 text of more than 32 bytes', { wallet: 'z'.repeat(44) }, '/wallet'],
    ['an unknown field', { wallet: generateSigner().address, x: 1 }, '/x'],
    ['a NUL', { wallet: '\u0000' }, '/wallet'],
  ])('grant with %s: 400 validation_error, nothing recorded', async (_what, body, path) => {
    const before = await groupStreamTypes();
    const r = await asOwner('POST', `/orchestrator/groups/${world.groupId}/auditors`, body);
    expect(answer(r)).toEqual({ status: 400, error: 'validation_error' });
    expect(r.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await groupStreamTypes()).toEqual(before);
  });

  it('remove without a body, or with text that is not JSON, is 400', async () => {
    const none = await world.client.call('DELETE', `/api/v1/orchestrator/groups/${world.groupId}/auditors`, {
      token: world.operator.token,
    });
    expect(answer(none)).toEqual({ status: 400, error: 'validation_error' });
    const broken = await world.client.call(
      'DELETE',
      `/api/v1/orchestrator/groups/${world.groupId}/auditors`,
      {
        token: world.operator.token,
        raw: '{"wallet":',
        headers: { 'content-type': 'application/json' },
      },
    );
    expect(answer(broken)).toEqual({ status: 400, error: 'validation_error' });
  });

  it('a group that does not exist is 404; a group id that is no id is 400', async () => {
    expect(
      answer(
        await auditors('POST', generateSigner().address, world.operator.token, generateSigner().address),
      ),
    ).toEqual({ status: 404, error: 'not_found' });
    expect(answer(await events(world.operator.token, 'not-an-id'))).toEqual({
      status: 400,
      error: 'validation_error',
    });
  });
});

const groupStream = () => world.service.ctx.store.readStream(streams.group(world.groupId));
