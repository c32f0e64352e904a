/**
 * Webhook registration refuses what it cannot deliver to, or should not: URLs the URL parser refuses,
 * addresses that are not public in any of their disguises, and event lists without bounds. A refusal
 * registers nothing.
 */
import { EVENT_KINDS } from '@tokenops/shared';
import { startWorld, type World } from '@tokenops/testing/harness';

let world: World;
let agent: { id: string; key: string };
beforeAll(async () => {
  world = await startWorld();
  agent = await world.agent({}, 0);
});
afterAll(async () => world.close());

const register = (body: unknown) => world.client.call('POST', '/api/v1/webhooks', { token: agent.key, body });
const registrations = async () => (await world.log()).filter((e) => e.type === 'webhook.registered').length;

describe('webhook URLs', () => {
  it.each(['https://93.184.216.34:99999/hook', 'https://', 'https://exa%00mple.com/', 'https://1.2.3.4.5/'])(
    '%s, which the URL parser refuses, is 400 validation_error on /url',
    async (url) => {
      const before = await registrations();
      const r = await register({ url, event_types: ['transfer.confirmed'] });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({
        error: 'validation_error',
        message: expect.any(String),
        details: [expect.objectContaining({ path: '/url' })],
      });
      expect(await registrations()).toBe(before);
    },
  );

  it.each([
    'https://[::7f00:1]/x', // IPv4-compatible 127.0.0.1
    'https://[2002:7f00:1::]/x', // 6to4 of 127.0.0.1
    'https://[fec0::1]/x', // site-local
    'https://[64:ff9b::a9fe:a9fe]/x', // NAT64 of 169.254.169.254
    'https://[64:ff9b:1::1]/x', // local-use NAT64
    'https://[2001:0:7f00:1::a2ff:5e2d]/x', // Teredo with server 127.0.0.1
    'https://[::ffff:0:a00:1]/x', // IPv4-translated 10.0.0.1
    'https://2130706433/x', // 127.0.0.1 in decimal
    'https://0x7f.1/x', // 127.0.0.1 in hex, shortened
    'https://0177.0.0.1/x', // 127.0.0.1 in octal
    'https://user@93.184.216.34/x', // credentials
  ])('%s is refused on /url', async (url) => {
    const before = await registrations();
    const r = await register({ url, event_types: ['transfer.confirmed'] });
    expect({ status: r.status, error: r.body.error, details: r.body.details }).toEqual({
      status: 400,
      error: 'validation_error',
      details: [{ path: '/url', issue: expect.any(String) }],
    });
    expect(await registrations()).toBe(before);
  });

  it('registers a public IPv6 address', async () => {
    const r = await register({
      url: 'https://[2606:2800:220:1:248:1893:25c8:1946]/x',
      event_types: ['transfer.confirmed'],
    });
    expect(r.status).toBe(200);
  });
});

describe('event_types', () => {
  it.each([
    ['1,000 entries', Array.from({ length: 1000 }, () => 'transfer.confirmed'), '/event_types'],
    ['a duplicate', ['transfer.confirmed', 'transfer.confirmed'], '/event_types'],
    ['a kind not in the catalogue', ['transfer.confirmed', 'transfer.created'], '/event_types/1'],
    ['a name of 65 characters', ['e'.repeat(65)], '/event_types/0'],
    ['a NUL in a name', ['transfer\u0000confirmed'], '/event_types/0'],
  ])('refuses %s, registering nothing', async (_what, eventTypes, path) => {
    const before = await registrations();
    const r = await register({ url: 'https://93.184.216.34/x', event_types: eventTypes });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    expect(await registrations()).toBe(before);
  });

  it('takes every kind of the catalogue', async () => {
    const r = await register({ url: 'https://93.184.216.34/x', event_types: EVENT_KINDS });
    expect(r.status).toBe(200);
  });

  it('bounds a group’s webhook the same way', async () => {
    const r = await world.client.call('POST', `/api/v1/orchestrator/groups/${world.groupId}/webhooks`, {
      token: world.operator.token,
      body: { url: 'https://[::7f00:1]/x', event_types: ['transfer.confirmed'] },
    });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual([{ path: '/url', issue: expect.any(String) }]);
  });
});
