/**
 * The agent contract's schemas, endpoint by endpoint: the spec's valid shapes pass, each kind of
 * invalid one is refused with the contract's error, the path pointing at the field.
 */
import { EVENT_KINDS } from '../events/catalogue';
import { ServiceError } from '../errors';
import { responseViolations, validate } from './validator';
import { unstorableText } from './text';
import type { SchemaName } from './validator';
import { CONTRACT_SCHEMAS } from './agent-openapi';
import { OPERATOR_SCHEMAS } from './operator-openapi';
import { TransferResponse } from './agent/intents';
import { amountFields } from './schemas';
import { VariantSwapResponse } from './variant-schemas';

const MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'; // 44 chars
const TO = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin'; // 44 chars
const SHORT = 'So1111111111111111111111111111'; // 30 chars

function refusal(name: SchemaName, data: unknown): { error: string; paths: string[] } {
  try {
    validate(name, data);
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return { error: err.code, paths: [...new Set((err.details ?? []).map((d) => d.path))] };
  }
  return { error: 'accepted', paths: [] };
}

const accepts = (name: SchemaName, data: unknown) => expect(() => validate(name, data)).not.toThrow();

describe('POST /api/v1/register', () => {
  it('accepts an invitation code', () => accepts('RegisterRequest', { invitation_code: 'inv_abc' }));
  it.each([
    [{}, '/invitation_code'],
    [{ invitation_code: '' }, '/invitation_code'],
    [{ invitation_code: 7 }, '/invitation_code'],
    [{ invitation_code: 'inv', extra: 1 }, '/extra'],
    [[], ''],
    ['inv', ''],
    [null, ''],
  ])('refuses %j at %s', (body, path) => {
    expect(refusal('RegisterRequest', body)).toEqual({ error: 'validation_error', paths: [path] });
  });
  it('answers agent_wallet_pda and api_key, both required', () => {
    expect(responseViolations('RegisterResponse', { agent_wallet_pda: TO, api_key: 'k' })).toEqual([]);
    expect(responseViolations('RegisterResponse', { agent_wallet_pda: TO })).toEqual([
      { path: '/api_key', issue: "must have required property 'api_key'" },
    ]);
  });
});

describe('POST /api/v1/transfer', () => {
  const valid = { to: TO, amount: 12.5, idempotency_key: 'k-1' };
  it('accepts the required fields, every optional one, a decimal-string amount and unknown fields', () => {
    accepts('TransferRequest', valid);
    accepts('TransferRequest', {
      ...valid,
      mint: MINT,
      memo: 'invoice 7',
      task_id: 't',
      amount: '12.500001',
    });
    accepts('TransferRequest', { ...valid, note: 'ignored' });
    accepts('TransferRequest', { ...valid, to: TO.slice(0, 32) });
  });
  it.each([
    [{ amount: 1, idempotency_key: 'k' }, ['/to']],
    [{ to: TO, idempotency_key: 'k' }, ['/amount']],
    [{ to: TO, amount: 1 }, ['/idempotency_key']],
    [{ ...valid, to: SHORT }, ['/to']],
    [{ ...valid, to: `${TO}x` }, ['/to']],
    [{ ...valid, to: TO.replace('9', '0') }, ['/to']],
    [{ ...valid, to: TO.replace('x', 'l') }, ['/to']],
    [{ ...valid, mint: 'not-a-mint' }, ['/mint']],
    [{ ...valid, idempotency_key: '' }, ['/idempotency_key']],
    [{ ...valid, idempotency_key: 'k'.repeat(256) }, ['/idempotency_key']],
    [{ ...valid, memo: 'm'.repeat(201) }, ['/memo']],
    [{ ...valid, task_id: 5 }, ['/task_id']],
    [{ idempotency_key: 'k' }, ['/to', '/amount']],
  ])('refuses %j with validation_error at %j', (body, paths) => {
    expect(refusal('TransferRequest', body)).toEqual({ error: 'validation_error', paths });
  });
  it.each([[1.1234567], ['1.1234567'], [-1], ['-1'], ['ten'], [true], [{}], ['1e3']])(
    'refuses the amount %j with invalid_amount',
    (amount) =>
      expect(refusal('TransferRequest', { ...valid, amount })).toEqual({
        error: 'invalid_amount',
        paths: [],
      }),
  );
  it('answers the six required fields with status confirmed', () => {
    const ok = {
      tx_sig: 's',
      status: 'confirmed',
      net_amount: 9.99,
      protocol_fee: 0.01,
      daily_remaining: 90,
      hourly_tx_remaining: 9,
    };
    expect(responseViolations('TransferResponse', ok)).toEqual([]);
    expect(responseViolations('TransferResponse', { ...ok, status: 'pending' }).map((v) => v.path)).toEqual([
      '/status',
    ]);
    expect(
      responseViolations('TransferResponse', { ...ok, hourly_tx_remaining: 1.5 }).map((v) => v.path),
    ).toEqual(['/hourly_tx_remaining']);
    const { tx_sig: _omitted, ...missing } = ok;
    expect(responseViolations('TransferResponse', missing).map((v) => v.path)).toEqual(['/tx_sig']);
  });
});

