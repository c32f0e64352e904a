/**
 * x402's pure parts: which requirement is paid and why the others are not, the fee on top of the
 * price, the decision of an x402 transfer, and its settlement (a landed payment is never given back
 * as room, whatever becomes of its fee).
 */
import Big from 'big.js';
import { encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types';
import {
  AGENT_A,
  BASE_MINT,
  T0,
  VENDOR,
  agent,
  group,
  registered,
  transfer,
} from '@tokenops/testing/domain/fixtures';
import { thrownBy } from '@tokenops/testing/errors';
import { evolveAgent } from '../domain/agent';
import type { AgentEvent, IntentData } from '../domain/events';
import { decideIntent, decideSettleIntent } from '../domain/intent';
import { feeOnTop } from '../money';
import { chooseRequirement, readPaymentRequired, SOLANA_NETWORKS } from './requirements';

const FEE_PAYER = 'GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW';
const registry = [{ symbol: 'USDC', mint: BASE_MINT, decimals: 6 }];
const exact = (over: Partial<PaymentRequirements> = {}): PaymentRequirements => ({
  scheme: 'exact',
  network: SOLANA_NETWORKS.devnet,
  asset: BASE_MINT,
  amount: '250000',
  payTo: VENDOR,
  maxTimeoutSeconds: 60,
  extra: { feePayer: FEE_PAYER },
  ...over,
});
const required = (...accepts: PaymentRequirements[]): PaymentRequired => ({
  x402Version: 2,
  resource: { url: 'https://r.example/report' },
  accepts,
});

describe('reading and choosing requirements', () => {
  it('reads the PAYMENT-REQUIRED header as @x402/core encodes it', () => {
    const header = encodePaymentRequiredHeader(required(exact()));
    expect(readPaymentRequired(header).accepts[0]).toEqual(exact());
  });
  it('refuses another x402 version, and a 402 without the header', () => {
    const v1 = Buffer.from(JSON.stringify({ x402Version: 1, accepts: [] })).toString('base64');
    expect(thrownBy(() => readPaymentRequired(v1)).code).toBe('x402_requirements_unsupported');
    expect(thrownBy(() => readPaymentRequired(undefined)).code).toBe('x402_resource_unavailable');
    expect(thrownBy(() => readPaymentRequired('not base64 json')).code).toBe('x402_resource_unavailable');
  });
  it('chooses the exact requirement on the service network in a registry token, with its price', () => {
    const chosen = chooseRequirement(
      required(exact({ scheme: 'upto' }), exact({ network: SOLANA_NETWORKS.mainnet }), exact()),
      SOLANA_NETWORKS.devnet,
      registry,
    );
    expect(chosen.requirement).toEqual(exact());
    expect(chosen.price).toEqual(new Big('0.25'));
    expect(chosen.feePayer).toBe(FEE_PAYER);
  });
  it.each([
    ['a scheme other than exact', exact({ scheme: 'upto' }), /scheme upto/],
    ['another network', exact({ network: SOLANA_NETWORKS.mainnet }), /network solana:5eykt/],
    ['a token outside the registry', exact({ asset: FEE_PAYER }), /not in the token registry/],
    ['an amount that is not whole base units', exact({ amount: '0.5' }), /amount 0.5/],
    ['a zero amount', exact({ amount: '0' }), /amount 0 /],
    ['a payTo that is not an address', exact({ payTo: 'nobody' }), /payTo nobody/],
    ['no fee payer', exact({ extra: {} }), /feePayer/],
  ])('refuses %s, saying why', (_name, requirement, reason) => {
    const err = thrownBy(() => chooseRequirement(required(requirement), SOLANA_NETWORKS.devnet, registry));
    expect(err.code).toBe('x402_requirements_unsupported');
    expect(err.message).toMatch(reason);
  });
});

describe('the fee on top', () => {
  it('is 0.10 % of the price, rounded half-up; the payee gets the price in full', () => {
    expect(feeOnTop(new Big('0.25'), 6)).toEqual({
      amount: new Big('0.25025'),
      protocol_fee: new Big('0.00025'),
      net_amount: new Big('0.25'),
    });
    expect(feeOnTop(new Big('0.0005'), 6).protocol_fee).toEqual(new Big('0.000001'));
    expect(feeOnTop(new Big('0.0004'), 6).protocol_fee).toEqual(new Big(0));
  });
});

describe('an x402 transfer', () => {
  const terms = {
    url: 'https://r.example/report',
    method: 'GET',
    payment_required: {},
    requirement: {},
    price: '0.25',
  };
  const decided = () => {
    const d = decideIntent(transfer('0.25025', { counterparty: VENDOR, x402: terms }), {
      group: group(),
      agent: agent([registered(AGENT_A)]),
    });
    expect(d.accepted).toBe(true);
    return d.agentEvents;
  };

  it('is decided as a transfer to payTo of the price plus the fee, the fee on top', () => {
    const data = decided()[0]!.data as Extract<IntentData, { action: 'transfer' }>;
    expect(data).toMatchObject({
      action: 'transfer',
      amount: '0.25025',
      net_amount: '0.25',
      protocol_fee: '0.00025',
      counterparty: VENDOR,
      x402: terms,
    });
  });

  it('once its payment landed, a failure of the rest confirms it by the payment: its room is never given back', () => {
    const accepted = decided();
    const id = (accepted[0]!.data as IntentData).intent_id;
    const paid: AgentEvent[] = [
      {
        type: 'x402.payment_signed',
        data: {
          intent_id: id,
          agent_id: AGENT_A,
          header: 'h',
          signature: 's',
          last_valid_block_height: '9',
          at: T0,
        },
      },
      {
        type: 'x402.payment_settled',
        data: {
          intent_id: id,
          agent_id: AGENT_A,
          group_id: 'group-1',
          url: terms.url,
          pay_to: VENDOR,
          amount: '0.25',
          mint: BASE_MINT,
          tx_sig: 'payment-tx',
          resource: { status: 200, headers: {}, body: 'ok' },
          at: T0,
        },
      },
    ];
    const state = [...accepted, ...paid].reduce(evolveAgent, agent([registered(AGENT_A)]));
    const failed = decideSettleIntent(
      { intent_id: id, outcome: { status: 'failed', code: 'insufficient_balance', message: 'x' }, now: T0 },
      state,
    );
    expect(failed[0]).toMatchObject({
      type: 'intent.confirmed',
      data: { tx_sig: 'payment-tx', resource: { status: 200 } },
    });
    expect(failed[0]!.data).not.toHaveProperty('fee_tx_sig');
    const confirmed = decideSettleIntent(
      { intent_id: id, outcome: { status: 'confirmed', tx_sig: 'fee-tx' }, now: T0 },
      state,
    );
    expect(confirmed[0]!.data).toMatchObject({ tx_sig: 'payment-tx', fee_tx_sig: 'fee-tx' });
  });

  it('without a landed payment, a failure fails it', () => {
    const accepted = decided();
    const id = (accepted[0]!.data as IntentData).intent_id;
    const state = accepted.reduce(evolveAgent, agent([registered(AGENT_A)]));
    expect(
      decideSettleIntent(
        { intent_id: id, outcome: { status: 'failed', code: 'x402_payment_refused', message: 'x' }, now: T0 },
        state,
      )[0]!.type,
    ).toBe('intent.failed');
  });
});
