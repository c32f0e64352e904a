/**
 * The operator CLI's `webhooks` commands, run against the service as an operator would (in the test's process):
 * subscribe, list, rotate, redeliver, delete; the delivery log as a table, with a real HTTPS receiver on
 * loopback (its own CA, allowed for the test) and a loopback port nobody listens on. A public-looking
 * URL (93.184.216.34) is subscribed only to kinds nothing here causes: nothing leaves the machine.
 */
import { startReceiver, testCertificates, type Receiver } from '@tokenops/testing/tls';
import { keypairFile, tokenops } from '@tokenops/testing/cli';
import { RECEIVER_HOST, stackWebhookTls, startWorld, type World } from '@tokenops/testing/harness';

let world: World;
let receiver: Receiver;
let keypair: string;
const cli = async (...args: string[]) => tokenops('--url', world.service.url, '--keypair', keypair, ...args);
const out = async (...args: string[]) => (await cli(...args)).stdout;
const json = async <T = Record<string, unknown>>(...args: string[]) =>
  JSON.parse(await out('--json', ...args)) as T;

beforeAll(async () => {
  // On the server topology the delivery worker is a process of its own, trusting the stack's CA.
  const tls = stackWebhookTls() ?? (await testCertificates({ addresses: [RECEIVER_HOST] }));
  receiver = await startReceiver({ tls, host: RECEIVER_HOST });
  // Embedded, a failed attempt is retried no sooner than 30 s later (the topology's: 100 ms).
  world = await startWorld({
    webhooks: {
      allowedPrivateHosts: [`${RECEIVER_HOST}:${receiver.port}`, `${RECEIVER_HOST}:1`],
      ca: tls.ca,
      retryBaseMs: 60_000,
    },
  });
  // The CLI signs in as the world's operator, the owner of its group.
  keypair = keypairFile(world.operator.wallet, 'cli-webhooks-');
});
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

type Log = { deliveries: { event_id: string; status: string; attempts: number; log: unknown[] }[] };
/** The delivery log as the API answers it: for waiting, cheaper than a CLI process. */
const deliveryLog = async (webhookId: string) =>
  (
    await world.client.call<Log>('GET', `/api/v1/orchestrator/webhooks/${webhookId}/deliveries`, {
      token: world.operator.token,
    })
  ).body;