describe('POST /api/v1/swap', () => {
  const valid = {
    from_token: 'USDC',
    to_token: 'SOL',
    from_mint: MINT,
    to_mint: TO,
    amount: 5,
    idempotency_key: 'k',
  };
  it('accepts the required fields and fills slippage_bps with 50', () => {
    const body = { ...valid };
    validate('SwapRequest', body);
    expect(body).toEqual({ ...valid, slippage_bps: 50 });
    accepts('SwapRequest', { ...valid, minimum_amount_out: '4.9', slippage_bps: 0, task_id: 't' });
    accepts('SwapRequest', { ...valid, slippage_bps: 10000 });
  });
  it.each([
    [{ ...valid, slippage_bps: 10001 }, ['/slippage_bps']],
    [{ ...valid, slippage_bps: -1 }, ['/slippage_bps']],
    [{ ...valid, slippage_bps: 1.5 }, ['/slippage_bps']],
    [{ ...valid, slippage_bps: '50' }, ['/slippage_bps']],
    [{ ...valid, from_mint: SHORT }, ['/from_mint']],
    [{ ...valid, to_mint: undefined }, ['/to_mint']],
    [{ ...valid, from_token: undefined }, ['/from_token']],
    [{ ...valid, to_token: undefined }, ['/to_token']],
  ])('refuses %j at %j', (body, paths) => {
    expect(refusal('SwapRequest', JSON.parse(JSON.stringify(body)))).toEqual({
      error: 'validation_error',
      paths,
    });
  });
  it('refuses a minimum_amount_out with 7 decimals as invalid_amount', () => {
    expect(refusal('SwapRequest', { ...valid, minimum_amount_out: 0.0000001 }).error).toBe('invalid_amount');
  });
  it('answers received_amount and rate', () => {
    const ok = {
      tx_sig: 's',
      status: 'confirmed',
      received_amount: 4.97,
      rate: 0.994,
      daily_remaining: 0,
      hourly_tx_remaining: 0,
    };
    expect(responseViolations('SwapResponse', ok)).toEqual([]);
    expect(responseViolations('SwapResponse', { ...ok, rate: undefined }).map((v) => v.path)).toEqual([
      '/rate',
    ]);
  });
});

describe.each([
  ['DepositRequest', 'DepositResponse', 'deposited_amount'],
  ['WithdrawRequest', 'WithdrawResponse', 'received_amount'],
] as const)('%s', (request, response, field) => {
  const valid = { amount: 1, lending_program: TO, idempotency_key: 'k' };
  it('accepts the required fields, a mint and cpi_data bytes', () => {
    accepts(request, valid);
    accepts(request, { ...valid, mint: MINT, cpi_data: [0, 1, 255] });
  });
  it.each([
    [{ amount: 1, idempotency_key: 'k' }, ['/lending_program']],
    [{ ...valid, lending_program: SHORT }, ['/lending_program']],
    [{ ...valid, cpi_data: [256] }, ['/cpi_data/0']],
    [{ ...valid, cpi_data: [1, -1] }, ['/cpi_data/1']],
    [{ ...valid, cpi_data: ['a'] }, ['/cpi_data/0']],
    [{ ...valid, cpi_data: 'AQID' }, ['/cpi_data']],
  ])('refuses %j at %j', (body, paths) => {
    expect(refusal(request, body)).toEqual({ error: 'validation_error', paths });
  });
  it(`answers ${field}`, () => {
    expect(responseViolations(response, { tx_sig: 's', status: 'confirmed', [field]: 1 })).toEqual([]);
    expect(responseViolations(response, { tx_sig: 's', status: 'confirmed' }).map((v) => v.path)).toEqual([
      `/${field}`,
    ]);
  });
});

