/**
 * The rate limits of the routes that are not an agent's: the public reads (per client address), the
 * sign-in routes (registration and a wallet's sign-in, per client address) and the operator routes
 * (per signed-in wallet). Each answer of a limited route carries the RateLimit headers; past the
 * limit, 429 rate_limited with Retry-After in the contract's envelope, while another address or
 * another operator goes on. The client addresses are named by X-Forwarded-For (TRUST_PROXY_HOPS 1).
 * On the server topology the client alternates between two API instances sharing Redis, and the
 * requests are sent at once: the count holds across them.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { signIn, startWorld, type Reply, type World, invitation } from '@tokenops/testing/harness';

const PUBLIC = 5;
const SIGN_IN = 6;
const OPERATOR = 8;

let world: World;
beforeAll(async () => {
  world = await startWorld({
    publicRateLimitPerMinute: PUBLIC,
    signInRateLimitPerMinute: SIGN_IN,
    operatorRateLimitPerMinute: OPERATOR,
    trustProxyHops: 1,
  });
});
afterAll(async () => world.close());

/** A client address of its own for each test (documentation ranges, RFC 5737). */
let nextAddress = 1;
const address = () => `203.0.113.${nextAddress++}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

const statuses = (replies: Reply[]) => replies.map((r) => r.status).sort();

/** What a user checks on a refusal: 429, its code in the envelope, when to retry, nothing left. */
function expectRefused(r: Reply, limit: number, code = (b: Reply['body']) => b.error): void {
  expect({ status: r.status, error: code(r.body) }).toEqual({ status: 429, error: 'rate_limited' });
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(r.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(r.headers.get('ratelimit-remaining')).toBe('0');
  expect(r.headers.get('ratelimit-policy')).toBe(`${limit};w=60`);
}

describe('the public reads, per client address', () => {
  it(`answer ${PUBLIC} requests a minute from one address with the RateLimit headers, then 429; another address goes on`, async () => {
    const ip = address();
    const first = await world.client.call('GET', '/api/v1/tokens', { headers: from(ip) });
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe(String(PUBLIC));
    expect(first.headers.get('ratelimit-remaining')).toBe(String(PUBLIC - 1));
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expect(first.headers.get('ratelimit-policy')).toBe(`${PUBLIC};w=60`);

    // The rest of the allowance and three more, at once, over the three reads.
    const paths = ['/api/v1/tokens', '/api/v1/venues', '/api/v1/pools'];
    const burst = await Promise.all(
      Array.from({ length: PUBLIC + 2 }, (_, i) =>
        world.client.call('GET', paths[i % paths.length]!, { headers: from(ip) }),
      ),
    );
    expect(statuses(burst)).toEqual([...Array(PUBLIC - 1).fill(200), 429, 429, 429]);
    for (const r of burst) expect(r.headers.get('ratelimit-limit')).toBe(String(PUBLIC));
    expectRefused(
      burst.find((r) => r.status === 429)!,
      PUBLIC,
    );
    expect(burst.find((r) => r.status === 429)!.body.message).toMatch(/from this address/);

    const other = await world.client.call('GET', '/api/v1/pools', { headers: from(address()) });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe(String(PUBLIC - 1));
  });
});

describe('a reference read of an MCP tool', () => {
  it('is counted at /mcp against the agent, not against the address the API calls itself from', async () => {
    const agent = await world.agent({}, 0);
    const mcp = new McpClient({ name: 'e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${world.client.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agent.key}` } },
      }),
    );
    try {
      const before = await world.client.call('GET', '/api/v1/tokens');
      expect(before.status).toBe(200);
      // More tool calls than the public reads' allowance: each answers, and the address's count stays.
      for (let i = 0; i < PUBLIC + 1; i++) {
        const result = (await mcp.callTool({ name: 'tokens', arguments: {} })) as { isError?: boolean };
        expect(result.isError).toBeFalsy();
      }
      const after = await world.client.call('GET', '/api/v1/tokens');
      expect(after.status).toBe(200);
      expect(Number(after.headers.get('ratelimit-remaining'))).toBe(
        Number(before.headers.get('ratelimit-remaining')) - 1,
      );
      // The agent's own allowance counted them: initialize, its notification, the tool calls.
      const limits = await world.client.call('GET', '/api/v1/limits', { token: agent.key });
      expect(Number(limits.headers.get('ratelimit-remaining'))).toBe(60 - 2 - (PUBLIC + 1) - 1);
    } finally {
      await mcp.close();
    }
  });
});

