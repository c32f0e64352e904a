import Big from 'big.js';
import { codeOf } from '../errors/testing';
import { checkFunds, classifyChainFailure } from './chain-outcome';
import { authorizeOperator } from './group';
import {
  ABANDONED_CLAIM_MS,
  decideIdempotency,
  idempotencyKeyOf,
  requestFingerprint,
  IDEMPOTENCY_TTL_MS,
} from './idempotency';
import { effectiveRate, swapTerms } from './swap';
import { checkRecipient, isAddress, resolveSwapSide, resolveToken, type TokenRegistry } from './tokens';
import { BASE_MINT, OWNER, STRANGER, T0, address, group } from './testing/fixtures';

const SOL = address('sol');
const REGISTRY: TokenRegistry = [
  { symbol: 'USDC', mint: BASE_MINT, decimals: 6 },
  { symbol: 'SOL', mint: SOL, decimals: 9 },
];

describe('the token registry', () => {
  it('resolves a listed mint, and the base token when no mint is given', () => {
    expect(resolveToken(REGISTRY, SOL, BASE_MINT).symbol).toBe('SOL');
    expect(resolveToken(REGISTRY, undefined, BASE_MINT).symbol).toBe('USDC');
  });
  it('refuses a mint that is not a 32-byte address (invalid_mint) and an unlisted one (token_not_in_registry)', () => {
    expect(codeOf(() => resolveToken(REGISTRY, '1'.repeat(33), BASE_MINT))).toBe('invalid_mint');
    expect(codeOf(() => resolveToken(REGISTRY, STRANGER, BASE_MINT))).toBe('token_not_in_registry');
  });
  it('checks that a swap side’s symbol and mint agree', () => {
    expect(resolveSwapSide(REGISTRY, 'sol', SOL, 'to').mint).toBe(SOL);
    expect(codeOf(() => resolveSwapSide(REGISTRY, 'USDC', SOL, 'from'))).toBe('invalid_mint');
  });
  it('knows an address from a string of the right length that is not one', () => {
    expect(isAddress(OWNER)).toBe(true);
    expect(isAddress('z'.repeat(44))).toBe(false);
    expect(codeOf(() => checkRecipient('z'.repeat(44)))).toBe('recipient_invalid');
  });
});

describe('idempotency', () => {
  const fp = requestFingerprint('transfer', { to: 'a', amount: 1, idempotency_key: 'k' });

  it('fingerprints the body regardless of key order, but not of values', () => {
    expect(requestFingerprint('transfer', { amount: 1, idempotency_key: 'k', to: 'a' })).toBe(fp);
    expect(requestFingerprint('transfer', { to: 'a', amount: 2, idempotency_key: 'k' })).not.toBe(fp);
    expect(requestFingerprint('swap', { to: 'a', amount: 1, idempotency_key: 'k' })).not.toBe(fp);
  });
  it('calls a claim without an answer stale after ABANDONED_CLAIM_MS (its instance may have died)', () => {
    const claim = { fingerprint: fp, intent_id: 'i', created_at: T0 };
    expect(decideIdempotency(claim, fp, T0 + ABANDONED_CLAIM_MS - 1)).toMatchObject({ stale: false });
    expect(decideIdempotency(claim, fp, T0 + ABANDONED_CLAIM_MS)).toMatchObject({
      kind: 'wait',
      stale: true,
    });
  });
  it('proceeds on a new key, waits on a running one, replays a finished one for 24 hours', () => {
    expect(decideIdempotency(undefined, fp, T0)).toEqual({ kind: 'proceed' });
    expect(decideIdempotency({ fingerprint: fp, intent_id: 'i', created_at: T0 }, fp, T0)).toEqual({
      kind: 'wait',
      intent_id: 'i',
      stale: false,
    });
    const done = {
      fingerprint: fp,
      intent_id: 'i',
      created_at: T0,
      response: { status: 200, body: { tx_sig: 's' } },
    };
    expect(decideIdempotency(done, fp, T0 + IDEMPOTENCY_TTL_MS - 1)).toEqual({
      kind: 'replay',
      status: 200,
      body: { tx_sig: 's' },
    });
    expect(decideIdempotency(done, fp, T0 + IDEMPOTENCY_TTL_MS)).toEqual({ kind: 'proceed' });
  });
  it('refuses the same key with another body', () => {
    expect(
      codeOf(() => decideIdempotency({ fingerprint: fp, intent_id: 'i', created_at: T0 }, 'other', T0)),
    ).toBe('idempotency_key_reused');
  });
  it('takes the header when it equals the body key, and refuses one that differs', () => {
    expect(idempotencyKeyOf(undefined, 'k')).toBe('k');
    expect(idempotencyKeyOf('k', 'k')).toBe('k');
    expect(codeOf(() => idempotencyKeyOf('h', 'k'))).toBe('validation_error');
  });
});