describe('POST /api/v1/intents/simulate', () => {
  it('accepts an amount alone, or with mint and to', () => {
    accepts('SimulateRequest', { amount: 3 });
    accepts('SimulateRequest', { amount: '3', mint: MINT, to: TO });
  });
  it('refuses a missing amount, and a bad recipient', () => {
    expect(refusal('SimulateRequest', {})).toEqual({ error: 'validation_error', paths: ['/amount'] });
    expect(refusal('SimulateRequest', { amount: 1, to: SHORT })).toEqual({
      error: 'validation_error',
      paths: ['/to'],
    });
  });
  it('has reason exactly when would_succeed is false, and reason is an error code', () => {
    const base = { daily_remaining: 1, hourly_tx_remaining: 1, estimated_fee: 0.001 };
    expect(responseViolations('SimulateResponse', { ...base, would_succeed: true })).toEqual([]);
    expect(
      responseViolations('SimulateResponse', {
        ...base,
        would_succeed: false,
        reason: 'daily_limit_exceeded',
      }),
    ).toEqual([]);
    expect(responseViolations('SimulateResponse', { ...base, would_succeed: false })).not.toEqual([]);
    expect(
      responseViolations('SimulateResponse', {
        ...base,
        would_succeed: true,
        reason: 'daily_limit_exceeded',
      }),
    ).not.toEqual([]);
    expect(
      responseViolations('SimulateResponse', { ...base, would_succeed: false, reason: 'nope' }),
    ).not.toEqual([]);
  });
});

describe('state reads', () => {
  const limits = {
    daily_limit: 100,
    daily_remaining: 40,
    per_tx_limit: 10,
    hourly_tx_cap: 5,
    hourly_tx_remaining: 2,
  };
  it('GET /balance answers balances by symbol and the five limit fields', () => {
    expect(responseViolations('BalanceResponse', { balances: { USDC: 1.5, SOL: 0 }, ...limits })).toEqual([]);
    expect(
      responseViolations('BalanceResponse', { balances: { USDC: -1 }, ...limits }).map((v) => v.path),
    ).toEqual(['/balances/USDC']);
    expect(responseViolations('BalanceResponse', limits).map((v) => v.path)).toEqual(['/balances']);
  });
  it('GET /limits answers the five fields and group_id', () => {
    expect(responseViolations('LimitsResponse', { ...limits, group_id: 'g' })).toEqual([]);
    expect(
      responseViolations('LimitsResponse', { ...limits, hourly_tx_cap: 2.5, group_id: 'g' }).map(
        (v) => v.path,
      ),
    ).toEqual(['/hourly_tx_cap']);
  });
  it('GET /history takes limit 1-100, default 20, from the query string', () => {
    const q: Record<string, unknown> = {};
    validate('HistoryQuery', q);
    expect(q).toEqual({ limit: 20 });
    const given: Record<string, unknown> = { limit: '100' };
    validate('HistoryQuery', given);
    expect(given).toEqual({ limit: 100 });
    for (const limit of ['0', '101', 'ten', '2.5'])
      expect(refusal('HistoryQuery', { limit })).toEqual({ error: 'validation_error', paths: ['/limit'] });
  });
  it('GET /history answers entries with their required fields and action transfer or swap', () => {
    const entry = {
      tx_sig: 's',
      action: 'transfer',
      amount: 1,
      timestamp: 1_763_640_000,
      to: TO,
      token: 'USDC',
      net_amount: 0.999,
      protocol_fee: 0.001,
    };
    expect(responseViolations('HistoryResponse', { transactions: [entry] })).toEqual([]);
    expect(
      responseViolations('HistoryResponse', { transactions: [{ ...entry, action: 'deposit' }] }).map(
        (v) => v.path,
      ),
    ).toEqual(['/transactions/0/action']);
    expect(
      responseViolations('HistoryResponse', { transactions: [{ ...entry, timestamp: '2026-11-20' }] }).map(
        (v) => v.path,
      ),
    ).toEqual(['/transactions/0/timestamp']);
  });
});