describe('the sign-in routes, per client address', () => {
  it(`answer ${SIGN_IN} requests a minute from one address (challenge, token, registration on both contracts), then 429`, async () => {
    const ip = address();
    const wallet = world.operator.wallet.address;
    const challenges = await Promise.all(
      Array.from({ length: SIGN_IN }, () =>
        world.client.call<{ message: string }>('POST', '/api/v1/orchestrator/auth/challenge', {
          headers: from(ip),
          body: { wallet },
        }),
      ),
    );
    expect(statuses(challenges)).toEqual(Array(SIGN_IN).fill(200));
    expect(challenges.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort()).toEqual(
      Array.from({ length: SIGN_IN }, (_, i) => i),
    );

    // Even a rightly signed challenge is refused now, as is a registration (each contract's envelope).
    const token = await world.client.call('POST', '/api/v1/orchestrator/auth/token', {
      headers: from(ip),
      body: { wallet, message: challenges[0]!.body.message, signature: '1111' },
    });
    expectRefused(token, SIGN_IN);
    const code = (await invitation(world.client, world.operator, world.groupId, {})).body.invitation_code;
    const register = await world.client.call('POST', '/api/v1/register', {
      headers: from(ip),
      body: { invitation_code: code },
    });
    expectRefused(register, SIGN_IN);
    const variant = await world.client.call<{ error: { code: string } }>('POST', '/v1/agents/register', {
      headers: from(ip),
      body: { invitation_code: code },
    });
    expectRefused(variant, SIGN_IN, (b) => (b as { error: { code: string } }).error.code);

    // Refused before anything was looked up: the code still registers, from another address.
    const elsewhere = await world.client.call<{ api_key: string }>('POST', '/api/v1/register', {
      headers: from(address()),
      body: { invitation_code: code },
    });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('ratelimit-limit')).toBe(String(SIGN_IN));
    expect((await world.client.call('GET', '/api/v1/limits', { token: elsewhere.body.api_key })).status).toBe(
      200,
    );
  });
});

describe('the operator routes, per signed-in wallet', () => {
  it(`answer ${OPERATOR} requests a minute of one wallet, from any address, then 429; another operator goes on`, async () => {
    const operator = await signIn(world.client);
    // At once, from two addresses: the wallet's count is one.
    const burst = await Promise.all(
      Array.from({ length: OPERATOR + 3 }, (_, i) =>
        world.client.call('GET', '/api/v1/orchestrator/groups', {
          token: operator.token,
          headers: from(i % 2 ? '198.51.100.1' : '198.51.100.2'),
        }),
      ),
    );
    expect(statuses(burst)).toEqual([...Array(OPERATOR).fill(200), 429, 429, 429]);
    for (const r of burst) expect(r.headers.get('ratelimit-limit')).toBe(String(OPERATOR));
    const refused = burst.find((r) => r.status === 429)!;
    expectRefused(refused, OPERATOR);
    expect(refused.body.message).toMatch(/of this wallet/);
    // Every operator route counts, a write and a group's webhooks alike.
    const write = await world.client.call('POST', '/api/v1/orchestrator/groups', {
      token: operator.token,
      body: { per_tx_limit: 1, daily_limit: 1, hourly_tx_cap: 1 },
    });
    expectRefused(write, OPERATOR);

    // Another operator, from the same addresses, is not affected.
    const other = await world.client.call('GET', `/api/v1/orchestrator/groups/${world.groupId}/webhooks`, {
      token: world.operator.token,
      headers: from('198.51.100.1'),
    });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-limit')).toBe(String(OPERATOR));
  });

  it('counts a token that is not good as a failed authentication, not against a wallet', async () => {
    const r = await world.client.call('GET', '/api/v1/orchestrator/groups', { token: 'not-a-jwt' });
    expect({ status: r.status, error: r.body.error }).toEqual({ status: 401, error: 'unauthorized' });
    expect(r.headers.get('ratelimit-limit')).toBeNull();
  });
});
