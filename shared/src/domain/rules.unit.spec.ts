import Big from 'big.js';
import bs58 from 'bs58';
import { codeOf, thrownBy } from '@tokenops/testing/errors';
import { createHash } from 'node:crypto';
import { checkFunds, classifyChainFailure } from './chain-outcome';
import { streams } from './events';
import { authorizeOperator } from './group';
import {
  ABANDONED_CLAIM_MS,
  decideIdempotency,
  idempotencyKeyOf,
  keyIsFree,
  requestFingerprint,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyRecord,
} from './idempotency';
import { evolveIdempotency, type IdempotencyEvent } from './idempotency-events';
import { sameDigest, secretDigest } from './secrets';
import { effectiveRate, swapTerms } from './swap';
import {
  checkRecipient,
  isAddress,
  resolveSwapSide,
  resolveToken,
  tokenByMint,
  type TokenRegistry,
} from './tokens';
import { BASE_MINT, OWNER, STRANGER, T0, address, group } from '@tokenops/testing/domain/fixtures';

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
  it('finds a listed token by its mint, and nothing for a mint it does not list', () => {
    expect(tokenByMint(REGISTRY, SOL)).toEqual({ symbol: 'SOL', mint: SOL, decimals: 9 });
    expect(tokenByMint(REGISTRY, STRANGER)).toBeUndefined();
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
  it('refuses a non-base58 address: 0, O, I and l are not in the alphabet', () => {
    const notBase58 = `0OIl${OWNER.slice(4)}`;
    expect(isAddress(notBase58)).toBe(false);
    expect(codeOf(() => checkRecipient(notBase58))).toBe('recipient_invalid');
    expect(codeOf(() => resolveToken(REGISTRY, notBase58, BASE_MINT))).toBe('invalid_mint');
  });
  it('takes an address as exactly 32 bytes: 31 or 33 are refused', () => {
    expect(isAddress(bs58.encode(Buffer.alloc(32, 7)))).toBe(true);
    expect(isAddress(bs58.encode(Buffer.alloc(31, 7)))).toBe(false);
    expect(isAddress(bs58.encode(Buffer.alloc(33, 7)))).toBe(false);
    expect(codeOf(() => checkRecipient(STRANGER))).toBe('ok');
  });
});

