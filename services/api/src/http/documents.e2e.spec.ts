/**
 * The agent's OpenAPI document as a generic tool reads it, and the 401 as a host meets it: the document
 * declares every operation an agent calls (its webhooks listed and deleted, the reads a spend needs),
 * the service's answers to them are what it says, amounts and memos carry standard bounds, every 401
 * (agent, MCP, variant, operator) says `WWW-Authenticate: Bearer` (`Bearer error="invalid_token"` for a
 * bearer credential that is not accepted: RFC 6750 §3.1), and no OAuth metadata is served (there is no
 * OAuth server to point at).
 */
import { SignJWT } from 'jose';
import { AGENT_CONTRACT, answerViolations } from '@tokenops/shared';
import { startWorld, type World } from '@tokenops/testing/harness';

interface Document {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
  components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> };
}

let world: World;
let agent: { id: string; key: string };
beforeAll(async () => {
  world = await startWorld();
  agent = await world.agent({ per_tx_limit: 100, daily_limit: 1000, hourly_tx_cap: 20 }, 100);
});
afterAll(async () => world?.close());

/** A call as the agent to one of its operations, and the answer checked against the agent document. */
async function asAgent(operationId: string, method: string, path: string, body?: unknown) {
  const reply = await world.client.call(method, path, {
    token: agent.key,
    ...(body !== undefined && { body }),
  });
  const operation = AGENT_CONTRACT.operations.find((op) => op.operationId === operationId)!;
  expect(`${operation.method.toUpperCase()} /api/v1${operation.path}`).toBe(
    `${method} ${path.replace(/\/webhooks\/[^/]+$/, '/webhooks/{webhook}')}`,
  );
  expect(answerViolations(operation, AGENT_CONTRACT, reply.status, reply.body)).toEqual([]);
  return reply;
}

