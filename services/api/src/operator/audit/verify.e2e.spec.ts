/**
 * Tamper evidence as an auditor uses it: the owner grants an auditor, who verifies the group's log
 * through the service (`tokenops audit verify --group`), keeps the checkpoints, and later finds
 * exactly the event that someone with access to the database changed behind the service's back.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateSigner, streams } from '@tokenops/shared';
import { runCaptured } from '@tokenops/testing/cli';
import { key, signIn, startWorld, type World, enact } from '@tokenops/testing/harness';

let world: World;
let dir: string;
let agent: { id: string; key: string };

/** The CLI as the auditor: its exit code and what it printed. */
const cli = (...args: string[]) =>
  runCaptured(['--url', world.service.url, '--keypair', join(dir, 'auditor.json'), ...args]);

beforeAll(async () => {
  world = await startWorld();
  dir = mkdtempSync(join(tmpdir(), 'verify-'));
  agent = await world.agent();
  for (let i = 0; i < 3; i++) {
    const sent = await world.client.call('POST', '/api/v1/transfer', {
      token: agent.key,
      body: { to: world.vendor, amount: 1 + i, idempotency_key: key() },
    });
    expect(sent.status).toBe(200);
  }
});
afterAll(async () => world.close());

const verification = (token: string, query = '') =>
  world.client.call<{
    events: number;
    broken: { reason: string; event_id: string }[];
    digest: string;
    governance: { checked: number; invalid: unknown[] };
  }>('GET', `/api/v1/audit/groups/${world.groupId}/verification${query}`, { token });

it('verifies the group through the service; owner and auditors only; bad input is a 400', async () => {
  const wallet = /wallet: (\w+)/.exec((await cli('keygen', join(dir, 'auditor.json'))).stdout)![1]!;
  const granted = await enact(
    world.client,
    [world.operator],
    'POST',
    `/api/v1/orchestrator/groups/${world.groupId}/auditors`,
    { wallet },
  );
  expect(granted.body.status).toBe('executed');
  // On the topology the executor's payment watcher (every 2 s) records the agent's funding a moment
  // later: read the group once its log has stopped growing, so the CLI below sees the same log.
  let owner = await verification(world.operator.token);
  for (let i = 0; i < 12; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const again = await verification(world.operator.token);
    if (again.body.events === owner.body.events) break;
    owner = again;
  }
  expect(owner.status).toBe(200);
  const shown = await world.client.call<{ events: unknown[] }>(
    'GET',
    `/api/v1/audit/groups/${world.groupId}/events?limit=1000`,
    { token: world.operator.token },
  );
  expect(owner.body).toMatchObject({ group: world.groupId, events: shown.body.events.length, broken: [] });
  // Every widening change of the group (the vendor allowed, the agents invited, the auditor granted)
  // was a proposal its admin signed: each execution checked, none without its quorum.
  const executions = shown.body.events.filter((e) => (e as { type: string }).type === 'governance.executed');
  expect(executions.length).toBeGreaterThanOrEqual(3);
  expect(owner.body.governance).toEqual({ checked: executions.length, invalid: [] });

  const stranger = await signIn(world.client, generateSigner());
  expect((await verification(stranger.token)).status).toBe(403);
  const bad = await verification(world.operator.token, '?expect=12:nothex');
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ error: 'validation_error' });

  const first = await cli(
    'audit',
    'verify',
    '--group',
    world.groupId,
    '--save',
    join(dir, 'checkpoints.json'),
  );
  expect(first).toMatchObject({ code: 0 });
  expect(first.stdout).toContain(`intact: group ${world.groupId}, ${owner.body.events} events`);
  expect(first.stdout).toContain(
    `governance: ${executions.length} proposal executions, each with its quorum of admin signatures`,
  );
  const saved = JSON.parse(readFileSync(join(dir, 'checkpoints.json'), 'utf8')) as {
    checkpoints: { events: number; digest: string }[];
  };
  expect(saved.checkpoints.at(-1)).toMatchObject({ events: owner.body.events, digest: owner.body.digest });
  expect(
    await cli('audit', 'verify', '--group', world.groupId, '--expect', join(dir, 'checkpoints.json')),
  ).toMatchObject({
    code: 0,
  });
}, 60_000);

it('names exactly the event changed in the database behind the service', async () => {
  const confirmed = (await world.service.ctx.store.readStream(streams.agent(agent.id))).filter(
    (e) => e.type === 'intent.confirmed',
  )[1]!;
  await world.service.sql.query(
    `UPDATE es_events SET data = jsonb_set(data, '{amount}', '"0.000001"') WHERE event_id = $1`,
    [confirmed.id],
  );
  const report = await verification(world.operator.token);
  expect(report.body.broken).toEqual([
    expect.objectContaining({
      reason: 'hash_mismatch',
      event_id: confirmed.id,
      stream: streams.agent(agent.id),
    }),
  ]);
  const found = await cli('audit', 'verify', '--group', world.groupId);
  expect(found.code).toBe(1);
  expect(found.stdout).toContain(`hash_mismatch: ${confirmed.stream}@${confirmed.revision} (${confirmed.id}`);
  expect(found.stdout).toContain('1 broken');
}, 60_000);