describe('idempotency', () => {
  const fp = requestFingerprint('transfer', { to: 'a', amount: 1, idempotency_key: 'k' });

  it('fingerprints the body regardless of key order, but not of values', () => {
    expect(requestFingerprint('transfer', { amount: 1, idempotency_key: 'k', to: 'a' })).toBe(fp);
    expect(requestFingerprint('transfer', { to: 'a', amount: 2, idempotency_key: 'k' })).not.toBe(fp);
    expect(requestFingerprint('swap', { to: 'a', amount: 1, idempotency_key: 'k' })).not.toBe(fp);
  });
  it('fingerprints nested bodies in full: array order and null count, key order and absent fields do not', () => {
    const body = { to: 'a', params: { x: 1, y: [1, 2] } };
    const fp = requestFingerprint('swap', body);
    expect(requestFingerprint('swap', { params: { y: [1, 2], x: 1 }, to: 'a', memo: undefined })).toBe(fp);
    expect(requestFingerprint('swap', { to: 'a', params: { x: 1, y: [2, 1] } })).not.toBe(fp);
    expect(requestFingerprint('swap', { to: 'a', params: { x: 1, y: [1, 2] }, memo: null })).not.toBe(fp);
    expect(requestFingerprint('swap', { to: 'a', params: { x: '1', y: [1, 2] } })).not.toBe(fp);
  });
  it('keeps array items apart: [1, 2] is not [12]', () => {
    expect(requestFingerprint('swap', { y: [1, 2] })).not.toBe(requestFingerprint('swap', { y: [12] }));
  });
  it('keeps the operation apart from the body: ("x1", 2) is not ("x", 12)', () => {
    expect(requestFingerprint('x1', 2)).not.toBe(requestFingerprint('x', 12));
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
  it('a key may be claimed when never claimed, or once its record is 24 hours old', () => {
    const claim = { fingerprint: fp, intent_id: 'i', created_at: T0 };
    expect(keyIsFree(undefined, T0)).toBe(true);
    expect(keyIsFree(claim, T0 + IDEMPOTENCY_TTL_MS - 1)).toBe(false);
    expect(keyIsFree(claim, T0 + IDEMPOTENCY_TTL_MS)).toBe(true);
  });
  it('refuses the same key with another body', () => {
    expect(
      codeOf(() => decideIdempotency({ fingerprint: fp, intent_id: 'i', created_at: T0 }, 'other', T0)),
    ).toBe('idempotency_key_reused');
  });
  it('takes the header when it equals the body key, and refuses one that differs', () => {
    expect(idempotencyKeyOf(undefined, 'k')).toBe('k');
    expect(idempotencyKeyOf('k', 'k')).toBe('k');
    expect(thrownBy(() => idempotencyKeyOf('h', 'k')).details?.map((d) => d.path)).toEqual([
      '/idempotency_key',
    ]);
  });
});

describe('the idempotency record of a key, folded from its own stream', () => {
  const fold = (events: IdempotencyEvent[]) =>
    events.reduce<IdempotencyRecord | undefined>(evolveIdempotency, undefined);
  const claimed: IdempotencyEvent = {
    type: 'idempotency.claimed',
    data: { fingerprint: 'fp', intent_id: 'i', at: T0 },
  };
  const completed = (intent_id: string): IdempotencyEvent => ({
    type: 'idempotency.completed',
    data: { intent_id, status: 201, body: { intent_id }, at: T0 + 1 },
  });

  it('a claim holds the key for its intent until the answer completes it; then the answer is replayed', () => {
    expect(fold([claimed])).toEqual({ fingerprint: 'fp', intent_id: 'i', created_at: T0 });
    expect(decideIdempotency(fold([claimed]), 'fp', T0 + 1)).toEqual({
      kind: 'wait',
      intent_id: 'i',
      stale: false,
    });
    expect(decideIdempotency(fold([claimed, completed('i')]), 'fp', T0 + 1)).toEqual({
      kind: 'replay',
      status: 201,
      body: { intent_id: 'i' },
    });
  });

  it('an answer for another intent (from an instance whose claim was taken over) changes nothing', () => {
    expect(fold([claimed, completed('other')])).toEqual(fold([claimed]));
    expect(fold([completed('i')])).toBeUndefined();
  });

  it('a released claim frees the key: the next request proceeds', () => {
    const released: IdempotencyEvent = { type: 'idempotency.released', data: { intent_id: 'i', at: T0 + 1 } };
    expect(decideIdempotency(fold([claimed, released]), 'fp', T0 + 2)).toEqual({ kind: 'proceed' });
  });

  it('each agent and key has its own stream, named by the key’s digest, never the key', () => {
    const stream = streams.idempotency('agent-1', 'my-secret-key');
    expect(stream).toBe(`idem-agent-1-${secretDigest('my-secret-key')}`);
    expect(stream).not.toContain('my-secret-key');
    expect(streams.idempotency('agent-2', 'my-secret-key')).not.toBe(stream);
  });
});

describe('secrets and stream names', () => {
  it('keeps a secret as its SHA-256 digest in hex, the same on every version', () => {
    expect(secretDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(secretDigest('é')).toBe(createHash('sha256').update(Buffer.from('é', 'utf8')).digest('hex'));
  });

  it('compares digests: equal only when equal, and a digest of another length is simply not the same', () => {
    expect(sameDigest(secretDigest('a'), secretDigest('a'))).toBe(true);
    expect(sameDigest(secretDigest('a'), secretDigest('b'))).toBe(false);
    expect(sameDigest('abc', 'abcd')).toBe(false);
  });

  it('names each stream by its category and id', () => {
    expect(streams.group('g-1')).toBe('group-g-1');
    expect(streams.agent('a-1')).toBe('agent-a-1');
    expect(streams.budget('e-1')).toBe('budget-e-1');
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
  it('round the minimum down to an output token with fewer than 6 decimals, never up', () => {
    const terms = swapTerms(
      { in_amount: new Big(1), out_amount: new Big('12.349') },
      { slippage_bps: 0, out_decimals: 2 },
    );
    expect(terms.minimum_amount_out.toFixed()).toBe('12.34');
    expect(
      swapTerms(
        { in_amount: new Big(1), out_amount: new Big('100') },
        { slippage_bps: 100, out_decimals: 6 },
      ).minimum_amount_out.toFixed(),
    ).toBe('99');
  });
  it('accept a caller minimum equal to the quote: the transaction can still land', () => {
    const terms = swapTerms(quote, {
      minimum_amount_out: quote.out_amount,
      slippage_bps: 50,
      out_decimals: 9,
    });
    expect(terms.minimum_amount_out.toFixed()).toBe('0.0612345678');
  });
  it('refuse a caller minimum above the quote at /minimum_amount_out', () => {
    const err = thrownBy(() =>
      swapTerms(quote, { minimum_amount_out: new Big('0.0612345679'), slippage_bps: 50, out_decimals: 9 }),
    );
    expect(err.code).toBe('validation_error');
    expect(err.details?.map((d) => d.path)).toEqual(['/minimum_amount_out']);
  });
  it('call a quote of nothing out the aggregator being unavailable', () => {
    expect(
      codeOf(() =>
        swapTerms({ in_amount: new Big(1), out_amount: new Big(0) }, { slippage_bps: 50, out_decimals: 6 }),
      ),
    ).toBe('aggregator_unavailable');
    expect(
      codeOf(() =>
        swapTerms(
          { in_amount: new Big(1), out_amount: new Big('0.000001') },
          { slippage_bps: 0, out_decimals: 6 },
        ),
      ),
    ).toBe('ok');
  });
  it('round the effective rate down, and call it 0 when nothing was paid', () => {
    expect(effectiveRate(new Big(3), new Big(2)).toFixed()).toBe('0.666666');
    expect(effectiveRate(new Big('0.5'), new Big(2)).toFixed()).toBe('4');
    expect(effectiveRate(new Big(0), new Big(2)).toFixed()).toBe('0');
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
    [{ error: 'Transfer: insufficient funds' }, undefined, 'insufficient_balance'],
    [{ logs: ['custom program error: 0x10'] }, undefined, 'internal_error'],
    [{ logs: ['custom program error: 0x40'] }, 'fee', 'internal_error'],
    [{ logs: ['Program log: could not find account'] }, undefined, 'account_not_initialized'],
    [{ error: 'account not found' }, undefined, 'account_not_initialized'],
    [{ error: 'InvalidAccountData' }, undefined, 'account_not_initialized'],
    [{ logs: ['Program log: Error: UninitializedAccount'] }, undefined, 'account_not_initialized'],
    [{ logs: ['Program log: Error: Mint mismatch'] }, undefined, 'invalid_token_account'],
    [{ logs: ['custom program error: 0x3'] }, undefined, 'invalid_token_account'],
    [{ logs: ['Program log: Error: owner does not match'] }, 'fee', 'invalid_fee_account'],
    [{}, undefined, 'internal_error'],
  ] as const)('maps %j to %s', (failure, role, code) => {
    expect(classifyChainFailure(failure, role)).toBe(code);
  });
  it('reads each log line on its own: a code that ends one line is still that code', () => {
    const logs = ['Program log: custom program error: 0x1', 'Program consumed 4512 of 200000 compute units'];
    expect(classifyChainFailure({ logs })).toBe('insufficient_balance');
  });
});

describe('operator authorisation', () => {
  it('lets the owner act, forbids another wallet, and knows no missing group', () => {
    expect(codeOf(() => authorizeOperator(group(), OWNER))).toBe('ok');
    expect(codeOf(() => authorizeOperator(group(), STRANGER))).toBe('forbidden');
  });
});
