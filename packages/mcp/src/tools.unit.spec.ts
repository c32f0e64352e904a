import { CONTRACT_SCHEMAS } from '@tokenops/shared';
import { PoolsResponse } from '@tokenops/shared';
import type { AgentApi, ApiReply } from './agent-api';
import { callTool } from './server';
import { TOOLS, portable } from './tools';

const tool = (name: string) => TOOLS.find((t) => t.name === name)!;
const SPENDS = ['transfer', 'swap', 'deposit', 'withdraw', 'pay_for_resource'];

describe('the tool table', () => {
  it('has the agent operations and the reads a spend needs, each with the HTTP call of the API', () => {
    expect(TOOLS.map((t) => `${t.name} ${t.method} ${t.path}`)).toEqual([
      'transfer POST /api/v1/transfer',
      'swap POST /api/v1/swap',
      'deposit POST /api/v1/deposit',
      'withdraw POST /api/v1/withdraw',
      'pay_for_resource POST /api/v1/x402/pay',
      'simulate POST /api/v1/intents/simulate',
      'balance GET /api/v1/balance',
      'limits GET /api/v1/limits',
      'history GET /api/v1/history',
      'tokens GET /api/v1/tokens',
      'venues GET /api/v1/venues',
      'pools GET /api/v1/pools',
      'webhooks GET /api/v1/webhooks',
    ]);
  });

  it("takes its schemas from the contract; the spends' idempotency_key is optional", () => {
    const request = {
      transfer: 'Transfer',
      swap: 'Swap',
      deposit: 'Deposit',
      withdraw: 'Withdraw',
      pay_for_resource: 'X402Pay',
    } as const;
    for (const [name, schema] of Object.entries(request)) {
      const contract = CONTRACT_SCHEMAS[`${schema}Request`];
      expect(tool(name).inputSchema).toEqual({
        ...contract,
        required: contract.required.filter((f) => f !== 'idempotency_key'),
      });
      expect(contract.required).toContain('idempotency_key');
      expect(tool(name).outputSchema).toEqual(CONTRACT_SCHEMAS[`${schema}Response`]);
    }
    expect(tool('simulate').inputSchema).toEqual(CONTRACT_SCHEMAS.SimulateRequest);
    expect(tool('history').inputSchema).toEqual(CONTRACT_SCHEMAS.HistoryQuery);
    expect(tool('limits').outputSchema).toEqual(CONTRACT_SCHEMAS.LimitsResponse);
  });

  it('spells a type array as anyOf branches (hosts that take one type), and leaves the rest as it is', () => {
    expect(portable({ type: ['string', 'null'], format: 'date-time', description: 'd' })).toEqual({
      description: 'd',
      anyOf: [
        { type: 'string', format: 'date-time' },
        { type: 'null', format: 'date-time' },
      ],
    });
    // A property named "type" stays a property.
    expect(
      portable({ type: 'object', properties: { type: { type: 'string' } }, required: ['type'] }),
    ).toEqual({
      type: 'object',
      properties: { type: { type: 'string' } },
      required: ['type'],
    });
    expect(JSON.stringify(tool('pools').outputSchema)).not.toMatch(/"type":\[/);
    expect(PoolsResponse.properties.aggregator.type).toEqual(['string', 'null']);
  });

  it('tells a host which tools only read (auto-approvable) and which spend', () => {
    for (const t of TOOLS) {
      expect(t.annotations.readOnlyHint).toBe(!t.spend);
      if (t.spend) expect(t.annotations).toMatchObject({ destructiveHint: true, idempotentHint: false });
    }
  });

  it('says what each tool spends and which limits apply', () => {
    for (const name of ['transfer', 'swap', 'deposit', 'pay_for_resource'])
      expect(tool(name).description).toEqual(
        expect.stringMatching(
          /allow-list[\s\S]*per-transaction limit[\s\S]*24-hour[\s\S]*hourly transaction cap/,
        ),
      );
    expect(tool('transfer').description).toMatch(/TTL and a budget/);
    expect(tool('withdraw').description).toMatch(/exempt from the per-transaction and 24-hour limits/);
    for (const name of ['simulate', 'balance', 'limits', 'history', 'tokens', 'venues', 'pools', 'webhooks'])
      expect(tool(name).description).toMatch(/Spends nothing/);
    expect(TOOLS.filter((t) => t.spend).map((t) => t.name)).toEqual(SPENDS);
  });
});

/** The port answering from a list, recording what it was asked. */
function api(...replies: (ApiReply | Error)[]): AgentApi & { calls: unknown[][] } {
  const calls: unknown[][] = [];
  return {
    calls,
    async call(...args) {
      calls.push(args);
      const next = replies.shift()!;
      if (next instanceof Error) throw next;
      return next;
    },
  };
}

describe('callTool', () => {
  it("returns the API's JSON as text and as structured content", async () => {
    const text = '{"per_tx_limit":100,"group_id":"g"}';
    const port = api({ status: 200, text });
    expect(await callTool(port, tool('limits'), {})).toEqual({
      content: [{ type: 'text', text }],
      structuredContent: { per_tx_limit: 100, group_id: 'g' },
    });
    expect(port.calls).toEqual([['GET', '/api/v1/limits']]);
  });

  it('sends a GET tool’s arguments as the query', async () => {
    const port = api({ status: 200, text: '{"transactions":[]}' });
    await callTool(port, tool('history'), { limit: 5 });
    expect(port.calls).toEqual([['GET', '/api/v1/history?limit=5']]);
  });

  it('keeps the idempotency key given, and generates one when absent', async () => {
    const ok = { status: 200, text: '{}' };
    const port = api(ok, ok);
    await callTool(port, tool('transfer'), { to: 'x', amount: 1, idempotency_key: 'mine' });
    await callTool(port, tool('transfer'), { to: 'x', amount: 1 });
    expect(port.calls[0]).toEqual([
      'POST',
      '/api/v1/transfer',
      { to: 'x', amount: 1, idempotency_key: 'mine' },
    ]);
    expect(port.calls[1]![2]).toEqual({
      to: 'x',
      amount: 1,
      idempotency_key: expect.stringMatching(/^mcp-[0-9a-f-]{36}$/),
    });
  });

  it('turns an error envelope into a tool error with the code, the message and any details', async () => {
    const refused = await callTool(
      api({ status: 403, text: '{"error":"per_tx_limit_exceeded","message":"Amount over 100."}' }),
      tool('swap'),
      { idempotency_key: 'k' },
    );
    expect(refused).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'per_tx_limit_exceeded: Amount over 100.' }],
    });
    const invalid = await callTool(
      api({
        status: 400,
        text: '{"error":"validation_error","message":"Bad.","details":[{"path":"/to","issue":"too short"}]}',
      }),
      tool('simulate'),
      {},
    );
    expect(invalid.content).toEqual([
      { type: 'text', text: 'validation_error: Bad. Details: [{"path":"/to","issue":"too short"}]' },
    ]);
  });

  it('a spend held for a person tells the model it awaits one, and how to learn the outcome with its key', async () => {
    const message =
      'The spend is held for approval g_1 until 2026-11-27T00:00:00.000Z; retry the same request.';
    const reply = { status: 409, text: JSON.stringify({ error: 'approval_required', message }) };
    const generated = await callTool(api(reply), tool('transfer'), { to: 'x', amount: 60 });
    const given = await callTool(api(reply), tool('swap'), { idempotency_key: 'mine' });
    const text = (r: typeof given) => (r.content[0] as { text: string }).text;
    expect(text(generated)).toMatch(
      /^approval_required: this transfer awaits a person: .* held for approval g_1 until .* call transfer again with the same arguments and idempotency_key mcp-[0-9a-f-]{36} /,
    );
    expect(text(given)).toContain('call swap again with the same arguments and idempotency_key mine ');
    expect(text(given)).toMatch(/approval_rejected or approval_expired/);
  });

  it('an answer without an envelope, or no answer at all, is a tool error naming the generated key', async () => {
    const gateway = await callTool(
      api({ status: 502, text: '<html>Bad Gateway</html>' }),
      tool('deposit'),
      {},
    );
    expect(gateway.isError).toBe(true);
    expect(gateway.content[0]).toEqual({
      type: 'text',
      text: expect.stringMatching(/^http_502: .* idempotency_key mcp-[0-9a-f-]{36}: pass it to retry/),
    });
    const down = await callTool(api(new TypeError('fetch failed')), tool('balance'), {});
    expect(down).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'unreachable: the agent API did not answer (fetch failed).' }],
    });
  });
});