describe('POST /api/v1/webhooks', () => {
  it('accepts an https URL and at least one event type', () =>
    accepts('WebhookRequest', { url: 'https://hooks.example.com/x', event_types: ['transfer.confirmed'] }));
  const t = 'transfer.confirmed';
  it.each([
    [{ url: 'http://hooks.example.com/x', event_types: [t] }, ['/url']],
    [{ url: 'not a url', event_types: [t] }, ['/url']],
    [{ url: 'https://hooks.example.com', event_types: [] }, ['/event_types']],
    [{ url: 'https://hooks.example.com', event_types: [1] }, ['/event_types/0']],
    [{ event_types: [t] }, ['/url']],
    [{ url: 'https://hooks.example.com', event_types: [t, t] }, ['/event_types']],
    [{ url: 'https://hooks.example.com', event_types: [t, 'transfer.created'] }, ['/event_types/1']],
    [{ url: 'https://hooks.example.com', event_types: Array(5000).fill(t) }, ['/event_types']],
  ])('refuses %j at %j', (body, paths) => {
    expect(refusal('WebhookRequest', body)).toEqual({ error: 'validation_error', paths });
  });
  it('takes every kind of the event catalogue at once', () =>
    accepts('WebhookRequest', { url: 'https://hooks.example.com/x', event_types: EVENT_KINDS }));
  it('answers webhook_id and signing_secret', () => {
    expect(responseViolations('WebhookResponse', { webhook_id: 'w', signing_secret: 's' })).toEqual([]);
  });
});

describe('the error envelope', () => {
  it('has error and message; details only (and always) on validation_error', () => {
    expect(responseViolations('ErrorBody', { error: 'unauthorized', message: 'm' })).toEqual([]);
    expect(
      responseViolations('ErrorBody', {
        error: 'validation_error',
        message: 'm',
        details: [{ path: '/a', issue: 'x' }],
      }),
    ).toEqual([]);
    expect(responseViolations('ErrorBody', { error: 'validation_error', message: 'm' })).not.toEqual([]);
    expect(responseViolations('ErrorBody', { error: 'unauthorized', message: 'm', details: [] })).not.toEqual(
      [],
    );
    expect(responseViolations('ErrorBody', { error: 'teapot', message: 'm' })).not.toEqual([]);
  });
  it('is what a ServiceError renders', () => {
    expect(responseViolations('ErrorBody', new ServiceError('daily_limit_exceeded').toBody())).toEqual([]);
    expect(
      responseViolations(
        'ErrorBody',
        new ServiceError('validation_error', 'm', [{ path: '', issue: 'x' }]).toBody(),
      ),
    ).toEqual([]);
  });
});

describe('text the log cannot store, in any string of any request', () => {
  const valid = { to: TO, amount: 1, idempotency_key: 'k-1' };
  it.each([
    ['memo', { ...valid, memo: 'a\u0000b' }, '/memo'],
    ['task_id', { ...valid, task_id: '\u0000' }, '/task_id'],
    ['idempotency_key', { ...valid, idempotency_key: 'k\ud800' }, '/idempotency_key'],
    ['an unknown field', { ...valid, note: 'x\udc00y' }, '/note'],
    ['a property name', { ...valid, 'a\u0000': 1 }, '/a\u0000'],
    ['a nested string', { ...valid, note: { deep: ['ok', 'no\u0000'] } }, '/note/deep/1'],
  ])('refuses U+0000 or a lone surrogate in %s, pointing at it', (_what, body, path) => {
    expect(refusal('TransferRequest', body)).toEqual({ error: 'validation_error', paths: [path] });
  });
  it('refuses it in path parameters and in operator bodies too', () => {
    expect(refusal('PathParams', { agent: 'a\u0000b' })).toEqual({
      error: 'validation_error',
      paths: ['/agent'],
    });
    expect(refusal('WhitelistRequest', { address: TO, type: 2, label: 'l\ud83d' })).toEqual({
      error: 'validation_error',
      paths: ['/label'],
    });
  });
  it('walks any depth without growing the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const found = unstorableText(deep);
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toBe('/0'.repeat(200_000));
  });
  it('accepts well-formed text: accents, emoji (surrogate pairs), other scripts', () =>
    accepts('TransferRequest', { ...valid, memo: 'café 🚀 日本 \u0001', task_id: '🙂' }));
});

describe('the memo counts UTF-8 bytes, as the chain does', () => {
  const valid = { to: TO, amount: 1, idempotency_key: 'k-1' };
  it('takes 200 bytes: 200 ASCII characters, 50 four-byte emoji', () => {
    accepts('TransferRequest', { ...valid, memo: 'm'.repeat(200) });
    accepts('TransferRequest', { ...valid, memo: '🚀'.repeat(50) });
  });
  it('refuses 201 bytes, even in fewer than 200 characters', () => {
    expect(refusal('TransferRequest', { ...valid, memo: `${'🚀'.repeat(50)}x` })).toEqual({
      error: 'validation_error',
      paths: ['/memo'],
    });
    expect(refusal('TransferRequest', { ...valid, memo: 'é'.repeat(101) })).toEqual({
      error: 'validation_error',
      paths: ['/memo'],
    });
  });
});