describe('swap terms', () => {
  const quote = { in_amount: new Big(10), out_amount: new Big('0.0612345678') };
  it('take the quoted output less the slippage, rounded down to the output precision', () => {
    const terms = swapTerms(quote, { slippage_bps: 50, out_decimals: 9 });
    expect(terms.minimum_amount_out.toFixed()).toBe('0.060928');
    expect(terms.quoted_rate.toFixed()).toBe('0.00612345678');
  });
  it('keep a caller minimum at or below the quote, refuse one above it', () => {
    expect(
      swapTerms(quote, {
        minimum_amount_out: new Big('0.06'),
        slippage_bps: 50,
        out_decimals: 9,
      }).minimum_amount_out.toFixed(),
    ).toBe('0.06');
    expect(
      codeOf(() =>
        swapTerms(quote, { minimum_amount_out: new Big('0.07'), slippage_bps: 50, out_decimals: 9 }),
      ),
    ).toBe('validation_error');
  });
  it('without a quote, the aggregator is unavailable', () => {
    expect(codeOf(() => swapTerms(undefined, { slippage_bps: 50, out_decimals: 6 }))).toBe(
      'aggregator_unavailable',
    );
  });
  it('report the effective rate at 6 decimals', () => {
    expect(effectiveRate(new Big(3), new Big(1)).toFixed()).toBe('0.333333');
  });
});

describe('chain outcomes', () => {
  it('check funds before submitting', () => {
    expect(codeOf(() => checkFunds({ exists: false, balance: new Big(0) }, new Big(1)))).toBe(
      'account_not_initialized',
    );
    expect(codeOf(() => checkFunds({ exists: true, balance: new Big('0.999999') }, new Big(1)))).toBe(
      'insufficient_balance',
    );
    expect(codeOf(() => checkFunds({ exists: true, balance: new Big(1) }, new Big(1)))).toBe('ok');
  });
  it.each([
    [
      { logs: ['Program log: Error: insufficient funds', 'custom program error: 0x1'] },
      undefined,
      'insufficient_balance',
    ],
    [{ error: 'AccountNotFound' }, undefined, 'account_not_initialized'],
    [
      { logs: ['Program log: Error: owner does not match', 'custom program error: 0x4'] },
      undefined,
      'invalid_token_account',
    ],
    [{ logs: ['custom program error: 0x3'] }, 'fee', 'invalid_fee_account'],
    [{ error: 'BlockhashNotFound' }, undefined, 'internal_error'],
  ] as const)('maps %j to %s', (failure, role, code) => {
    expect(classifyChainFailure(failure, role)).toBe(code);
  });
});

describe('operator authorisation', () => {
  it('lets the owner act, forbids another wallet, and knows no missing group', () => {
    expect(codeOf(() => authorizeOperator(group(), OWNER))).toBe('ok');
    expect(codeOf(() => authorizeOperator(group(), STRANGER))).toBe('forbidden');
  });
});
