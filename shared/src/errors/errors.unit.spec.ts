import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOGUE, ERROR_CODES, POLICY_CODES } from './catalogue';
import { ServiceError } from './service-error';
import { withErrorTable } from './table';

const SPEC_CODES = [
  'whitelist_violation',
  'whitelist_expired',
  'whitelist_amount_exhausted',
  'daily_limit_exceeded',
  'per_tx_limit_exceeded',
  'hourly_cap_exceeded',
  'unauthorized',
  'invalid_amount',
  'invalid_mint',
  'invalid_token_account',
  'invalid_fee_account',
  'invalid_invitation_code',
  'idempotency_in_progress',
  'aggregator_unavailable',
  'token_not_in_registry',
  'recipient_invalid',
  'account_not_initialized',
  'insufficient_balance',
  'validation_error',
  'internal_error',
];

describe('the error catalogue', () => {
  it('has every code of the spec, marked as the spec’s', () => {
    expect(ERROR_CODES.filter((c) => ERROR_CATALOGUE[c].origin === 'spec')).toEqual(SPEC_CODES);
  });

  it('maps policy failures to 403, unauthorized to 401, in-flight idempotency to 409, the aggregator to 502, rate limits to 429', () => {
    for (const code of POLICY_CODES) expect(ERROR_CATALOGUE[code].status).toBe(403);
    expect(ERROR_CATALOGUE.unauthorized.status).toBe(401);
    expect(ERROR_CATALOGUE.idempotency_in_progress.status).toBe(409);
    expect(ERROR_CATALOGUE.aggregator_unavailable.status).toBe(502);
    expect(ERROR_CATALOGUE.rate_limited.status).toBe(429);
    for (const code of [
      'invalid_amount',
      'invalid_mint',
      'validation_error',
      'invalid_invitation_code',
    ] as const) {
      expect(ERROR_CATALOGUE[code].status).toBe(400);
    }
  });

  it('keeps an extension only with a reason: every service code says why no spec code fits', () => {
    for (const code of ERROR_CODES) {
      const entry: { origin: string; why?: string } = ERROR_CATALOGUE[code];
      expect({ code, why: entry.origin === 'service' ? (entry.why?.length ?? 0) > 20 : entry.why }).toEqual({
        code,
        why: entry.origin === 'service' ? true : undefined,
      });
    }
    expect(ERROR_CODES.filter((c) => ERROR_CATALOGUE[c].origin === 'service').sort()).toEqual([
      'agent_frozen',
      'approval_expired',
      'approval_rejected',
      'approval_required',
      'conflict',
      'entry_daily_limit_exceeded',
      'forbidden',
      'group_daily_limit_exceeded',
      'group_frozen',
      'group_hourly_tx_cap_exceeded',
      'idempotency_key_reused',
      'not_found',
      'rate_limited',
      'service_unavailable',
      'x402_not_payment_required',
      'x402_payment_refused',
      'x402_payment_unsettled',
      'x402_price_above_max',
      'x402_requirements_unsupported',
      'x402_resource_unavailable',
      'x402_url_refused',
    ]);
  });

  it('renders the envelope: details only on validation_error', () => {
    expect(new ServiceError('daily_limit_exceeded').toBody()).toEqual({
      error: 'daily_limit_exceeded',
      message: ERROR_CATALOGUE.daily_limit_exceeded.message,
    });
    expect(new ServiceError('validation_error', 'bad', [{ path: '/a', issue: 'x' }]).toBody()).toEqual({
      error: 'validation_error',
      message: 'bad',
      details: [{ path: '/a', issue: 'x' }],
    });
    expect(new ServiceError('unauthorized', 'm', [{ path: '/a', issue: 'x' }]).toBody()).not.toHaveProperty(
      'details',
    );
  });

  it('is the same table as docs/errors.md', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/errors.md'), 'utf8');
    expect(withErrorTable(doc)).toBe(doc);
  });
});