async function until<T>(what: () => Promise<T | undefined | false> | T | undefined | false): Promise<T> {
  const giveUpAt = Date.now() + 15_000;
  for (;;) {
    const v = await what();
    if (v) return v;
    if (Date.now() > giveUpAt) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The table's row that starts with `first`, cut into its columns (two spaces or more apart). */
const row = (table: string, first: string) =>
  table
    .split('\n')
    .find((line) => line.startsWith(`${first} `))
    ?.split(/ {2,}/);

describe('tokenops webhooks', () => {
  it('subscribes the fleet, lists it, rotates its secret, asks a redelivery, deletes it', async () => {
    const url = 'https://93.184.216.34/hook';
    const added = await out(
      'webhooks',
      'add',
      world.groupId,
      '--url',
      url,
      '--events',
      'agent.revoked, agent.api_key_rotated',
    );
    const [, id, secret] = /^webhook_id: (wh_\S+)\nsigning_secret: (whsec_\S+)\n/.exec(added) ?? [];
    expect(id).toBeDefined();
    expect(added).toMatch(/signing secret is shown this once only/);

    const listed = await out('webhooks', 'list', world.groupId);
    expect(listed.split('\n')[0]!.split(/ {2,}/)).toEqual([
      'WEBHOOK',
      'SCOPE',
      'URL',
      'EVENTS',
      'STATUS',
      'CREATED',
    ]);
    expect(row(listed, id!)).toEqual([
      id,
      'group',
      url,
      'agent.revoked,agent.api_key_rotated',
      'active',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    ]);

    const rotated = await json<{ signing_secret: string; previous_secret_valid_until: string }>(
      'webhooks',
      'rotate-secret',
      id!,
      '--grace',
      '60',
    );
    expect(rotated.signing_secret).toMatch(/^whsec_/);
    expect(rotated.signing_secret).not.toBe(secret);
    expect(Math.abs(Date.parse(rotated.previous_secret_valid_until) - (Date.now() + 60_000))).toBeLessThan(
      15_000,
    );
    expect(row(await out('webhooks', 'list', world.groupId), id!)?.[4]).toBe(
      `active (previous secret signs until ${rotated.previous_secret_valid_until})`,
    );

    const since = new Date(Date.now() - 3_600_000).toISOString();
    expect(await out('webhooks', 'redeliver', id!, '--since', since)).toBe(
      `webhook_id: ${id}\nredelivery: requested\n`,
    );

    expect(await out('webhooks', 'delete', id!)).toBe(`webhook_id: ${id}\nstatus: deleted\n`);
    const after = await json<{ webhooks: { webhook_id: string }[] }>('webhooks', 'list', world.groupId);
    expect(after.webhooks.map((w) => w.webhook_id)).not.toContain(id);
    await expect(cli('webhooks', 'deliveries', id!)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^tokenops: 404 not_found/),
    });
  }, 60_000);

  it('shows the delivery log as a table, pages it, and redelivers one event', async () => {
    const good = (
      await json<{ webhook_id: string }>(
        'webhooks',
        'add',
        world.groupId,
        '--url',
        receiver.url,
        '--events',
        'payment.received',
      )
    ).webhook_id;
    // Nobody listens on port 1: below the ephemeral range, no receiver of a suite running beside this
    // one (the topology's, on the same address) can be given it, as it could a port found free now.
    const nobody = `https://${RECEIVER_HOST}:1/hook`;
    const refused = (
      await json<{ webhook_id: string }>(
        'webhooks',
        'add',
        world.groupId,
        '--url',
        nobody,
        '--events',
        'payment.received',
      )
    ).webhook_id;
    const agent = await world.agent({}, 0);
    await out('airdrop', agent.id, '5');

    const first = await until(() => receiver.requests[0]);
    const eventId = (JSON.parse(first.body) as { event: string; event_id: string }).event_id;
    await until(async () => (await deliveryLog(good)).deliveries[0]?.status === 'delivered');
    await until(async () => (await deliveryLog(refused)).deliveries[0]?.status === 'failed');

    const delivered = await out('webhooks', 'deliveries', good);
    const lines = delivered.split('\n');
    expect(lines[0]).toBe(`${good}  ${receiver.url}  active`);
    expect(lines[1]!.split(/ {2,}/)).toEqual([
      'EVENT ID',
      'EVENT',
      'STATUS',
      'ATTEMPTS',
      'LAST ATTEMPT',
      'OUTCOME',
      'HTTP',
      'LATENCY',
      'ERROR',
    ]);
    expect(row(delivered, eventId)).toEqual([
      eventId,
      'payment.received',
      'delivered',
      '1',
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      'delivered',
      '200',
      expect.stringMatching(/^\d+ ms$/),
    ]);

    // The refused one: failed, its retry due later, and why (embedded, after exactly one attempt).
    expect(row(await out('webhooks', 'deliveries', refused), eventId)).toEqual([
      eventId,
      'payment.received',
      expect.stringMatching(/^failed \(next \d{4}-\d\d-\d\dT.+\)$/),
      expect.stringMatching(/^[1-9]\d*$/),
      expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      'failed',
      '-',
      expect.stringMatching(/^\d+ ms$/),
      expect.stringMatching(/ECONNREFUSED|refused/i),
    ]);

    // Paging: a full page says how to ask for the next one, which is empty here.
    const page = await out('webhooks', 'deliveries', good, '--limit', '1');
    const [, before] = /\nolder: --before (\S+)\n$/.exec(page) ?? [];
    expect(before).toBeDefined();
    expect(await out('webhooks', 'deliveries', good, '--before', before!)).toBe(
      `${good}  ${receiver.url}  active\nno deliveries\n`,
    );

    // Redelivery: the receiver gets the same event (same id) again; the log counts the attempt.
    await out('webhooks', 'redeliver', good, '--event', eventId);
    const again = await until(() => receiver.requests[1]);
    expect(again.headers['webhook-id']).toBe(eventId);
    expect(again.body).toBe(first.body);
    await until(async () => (await deliveryLog(good)).deliveries[0]?.attempts === 2);
    expect(row(await out('webhooks', 'deliveries', good), eventId)?.slice(2, 4)).toEqual(['delivered', '2']);
  }, 60_000);

  it('refuses a wrong flag combination in one clear line, and prints the service refusals', async () => {
    const both = cli('webhooks', 'redeliver', 'wh_x', '--event', 'evt_x', '--since', '2024-01-01T00:00:00Z');
    await expect(both).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^error: option '--event <event_id>' cannot be used with option '--since <iso time>'\n/,
      ),
    });
    await expect(cli('webhooks', 'redeliver', 'wh_x')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /^error: say what to send again: --event <event_id> or --since <iso time>/,
      ),
    });
    await expect(cli('webhooks', 'rotate-secret', 'wh_x', '--grace', 'a day')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^error: option '--grace <seconds>' argument 'a day' is invalid/),
    });
    await expect(
      cli(
        'webhooks',
        'add',
        world.groupId,
        '--url',
        'https://93.184.216.34/hook',
        '--events',
        'transfer.created',
      ),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^tokenops: 400 validation_error: .*\(\/event_types\/0: .+\)\n$/),
    });
    await expect(
      cli('webhooks', 'add', world.groupId, '--url', 'https://10.0.0.1/hook', '--events', 'agent.revoked'),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^tokenops: 400 validation_error: .*\(\/url: .+\)\n$/),
    });
    const live = (
      await json<{ webhook_id: string }>(
        'webhooks',
        'add',
        world.groupId,
        '--url',
        'https://93.184.216.34/hook',
        '--events',
        'agent.revoked',
      )
    ).webhook_id;
    await expect(cli('webhooks', 'redeliver', live, '--since', 'yesterday')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^tokenops: 400 validation_error: .*\(\/since: .+\)\n$/),
    });
    await expect(cli('webhooks', 'rotate-secret', live, '--grace', '604801')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^tokenops: 400 validation_error: .*\(\/grace_seconds: .+\)\n$/),
    });
    await out('webhooks', 'delete', live);
  }, 60_000);
});