describe('the agent OpenAPI document (/api/v1/openapi.json)', () => {
  let doc: Document;
  beforeAll(async () => {
    doc = (await world.client.call<Document>('GET', '/api/v1/openapi.json')).body;
  });

  it('declares the webhook list and delete and the reads a spend needs', () => {
    expect(Object.keys(doc.paths['/webhooks']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/webhooks/{webhook}']!)).toEqual(['delete']);
    for (const path of ['/tokens', '/venues', '/pools'])
      expect(Object.keys(doc.paths[path]!)).toEqual(['get']);
  });

  it('says the amount and memo rules in standard JSON Schema', () => {
    const transfer = doc.components.schemas.TransferRequest!.properties;
    expect(transfer.amount!.anyOf).toEqual([
      expect.objectContaining({ type: 'number', minimum: 0, multipleOf: 0.000001 }),
      expect.objectContaining({ type: 'string', pattern: '^[0-9]+(\\.[0-9]{1,6}0*)?$' }),
    ]);
    expect(transfer.amount!.type).toBeUndefined();
    expect(transfer.memo!.maxLength).toBe(200);
  });

  it('declares the RateLimit headers on successes and 429s, and WWW-Authenticate on 401s', () => {
    const balance = doc.paths['/balance']!.get!.responses;
    expect(Object.keys(balance['200']!.headers!)).toEqual(
      expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Reset']),
    );
    expect(Object.keys(balance['429']!.headers!)).toEqual(
      expect.arrayContaining(['RateLimit-Limit', 'Retry-After']),
    );
    expect(Object.keys(balance['401']!.headers!)).toEqual(['WWW-Authenticate']);
    expect(balance['401']!.headers!['WWW-Authenticate']).toMatchObject({
      schema: { enum: ['Bearer', 'Bearer error="invalid_token"'] },
    });
  });

  it('describes what the service answers to those operations', async () => {
    const created = await asAgent('registerWebhook', 'POST', '/api/v1/webhooks', {
      url: 'https://93.184.216.34/hook',
      event_types: ['agent.revoked'],
    });
    expect(created.status).toBe(200);
    const id = created.body.webhook_id as string;

    const listed = await asAgent('listWebhooks', 'GET', '/api/v1/webhooks');
    expect(listed.status).toBe(200);
    expect(listed.body.webhooks).toEqual([
      expect.objectContaining({ webhook_id: id, scope: 'agent', status: 'active' }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.signing_secret as string);

    const deleted = await asAgent('deleteWebhook', 'DELETE', `/api/v1/webhooks/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ webhook_id: id, status: 'deleted' });
    expect((await asAgent('deleteWebhook', 'DELETE', `/api/v1/webhooks/${id}`)).status).toBe(404);
    expect((await asAgent('deleteWebhook', 'DELETE', '/api/v1/webhooks/nope')).status).toBe(400);

    const tokens = await asAgent('listTokens', 'GET', '/api/v1/tokens');
    expect(tokens.body.tokens).toEqual(expect.arrayContaining([expect.objectContaining({ symbol: 'USDC' })]));
    expect((await asAgent('listVenues', 'GET', '/api/v1/venues')).status).toBe(200);
    expect((await asAgent('listPools', 'GET', '/api/v1/pools')).status).toBe(200);
  });

  it('accepts every amount the standard schema describes, exactly (1.1 is a multiple of 0.000001)', async () => {
    for (const amount of [1.1, 0.000001, 12.345678, '12.3456780', 123456789.123456]) {
      const sim = await asAgent('simulateTransfer', 'POST', '/api/v1/intents/simulate', {
        amount,
        to: world.vendor,
      });
      expect(sim.status).toBe(200);
    }
    for (const amount of [1.1234567, '1.1234567', -1, '1e3']) {
      const sim = await asAgent('simulateTransfer', 'POST', '/api/v1/intents/simulate', {
        amount,
        to: world.vendor,
      });
      expect([sim.status, sim.body.error]).toEqual([400, 'invalid_amount']);
    }
  });
});

describe('every 401 says how to authenticate', () => {
  const unauthorized: [string, string, Record<string, unknown> | undefined][] = [
    ['GET', '/api/v1/balance', undefined],
    ['POST', '/api/v1/transfer', { to: 'x', amount: 1, idempotency_key: 'k' }],
    ['GET', '/api/v1/webhooks', undefined],
    ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ['GET', '/v1/balance', undefined],
    ['GET', '/api/v1/orchestrator/groups', undefined],
  ];
  // RFC 6750 §3.1: no credential, the bare challenge; a bearer credential that is not accepted, invalid_token.
  it.each(unauthorized)(
    '%s %s: 401 in the envelope; WWW-Authenticate: Bearer without a credential, Bearer error="invalid_token" with a wrong one',
    async (method, path, body) => {
      const cases: [string | undefined, string][] = [
        [undefined, 'Bearer'],
        ['not-a-key', 'Bearer error="invalid_token"'],
        [`${agent.key}x`, 'Bearer error="invalid_token"'],
      ];
      for (const [token, challenge] of cases) {
        const reply = await world.client.call(method, path, {
          ...(token && { token }),
          ...(body && { body }),
        });
        expect({ token, status: reply.status, challenge: reply.headers.get('www-authenticate') }).toEqual({
          token,
          status: 401,
          challenge,
        });
        const code = path.startsWith('/v1/') ? (reply.body.error as { code: string }).code : reply.body.error;
        expect(code).toBe('unauthorized');
      }
    },
  );

  it('an operator session signed with another secret, or a revoked key: invalid_token', async () => {
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(world.operator.wallet.address)
      .setAudience('tokenops-operator')
      .setExpirationTime('1h')
      .sign(new Uint8Array(32));
    const group = await world.client.call('GET', '/api/v1/orchestrator/groups', { token: forged });
    const revoked = await world.agent({}, 0);
    const revocation = await world.client.call('POST', `/api/v1/orchestrator/agents/${revoked.id}/revoke`, {
      token: world.operator.token,
      body: {},
    });
    expect(revocation.status).toBe(200);
    const stale = await world.client.call('GET', '/api/v1/balance', { token: revoked.key });
    for (const reply of [group, stale])
      expect({ status: reply.status, challenge: reply.headers.get('www-authenticate') }).toEqual({
        status: 401,
        challenge: 'Bearer error="invalid_token"',
      });
  });

  it('a credential in another scheme than Bearer is no bearer credential: the bare challenge', async () => {
    const reply = await fetch(`${world.service.url}/api/v1/balance`, {
      headers: { authorization: `Basic ${Buffer.from('agent:secret').toString('base64')}` },
    });
    expect({ status: reply.status, challenge: reply.headers.get('www-authenticate') }).toEqual({
      status: 401,
      challenge: 'Bearer',
    });
  });
});

describe('no OAuth metadata: there is no OAuth authorization server', () => {
  it.each([
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/mcp',
    '/.well-known/oauth-authorization-server',
  ])('GET %s is a 404 in the envelope', async (path) => {
    const reply = await world.client.call('GET', path);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: 'not_found', message: expect.any(String) });
  });
});