describe('the operator surface', () => {
  const entry = { address: TO, type: 1, approved_amount: 10, ttl_seconds: 3600 };
  it('accepts an allow-list entry, a protocol entry, limits and an airdrop', () => {
    accepts('WhitelistRequest', { ...entry, label: 'vendor' });
    accepts('WhitelistRequest', { address: TO, type: 2 });
    accepts('WhitelistRequest', { ...entry, ttl_seconds: 10 * 365 * 24 * 3600 });
    accepts('CreateGroupRequest', {});
    accepts('CreateGroupRequest', { default_limits: { daily_limit: '250' } });
    accepts('InvitationRequest', { per_tx_limit: 5, label: 'bot' });
    accepts('LimitsChangeRequest', { hourly_tx_cap: 0 });
    accepts('AirdropRequest', { to: TO, amount: '1000' });
  });
  it.each([
    ['WhitelistRequest', { ...entry, ttl_seconds: 1e13 }, ['/ttl_seconds']],
    ['WhitelistRequest', { ...entry, ttl_seconds: 0 }, ['/ttl_seconds']],
    ['WhitelistRequest', { ...entry, ttl_seconds: 1.5 }, ['/ttl_seconds']],
    ['WhitelistRequest', { ...entry, type: 3 }, ['/type']],
    ['WhitelistRequest', { ...entry, label: 'l'.repeat(101) }, ['/label']],
    ['WhitelistRequest', { ...entry, address: 'nope' }, ['/address']],
    ['WhitelistRequest', { ...entry, extra: 1 }, ['/extra']],
    ['LimitsChangeRequest', null, ['']],
    ['LimitsChangeRequest', {}, ['']],
    ['LimitsChangeRequest', { hourly_tx_cap: 1e7 }, ['/hourly_tx_cap']],
    ['LimitsChangeRequest', { hourly_tx_cap: -1 }, ['/hourly_tx_cap']],
    ['CreateGroupRequest', { default_limits: { hourly_tx_cap: '5' } }, ['/default_limits/hourly_tx_cap']],
    ['EmptyRequest', { reason: 'x' }, ['/reason']],
    ['AirdropRequest', { amount: 1 }, ['/to']],
    ['PathParams', { group: 'g\u0000g' }, ['/group']],
    ['PathParams', { entry: 'short' }, ['/entry']],
  ] as const)('%s refuses %j at %j', (name, body, paths) => {
    expect(refusal(name, body)).toEqual({ error: 'validation_error', paths });
  });
  it('refuses an amount out of range as invalid_amount', () => {
    expect(refusal('AirdropRequest', { to: TO, amount: '18446744073709.551616' }).error).toBe(
      'invalid_amount',
    );
    expect(refusal('LimitsChangeRequest', { daily_limit: 1e300 }).error).toBe('invalid_amount');
  });
});

describe('every schema', () => {
  it.each(Object.keys({ ...CONTRACT_SCHEMAS, ...OPERATOR_SCHEMAS }))(
    '%s compiles in strict mode (a schema that does not is a 500 at its first request)',
    (name) => {
      try {
        validate(name as SchemaName, {});
      } catch (err) {
        expect(err).toBeInstanceOf(ServiceError);
      }
    },
  );
});

describe("an answer's amounts (amountFields)", () => {
  it('are its number properties, nullable ones too; counts and texts are not', () => {
    const answer = {
      type: 'object',
      properties: {
        tx_sig: { type: 'string' },
        net_amount: { type: 'number', minimum: 0 },
        hourly_tx_remaining: { type: 'integer', minimum: 0 },
        recipient_remaining: { type: ['number', 'null'] },
      },
    };
    expect(amountFields(answer)).toEqual(['net_amount', 'recipient_remaining']);
  });

  it("are what the transfer's answer has kept exact since it was written by hand", () => {
    expect(amountFields(TransferResponse)).toEqual(['net_amount', 'protocol_fee', 'daily_remaining']);
    expect(amountFields(VariantSwapResponse)).toEqual([
      'amount_sent',
      'fee',
      'remaining_today',
      'recipient_remaining',
      'output_amount',
    ]);
  });
});
